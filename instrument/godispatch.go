package instrument

// Go's resume-point dispatch.
//
// Go's wasm backend (cmd/internal/obj/wasm, preprocess) compiles every
// function that calls or jumps into one shape:
//
//	block                  ;; unwindExit, when a call may unwind
//	  loop                 ;; entryPointLoop, when the function jumps
//	    block ... block    ;; one per resume point, and one more
//	      local.get 0      ;; PC_B, the function's first parameter
//	      br_table ...     ;; resume point of PC_B
//	    end                ;; resume point 0: the entry
//	    ...                ;; code of resume point 0
//	    end                ;; resume point 1
//	    ...
//
// A resume point starts every basic block of the SSA backend (ssaGenBlock
// ends each block with one) and follows every call (a goroutine switch or
// a stack growth unwinds the wasm stack and re-enters the function at the
// call's continuation). A jump between basic blocks is
// `i32.const PC; local.set 0; br <entryPointLoop>`; the br_table maps the
// PC to its resume point. Every conditional of the program is an `if`
// around such a jump (BlockIf: `if; jump succ; end` with the other
// successor falling through or jumped to after the end).
//
// Which edges stay distinguishable without the dispatch's arms. An arm
// is hit once per arrival at its resume point through the dispatch: the
// function's entry (arm 0, the FuncEntry site's hit), an unconditional
// jump (ending a block that is itself entered through the dispatch or by
// falling through from the block before), a conditional jump (inside an
// if arm, whose IfThen or IfElse site is counted), or the re-entry after
// an unwound call (whose unwind br_if taken site is counted). So every
// arm's hit set is a union of sites that stay counted, and every edge of
// the program's own control-flow graph that a condition decides is an if
// arm: dropping the arms loses no edge a condition chooses, only their
// merged counts (an arm sums every way into a block). The arms' share of
// a Go module's sites and of its run time is in docs/PERFORMANCE.md ("Go
// targets: the resume-point dispatch and the runtime are not counted").
//
// Hangs. The dispatch loop's header was the fuel check of every jump. A
// cycle of the control-flow graph goes through at least one backward
// jump: a jump to a resume point at or before the one the jump is in
// (falling through moves to the next resume point, a forward jump to a
// later one, so a path of those alone never comes back). A Go function
// with a recognised dispatch therefore pays fuel at its entry when it
// calls or loops (recursion) and at every backward jump (the hang's
// offset is the first instruction of the jump's target, the block the
// loop starts with), not at the dispatch loop's header; loops written as
// wasm loops (the runtime's assembly) keep their header's check.

// goDispatch is a recognised dispatch of one function body.
type goDispatch struct {
	table int // body index of the dispatch br_table, -1: none recognised
	loop  int // body index of entryPointLoop, -1: the function does not jump
	// back, by body index of a br to entryPointLoop that jumps backward:
	// the body index of the first instruction of its target resume point
	back map[int]int
}

// noDispatch is the goDispatch of a function without one.
var noDispatch = goDispatch{table: -1, loop: -1}

// findGoDispatch recognises the dispatch at the start of body, a function
// of a Go module whose first parameter is an i32. The shape must be exact
// and every branch to entryPointLoop a jump (`i32.const; local.set 0;
// br`); otherwise the function is left as any other (noDispatch).
func findGoDispatch(e *Expr) goDispatch {
	body := e.Instrs
	i := 0 // the first block or loop, with no other control before it
	for i < len(body) && body[i].Op != OpBlock && body[i].Op != OpLoop {
		i++
	}
	if c := controlAhead(body, 0); i == len(body) || c < i {
		return noDispatch
	}
	d := goDispatch{table: -1, loop: -1}
	k := i
	depth := 0 // open constructs before the resume point blocks
	for k < len(body) && (body[k].Op == OpBlock || body[k].Op == OpLoop) && body[k].C == 0x40 {
		if body[k].Op == OpLoop {
			if d.loop >= 0 {
				return noDispatch
			}
			d.loop = k
		}
		k++
	}
	if k+1 >= len(body) || body[k].Op != OpLocalGet || body[k].A != 0 || body[k+1].Op != OpBrTable {
		return noDispatch
	}
	table := k + 1
	// the resume point blocks are the ones after the loop (or all of
	// them when there is no loop and no unwindExit: the two cannot be
	// told apart then, and an unwindExit block is then one more arm's
	// block only as far as this count goes, see below)
	firstBlock := i
	if d.loop >= 0 {
		firstBlock = d.loop + 1
		depth = d.loop - i + 1
	}
	nblocks := k - firstBlock
	in := &body[table]
	if nblocks < 1 || in.A+in.B > uint64(len(e.Pool)) || in.B == 0 {
		return noDispatch
	}
	labels := e.Pool[in.A : in.A+in.B]
	for _, l := range labels {
		if l >= uint64(nblocks) {
			return noDispatch
		}
	}
	if d.loop < 0 {
		if depth != 0 {
			return noDispatch
		}
		d.table = table
		return d
	}
	// Walk the code: open is the depth of constructs inside the loop
	// (the resume point blocks count down as their ends pass), point the
	// resume point being walked, starts the body index each begins at.
	loopDepth := depth // constructs open inside and including the loop
	open := loopDepth + nblocks
	point := -1
	starts := make([]int, 0, nblocks)
	type jump struct{ at, from, to int }
	var jumps []jump
	for k := table + 1; k < len(body); k++ {
		switch x := &body[k]; x.Op {
		case OpBlock, OpLoop, OpIf, OpTry, OpTryTable:
			open++
		case OpEnd, OpDelegate:
			if open > loopDepth && open <= loopDepth+nblocks && open == loopDepth+nblocks-point-1 {
				point++
				starts = append(starts, k+1)
			}
			open--
			if open < loopDepth {
				// past the loop's end: no more jumps
				k = len(body)
			}
		case OpBr:
			if open-int(x.A) != loopDepth {
				continue
			}
			if k < 2 || body[k-1].Op != OpLocalSet || body[k-1].A != 0 || body[k-2].Op != OpI32Const {
				return noDispatch
			}
			pc := uint64(uint32(body[k-2].A))
			to := int(labels[min(pc, uint64(len(labels)-1))])
			jumps = append(jumps, jump{at: k, from: point, to: to})
		case OpBrIf:
			if open-int(x.A) == loopDepth {
				return noDispatch
			}
		case OpBrTable:
			if x.A+x.B > uint64(len(e.Pool)) {
				return noDispatch
			}
			for _, l := range e.Pool[x.A : x.A+x.B] {
				if open-int(l) == loopDepth {
					return noDispatch
				}
			}
		case OpBrOnNull, OpBrOnNonNull:
			if open-int(x.A) == loopDepth {
				return noDispatch
			}
		}
	}
	if len(starts) != nblocks {
		return noDispatch
	}
	d.table = table
	d.back = make(map[int]int)
	for _, j := range jumps {
		if j.to <= j.from && starts[j.to] < len(body) {
			d.back[j.at] = starts[j.to]
		}
	}
	return d
}
