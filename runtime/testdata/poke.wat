;; poke: a libFuzzer-style module whose input is a little-endian u32 target
;; address and a byte: LLVMFuzzerTestOneInput stores input[4] at that
;; address (a trap when it is out of bounds), so runtime's restore tests can
;; dirty any byte of memory. Inputs shorter than 5 bytes are invalid.
;; Rebuild: wat2wasm -o poke.wasm poke.wat (Debian wabt).
(module
  (memory (export "memory") 4)
  (global $heap (mut i32) (i32.const 1024))
  (func (export "malloc") (param $n i32) (result i32)
    (local $p i32)
    (local.set $p (global.get $heap))
    (global.set $heap (i32.add (global.get $heap) (local.get $n)))
    (local.get $p))
  (func (export "LLVMFuzzerTestOneInput") (param $p i32) (param $n i32) (result i32)
    (if (i32.lt_u (local.get $n) (i32.const 5)) (then (return (i32.const -1))))
    (i32.store8 (i32.load (local.get $p)) (i32.load8_u offset=4 (local.get $p)))
    (i32.const 0)))
