;; Hot loop for the counter-form benchmark (counterform_test.go): each
;; iteration takes 8 if arms and one br_if, 9 counter hits; "calls" adds a
;; call per iteration (wazero reloads globals and the memory base after it);
;; "tight" is a leaf loop of two sites (its back edge), counted in a local.
(module
  (memory 1)
  (func $leaf (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))
  (func (export "loop") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (loop $l
      (if (i32.and (local.get $i) (i32.const 1)) (then (local.set $s (i32.add (local.get $s) (i32.const 1)))))
      (if (i32.and (local.get $i) (i32.const 2)) (then (local.set $s (i32.add (local.get $s) (i32.const 2)))))
      (if (i32.and (local.get $i) (i32.const 4)) (then (local.set $s (i32.add (local.get $s) (i32.const 3)))))
      (if (i32.and (local.get $i) (i32.const 8)) (then (local.set $s (i32.add (local.get $s) (i32.const 4)))))
      (if (i32.and (local.get $i) (i32.const 16)) (then (local.set $s (i32.add (local.get $s) (i32.const 5)))))
      (if (i32.and (local.get $i) (i32.const 32)) (then (local.set $s (i32.add (local.get $s) (i32.const 6)))))
      (if (i32.and (local.get $i) (i32.const 64)) (then (local.set $s (i32.add (local.get $s) (i32.const 7)))))
      (if (i32.and (local.get $i) (i32.const 128)) (then (local.set $s (i32.add (local.get $s) (i32.const 8)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
    (local.get $s))
  (func (export "calls") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (loop $l
      (if (i32.and (local.get $i) (i32.const 1)) (then (local.set $s (call $leaf (local.get $s)))))
      (if (i32.and (local.get $i) (i32.const 2)) (then (local.set $s (i32.add (local.get $s) (i32.const 2)))))
      (if (i32.and (local.get $i) (i32.const 4)) (then (local.set $s (i32.add (local.get $s) (i32.const 3)))))
      (if (i32.and (local.get $i) (i32.const 8)) (then (local.set $s (i32.add (local.get $s) (i32.const 4)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
    (local.get $s))
  (func (export "tight") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (loop $l
      (local.set $s (i32.add (local.get $s) (i32.xor (local.get $i) (i32.const 5))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
    (local.get $s))
)
