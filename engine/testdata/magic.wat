;; A libFuzzer-style target whose crash needs three multi-byte values: a
;; 32-bit magic number, a 64-bit check value computed from it (a checksum:
;; no constant dictionary holds it) and a memcmp with "zap!". Coverage
;; alone finds the check value only by chance. The input-to-state test of
;; package engine.
(module
  (memory (export "memory") 2)
  (global $heap (mut i32) (i32.const 4096))
  (data (i32.const 1024) "zap!")
  ;; a bump allocator that grows memory as needed
  (func (export "malloc") (param $n i32) (result i32)
    (local $p i32)
    (local.set $p (global.get $heap))
    (global.set $heap (i32.add (local.get $p) (local.get $n)))
    (if (i32.gt_u (global.get $heap) (i32.shl (memory.size) (i32.const 16)))
      (then
        (if (i32.eq (memory.grow (i32.sub (i32.shr_u (i32.add (global.get $heap) (i32.const 0xffff)) (i32.const 16)) (memory.size)))
                    (i32.const -1))
          (then (return (i32.const 0))))))
    (local.get $p))
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
  (func (export "LLVMFuzzerTestOneInput") (param $p i32) (param $n i32) (result i32)
    (if (i32.lt_u (local.get $n) (i32.const 16)) (then (return (i32.const 0))))
    (if (i32.ne (i32.load (local.get $p)) (i32.const 0x52464157)) ;; "WAFR"
      (then (return (i32.const 0))))
    (if (i64.ne (i64.load offset=4 (local.get $p))
                (i64.mul (i64.extend_i32_u (i32.load (local.get $p))) (i64.const 0x9E3779B97F4A7C15)))
      (then (return (i32.const 0))))
    (if (call $memcmp (i32.add (local.get $p) (i32.const 12)) (i32.const 1024) (i32.const 4))
      (then (return (i32.const 0))))
    (unreachable)))
