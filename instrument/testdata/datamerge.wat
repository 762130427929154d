;; datamerge: data segments for mergeData (instrument/mergedata.go). In
;; index order: 0 and 1 are 6 bytes apart (merged), 2 is 186 bytes past 1
;; (not merged), 3 lies below 2 and 4..5 leave between them a gap that 3
;; writes into (not merged: zeros would overwrite it), 6 is passive, and
;; 7 follows it in index order (not merged), right after 2 in memory; 8
;; and 9 touch (merged, but the constant dictionary still has "abc" and
;; "def", not "abcdef").
;; datamerge-init.wat has the same segments and reads them with
;; memory.init, so they stay as they are. Rebuild: see build.sh.
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
  (data (i32.const 400) "abc")
  (data (i32.const 403) "def")
)
