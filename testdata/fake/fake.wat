;; fake: a hand-written module laid out as instrument's output would be
;; (instrument.Layout: 1 reserved page, 4 counters at 0, a dirty-page map of
;; 4 bytes at 16, fuel global, mutable globals exported as wafer.g<i>), so
;; runtime's reset, counter, fuel and dirty-page logic is tested without
;; depending on the rewriter. Target address a lives at real a+65536.
;;
;; LLVMFuzzerTestOneInput(p, n): counter 0 at entry; reads the state byte at
;; target address 100 (0 after a restore) and bumps counter 1 (state 0) or
;; counter 2 (state > 0); then increments the state byte and global 1. The
;; first input byte selects: 'L' loop burning fuel, 'G' memory.grow 1,
;; 'T' trap, 'W' write the input's length to target page 1, 'X' invalid.
(module
  (memory (export "wafer.memory") 3 8)
  (global $fuel (export "wafer.fuel") (mut i64) (i64.const 0))
  (global $runs (mut i32) (i32.const 0))
  (global $heap (mut i32) (i32.const 1024))
  (export "wafer.g1" (global $runs))
  (export "wafer.g2" (global $heap))
  (func $count (param $id i32)
    (i32.store8 (local.get $id)
      (select (i32.const 1)
        (i32.add (i32.load8_u (local.get $id)) (i32.const 1))
        (i32.eq (i32.load8_u (local.get $id)) (i32.const 255)))))
  (func $burn
    (global.set $fuel (i64.sub (global.get $fuel) (i64.const 1)))
    (if (i64.lt_s (global.get $fuel) (i64.const 0)) (then unreachable)))
  (func (export "malloc") (param $n i32) (result i32)
    (local $p i32)
    (local.set $p (global.get $heap))
    (global.set $heap (i32.add (global.get $heap) (local.get $n)))
    (i32.store8 (i32.const 16) (i32.const 1))
    (local.get $p))
  (func (export "LLVMFuzzerTestOneInput") (param $p i32) (param $n i32) (result i32)
    (local $state i32) (local $op i32)
    (call $burn)
    (call $count (i32.const 0))
    (local.set $state (i32.load8_u offset=65636 (i32.const 0)))
    (if (i32.eqz (local.get $state))
      (then (call $count (i32.const 1)))
      (else (call $count (i32.const 2))))
    (i32.store8 offset=65636 (i32.const 0) (i32.add (local.get $state) (i32.const 1)))
    (i32.store8 (i32.const 16) (i32.const 1))
    (global.set $runs (i32.add (global.get $runs) (i32.const 1)))
    (if (i32.eqz (local.get $n)) (then (return (i32.const 0))))
    (local.set $op (i32.load8_u offset=65536 (local.get $p)))
    (if (i32.eq (local.get $op) (i32.const 0x4c)) ;; 'L'
      (then (loop $l (call $burn) (br $l))))
    (if (i32.eq (local.get $op) (i32.const 0x47)) ;; 'G'
      (then (drop (memory.grow (i32.const 1)))
            (i32.store8 (i32.const 19) (i32.const 1))
            (i32.store8 offset=65536 (i32.const 0x20000) (i32.const 7))))
    (if (i32.eq (local.get $op) (i32.const 0x54)) ;; 'T'
      (then unreachable))
    (if (i32.eq (local.get $op) (i32.const 0x57)) ;; 'W'
      (then (i32.store offset=65536 (i32.const 0x10000) (local.get $n))
            (i32.store8 (i32.const 17) (i32.const 1))))
    (if (i32.eq (local.get $op) (i32.const 0x58)) ;; 'X'
      (then (return (i32.const -1))))
    (i32.load8_u offset=65536 (i32.const 0x10000)) ;; 0 unless an un-restored 'W' ran
    (if (then (call $count (i32.const 3))))
    (i32.const 0))
)
