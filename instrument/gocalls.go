package instrument

// Go's checks around calls.
//
// Go's wasm backend (cmd/internal/obj/wasm, preprocess) adds two checks
// to calls that are the runtime's machinery, not the program's branches:
//
//   - after every call that may unwind, `br_if <unwindExit>`: the callee
//     returned 1 because the goroutine's wasm stack is being unwound (a
//     goroutine switch, a stack growth, a recovered panic), and the
//     function returns 1 in turn from the block around its body, whose
//     end is followed by `i32.const 1` and the function's end;
//   - at the start of resume point 0, the stack check
//
//     (local.get SP | global.get SP) global.get g i32.wrap_i64
//     i32.load offset=16 [i32.const c i32.add] i32.le_u
//     if  ...push the return address...  call runtime.morestack*
//     ...reload SP...  br_if <unwindExit>  end
//
// As branch sites both cost a counter on every call: the br_if's
// fall-through and the if's missing else, the arms every call takes,
// whose hits only repeat that the call was reached (its block's sites
// tell) and returned. Those arms get no site. The rare arms keep theirs:
// the stack grew in this function, the stack was unwound while this call
// was on it. From a restored snapshot both happen as a function of the
// input (how deep it nests, how much it allocates before the collector
// switches goroutines), and campaigns that counted neither arm reached
// less of the program's code on three targets' medians, though not
// significantly (docs/PERFORMANCE.md, "Go targets: checks around
// calls"). A rare arm costs nothing until it is taken: the br_if
// becomes `if; count; br; end`, the if keeps its arm's counter and gets
// no else. Neither is a conditional of the program's
// (SiteMap.Conditionals: no arm). The stack check's comparison gets no
// compare-log entry: it compares the stack pointer with the stack's
// guard, no value of the input's. The code after a call stays in the
// region of the code before it (regions.go), as after any call.
// Options.CountGoCallChecks counts both arms as any other branch's.
//
// What the arms every call takes told is kept elsewhere: the count of a
// call's block is its sites' (the program's edges are if arms around
// jumps, godispatch.go), and a call that does not return is seen by the
// rare arm or by what ends the run.

// goCallChecks returns the body indices of Go's call checks in a body
// with the recognised dispatch d: every br_if to the unwindExit block,
// and the stack check's i32.le_u and if (the comparison gets no log
// entry, the branches a site for their rare arm only). It returns nil
// when the body has no unwindExit block of Go's shape or no check is
// found.
func goCallChecks(body []Instr, d goDispatch) map[int]bool {
	n := len(body)
	if d.table < 0 || n < 4 || body[n-1].Op != OpEnd || body[n-2].Op != OpI32Const || body[n-2].A != 1 ||
		body[n-3].Op != OpEnd || body[n-4].Op != OpUnreachable {
		return nil
	}
	exit := 0 // the first block: straight-line code before it (findGoDispatch)
	for exit < n && body[exit].Op != OpBlock {
		exit++
	}
	var checks map[int]bool
	open := make([]int, 0, 16) // body indices of the open constructs
	for k := exit; k < n-2; k++ {
		switch in := &body[k]; in.Op {
		case OpBlock, OpLoop, OpIf:
			open = append(open, k)
		case OpEnd:
			if len(open) == 0 {
				return nil
			}
			open = open[:len(open)-1]
			if len(open) == 0 && k != n-3 {
				return nil // the first block is not the body's: not unwindExit
			}
		case OpBrIf:
			if in.A < uint64(len(open)) && open[len(open)-1-int(in.A)] == exit {
				if checks == nil {
					checks = make(map[int]bool)
				}
				checks[k] = true
			}
		case OpTry, OpTryTable, OpCatch, OpCatchAll, OpDelegate:
			return nil // not Go's code
		}
	}
	if len(open) != 0 {
		return nil
	}
	if le, ok := stackCheck(body, d.table+1, checks); ok {
		checks[le], checks[le+1] = true, true
	}
	return checks
}

// stackCheck finds Go's stack check at the start of resume point 0,
// whose block ends at body[end]; checks are the unwind br_ifs. It returns
// the body index of the check's i32.le_u, followed by its if.
func stackCheck(body []Instr, end int, checks map[int]bool) (int, bool) {
	k := end + 1
	if end >= len(body) || body[end].Op != OpEnd || k+5 >= len(body) ||
		(body[k].Op != OpLocalGet && body[k].Op != OpGlobalGet) || body[k+1].Op != OpGlobalGet ||
		body[k+2].Op != OpI32WrapI64 || body[k+3].Op != OpI32Load || body[k+3].A != 16 {
		return 0, false
	}
	le := k + 4
	if body[le].Op == OpI32Const && le+2 < len(body) && body[le+1].Op == OpI32Add {
		le += 2 // a large frame: stackguard0 + framesize - StackSmall
	}
	if body[le].Op != OpI32LeU || le+1 >= len(body) || body[le+1].Op != OpIf || body[le+1].C != 0x40 {
		return 0, false
	}
	calls := 0
	for i := le + 2; i < len(body); i++ {
		switch body[i].Op {
		case OpCall:
			calls++
		case OpEnd:
			return le, calls == 1 && checks[i-1]
		case OpBlock, OpLoop, OpIf, OpElse, OpBr, OpBrTable, OpReturn, OpCallIndirect, OpCallRef,
			OpReturnCall, OpReturnCallIndirect, OpReturnCallRef:
			return 0, false
		}
	}
	return 0, false
}
