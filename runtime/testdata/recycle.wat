;; recycle: a libFuzzer-style module for restore mode's recycling of a
;; discarded instance's memory. malloc changes a byte of the data segment
;; (initialisation differs from the data wazero writes). An input of at
;; least 7 bytes is op, a little-endian u32 address a, a byte v and a byte
;; k: every op stores v at a (a trap when out of bounds); 'g' then grows
;; memory by k%4+1 pages, returns 1 (invalid) if the new pages are not all
;; zero and fills them with 0xAA; 't' then traps. Shorter inputs are valid
;; no-ops. Rebuild: wat2wasm -o recycle.wasm recycle.wat (Debian wabt).
(module
  (memory (export "memory") 2)
  (data (i32.const 512) "initial data, changed by malloc")
  (global $heap (mut i32) (i32.const 4096))
  (func (export "malloc") (param $n i32) (result i32)
    (local $p i32)
    (i32.store8 (i32.const 512) (i32.const 0x58))
    (local.set $p (global.get $heap))
    (global.set $heap (i32.add (global.get $heap) (local.get $n)))
    (local.get $p))
  (func (export "LLVMFuzzerTestOneInput") (param $p i32) (param $n i32) (result i32)
    (local $op i32) (local $old i32) (local $i i32) (local $end i32)
    (if (i32.lt_u (local.get $n) (i32.const 7)) (then (return (i32.const 0))))
    (local.set $op (i32.load8_u (local.get $p)))
    (i32.store8 (i32.load offset=1 (local.get $p)) (i32.load8_u offset=5 (local.get $p)))
    (if (i32.eq (local.get $op) (i32.const 0x67))
      (then
        (local.set $old (memory.grow (i32.add (i32.and (i32.load8_u offset=6 (local.get $p)) (i32.const 3)) (i32.const 1))))
        (if (i32.eq (local.get $old) (i32.const -1)) (then (return (i32.const 2))))
        (local.set $i (i32.mul (local.get $old) (i32.const 65536)))
        (local.set $end (i32.mul (memory.size) (i32.const 65536)))
        (block $done
          (loop $scan
            (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
            (if (i64.ne (i64.load (local.get $i)) (i64.const 0)) (then (return (i32.const 1))))
            (local.set $i (i32.add (local.get $i) (i32.const 8)))
            (br $scan)))
        (memory.fill (i32.mul (local.get $old) (i32.const 65536)) (i32.const 0xAA)
          (i32.sub (local.get $end) (i32.mul (local.get $old) (i32.const 65536))))))
    (if (i32.eq (local.get $op) (i32.const 0x74)) (then unreachable))
    (i32.const 0)))
