;; Comparisons the log takes apart from plain compare instructions: a
;; binary128 comparison call (compiler-rt's name), LLVM's 128-bit equality
;; idiom, and a switch of six cases.
(module
  (memory 1)
  (func $__letf2 (param i64 i64 i64 i64) (result i32)
    (i32.sub (i32.wrap_i64 (local.get 1)) (i32.wrap_i64 (local.get 3))))
  ;; x <= 3.25L, x's halves the parameters
  (func (export "ld") (param i64 i64) (result i32)
    (call $__letf2 (local.get 0) (local.get 1) (i64.const 0) (i64.const 0x4000a00000000000)))
  ;; x == 0x0123456789abcdef_fedcba9876543210
  (func (export "x128") (param i64 i64) (result i32)
    (i64.eqz (i64.or
      (i64.xor (local.get 0) (i64.const 0xfedcba9876543210))
      (i64.xor (local.get 1) (i64.const 0x0123456789abcdef)))))
  ;; a switch on 1000..1005
  (func (export "sw6") (param i32) (result i32)
    (block (block (block (block (block (block (block
      (br_table 0 1 2 3 4 5 6 (i32.sub (local.get 0) (i32.const 1000))))
      (return (i32.const 10))) (return (i32.const 11))) (return (i32.const 12)))
      (return (i32.const 13))) (return (i32.const 14))) (return (i32.const 15)))
    (i32.const 0))
)
