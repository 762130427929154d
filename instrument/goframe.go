package instrument

import "slices"

// Go frames: one mark per activation instead of marks per store.
//
// Go's wasm backend caches the stack pointer global (SP) in a local and
// writes its frames through that local: its own slots, and the return
// address of every call it makes (`SP -= 8; store PC at SP; call`). A
// dirty-mark fact dies at every call's resume point (the code after a
// call is also where a goroutine switch or a stack growth re-enters the
// function, marks.go), so without more knowledge most of a Go module's
// marks are of its frames: 84 % of the stores of gojson that marks.go
// cannot prove covered are through the SP local.
//
// An activation of a function is a call (resume point 0, where SP is
// the function's entry value E and the prologue allocates the frame: FB
// = E - fs) or a re-entry at a later resume point (SP is FB itself, the
// frame already allocated). With the blocks of [SP-fs-8, SP+fs+above)
// marked at the function's entry, every activation has [FB-8,
// FB+fs+above) marked: its frame, the return-address slot of its calls
// and, above, its slots in the caller's frame (arguments and results),
// whichever way it was entered. goFrameMarks proves, for the stores whose
// address is the SP local plus a constant, that the address lies there:
//
//   - it follows the local's value as E+d along the code: the prologue,
//     the pushes and the epilogue change it by constants (`local.get L;
//     i32.const c; i32.sub|i32.add; local.tee L; global.set SP`), and the
//     reload after a call (`call; global.get SP; local.set L`) gives the
//     value before the call's push, the callee having popped its return
//     address (a call without a push, to an import, leaves it);
//   - at the end of every resume point's block but the entry's, the value
//     is FB on the path that re-enters there; the code reaching it
//     through the blocks before (the reload after the call that ends
//     them) and the jumps to it must then have it at E-fs for one fs,
//     the frame's size, which is how fs is found; from there on, E-fs is
//     read as FB;
//   - a store is covered when its bytes lie in [E-fs-8, E+above), that
//     is [FB-8, FB+fs+above), above being the highest end of such a store
//     above E (at most maxFrameAbove).
//
// A store marks.go found covered by an earlier one's mark stays covered
// when goFrameMarks takes that mark away: the earlier store's first byte
// then lies in a block the entry marked, and the host restores a marked
// block with the DirtySpill bytes after it.
//
// Any other write of the local or of SP, a loop other than the
// dispatch's, a jump to resume point 0, exception handling, or a resume
// point reached with another value leaves the function to marks.go
// alone. What this rests on is Go's calling convention: a call that
// returns normally leaves SP as it was before its push (one that unwinds
// leaves the function through the br_if that follows), and a re-entry at
// a resume point sets SP to the frame's base, which the code after the
// resume point reads as the same local on both paths.

// maxFrameAbove bounds how far above E (into the caller's frame: the
// function's arguments and results) a covered store may reach.
const maxFrameAbove = 1 << dirtyShift

// maxInlineFrameMark bounds the bytes the entry marks inline, one store
// per block; a larger range is marked through the $mark helper.
const maxInlineFrameMark = 4 << dirtyShift

// goFrame is what goFrameMarks found in one function.
type goFrame struct {
	sp    uint32 // the local that caches SP
	size  uint32 // fs, the frame's size in bytes
	above uint32 // how far above E the covered stores reach (the caller's frame)
}

// frameState is the SP local's value at a point of the code: E+d, or
// unknown, or the point unreachable.
type frameState struct {
	d     int64
	known bool
	live  bool
}

func joinFrame(a, b frameState) frameState {
	switch {
	case !a.live:
		return b
	case !b.live:
		return a
	case a.known && b.known && a.d == b.d:
		return a
	}
	return frameState{live: true}
}

// frameCtl is an open construct in goFrameMarks' walk.
type frameCtl struct {
	op    Op
	arm   int        // resume point whose block this is, -1: none
	start frameState // at an if: the state its else starts with
	in    frameState // joined over the branches to its end
}

// frameStore is a store through the SP local at E+x, size bytes.
type frameStore struct {
	k    int
	x    int64
	size int64
}

// frameAnalysis is goFrameMarks' reusable state.
type frameAnalysis struct {
	ctl    []frameCtl
	stores []frameStore
	arrive []frameState // states at which code arrives at resume points > 0
}

