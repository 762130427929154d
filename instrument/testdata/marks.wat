;; Dirty-mark elision fixture (marks.go): stores from one base local at
;; small offsets, which share a mark, and the cases that must not share
;; one. Each function's comment says how many of its stores need no mark.
(module
  (memory (export "mem") 2 4)
  ;; 4 of 6: +8, +16, +56 (i64) and +60 (i32) end within 64 bytes of +0;
  ;; the i64 at +60 does not.
  (func (export "frame") (param $p i32) (param $v i64)
    (i64.store (local.get $p) (local.get $v))
    (i64.store offset=8 (local.get $p) (local.get $v))
    (i64.store offset=16 (local.get $p) (i64.add (local.get $v) (i64.const 1)))
    (i64.store offset=56 (local.get $p) (local.get $v))
    (i32.store offset=60 (local.get $p) (i32.wrap_i64 (local.get $v)))
    (i64.store offset=60 (local.get $p) (i64.const -1)))
  ;; 2 of 3: addresses p+c computed with i32.add, and Go's i64 form.
  (func (export "derived") (param $p i32) (param $v i64)
    (i64.store (i32.add (local.get $p) (i32.const 8)) (local.get $v))
    (i64.store (i32.add (local.get $p) (i32.const 16)) (local.get $v))
    (i64.store offset=4
      (i32.wrap_i64 (i64.add (i64.extend_i32_u (local.get $p)) (i64.const 24)))
      (local.get $v)))
  ;; 0 of 3: a store below the marked one, a negative constant, and a
  ;; constant past maxMarkDisp.
  (func (export "below") (param $p i32) (param $v i64)
    (i64.store offset=32 (local.get $p) (local.get $v))
    (i64.store offset=24 (local.get $p) (local.get $v))
    (i64.store (i32.add (local.get $p) (i32.const -8)) (local.get $v)))
  ;; 0 of 2: the value of the first store moves p on by 4096, so the
  ;; second store's p is not the one the first marked.
  (func (export "tee") (param $p i32)
    (i32.store (local.get $p) (local.tee $p (i32.add (local.get $p) (i32.const 4096))))
    (i32.store offset=4 (local.get $p) (i32.const 1)))
  ;; 1 of 4: the store after the if is not dominated by the then arm's
  ;; (the else arm marks nothing); the then arm's second store is.
  (func (export "arms") (param $p i32) (param $c i32)
    (if (local.get $c)
      (then
        (i32.store (local.get $p) (i32.const 1))
        (i32.store offset=4 (local.get $p) (i32.const 2))))
    (i32.store offset=8 (local.get $p) (i32.const 3))
    (block
      (br_if 0 (local.get $c))
      (i32.store offset=200 (local.get $p) (i32.const 4))))
  ;; 1 of 3: p moves on in the loop, so the loop's first store marks on
  ;; every pass; its second is covered by the first.
  (func (export "loop") (param $p i32) (param $n i32)
    (i32.store (local.get $p) (i32.const 9))
    (loop $l
      (i32.store offset=8 (local.get $p) (local.get $n))
      (i32.store offset=12 (local.get $p) (local.get $n))
      (local.set $p (i32.add (local.get $p) (i32.const 4090)))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))
  ;; 0 of 2: p is set between the stores.
  (func (export "set") (param $p i32)
    (i32.store (local.get $p) (i32.const 5))
    (local.set $p (i32.add (local.get $p) (i32.const 5000)))
    (i32.store offset=4 (local.get $p) (i32.const 6)))
  ;; 1 of 3: the second store's value calls a function (not a straight-line
  ;; expression: it is marked); the third's is covered.
  (func $id (param i32) (result i32) (local.get 0))
  (func (export "call") (param $p i32)
    (i32.store (local.get $p) (i32.const 5))
    (i32.store offset=4 (local.get $p) (call $id (i32.const 6)))
    (i32.store offset=8 (local.get $p) (i32.const 7)))
;; 2 of 3: the loop never sets $p, so the mark made before it covers
  ;; the loop's stores on every pass.
  (func (export "loopinv") (param $p i32) (param $n i32)
    (i32.store (local.get $p) (i32.const 9))
    (loop $l
      (i32.store offset=8 (local.get $p) (local.get $n))
      (i32.store16 offset=40 (local.get $p) (local.get $n))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))
  ;; 2 of 4: a pointer in an i64 local, as Go's code generator keeps one
  ;; (`local.get; i32.wrap_i64`, and with i64.add of a constant): +8 and
  ;; +24 share the first store's mark; after the local moves on by 4096,
  ;; its store does not.
  (func (export "ptr64") (param $p i32) (param $v i64) (local $q i64)
    (local.set $q (i64.extend_i32_u (local.get $p)))
    (i64.store (i32.wrap_i64 (local.get $q)) (local.get $v))
    (i64.store offset=8 (i32.wrap_i64 (local.get $q)) (local.get $v))
    (i64.store (i32.wrap_i64 (i64.add (local.get $q) (i64.const 24))) (local.get $v))
    (local.set $q (i64.add (local.get $q) (i64.const 4096)))
    (i64.store offset=8 (i32.wrap_i64 (local.get $q)) (local.get $v)))
)
