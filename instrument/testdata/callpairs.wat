;; Indirect calls for Options.CallPairs: two call sites ("a" and "b") and a
;; tail call ("tail") through a table of four functions.
(module
  (type $v (func (result i32)))
  (table 4 funcref)
  (elem (i32.const 0) $f0 $f1 $f2 $f3)
  (func $f0 (result i32) i32.const 10)
  (func $f1 (result i32) i32.const 11)
  (func $f2 (result i32) i32.const 12)
  (func $f3 (result i32) i32.const 13)
  (func (export "a") (param i32) (result i32) local.get 0 call_indirect (type $v))
  (func (export "b") (param i32) (result i32) local.get 0 call_indirect (type $v))
  (func (export "tail") (param i32) (result i32) local.get 0 return_call_indirect (type $v))
  (memory 1))
