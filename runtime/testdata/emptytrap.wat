;; emptytrap: a libFuzzer-style harness that traps on the empty input and
;; accepts every other. Rebuild: wat2wasm -o emptytrap.wasm emptytrap.wat.
(module
  (memory (export "memory") 1)
  (func (export "malloc") (param $n i32) (result i32) (i32.const 1024))
  (func (export "LLVMFuzzerTestOneInput") (param $p i32) (param $n i32) (result i32)
    (if (i32.eqz (local.get $n)) (then unreachable))
    (i32.const 0)))
