package instrument

import "slices"

// Dirty marks a store can do without.
//
// With Options.DirtyPages every store marks the dirty block of its first
// byte, and the host restores each marked block with the DirtySpill bytes
// after it. A store that writes within DirtySpill bytes after the first
// byte of an earlier store, whose mark is sure to have run, is therefore
// restored with that store's block: it needs no mark of its own. Stack
// frames and structs are written this way (a local holding a base
// pointer, stores at small offsets from it): 13 % (crunch) to 34 %
// (czstd) of the stores of real C and Go programs need no mark
// (TestElidedMarksPrograms).
//
// elidedMarks proves it for stores whose address is a local plus a
// constant: `local.get L`, `local.get L; i32.const c; i32.add`, or Go's
// `local.get L; i64.extend_i32_u; i64.const c; i64.add; i32.wrap_i64`,
// and for a pointer in an i64 local (Go's registers), `local.get L;
// i32.wrap_i64` and `local.get L; i64.const c; i64.add; i32.wrap_i64`
// (the same address modulo 2^32 as the i32 forms), with 0 <= c <
// maxMarkDisp, followed by a value computed without control flow or
// calls. A fact "the block of L+o is marked", o being c plus the
// store's offset, holds from a store that marked it for as long as L
// keeps its value and the code is dominated by that store:
//
//   - a local.set or local.tee of L ends it (each local has a version, and a
//     fact names the version it was made under);
//   - it holds in the blocks nested where it was made, and after their end
//     only if it was made before them (a block's end, an else or a catch
//     can be reached from elsewhere, so they fall back to the facts at
//     the block's start); a loop's body starts with the facts on locals
//     it never sets (its back edges bring the others' later values).
//
// Wrapping: L+c is computed modulo 2^32, so two addresses made from one L
// differ by the difference of their constants only if neither wrapped.
// When one wraps and the other does not, the covered store's address lies
// within maxMarkDisp+DirtySpill bytes of 2^32 after adding the reserved
// region (which is larger than that: the dirty map alone is 4 MiB), so the
// covered store traps whenever the marking store did not: nothing it would
// write goes unmarked.

const (
	// maxMarkDisp bounds the constant c of a derived address (see above):
	// it must not exceed the reserved region's size.
	maxMarkDisp = 1 << 16
	// maxMarkFacts bounds the facts kept at once (the oldest go first), so
	// the analysis stays linear in the body.
	maxMarkFacts = 16
)

// markFact: the dirty block of local's value (at version ver) plus off is
// marked.
type markFact struct {
	local, ver uint32
	off        uint64
}

// markAnalysis is elidedMarks' reusable state.
type markAnalysis struct {
	elide []bool     // by instruction index: the store needs no mark
	ver   []uint32   // by local: bumped by every local.set/local.tee
	cur   []markFact // facts at the current instruction
	saved []markFact // facts at the start of each open block, stacked
	marks []int      // len(saved) at each open block's start

	loopEnd []int    // by instruction index of a block or loop: index of its end
	open    []int    // indices of the open blocks' first instructions
	sets    [][]int  // by local: indices of its local.set/local.tee, ascending
	setters []uint32 // the locals with a non-empty sets entry
}

// elidedMarks reports, by instruction index of body, the stores whose
// dirty mark is implied by an earlier one (see above). nlocals is the
// number of the function's locals, parameters included.
func (a *markAnalysis) elidedMarks(body []Instr, nlocals uint32) []bool {
	a.elide = slices.Grow(a.elide[:0], len(body))[:len(body)]
	clear(a.elide)
	a.ver = slices.Grow(a.ver[:0], int(nlocals))[:nlocals]
	clear(a.ver)
	a.cur, a.saved, a.marks = a.cur[:0], a.saved[:0], a.marks[:0]
	a.scanLoops(body, nlocals)
	for k := range body {
		in := &body[k]
		switch in.Op {
		case OpBlock, OpIf, OpTry, OpTryTable, OpLoop:
			a.marks = append(a.marks, len(a.saved))
			a.saved = append(a.saved, a.cur...)
			if in.Op == OpLoop {
				a.cur = slices.DeleteFunc(a.cur, func(f markFact) bool { return a.setWithin(f.local, k) })
			}
			continue
		case OpElse, OpCatch, OpCatchAll:
			if n := len(a.marks); n > 0 {
				a.cur = append(a.cur[:0], a.saved[a.marks[n-1]:]...)
			}
			continue
		case OpEnd, OpDelegate:
			if n := len(a.marks); n > 0 {
				a.cur = append(a.cur[:0], a.saved[a.marks[n-1]:]...)
				a.saved = a.saved[:a.marks[n-1]]
				a.marks = a.marks[:n-1]
			}
			continue
		case OpLocalSet, OpLocalTee:
			if in.A < uint64(len(a.ver)) {
				a.ver[in.A]++
			}
			continue
		}
		info := opinfo(in.Op)
		if info.mem != memStore || info.imm != immMemarg {
			continue
		}
		local, disp, ok := storeBase(body, k)
		if !ok || local >= uint32(len(a.ver)) {
			continue
		}
		off := disp + in.A
		size := uint64(info.size)
		v := a.ver[local]
		if a.covered(local, v, off, size) {
			a.elide[k] = true
			continue
		}
		if len(a.cur) == maxMarkFacts {
			a.cur = append(a.cur[:0], a.cur[1:]...)
		}
		a.cur = append(a.cur, markFact{local: local, ver: v, off: off})
	}
	return a.elide
}