// goFrameMarks sets elide[k] for the stores of body covered by the frame
// mark at its entry (see above) and returns the frame; false when it
// leaves the function to marks.go (elide unchanged) or finds no store
// the entry's marks would spare. body is a function of a Go module with
// dispatch d; pool is its br_table label pool.
func (a *frameAnalysis) goFrameMarks(body []Instr, pool []uint64, d goDispatch, nparams uint32, nimports uint32, elide []bool) (goFrame, bool) {
	if d.table < 0 || len(body) < 4 || body[0].Op != OpGlobalGet || body[1].Op != OpLocalSet || body[1].A < uint64(nparams) {
		return goFrame{}, false
	}
	spg, sp := body[0].A, body[1].A
	tab := &body[d.table]
	if tab.A+tab.B > uint64(len(pool)) || tab.B == 0 {
		return goFrame{}, false
	}
	labels := pool[tab.A : tab.A+tab.B]
	armOf := func(pc uint64) uint64 { return labels[min(pc, uint64(len(labels)-1))] }
	// the constructs before the table: blocks (unwind, resume points) and
	// the dispatch loop; the innermost block is resume point 0
	a.ctl, a.stores = a.ctl[:0], a.stores[:0]
	first := 2
	for k := first; k < d.table-1; k++ {
		if body[k].Op != OpBlock && body[k].Op != OpLoop {
			return goFrame{}, false
		}
		a.ctl = append(a.ctl, frameCtl{op: body[k].Op, arm: -1})
	}
	if !slices.Contains(labels, 0) {
		return goFrame{}, false
	}
	for j := range uint64(len(a.ctl)) {
		c := &a.ctl[len(a.ctl)-1-int(j)]
		if c.op == OpLoop {
			break
		}
		if slices.Contains(labels, j) {
			c.arm = int(j)
		}
	}
	loopAt := -1 // index in a.ctl of the dispatch loop
	if d.loop >= 0 {
		loopAt = d.loop - first
	}
	a.arrive = a.arrive[:0]
	fs := int64(-1)
	var s frameState  // after the br_table: unreachable
	pushed := false   // the last change of the local was a call's push
	spOff := int64(0) // SP's value less the local's
	// branch records the state s reaching label l (false: give up).
	branch := func(k int, l uint64) bool {
		if l >= uint64(len(a.ctl)) {
			return true // the function's end: leaves
		}
		i := len(a.ctl) - 1 - int(l)
		c := &a.ctl[i]
		switch {
		case i == loopAt:
			// a jump: `i32.const PC; local.set 0; br` (findGoDispatch)
			if body[k].Op != OpBr || k < 2 || body[k-2].Op != OpI32Const {
				return false
			}
			if armOf(uint64(uint32(body[k-2].A))) == 0 {
				return false
			}
			a.arrive = append(a.arrive, s)
		case c.arm > 0:
			a.arrive = append(a.arrive, s)
		case c.op == OpLoop:
			return false
		case c.arm == 0:
			return false
		default:
			c.in = joinFrame(c.in, s)
		}
		return true
	}
	for k := d.table + 1; k < len(body); k++ {
		in := &body[k]
		if (pushed || spOff != 0) && isControl(in.Op) {
			return goFrame{}, false // a call's push and reload are straight-line code
		}
		switch in.Op {
		case OpBlock:
			a.ctl = append(a.ctl, frameCtl{op: OpBlock, arm: -1})
		case OpIf:
			a.ctl = append(a.ctl, frameCtl{op: OpIf, arm: -1, start: s})
		case OpElse:
			n := len(a.ctl)
			if n == 0 || a.ctl[n-1].op != OpIf {
				return goFrame{}, false
			}
			c := &a.ctl[n-1]
			c.in = joinFrame(c.in, s)
			s, c.start = c.start, frameState{}
			c.op = OpElse
		case OpEnd:
			n := len(a.ctl)
			if n == 0 {
				continue // the body's end
			}
			c := a.ctl[n-1]
			a.ctl = a.ctl[:n-1]
			switch {
			case c.arm == 0:
				s = frameState{d: 0, known: true, live: true} // SP is E
			case c.arm > 0:
				a.arrive = append(a.arrive, s)
				if fs < 0 {
					// the first value known to arrive at a resume point
					for _, st := range a.arrive {
						if st.live {
							if !st.known || st.d > 0 || st.d < -(1<<24) {
								return goFrame{}, false
							}
							fs = -st.d
							break
						}
					}
					if fs < 0 {
						return goFrame{}, false
					}
				}
				s = frameState{d: -fs, known: true, live: true}
			case c.op == OpLoop:
				// the dispatch loop's end: what follows is left alone
				s = frameState{live: s.live}
			default:
				s = joinFrame(s, c.in)
				if c.op == OpIf {
					s = joinFrame(s, c.start)
				}
			}
		case OpLoop, OpTry, OpTryTable, OpCatch, OpCatchAll, OpDelegate, OpThrow, OpRethrow, OpThrowRef:
			return goFrame{}, false
		case OpBr:
			if !s.live {
				continue
			}
			if !branch(k, in.A) {
				return goFrame{}, false
			}
			s = frameState{}
		case OpBrIf, OpBrOnNull, OpBrOnNonNull:
			if s.live && !branch(k, in.A) {
				return goFrame{}, false
			}
		case OpBrTable:
			if s.live {
				if in.A+in.B > uint64(len(pool)) {
					return goFrame{}, false
				}
				for _, l := range pool[in.A : in.A+in.B] {
					if !branch(k, l) {
						return goFrame{}, false
					}
				}
			}
			s = frameState{}
		case OpReturn, OpUnreachable, OpReturnCall, OpReturnCallIndirect, OpReturnCallRef:
			s = frameState{}
		case OpCall, OpCallIndirect, OpCallRef:
			// a Go callee returns with SP above the return address it
			// was called with; an import leaves SP alone
			if pushed && !(in.Op == OpCall && in.A < uint64(nimports)) {
				spOff += 8
			}
			pushed = false
		case OpLocalSet, OpLocalTee:
			if in.A != sp {
				continue
			}
			if in.Op == OpLocalSet && body[k-1].Op == OpGlobalGet && body[k-1].A == spg {
				// the reload after a call: `global.get SP; local.set L`
				s.d += spOff
				spOff, pushed = 0, false
				continue
			}
			// `local.get L; i32.const c; i32.add|sub; local.tee L; global.set SP`
			if in.Op != OpLocalTee || k < 3 || k+1 >= len(body) || body[k-3].Op != OpLocalGet || body[k-3].A != sp ||
				body[k-2].Op != OpI32Const || (body[k-1].Op != OpI32Add && body[k-1].Op != OpI32Sub) ||
				body[k+1].Op != OpGlobalSet || body[k+1].A != spg {
				return goFrame{}, false
			}
			c := int64(int32(body[k-2].A))
			if body[k-1].Op == OpI32Sub {
				c = -c
			}
			s.d += c
			spOff = 0
			// a push: the return address stored at the new SP
			pushed = c == -8 && k+4 < len(body) && body[k+2].Op == OpLocalGet && body[k+2].A == sp &&
				body[k+3].Op == OpI64Const && body[k+4].Op == OpI64Store && body[k+4].A == 0
			k++ // the global.set
		case OpGlobalSet:
			if in.A == spg {
				return goFrame{}, false // not through the local
			}
		default:
			if !s.live || !s.known {
				continue
			}
			info := opinfo(in.Op)
			if info.mem != memStore || info.imm != immMemarg {
				continue
			}
			if l, disp, ok := storeBase(body, k); ok && uint64(l) == sp {
				a.stores = append(a.stores, frameStore{k: k, x: s.d + int64(disp) + int64(in.A), size: int64(info.size)})
			}
		}
	}
	if fs < 0 {
		return goFrame{}, false
	}
	for _, st := range a.arrive {
		if st.live && (!st.known || st.d != -fs) {
			return goFrame{}, false
		}
	}
	n, above := 0, int64(0)
	for _, st := range a.stores {
		if st.x >= -fs-8 && st.x+st.size <= maxFrameAbove && !elide[st.k] {
			elide[st.k] = true
			above = max(above, st.x+st.size)
			n++
		}
	}
	// with no store left without its mark, the entry's would cost only
	return goFrame{sp: uint32(sp), size: uint32(fs), above: uint32(above)}, n > 0
}

