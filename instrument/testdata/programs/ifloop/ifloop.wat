;; ifloop: a hand-written module for wafer's hand-checked counter test
;; (realprog_wat_test.go): a loop with a br_if exit and an if without else,
;; and a br_table with two labels and a default. Rebuild: ../build.sh
(module
  (memory 1)
  ;; classify(n) counts the odd numbers below n.
  (func $classify (export "classify") (param $n i32) (result i32)
    (local $i i32) (local $odd i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (if (i32.and (local.get $i) (i32.const 1))
          (then (local.set $odd (i32.add (local.get $odd) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $odd))
  ;; pick(k) is 10, 20 or 30 for k = 0, 1, anything else.
  (func $pick (export "pick") (param $k i32) (result i32)
    (block $c
      (block $b
        (block $a
          (br_table $a $b $c (local.get $k)))
        (return (i32.const 10)))
      (return (i32.const 20)))
    (i32.const 30)))
