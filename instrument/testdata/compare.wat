;; Comparison logging fixture for instrument tests (Options.Compares):
;; integer comparisons of both widths, and libc-named byte comparisons.
(module
  (memory 1 2)
  (data (i32.const 16) "MAGIC\00")
  (data (i32.const 32) "keyword\00")
  ;; memcmp(p, q, n): the first difference, as libc's
  (func $memcmp (param $p i32) (param $q i32) (param $n i32) (result i32)
    (local $a i32) (local $b i32)
    (block $done
      (loop $l
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $a (i32.load8_u (local.get $p)))
        (local.set $b (i32.load8_u (local.get $q)))
        (if (i32.ne (local.get $a) (local.get $b))
          (then (return (i32.sub (local.get $a) (local.get $b)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (local.set $q (i32.add (local.get $q) (i32.const 1)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $l)))
    (i32.const 0))
  ;; strcmp(p, q)
  (func $strcmp (param $p i32) (param $q i32) (result i32)
    (local $a i32) (local $b i32)
    (loop $l
      (local.set $a (i32.load8_u (local.get $p)))
      (local.set $b (i32.load8_u (local.get $q)))
      (if (i32.or (i32.ne (local.get $a) (local.get $b)) (i32.eqz (local.get $a)))
        (then (return (i32.sub (local.get $a) (local.get $b)))))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (local.set $q (i32.add (local.get $q) (i32.const 1)))
      (br $l))
    (unreachable))
  (func (export "memcmp") (param i32 i32 i32) (result i32)
    (call $memcmp (local.get 0) (local.get 1) (local.get 2)))
  (func (export "strcmp") (param i32 i32) (result i32)
    (call $strcmp (local.get 0) (local.get 1)))
  ;; eq32(x): x == 0x4d414749 ("IGAM" little-endian)
  (func (export "eq32") (param i32) (result i32)
    (i32.eq (local.get 0) (i32.const 0x4d414749)))
  ;; lt64(x): x <u 1000000000000
  (func (export "lt64") (param i64) (result i32)
    (i64.lt_u (local.get 0) (i64.const 1000000000000)))
  ;; ltf32(x): x < 1000000.01 or x > 1000010.99 (a float range check)
  (func (export "ltf32") (param f32) (result i32)
    (i32.or (f32.lt (local.get 0) (f32.const 1000000.01)) (f32.gt (local.get 0) (f32.const 1000010.99))))
  ;; gef64(x): x >= 3.25
  (func (export "gef64") (param f64) (result i32)
    (f64.ge (local.get 0) (f64.const 3.25)))
  ;; sw(x): a switch with cases 100001 and 100002 (a br_table on x - 100001)
  (func (export "sw") (param i32) (result i32)
    (block $d
      (block $b
        (block $a
          (br_table $a $b $d (i32.sub (local.get 0) (i32.const 100001))))
        (return (i32.const 1)))
      (return (i32.const 2)))
    (i32.const 0))
  ;; rng(x): 100001 <= x <= 100003, as LLVM checks a range: x - 100001 <u 3
  (func (export "rng") (param i32) (result i32)
    (local i32)
    (i32.lt_u (local.tee 1 (i32.add (local.get 0) (i32.const -100001))) (i32.const 3)))
  ;; magic(p): memcmp(p, "MAGIC", 5) == 0
  (func (export "magic") (param i32) (result i32)
    (i32.eqz (call $memcmp (local.get 0) (i32.const 16) (i32.const 5))))
  ;; keyword(p): strcmp(p, "keyword") == 0
  (func (export "keyword") (param i32) (result i32)
    (i32.eqz (call $strcmp (local.get 0) (i32.const 32))))
;; Go's internal/bytealg shapes: memeqbody(a, b, n) and
  ;; cmpbody(a, alen, b, blen), all i64; bodies that only answer
  (func $memeqbody (param i64 i64 i64) (result i64) (i64.const 0))
  (func $cmpbody (param i64 i64 i64 i64) (result i64) (i64.sub (local.get 1) (local.get 3)))
  (func (export "goeq") (param i32 i32 i32) (result i64)
    (call $memeqbody (i64.extend_i32_u (local.get 0)) (i64.extend_i32_u (local.get 1)) (i64.extend_i32_u (local.get 2))))
  (func (export "gocmp") (param i32 i32 i32 i32) (result i64)
    (call $cmpbody (i64.extend_i32_u (local.get 0)) (i64.extend_i32_u (local.get 1))
                   (i64.extend_i32_u (local.get 2)) (i64.extend_i32_u (local.get 3))))
  (func (export "store") (param i32 i64) (i64.store (local.get 0) (local.get 1)))
  ;; dead code after a return keeps its comparison unlogged
  (func (export "dead") (param i32) (result i32)
    (return (local.get 0))
    (i32.eq (i32.const 1) (i32.const 2))))
