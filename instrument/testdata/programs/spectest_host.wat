;; The "spectest" module the core test scripts import (the reference
;; interpreter's host module): constant globals, a table, a memory and
;; print functions that ignore their arguments. Rebuild: ./build.sh
(module $spectest
  (memory (export "memory") 1 2)
  (table (export "table") 10 20 funcref)
  (global (export "global_i32") i32 (i32.const 666))
  (global (export "global_i64") i64 (i64.const 666))
  (global (export "global_f32") f32 (f32.const 666.6))
  (global (export "global_f64") f64 (f64.const 666.6))
  (func (export "print"))
  (func (export "print_i32") (param i32))
  (func (export "print_i64") (param i64))
  (func (export "print_f32") (param f32))
  (func (export "print_f64") (param f64))
  (func (export "print_i32_f32") (param i32 f32))
  (func (export "print_f64_f64") (param f64 f64)))
