;; The heap check's trap block (heapcheck.go): checked accesses in a
;; function with two results whose label is reached by a return, a
;; br_if and falling through; a bulk memory fill; a function with no
;; check. malloc is a bump allocator, free does nothing: the heap guard
;; wraps both.
(module
  (memory (export "memory") 4)
  (global $top (mut i32) (i32.const 4096))
  (func $malloc (export "malloc") (param $n i32) (result i32)
    (local $p i32)
    (local.set $p (global.get $top))
    (global.set $top
      (i32.and (i32.add (i32.add (global.get $top) (local.get $n)) (i32.const 15)) (i32.const -16)))
    (local.get $p))
  (func $free (export "free") (param i32))
  ;; k 0: the first word and 7, by return; k 1: the second word and 8,
  ;; by br_if; else the ninth byte and the second double word.
  (func $pair (param $p i32) (param $k i32) (result i32 i64)
    (if (i32.eqz (local.get $k))
      (then (return (i32.load (local.get $p)) (i64.const 7))))
    (i32.load offset=4 (local.get $p))
    (i64.const 8)
    (br_if 0 (i32.eq (local.get $k) (i32.const 1)))
    drop
    drop
    (i32.load8_u offset=8 (local.get $p))
    (i64.load offset=8 (local.get $p)))
  ;; pair(k) of a new n-byte block filled with 0x5a
  (func $run (export "run") (param $k i32) (param $n i32) (result i32 i64)
    (local $p i32)
    (local.set $p (call $malloc (local.get $n)))
    (memory.fill (local.get $p) (i32.const 0x5a) (local.get $n))
    (call $pair (local.get $p) (local.get $k)))
  ;; a fill one byte past a new n-byte block
  (func $fillpast (export "fillpast") (param $n i32)
    (memory.fill (call $malloc (local.get $n)) (i32.const 1) (i32.add (local.get $n) (i32.const 1))))
  (func $none (export "none") (param i32) (result i32)
    (i32.add (local.get 0) (i32.const 1))))
