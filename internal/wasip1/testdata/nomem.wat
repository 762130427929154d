;; nomem.wat: a module without memory calling WASI: every pointer faults.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "sched_yield" (func $sched_yield (result i32)))
  (func (export "write") (result i32)
    (call $fd_write (i32.const 1) (i32.const 0) (i32.const 0) (i32.const 0)))
  (func (export "yield") (result i32) (call $sched_yield))
)
