;; noharness: exports nothing wafer can drive.
(module
  (memory (export "memory") 1)
  (func (export "parse") (param i32 i32) (result i32) (i32.const 0)))
