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
	w, ok := a.newFrameWalk(body, pool, d, nparams, nimports)
	if !ok {
		return goFrame{}, false
	}
	for k := d.table + 1; k < len(body); k++ {
		if k, ok = w.step(k); !ok {
			return goFrame{}, false
		}
	}
	if !w.arrivalsAgree() {
		return goFrame{}, false
	}
	return w.markStores(elide)
}

// frameWalk is goFrameMarks' walk of one body, after its dispatch table:
// the SP local's state at the instruction walked, and what the walk has
// learnt of the frame.
type frameWalk struct {
	a        *frameAnalysis
	body     []Instr
	pool     []uint64
	labels   []uint64 // the dispatch table's
	spg, sp  uint64   // the SP global, and the local that caches it
	nimports uint32
	loopAt   int        // index in a.ctl of the dispatch loop, -1: none
	fs       int64      // the frame's size, -1: not known yet
	s        frameState // after the br_table: unreachable
	pushed   bool       // the last change of the local was a call's push
	spOff    int64      // SP's value less the local's
}

// newFrameWalk checks body's entry (SP read into a local, then the
// dispatch's constructs and table) and opens the constructs before the
// table; false: not a shape the walk follows.
func (a *frameAnalysis) newFrameWalk(body []Instr, pool []uint64, d goDispatch, nparams uint32, nimports uint32) (frameWalk, bool) {
	if d.table < 0 || len(body) < 4 || body[0].Op != OpGlobalGet || body[1].Op != OpLocalSet || body[1].A < uint64(nparams) {
		return frameWalk{}, false
	}
	tab := &body[d.table]
	if tab.A+tab.B > uint64(len(pool)) || tab.B == 0 {
		return frameWalk{}, false
	}
	w := frameWalk{a: a, body: body, pool: pool, labels: pool[tab.A : tab.A+tab.B],
		spg: body[0].A, sp: body[1].A, nimports: nimports, loopAt: -1, fs: -1}
	const first = 2
	if !w.openDispatch(first, d.table-1) {
		return frameWalk{}, false
	}
	if d.loop >= 0 {
		w.loopAt = d.loop - first
	}
	a.arrive = a.arrive[:0]
	return w, true
}

// openDispatch opens the constructs of body[first:end], before the
// table: blocks (unwind, resume points) and the dispatch loop; the
// innermost block is resume point 0. false: another construct, or no arm
// of the table goes to resume point 0.
func (w *frameWalk) openDispatch(first, end int) bool {
	a, body := w.a, w.body
	a.ctl, a.stores = a.ctl[:0], a.stores[:0]
	for k := first; k < end; k++ {
		if body[k].Op != OpBlock && body[k].Op != OpLoop {
			return false
		}
		a.ctl = append(a.ctl, frameCtl{op: body[k].Op, arm: -1})
	}
	if !slices.Contains(w.labels, 0) {
		return false
	}
	for j := range uint64(len(a.ctl)) {
		c := &a.ctl[len(a.ctl)-1-int(j)]
		if c.op == OpLoop {
			break
		}
		if slices.Contains(w.labels, j) {
			c.arm = int(j)
		}
	}
	return true
}

// armOf is the label the dispatch table sends pc to.
func (w *frameWalk) armOf(pc uint64) uint64 {
	return w.labels[min(pc, uint64(len(w.labels)-1))]
}

// step walks body[k] and returns the index of the last instruction it
// took (a stack pointer update takes two); false: give up.
func (w *frameWalk) step(k int) (int, bool) {
	a, in := w.a, &w.body[k]
	if (w.pushed || w.spOff != 0) && isControl(in.Op) {
		return k, false // a call's push and reload are straight-line code
	}
	switch in.Op {
	case OpBlock:
		a.ctl = append(a.ctl, frameCtl{op: OpBlock, arm: -1})
	case OpIf:
		a.ctl = append(a.ctl, frameCtl{op: OpIf, arm: -1, start: w.s})
	case OpElse:
		return k, w.elseArm()
	case OpEnd:
		return k, w.end()
	case OpLoop, OpTry, OpTryTable, OpCatch, OpCatchAll, OpDelegate, OpThrow, OpRethrow, OpThrowRef:
		return k, false
	case OpBr:
		if !w.s.live {
			return k, true
		}
		if !w.branch(k, in.A) {
			return k, false
		}
		w.s = frameState{}
	case OpBrIf, OpBrOnNull, OpBrOnNonNull:
		if w.s.live && !w.branch(k, in.A) {
			return k, false
		}
	case OpBrTable:
		return k, w.brTable(k, in)
	case OpReturn, OpUnreachable, OpReturnCall, OpReturnCallIndirect, OpReturnCallRef:
		w.s = frameState{}
	case OpCall, OpCallIndirect, OpCallRef:
		// a Go callee returns with SP above the return address it
		// was called with; an import leaves SP alone
		if w.pushed && !(in.Op == OpCall && in.A < uint64(w.nimports)) {
			w.spOff += 8
		}
		w.pushed = false
	case OpLocalSet, OpLocalTee:
		return w.setLocal(k, in)
	case OpGlobalSet:
		if in.A == w.spg {
			return k, false // not through the local
		}
	default:
		w.store(k, in)
	}
	return k, true
}

// branch records the state reaching label l from the branch body[k]
// (false: give up).
func (w *frameWalk) branch(k int, l uint64) bool {
	a, body := w.a, w.body
	if l >= uint64(len(a.ctl)) {
		return true // the function's end: leaves
	}
	i := len(a.ctl) - 1 - int(l)
	c := &a.ctl[i]
	switch {
	case i == w.loopAt:
		// a jump: `i32.const PC; local.set 0; br` (findGoDispatch)
		if body[k].Op != OpBr || k < 2 || body[k-2].Op != OpI32Const {
			return false
		}
		if w.armOf(uint64(uint32(body[k-2].A))) == 0 {
			return false
		}
		a.arrive = append(a.arrive, w.s)
	case c.arm > 0:
		a.arrive = append(a.arrive, w.s)
	case c.op == OpLoop:
		return false
	case c.arm == 0:
		return false
	default:
		c.in = joinFrame(c.in, w.s)
	}
	return true
}

