;; A function in the shape of Go's wasm backend (godispatch.go) with a
;; frame of 256 bytes, for goframe.go: `f` caches SP ($sp, global 0) in
;; local 1, allocates its frame at resume point 0, stores to it, pushes a
;; return address and calls, and at resume points 1 and 2 (reached after
;; the call, by a jump, or by a re-entry with SP at the frame's base)
;; stores to its frame again and to its caller's (a result slot just
;; above the frame, and one 1144 bytes above it, beyond maxFrameAbove).
;; `run(pcb, sp)` sets SP and enters f at resume point pcb. goframe_test.go adds the
;; "go:buildid" custom section that marks a module as Go's.
(module
  (memory (export "memory") 2)
  (global $sp (mut i32) (i32.const 0x8000))
  (func $f (param i32) (result i32)
    (local i32)
    global.get $sp
    local.set 1
    block ;; unwindExit
      loop ;; entryPointLoop
        block block block
          local.get 0
          br_table 0 1 2 2
        end
        ;; resume point 0: the prologue, the frame's first stores, a call
        local.get 1
        i32.const 256
        i32.sub
        local.tee 1
        global.set $sp
        local.get 1
        i64.const 0x11
        i64.store
        local.get 1
        i64.extend_i32_u
        i64.const 248
        i64.add
        i32.wrap_i64
        i64.const 0x12
        i64.store
        local.get 1
        i32.const 8
        i32.sub
        local.tee 1
        global.set $sp
        local.get 1
        i64.const 0x10001
        i64.store
        i32.const 0
        call $g
        global.get $sp
        local.set 1
        br_if 3 ;; unwound
      end
      ;; resume point 1: the frame, and the caller's result slot
      local.get 1
      i64.const 0x21
      i64.store offset=8
      local.get 1
      i32.const 128
      i32.add
      i64.const 0x22
      i64.store
      local.get 1
      i64.const 0x24
      i64.store offset=364
      local.get 1
      i64.const 0x23
      i64.store offset=1400
      i32.const 2
      local.set 0
      br 1 ;; jump to resume point 2
    end
    ;; resume point 2: a store, the epilogue
    local.get 1
    i64.const 0x31
    i64.store offset=200
    local.get 1
    i32.const 256
    i32.add
    local.tee 1
    global.set $sp
    local.get 1
    i32.const 8
    i32.add
    local.tee 1
    global.set $sp
    i32.const 0
    return
    end ;; entryPointLoop
    unreachable
    end ;; unwindExit
    i32.const 1)
  (func $f1k (param i32) (result i32)
    (local i32)
    global.get $sp
    local.set 1
    block ;; unwindExit
      loop ;; entryPointLoop
        block block block
          local.get 0
          br_table 0 1 2 2
        end
        ;; resume point 0: the prologue, the frame's first stores, a call
        local.get 1
        i32.const 1024
        i32.sub
        local.tee 1
        global.set $sp
        local.get 1
        i64.const 0x11
        i64.store
        local.get 1
        i64.extend_i32_u
        i64.const 1016
        i64.add
        i32.wrap_i64
        i64.const 0x12
        i64.store
        local.get 1
        i32.const 8
        i32.sub
        local.tee 1
        global.set $sp
        local.get 1
        i64.const 0x10001
        i64.store
        i32.const 0
        call $g
        global.get $sp
        local.set 1
        br_if 3 ;; unwound
      end
      ;; resume point 1: the frame, and the caller's result slot
      local.get 1
      i64.const 0x21
      i64.store offset=8
      local.get 1
      i32.const 128
      i32.add
      i64.const 0x22
      i64.store
      local.get 1
      i64.const 0x24
      i64.store offset=1132
      local.get 1
      i64.const 0x23
      i64.store offset=2168
      i32.const 2
      local.set 0
      br 1 ;; jump to resume point 2
    end
    ;; resume point 2: a store, the epilogue
    local.get 1
    i64.const 0x31
    i64.store offset=200
    local.get 1
    i32.const 1024
    i32.add
    local.tee 1
    global.set $sp
    local.get 1
    i32.const 8
    i32.add
    local.tee 1
    global.set $sp
    i32.const 0
    return
    end ;; entryPointLoop
    unreachable
    end ;; unwindExit
    i32.const 1)
  (func $f2k (param i32) (result i32)
    (local i32)
    global.get $sp
    local.set 1
    block ;; unwindExit
      loop ;; entryPointLoop
        block block block
          local.get 0
          br_table 0 1 2 2
        end
        ;; resume point 0: the prologue, the frame's first stores, a call
        local.get 1
        i32.const 2048
        i32.sub
        local.tee 1
        global.set $sp
        local.get 1
        i64.const 0x11
        i64.store
        local.get 1
        i64.extend_i32_u
        i64.const 2040
        i64.add
        i32.wrap_i64
        i64.const 0x12
        i64.store
        local.get 1
        i32.const 8
        i32.sub
        local.tee 1
        global.set $sp
        local.get 1
        i64.const 0x10001
        i64.store
        i32.const 0
        call $g
        global.get $sp
        local.set 1
        br_if 3 ;; unwound
      end
      ;; resume point 1: the frame, and the caller's result slot
      local.get 1
      i64.const 0x21
      i64.store offset=8
      local.get 1
      i32.const 128
      i32.add
      i64.const 0x22
      i64.store
      local.get 1
      i64.const 0x24
      i64.store offset=2156
      local.get 1
      i64.const 0x23
      i64.store offset=3192
      i32.const 2
      local.set 0
      br 1 ;; jump to resume point 2
    end
    ;; resume point 2: a store, the epilogue
    local.get 1
    i64.const 0x31
    i64.store offset=200
    local.get 1
    i32.const 2048
    i32.add
    local.tee 1
    global.set $sp
    local.get 1
    i32.const 8
    i32.add
    local.tee 1
    global.set $sp
    i32.const 0
    return
    end ;; entryPointLoop
    unreachable
    end ;; unwindExit
    i32.const 1)
  ;; g: a callee that pops the return address
  (func $g (param i32) (result i32)
    global.get $sp
    i32.const 8
    i32.add
    global.set $sp
    i32.const 0)
  (func (export "run") (param i32 i32) (result i32)
    local.get 1
    global.set $sp
    local.get 0
    call $f)
  ;; f1k and f2k: f with frames of 1 KiB and 2 KiB (their entry marks
  ;; take more than one store, and the $mark helper)
  (func (export "run1k") (param i32 i32) (result i32)
    local.get 1
    global.set $sp
    local.get 0
    call $f1k)
  (func (export "run2k") (param i32 i32) (result i32)
    local.get 1
    global.set $sp
    local.get 0
    call $f2k))