// scanLoops records where each loop of body ends and where each of its
// nlocals locals is set.
func (a *markAnalysis) scanLoops(body []Instr, nlocals uint32) {
	a.loopEnd = slices.Grow(a.loopEnd[:0], len(body))[:len(body)]
	for _, l := range a.setters {
		a.sets[l] = a.sets[l][:0]
	}
	a.setters = a.setters[:0]
	if int(nlocals) > len(a.sets) {
		a.sets = append(a.sets, make([][]int, int(nlocals)-len(a.sets))...)
	}
	a.open = a.open[:0]
	for k := range body {
		switch in := &body[k]; in.Op {
		case OpBlock, OpIf, OpTry, OpTryTable, OpLoop:
			a.open = append(a.open, k)
		case OpEnd, OpDelegate:
			if n := len(a.open); n > 0 {
				a.loopEnd[a.open[n-1]] = k
				a.open = a.open[:n-1]
			}
		case OpLocalSet, OpLocalTee:
			if l := in.A; l < uint64(nlocals) {
				if len(a.sets[l]) == 0 {
					a.setters = append(a.setters, uint32(l))
				}
				a.sets[l] = append(a.sets[l], k)
			}
		}
	}
	for _, k := range a.open { // unbalanced: the body's end closes them
		a.loopEnd[k] = len(body)
	}
}

// setWithin reports whether local is set inside the loop whose loop
// instruction is body[start].
func (a *markAnalysis) setWithin(local uint32, start int) bool {
	pos := a.sets[local]
	i, _ := slices.BinarySearch(pos, start)
	return i < len(pos) && pos[i] < a.loopEnd[start]
}

// covered reports whether a fact marks a store of size bytes at local
// (version ver) plus off.
func (a *markAnalysis) covered(local, ver uint32, off, size uint64) bool {
	for _, f := range a.cur {
		if f.local == local && f.ver == ver && f.off <= off && off+size-f.off <= DirtySpill {
			return true
		}
	}
	return false
}

// storeBase matches the address of the store at body[k] against the forms
// in the comment above: it returns the local and the constant, and false
// when the address is something else, when the value is not a
// straight-line expression, or when that expression sets the local.
func storeBase(body []Instr, k int) (local uint32, disp uint64, ok bool) {
	vs := exprStart(body, k-1)
	if vs < 1 {
		return 0, 0, false
	}
	var as int
	switch e := body[:vs]; {
	case len(e) >= 1 && e[len(e)-1].Op == OpLocalGet:
		as = vs - 1
	case len(e) >= 3 && e[len(e)-3].Op == OpLocalGet && e[len(e)-2].Op == OpI32Const && e[len(e)-1].Op == OpI32Add:
		as, disp = vs-3, e[len(e)-2].A
	case len(e) >= 5 && e[len(e)-5].Op == OpLocalGet && e[len(e)-4].Op == OpI64ExtendI32U &&
		e[len(e)-3].Op == OpI64Const && e[len(e)-2].Op == OpI64Add && e[len(e)-1].Op == OpI32WrapI64:
		as, disp = vs-5, e[len(e)-3].A
	case len(e) >= 2 && e[len(e)-2].Op == OpLocalGet && e[len(e)-1].Op == OpI32WrapI64:
		as = vs - 2 // an i64 local
	case len(e) >= 4 && e[len(e)-4].Op == OpLocalGet && e[len(e)-3].Op == OpI64Const &&
		e[len(e)-2].Op == OpI64Add && e[len(e)-1].Op == OpI32WrapI64:
		as, disp = vs-4, e[len(e)-3].A
	default:
		return 0, 0, false
	}
	// Constants are stored sign-extended: a negative one is >= maxMarkDisp.
	if disp >= maxMarkDisp {
		return 0, 0, false
	}
	local = uint32(body[as].A)
	for _, in := range body[vs:k] {
		if in.Op == OpLocalTee && in.A == uint64(local) {
			return 0, 0, false
		}
	}
	return local, disp, true
}

// exprStart returns the index of the first instruction of the expression
// that ends at body[end] and leaves one value on the stack, or -1 when it
// contains anything but locals, globals, constants, loads and numeric
// operators (no control flow, no call, no side effect but a local.tee).
func exprStart(body []Instr, end int) int {
	need := 1
	for i := end; i >= 0 && i > end-64; i-- {
		pop, ok := simplePops(&body[i])
		if !ok {
			return -1
		}
		// Each of these pushes one value.
		if need--; need < 0 {
			return -1
		}
		if need += pop; need == 0 {
			return i
		}
	}
	return -1
}

// simplePops returns how many operands a side-effect-free instruction that
// pushes one value pops, and false for every other instruction.
func simplePops(in *Instr) (int, bool) {
	switch op := in.Op; {
	case op == OpLocalGet, op == OpGlobalGet, op >= OpI32Const && op <= OpF64Const:
		return 0, true
	case op == OpLocalTee:
		return 1, true
	case op >= OpI32Load && op <= 0x35: // scalar loads
		return 1, true
	case op == OpI32Eqz, op == OpI64Eqz,
		op >= 0x67 && op <= 0x69, op >= 0x79 && op <= 0x7b, // clz, ctz, popcnt
		op >= 0x8b && op <= 0x91, op >= 0x99 && op <= 0x9f, // float unary
		op >= 0xa7 && op <= 0xc4: // conversions, sign extension
		return 1, true
	case op >= 0x46 && op <= 0x4f, op >= 0x51 && op <= 0x66, // comparisons
		op >= 0x6a && op <= 0x78, op >= 0x7c && op <= 0x8a, // integer binary
		op >= 0x92 && op <= 0x98, op >= 0xa0 && op <= 0xa6: // float binary
		return 2, true
	}
	return 0, false
}