// frameMark emits, at a Go function's entry (SP's value in f.sp), the
// marks of the blocks of [SP-fs-8, SP+fs+above) (goFrameMarks). A range
// of at most a block lies in the block of its last byte and the one
// before: one i32.store16 marks both. Where SP is so low that the block
// before is -1 (nothing a real Go stack gets near), the store writes the
// byte before the dirty map, which Instrument leaves free after the
// counters of a module with Go frames; where the range wraps past 2^32,
// the stores it covers either wrap with it, into the blocks marked, or
// trap.
func (rw *rewriter) frameMark(f goFrame) {
	lo := -int64(f.size) - 8
	n := 2*int64(f.size) + 8 + int64(f.above)
	if n <= 1<<dirtyShift {
		rw.emit(OpLocalGet, uint64(f.sp))
		if top := lo + n - 1; top != 0 {
			rw.i32(top)
			rw.emit(OpI32Add, 0)
		}
		rw.i32(dirtyShift)
		rw.emit(OpI32ShrU, 0)
		rw.i32(0x0101)
		rw.emitMem(OpI32Store16, uint64(rw.dirtyOff)-1, 0)
		return
	}
	if n > maxInlineFrameMark {
		rw.emit(OpLocalGet, uint64(f.sp))
		rw.i32(lo)
		rw.emit(OpI32Add, 0)
		rw.i32(n)
		rw.emit(OpCall, uint64(rw.markFunc))
		return
	}
	for off := lo; ; off += 1 << dirtyShift {
		last := off >= lo+n-1
		if last {
			off = lo + n - 1
		}
		rw.emit(OpLocalGet, uint64(f.sp))
		rw.markAt(uint64(uint32(int32(off))))
		if last {
			return
		}
	}
}

// isControl reports whether op is a structured control or branch
// instruction.
func isControl(op Op) bool {
	switch op {
	case OpBlock, OpLoop, OpIf, OpElse, OpEnd, OpBr, OpBrIf, OpBrTable, OpBrOnNull, OpBrOnNonNull,
		OpTry, OpTryTable, OpCatch, OpCatchAll, OpDelegate:
		return true
	}
	return false
}