// brTable records the state reaching each label of br_table in, body[k].
func (w *frameWalk) brTable(k int, in *Instr) bool {
	if w.s.live {
		if in.A+in.B > uint64(len(w.pool)) {
			return false
		}
		for _, l := range w.pool[in.A : in.A+in.B] {
			if !w.branch(k, l) {
				return false
			}
		}
	}
	w.s = frameState{}
	return true
}

// elseArm ends an if's then arm and starts its else arm.
func (w *frameWalk) elseArm() bool {
	a := w.a
	n := len(a.ctl)
	if n == 0 || a.ctl[n-1].op != OpIf {
		return false
	}
	c := &a.ctl[n-1]
	c.in = joinFrame(c.in, w.s)
	w.s, c.start = c.start, frameState{}
	c.op = OpElse
	return true
}

// end closes the innermost construct: the state after it is E at
// resume point 0, E-fs at the others, else the join of what reaches it.
func (w *frameWalk) end() bool {
	a := w.a
	n := len(a.ctl)
	if n == 0 {
		return true // the body's end
	}
	c := a.ctl[n-1]
	a.ctl = a.ctl[:n-1]
	switch {
	case c.arm == 0:
		w.s = frameState{d: 0, known: true, live: true} // SP is E
	case c.arm > 0:
		a.arrive = append(a.arrive, w.s)
		if w.fs < 0 && !w.learnFrameSize() {
			return false
		}
		w.s = frameState{d: -w.fs, known: true, live: true}
	case c.op == OpLoop:
		// the dispatch loop's end: what follows is left alone
		w.s = frameState{live: w.s.live}
	default:
		w.s = joinFrame(w.s, c.in)
		if c.op == OpIf {
			w.s = joinFrame(w.s, c.start)
		}
	}
	return true
}

// learnFrameSize takes fs from the first value known to arrive at a
// resume point; false: none is, or it is not a frame below E.
func (w *frameWalk) learnFrameSize() bool {
	for _, st := range w.a.arrive {
		if st.live {
			if !st.known || st.d > 0 || st.d < -(1<<24) {
				return false
			}
			w.fs = -st.d
			break
		}
	}
	return w.fs >= 0
}

// setLocal follows a write of body[k], in, to the SP local: the reload
// after a call, or an update of SP through the local (which takes the
// global.set after it too); false: another write.
func (w *frameWalk) setLocal(k int, in *Instr) (int, bool) {
	body, sp, spg := w.body, w.sp, w.spg
	if in.A != sp {
		return k, true
	}
	if in.Op == OpLocalSet && body[k-1].Op == OpGlobalGet && body[k-1].A == spg {
		// the reload after a call: `global.get SP; local.set L`
		w.s.d += w.spOff
		w.spOff, w.pushed = 0, false
		return k, true
	}
	// `local.get L; i32.const c; i32.add|sub; local.tee L; global.set SP`
	if in.Op != OpLocalTee || k < 3 || k+1 >= len(body) || body[k-3].Op != OpLocalGet || body[k-3].A != sp ||
		body[k-2].Op != OpI32Const || (body[k-1].Op != OpI32Add && body[k-1].Op != OpI32Sub) ||
		body[k+1].Op != OpGlobalSet || body[k+1].A != spg {
		return k, false
	}
	c := int64(int32(body[k-2].A))
	if body[k-1].Op == OpI32Sub {
		c = -c
	}
	w.s.d += c
	w.spOff = 0
	// a push: the return address stored at the new SP
	w.pushed = c == -8 && k+4 < len(body) && body[k+2].Op == OpLocalGet && body[k+2].A == sp &&
		body[k+3].Op == OpI64Const && body[k+4].Op == OpI64Store && body[k+4].A == 0
	return k + 1, true // the global.set
}

// store records in, body[k], if it is a store through the SP local at a
// known offset from E.
func (w *frameWalk) store(k int, in *Instr) {
	if !w.s.live || !w.s.known {
		return
	}
	info := opinfo(in.Op)
	if info.mem != memStore || info.imm != immMemarg {
		return
	}
	if l, disp, ok := storeBase(w.body, k); ok && uint64(l) == w.sp {
		w.a.stores = append(w.a.stores, frameStore{k: k, x: w.s.d + int64(disp) + int64(in.A), size: int64(info.size)})
	}
}

// arrivalsAgree reports whether the frame's size is known and every
// state arriving at a resume point is E-fs.
func (w *frameWalk) arrivalsAgree() bool {
	if w.fs < 0 {
		return false
	}
	for _, st := range w.a.arrive {
		if st.live && (!st.known || st.d != -w.fs) {
			return false
		}
	}
	return true
}

// markStores sets elide for the recorded stores the entry's marks cover
// and returns the frame; false when none is (the entry's marks would
// only cost).
func (w *frameWalk) markStores(elide []bool) (goFrame, bool) {
	fs := w.fs
	n, above := 0, int64(0)
	for _, st := range w.a.stores {
		if st.x >= -fs-8 && st.x+st.size <= maxFrameAbove && !elide[st.k] {
			elide[st.k] = true
			above = max(above, st.x+st.size)
			n++
		}
	}
	// with no store left without its mark, the entry's would cost only
	return goFrame{sp: uint32(w.sp), size: uint32(fs), above: uint32(above)}, n > 0
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
