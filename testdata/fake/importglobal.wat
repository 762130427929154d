;; importglobal: imports a global wafer cannot provide.
(module
  (import "env" "g" (global i32))
  (memory (export "memory") 1)
  (func (export "malloc") (param i32) (result i32) (i32.const 16))
  (func (export "LLVMFuzzerTestOneInput") (param i32 i32) (result i32) (global.get 0)))
