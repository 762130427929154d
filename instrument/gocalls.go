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
// As branch sites both cost a counter on every call (the br_if's fall-
// through and the if's missing else), and what their rare arms tell (that
// the stack was unwound while this call was on it, that this function
// grew the stack) follows the scheduler, the garbage collector and the
// stack's size rather than the input's structure. `go test -fuzz`
// counts neither: its counters are on the edges of the program's basic
// blocks, and a call does not end one. Neither gets a site, and the stack
// check's comparison gets no compare-log entry; the code after a call
// stays in the region of the code before it (regions.go), as after any
// call. Options.CountGoCallChecks counts them as any other branch.
//
// What is lost: no edge a condition of the program decides (those are if
// arms around jumps, godispatch.go), and the arms of the dispatch that
// only the re-entry after an unwound call hits, which the unwind br_if's
// taken site stood for, are the same machinery.

// goCallChecks returns the body indices of Go's call checks in a body
// with the recognised dispatch d: every br_if to the unwindExit block,
// and the stack check's i32.le_u and if. It returns nil when the body
// has no unwindExit block of Go's shape or no check is found.
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
