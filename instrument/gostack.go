package instrument

// Go's stack check.
//
// Go's wasm backend (cmd/internal/obj/wasm, preprocess) starts resume
// point 0 of every function that may need more stack with
//
//	(local.get SP | global.get SP) global.get g i32.wrap_i64
//	i32.load offset=16 [i32.const c i32.add] i32.le_u
//	if  ...push the return address...  call runtime.morestack*
//	    ...reload SP...  br_if <unwindExit>  end
//
// (stackguard0 is at offset 16 of the g struct; a large frame compares
// with stackguard0 + framesize - StackSmall). runtime.morestack grows the
// goroutine's stack and unwinds the wasm stack, so the function is
// entered again at resume point 0. unwindExit is the block around the
// body, whose end is followed by `i32.const 1` and the function's end;
// every call that may unwind is followed by a br_if to it.
//
// As a branch, the check paid a counter on every call for its missing
// else, whose count is the function entry's (counted: FuncEntry) less
// the entries that grew the stack and the re-entries at other resume
// points after an unwound call, both rare. That arm gets no site; the
// then arm keeps its (this function grew the stack: how deep the input
// made the program go, from a restored snapshot), at no cost until it
// runs, and it is no conditional of the program's (SiteMap.Conditionals:
// no arm). The check's comparison gets no compare-log entry: it compares
// the stack pointer with the stack's guard, no value of the input's.
// The code after the check stays in the region of the code before it
// (regions.go). Options.CountGoStackChecks counts both arms.
//
// The br_if after each call is left as it is, both arms counted: its
// fall-through counts the call's returns per call site, which no other
// site holds (FuncEntry sums a function's callers), and campaigns that
// counted neither arm of either check reached less of the program's
// code, in every pair of one run and in the medians of a second
// (docs/PERFORMANCE.md, "Go targets: the stack check").

// goStackCheck returns the body index of the i32.le_u of Go's stack
// check (its if follows) in a body with the recognised dispatch d, or
// false when resume point 0 does not start with one of Go's shape.
func goStackCheck(body []Instr, d goDispatch) (int, bool) {
	n := len(body)
	if d.table < 0 || n < 4 || body[n-1].Op != OpEnd || body[n-2].Op != OpI32Const || body[n-2].A != 1 ||
		body[n-3].Op != OpEnd || body[n-4].Op != OpUnreachable {
		return 0, false
	}
	exit := 0 // the first block: straight-line code before it (findGoDispatch)
	for exit < n && body[exit].Op != OpBlock {
		exit++
	}
	// the resume point 0 block ends at d.table+1; the check follows it
	end := d.table + 1
	k := end + 1
	if body[end].Op != OpEnd || k+5 >= n ||
		(body[k].Op != OpLocalGet && body[k].Op != OpGlobalGet) || body[k+1].Op != OpGlobalGet ||
		body[k+2].Op != OpI32WrapI64 || body[k+3].Op != OpI32Load || body[k+3].A != 16 {
		return 0, false
	}
	le := k + 4
	if body[le].Op == OpI32Const && le+2 < n && body[le+1].Op == OpI32Add {
		le += 2 // a large frame
	}
	if body[le].Op != OpI32LeU || le+1 >= n || body[le+1].Op != OpIf || body[le+1].C != 0x40 {
		return 0, false
	}
	// The arm: one call, and a br_if to unwindExit last. Open there are
	// the if and the constructs body[exit:d.table-1] opened but resume
	// point 0's block: unwindExit's label is d.table-exit-2.
	calls := 0
	for i := le + 2; i < n; i++ {
		switch body[i].Op {
		case OpCall:
			calls++
		case OpEnd:
			toExit := body[i-1].Op == OpBrIf && body[i-1].A == uint64(d.table-exit-2)
			return le, calls == 1 && toExit && unwindExitEnds(body, exit)
		case OpBlock, OpLoop, OpIf, OpElse, OpBr, OpBrTable, OpReturn, OpCallIndirect, OpCallRef,
			OpReturnCall, OpReturnCallIndirect, OpReturnCallRef, OpTry, OpTryTable:
			return 0, false
		}
	}
	return 0, false
}

// unwindExitEnds reports whether the block at body[exit] ends at the
// body's third instruction from the end (before `i32.const 1; end`):
// Go's unwindExit.
func unwindExitEnds(body []Instr, exit int) bool {
	open := 0
	for k := exit; k < len(body); k++ {
		switch body[k].Op {
		case OpBlock, OpLoop, OpIf, OpTry, OpTryTable:
			open++
		case OpEnd:
			if open--; open == 0 {
				return k == len(body)-3
			}
		}
	}
	return false
}
