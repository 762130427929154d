;; lazy: a libFuzzer-style harness that sets up state on its first call, as
;; many do (a decoder context, tables): the first time it runs, the empty
;; input included, it grows memory by a page for that state. Every input
;; is valid. Rebuild: wat2wasm -o lazy.wasm lazy.wat (Debian wabt).
(module
  (memory (export "memory") 2)
  (global $state (mut i32) (i32.const 0))
  (func (export "malloc") (param $n i32) (result i32) (i32.const 1024))
  (func (export "LLVMFuzzerTestOneInput") (param $p i32) (param $n i32) (result i32)
    (if (i32.eqz (global.get $state))
      (then (global.set $state (i32.mul (memory.grow (i32.const 1)) (i32.const 65536)))))
    (i32.store8 (global.get $state) (local.get $n))
    (i32.const 0)))
