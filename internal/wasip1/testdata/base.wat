;; base.wat: a WASI command laid out the way instrument/ leaves a module.
;; Its target memory starts at real address 65536 (one reserved page):
;; every load/store carries offset=65536 and the data segment sits at
;; 65536+0x800, while the pointers it hands to WASI are target addresses.
;; Run with State.Base = 65536 it must see exactly what an unshifted
;; module sees, and the host must never touch real page 0.
;;
;; Target addresses used:
;;   0x100 argc, 0x104 argv_buf size, 0x180 ciovec, 0x190 nread/nwritten,
;;   0x200 argv[], 0x300 argv_buf, 0x400 random (16), 0x500 clock (8),
;;   0x600 stdin buffer (64), 0x800 message.
;;
;; Output: stdout = argv_buf (NUL-separated) ++ 16 random bytes ++
;; "hello from base\n" ++ monotonic clock (u64 LE); stderr = first 64
;; bytes of stdin; exit code 3. Exit codes 100+ flag a failed check.
(module
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock_time_get (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (memory (export "memory") 2)
  (data (i32.const 0x10800) "hello from base\n")

  ;; check exits with code when errno is non-zero.
  (func $check (param $errno i32) (param $code i32)
    (if (local.get $errno) (then (call $proc_exit (local.get $code)))))

  ;; write(fd, ptr, len) through a one-entry ciovec at 0x180.
  (func $write (param $fd i32) (param $ptr i32) (param $len i32) (result i32)
    (i32.store offset=65536 (i32.const 0x180) (local.get $ptr))
    (i32.store offset=65536 (i32.const 0x184) (local.get $len))
    (call $fd_write (local.get $fd) (i32.const 0x180) (i32.const 1) (i32.const 0x190)))

  (func (export "_start")
    (call $check (call $args_sizes_get (i32.const 0x100) (i32.const 0x104)) (i32.const 100))
    (call $check (call $args_get (i32.const 0x200) (i32.const 0x300)) (i32.const 101))
    ;; argv[0] must be the target address of argv_buf.
    (if (i32.ne (i32.load offset=65536 (i32.const 0x200)) (i32.const 0x300))
      (then (call $proc_exit (i32.const 103))))
    (call $check (call $write (i32.const 1) (i32.const 0x300) (i32.load offset=65536 (i32.const 0x104))) (i32.const 102))
    ;; nwritten must equal the size.
    (if (i32.ne (i32.load offset=65536 (i32.const 0x190)) (i32.load offset=65536 (i32.const 0x104)))
      (then (call $proc_exit (i32.const 104))))
    (call $check (call $random_get (i32.const 0x400) (i32.const 16)) (i32.const 105))
    (call $check (call $write (i32.const 1) (i32.const 0x400) (i32.const 16)) (i32.const 106))
    (call $check (call $write (i32.const 1) (i32.const 0x800) (i32.const 16)) (i32.const 107))
    (call $check (call $clock_time_get (i32.const 1) (i64.const 0) (i32.const 0x500)) (i32.const 108))
    (call $check (call $write (i32.const 1) (i32.const 0x500) (i32.const 8)) (i32.const 109))
    ;; read up to 64 bytes of stdin into 0x600 and echo them to stderr.
    (i32.store offset=65536 (i32.const 0x180) (i32.const 0x600))
    (i32.store offset=65536 (i32.const 0x184) (i32.const 64))
    (call $check (call $fd_read (i32.const 0) (i32.const 0x180) (i32.const 1) (i32.const 0x190)) (i32.const 110))
    (call $check (call $write (i32.const 2) (i32.const 0x600) (i32.load offset=65536 (i32.const 0x190))) (i32.const 111))
    (call $proc_exit (i32.const 3)))
)
