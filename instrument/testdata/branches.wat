;; Branch fixture: every site kind, hand-checked counters in instrument_test.go.
(module
  (memory 1)
  (func $classify (export "classify") (param $x i32) (result i32)
    (local $r i32)
    ;; if without else
    (if (i32.gt_s (local.get $x) (i32.const 10))
      (then (local.set $r (i32.const 100))))
    ;; if with else
    (if (i32.and (local.get $x) (i32.const 1))
      (then (local.set $r (i32.add (local.get $r) (i32.const 1))))
      (else (local.set $r (i32.add (local.get $r) (i32.const 2)))))
    ;; br_if
    (block $b
      (br_if $b (i32.eq (local.get $x) (i32.const 1234)))
      (local.set $r (i32.add (local.get $r) (i32.const 10))))
    ;; br_table with 3 arms + default, one label repeated
    (block $d
      (block $c1
        (block $c0
          (br_table $c0 $c1 $c0 $d (local.get $x)))
        (local.set $r (i32.add (local.get $r) (i32.const 1000)))
        (br $d))
      (local.set $r (i32.add (local.get $r) (i32.const 2000))))
    (local.get $r))
  ;; br_if and br_table carrying a value
  (func (export "valued") (param $x i32) (result i32)
    (block $out (result i32)
      (drop (br_if $out (i32.const 5) (i32.eqz (local.get $x))))
      (block $a (result i32)
        (br_table $a $out (i32.const 7) (local.get $x)))
      (i32.const 1)
      (i32.add)))
  (func (export "calls") (param $n i32) (result i32)
    (local $i i32)
    (loop $l
      (drop (call $classify (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
    (local.get $i))
)
