;; Go's stack check (gostack.go), in the shape of Go's wasm
;; backend (godispatch.go): $f and $big start resume point 0 with the
;; stack check (`if SP <= g.stackguard0 { call runtime.morestack }`; for
;; $big's large frame, stackguard0 + framesize - StackSmall), and put the
;; unwind br_if after each call; the block around the body is Go's
;; unwindExit, whose end is followed by `i32.const 1`. Global 0 is SP,
;; global 2 g (a pointer to the g struct, stackguard0 at offset 16).
;; $morestack counts its calls at address 0x100 and unwinds (returns 1);
;; $callee unwinds when $unwind is set. run(guard, unwind) sets
;; stackguard0 and $unwind and returns f + 2*big + 4*(morestack's calls).
;; gostack_test.go adds the "go:buildid" custom section that marks a
;; module as Go's.
(module
  (memory (export "memory") 1)
  (global $sp (mut i32) (i32.const 0x8000))
  (global $pcf (mut i32) (i32.const 0))
  (global $g (mut i64) (i64.const 0x200))
  (global $unwind (mut i32) (i32.const 0))
  (func $morestack (param i32) (result i32)
    i32.const 0x100
    i32.const 0x100
    i32.load
    i32.const 1
    i32.add
    i32.store
    i32.const 1)
  (func $callee (param i32) (result i32)
    global.get $unwind)
  (func $f (param i32) (result i32)
    (local i32)
    global.get $sp
    local.set 1
    block ;; unwindExit
      loop ;; entryPointLoop
        block block
          local.get 0
          br_table 0 1 1
        end
        ;; resume point 0: the stack check, the frame, a call
        local.get 1
        global.get $g
        i32.wrap_i64
        i32.load offset=16
        i32.le_u
        if
          local.get 1
          i32.const 8
          i32.sub
          local.tee 1
          global.set $sp
          local.get 1
          i64.const 0x10000
          i64.store
          i32.const 0
          call $morestack
          global.get $sp
          local.set 1
          br_if 3 ;; unwound
        end
        local.get 1
        i32.const 16
        i32.sub
        local.tee 1
        global.set $sp
        local.get 1
        i32.const 8
        i32.sub
        local.tee 1
        global.set $sp
        local.get 1
        i64.const 0x10001
        i64.store
        i32.const 0
        call $callee
        global.get $sp
        local.set 1
        br_if 2 ;; unwound
      end
      ;; resume point 1: the epilogue
      local.get 1
      i32.const 24
      i32.add
      local.tee 1
      global.set $sp
      i32.const 0
      return
    end ;; entryPointLoop
    unreachable
    end ;; unwindExit
    i32.const 1)
  (func $big (param i32) (result i32)
    (local i32)
    global.get $sp
    local.set 1
    block ;; unwindExit
      loop ;; entryPointLoop
        block block
          local.get 0
          br_table 0 1 1
        end
        local.get 1
        global.get $g
        i32.wrap_i64
        i32.load offset=16
        i32.const 1000
        i32.add
        i32.le_u
        if
          local.get 1
          i32.const 8
          i32.sub
          local.tee 1
          global.set $sp
          local.get 1
          i64.const 0x20000
          i64.store
          i32.const 0
          call $morestack
          global.get $sp
          local.set 1
          br_if 3 ;; unwound
        end
        local.get 1
        i32.const 1128
        i32.sub
        local.tee 1
        global.set $sp
        local.get 1
        i32.const 8
        i32.sub
        local.tee 1
        global.set $sp
        local.get 1
        i64.const 0x20001
        i64.store
        i32.const 0
        call $callee
        global.get $sp
        local.set 1
        br_if 2 ;; unwound
      end
      local.get 1
      i32.const 1136
      i32.add
      local.tee 1
      global.set $sp
      i32.const 0
      return
    end ;; entryPointLoop
    unreachable
    end ;; unwindExit
    i32.const 1)
  (func (export "run") (param $guard i32) (param $unwind i32) (result i32)
    (local $r i32)
    global.get $g
    i32.wrap_i64
    local.get $guard
    i32.store offset=16
    local.get $unwind
    global.set $unwind
    i32.const 0x100
    i32.const 0
    i32.store
    global.get $sp
    i32.const 0
    call $f
    local.set $r
    global.set $sp
    global.get $sp
    i32.const 0
    call $big
    i32.const 2
    i32.mul
    local.get $r
    i32.add
    local.set $r
    global.set $sp
    i32.const 0x100
    i32.load
    i32.const 4
    i32.mul
    local.get $r
    i32.add))
