;; shared: a libFuzzer-style module with a shared memory (threads), which
;; must never move when it grows. 'G' grows it by one page and writes there.
(module
  (memory (export "memory") 1 4 shared)
  (func (export "malloc") (param i32) (result i32) (i32.const 1024))
  (func (export "LLVMFuzzerTestOneInput") (param $p i32) (param $n i32) (result i32)
    (if (i32.eqz (local.get $n)) (then (return (i32.const 0))))
    (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 0x47))
      (then
        (if (i32.eq (memory.grow (i32.const 1)) (i32.const -1)) (then (return (i32.const -1))))
        (i32.atomic.store (i32.const 0x10000) (i32.const 7))))
    (i32.const 0)))
