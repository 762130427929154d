;; Functions in the shape Go's wasm backend gives every function
;; (godispatch.go): an unwindExit block, the entryPointLoop, one block per
;; resume point and a br_table on the first parameter (PC_B); jumps are
;; `i32.const PC; local.set 0; br <loop>`. godispatch_test.go adds the
;; "go:buildid" custom section that marks a module as Go's.
(module
  (memory (export "memory") 1)
  ;; count(pcb, n): i = 0; while i < n { i++ }; return i
  ;; resume points: 0 entry, 1 loop head, 2 exit
  (func $count (export "count") (param i32 i32) (result i32)
    (local i32)
    block ;; unwindExit
      loop ;; entryPointLoop
        block block block
          local.get 0
          br_table 0 1 2 2
        end
        ;; resume point 0
        i32.const 0
        local.set 2
        end
        ;; resume point 1
        local.get 2
        local.get 1
        i32.ge_s
        if
          i32.const 2
          local.set 0
          br 2 ;; forward: to resume point 2
        end
        local.get 2
        i32.const 1
        i32.add
        local.set 2
        i32.const 1
        local.set 0
        br 1 ;; backward: to resume point 1
      end
      ;; resume point 2
      local.get 2
      return
    end ;; entryPointLoop
    unreachable
  end ;; unwindExit
  i32.const 1)
  ;; spin(pcb): for {}
  (func $spin (export "spin") (param i32) (result i32)
    block
      loop
        block block
          local.get 0
          br_table 0 1 1
        end
        end
        ;; resume point 1
        i32.const 1
        local.set 0
        br 0 ;; backward: to resume point 1
      end
      unreachable
    end
    i32.const 1))
