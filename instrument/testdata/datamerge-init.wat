;; datamerge-init: data segments for mergeData (instrument/mergedata.go). In
;; index order: 0 and 1 are 6 bytes apart (merged), 2 is 186 bytes past 1
;; (not merged), 3 lies below 2 and 4..5 leave between them a gap that 3
;; writes into (not merged: zeros would overwrite it), 6 is passive, and
;; 7 follows it in index order (not merged), right after 2 in memory.
;; This copy of datamerge.wat also has init_N, which copies n bytes of
;; segment N to address 1000 with memory.init, and drop_N, which drops it:
;; code that reads segments by index keeps them unmerged. Rebuild: see
;; build.sh.
(module
  (memory (export "mem") 1)
  (data (i32.const 100) "aaaa")
  (data (i32.const 110) "bbbb")
  (data (i32.const 300) "cccc")
  (data (i32.const 150) "3333333333")
  (data (i32.const 140) "44444")
  (data (i32.const 170) "55555")
  (data "passive")
  (data (i32.const 304) "77")
  (func (export "init_0") (param $n i32) (memory.init 0 (i32.const 1000) (i32.const 0) (local.get $n)))
  (func (export "init_1") (param $n i32) (memory.init 1 (i32.const 1000) (i32.const 0) (local.get $n)))
  (func (export "init_5") (param $n i32) (memory.init 5 (i32.const 1000) (i32.const 0) (local.get $n)))
  (func (export "init_6") (param $n i32) (memory.init 6 (i32.const 1000) (i32.const 0) (local.get $n)))
  (func (export "init_7") (param $n i32) (memory.init 7 (i32.const 1000) (i32.const 0) (local.get $n)))
  (func (export "drop_1") (data.drop 1))
  (func (export "drop_6") (data.drop 6))
)
