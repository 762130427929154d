;; Leaf loop nests (nest.go): every way of leaving a nest, with hand-checked
;; counters in nest_test.go.
(module
  (memory 1)
  ;; falls through the loop's end
  (func $sum (export "sum") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (loop $l
      (if (i32.and (local.get $i) (i32.const 1))
        (then (local.set $s (i32.add (local.get $s) (local.get $i)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
    (local.get $s))
  ;; leaves from the inner loop by br_if past both loops, or by return
  (func $nested (export "nested") (param $n i32) (result i32)
    (local $i i32) (local $j i32)
    (block $done
      (loop $outer
        (local.set $j (i32.const 0))
        (loop $inner
          (br_if $done (i32.eq (local.get $i) (i32.const 7)))
          (if (i32.eq (local.get $j) (i32.const 100))
            (then (return (i32.const -1))))
          (local.set $j (i32.add (local.get $j) (i32.const 1)))
          (br_if $inner (i32.lt_u (local.get $j) (local.get $n))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $outer (i32.lt_u (local.get $i) (i32.const 10)))))
    (local.get $i))
  ;; leaves by a br_table arm; the other arms stay inside
  (func $table (export "table") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (block $out
      (loop $l
        (block $b1
          (block $b0
            (br_table $b0 $b1 $out
              (select (i32.and (local.get $i) (i32.const 1)) (i32.const 2)
                (i32.lt_u (local.get $i) (local.get $n)))))
          (local.set $s (i32.add (local.get $s) (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.get $s))
  ;; leaves by a br_if carrying a value
  (func $vexit (export "vexit") (param $n i32) (result i32)
    (local $i i32)
    (block $out (result i32)
      (loop $l
        (drop (br_if $out (i32.const 42) (i32.ge_u (local.get $i) (local.get $n))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l))
      (i32.const 0)))
  ;; never leaves: only fuel stops it
  (func $spin (export "spin") (result i32)
    (local $i i32)
    (loop $l
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.ne (local.get $i) (i32.const 0))))
    (local.get $i))
  ;; traps inside the nest (divide by zero when i reaches n)
  (func $trap (export "trap") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (loop $l
      (local.set $s (i32.add (local.get $s)
        (i32.div_u (i32.const 100) (i32.sub (local.get $n) (local.get $i)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 1000))))
    (local.get $s))
  ;; a loop with a call is not a leaf nest: memory counters survive a trap
  (func $check (param $i i32)
    (if (i32.eq (local.get $i) (i32.const 3)) (then (unreachable))))
  (func $withcall (export "withcall") (param $n i32) (result i32)
    (local $i i32)
    (loop $l
      (call $check (local.get $i))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
    (local.get $i))
)
