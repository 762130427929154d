package instrument

import (
	"encoding/binary"
	"iter"
	"slices"
)

// Comparison logging (Options.Compares): the operands the target compares,
// for input-to-state mutation (Redqueen, AFL++'s cmplog, libFuzzer's
// table of recent compares). A module built with it is meant for a few
// runs per queue entry, not for every execution: each logged comparison
// costs a call.
//
// Every i32/i64 eq, ne, lt, gt, le and ge in a counted function (not eqz:
// a compare with zero teaches nothing) gets an entry of the integer log;
// before the comparison its operands go to $cmp32/$cmp64, which keep the
// last CompareSlots unequal pairs. A switch (a br_table on a value minus
// a constant, switchCases) gets one entry per CompareSlots of its case
// values (up to maxSwitchCases), logging the value against each, and each
// i64.xor of LLVM's 128-bit equality idiom (xorIdiom) one as an i64
// comparison. f32/f64 comparisons log their operands'
// bits the same way (as AFL++'s cmplog does): the input holds those bits,
// so replacing them with the other operand's meets a range check such as
// `x < 1000000.01 || x > 1000010.99`. Functions named like libc's byte
// comparisons (memcmp, bcmp, strcmp, strncmp, strcasecmp, strncasecmp:
// wasi-libc's, and what Rust's and C++'s standard libraries call) and Go's
// (memeqbody, cmpbody: what string == and < come down to) get an entry of
// the memory log; at their entry $cmpmem copies the first CompareMemBytes
// bytes of both buffers. compiler-rt's binary128 comparisons (__eqtf2 and
// kin: wasm32's long double) get one too: $cmp128 stores their two
// operands' 16 bytes each. Reading the buffers never traps: a range that
// runs past the end of memory is not logged. Only core 1.0 instructions
// are added, so the module needs no feature the original did not.

// Sizes of the comparison log (Layout.CompareOffset). An integer entry is
// an 8-byte header (uint32 count of unequal pairs logged, uint32 operand
// width 4 or 8) and CompareSlots slots of two little-endian uint64 (the
// pair of hit count%CompareSlots). A memory entry is an 8-byte header
// (count, kind) and CompareSlots slots of two uint32 lengths and two
// CompareMemBytes buffers.
const (
	CompareSlots         = 4
	CompareEntryBytes    = 8 + CompareSlots*16
	CompareMemBytes      = 32
	compareMemSlot       = 8 + 2*CompareMemBytes
	CompareMemEntryBytes = 8 + CompareSlots*compareMemSlot
	// maxCompares caps the integer entries, so a huge module's log stays
	// bounded (9 MiB); later comparisons are not logged. gojson has 9,373.
	maxCompares = 1 << 17
)

// Memory comparison kinds (the header's second word).
const (
	cmpMemBytes  = 1 // memcmp, bcmp: the first n bytes
	cmpMemString = 2 // strcmp and kin: up to a NUL
	// cmpWide128 is the hook kind of compiler-rt's binary128 comparisons
	// (long double on wasm32): two operands of two i64 halves each, low
	// half first, logged as 16-byte memory comparisons (kind
	// cmpMemBytes) of their little-endian bytes, as the input holds them.
	cmpWide128 = 3
)

// Comparison is one logged pair of operands.
type Comparison struct {
	// Size is the width of integer operands in bytes (4 or 8), 0 for a
	// memory comparison.
	Size int
	// A and B are integer operands (zero-extended to 64 bits).
	A, B uint64
	// MemA and MemB are the compared bytes of a memory comparison (a
	// string's up to its NUL); they alias the view passed to Comparisons.
	MemA, MemB []byte
	// Entry is the log entry the pair came from, integer entries first:
	// one comparison instruction, CompareSlots of a switch's cases, or one
	// comparison function (every call of memcmp shares its entry). The
	// same in every run of one build.
	Entry int
}

// Comparisons yields the pairs logged in mem, the instance's memory (real
// addresses), in entry order. An entry yields at most CompareSlots pairs.
func (l Layout) Comparisons(mem []byte) iter.Seq[Comparison] {
	return func(yield func(Comparison) bool) {
		if l.Compares+l.CompareMems == 0 || uint64(l.CompareOffset)+l.CompareLogBytes() > uint64(len(mem)) {
			return
		}
		off := int(l.CompareOffset)
		for k := range l.Compares {
			e := mem[off : off+CompareEntryBytes]
			off += CompareEntryBytes
			n := min(binary.LittleEndian.Uint32(e), CompareSlots)
			size := int(binary.LittleEndian.Uint32(e[4:]))
			for s := range n {
				p := e[8+16*s:]
				if !yield(Comparison{Size: size, A: binary.LittleEndian.Uint64(p), B: binary.LittleEndian.Uint64(p[8:]), Entry: int(k)}) {
					return
				}
			}
		}
		for k := range l.CompareMems {
			e := mem[off : off+CompareMemEntryBytes]
			off += CompareMemEntryBytes
			n := min(binary.LittleEndian.Uint32(e), CompareSlots)
			kind := binary.LittleEndian.Uint32(e[4:])
			for s := range n {
				p := e[8+compareMemSlot*s:]
				ka := min(binary.LittleEndian.Uint32(p), CompareMemBytes)
				kb := min(binary.LittleEndian.Uint32(p[4:]), CompareMemBytes)
				a, b := p[8:8+ka:8+ka], p[8+CompareMemBytes:8+CompareMemBytes+kb:8+CompareMemBytes+kb]
				if kind == cmpMemString {
					a, b = cString(a), cString(b)
				}
				if !yield(Comparison{MemA: a, MemB: b, Entry: int(l.Compares + k)}) {
					return
				}
			}
		}
	}
}

// cString cuts b at its first NUL.
func cString(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i:i]
		}
	}
	return b
}

// compareLogBytes is the size of the log for the given entry counts.
func compareLogBytes(ints, mems int) uint64 {
	return uint64(ints)*CompareEntryBytes + uint64(mems)*CompareMemEntryBytes
}

// maxSwitchCases caps the case values a switch is logged against (each
// CompareSlots of them an entry of the log).
const maxSwitchCases = 64

// countCompares counts the integer log entries of a body.
func countCompares(e *Expr) int {
	n := 0
	for i := range e.Instrs {
		if loggedCompare(e.Instrs[i].Op) || xorIdiom(e.Instrs, i) {
			n++
		}
		if _, cases := switchCases(e, i, maxSwitchCases); cases != nil {
			n += (len(cases) + CompareSlots - 1) / CompareSlots
		}
	}
	return n
}

// xorIdiom reports whether body[k] is an i64.xor of LLVM's 128-bit
// equality, `(alo ^ blo) | (ahi ^ bhi) == 0`: an i64.or follows within
// ten instructions that move values (local, const, load, add, the other
// xor), and an i64.eqz, or an i64.const 0 and i64.eq/ne, within three
// after it. Its operands are then logged as a comparison of 8 bytes, and
// the engine joins the halves it finds side by side in the input
// (engine/compares.go).
func xorIdiom(body []Instr, k int) bool {
	if body[k].Op != OpI64Xor {
		return false
	}
	for j := k + 1; j < len(body) && j <= k+10; j++ {
		switch body[j].Op {
		case OpLocalGet, OpLocalSet, OpLocalTee, OpI64Const, OpI32Const, OpI32Add, OpI64Load, OpI64Xor:
			continue
		case OpI64Or:
			for t := j + 1; t < len(body) && t <= j+3; t++ {
				switch body[t].Op {
				case OpI64Eqz:
					return true
				case OpI64Const:
					return body[t].A == 0 && t+1 < len(body) && (body[t+1].Op == OpI64Eq || body[t+1].Op == OpI64Ne)
				case OpLocalGet, OpLocalSet, OpLocalTee:
					continue
				}
				return false
			}
		}
		return false
	}
	return false
}

// cmpType is the operand type of a logged comparison (or xor idiom).
func cmpType(op Op) ValType {
	switch {
	case op == OpI64Xor:
		return TI64
	case op >= OpF64Eq && op <= OpF64Ge:
		return TF64
	case op >= OpF32Eq && op <= OpF32Ge:
		return TF32
	case op >= OpI64Eq && op <= OpI64GeU:
		return TI64
	}
	return TI32
}

// loggedCompare reports whether op is a comparison the integer log takes:
// i32/i64 (isCompare) and f32/f64 eq, ne, lt, gt, le, ge.
func loggedCompare(op Op) bool {
	return isCompare(op) || op >= OpF32Eq && op <= OpF32Ge || op >= OpF64Eq && op <= OpF64Ge
}

// memHook says how to log a byte comparison function's buffers at its
// entry: the locals holding the two pointers and their lengths.
type memHook struct {
	kind   uint32 // cmpMemBytes or cmpMemString; 0: no hook
	p, q   uint32 // parameters holding the pointers
	na, nb int    // parameters holding the lengths; -1: CompareMemBytes (a C string)
	wide   bool   // the parameters are i64 (Go's internal/bytealg)
}

// memCompareHook says whether a function named name of type ft is a byte
// comparison wafer logs, and how: libc's memcmp and bcmp (p, q, n) and
// strncmp, strncasecmp (p, q, n), strcmp and strcasecmp (p, q), all →
// i32; Go's memeqbody (a, b, n i64) → i64, which runtime.memequal and
// string == call, and cmpbody (a, alen, b, blen i64) → i64, which
// runtime.cmpstring and bytes.Compare call (internal/bytealg's wasm
// assembly).
func memCompareHook(name string, ft *FuncType) (memHook, bool) {
	var h memHook
	var params []ValType
	i32s := func(n int) []ValType { return slices.Repeat([]ValType{TI32}, n) }
	i64s := func(n int) []ValType { return slices.Repeat([]ValType{TI64}, n) }
	switch name {
	case "memcmp", "bcmp":
		h, params = memHook{kind: cmpMemBytes, p: 0, q: 1, na: 2, nb: 2}, i32s(3)
	case "strncmp", "strncasecmp":
		h, params = memHook{kind: cmpMemString, p: 0, q: 1, na: 2, nb: 2}, i32s(3)
	case "strcmp", "strcasecmp":
		h, params = memHook{kind: cmpMemString, p: 0, q: 1, na: -1, nb: -1}, i32s(2)
	case "memeqbody":
		h, params = memHook{kind: cmpMemBytes, p: 0, q: 1, na: 2, nb: 2, wide: true}, i64s(3)
	case "cmpbody":
		h, params = memHook{kind: cmpMemBytes, p: 0, q: 2, na: 1, nb: 3, wide: true}, i64s(4)
	case "__eqtf2", "__netf2", "__lttf2", "__letf2", "__gttf2", "__getf2", "__unordtf2", "__cmptf2":
		// compiler-rt's binary128 comparisons: (a_lo, a_hi, b_lo, b_hi i64) → i32
		h, params = memHook{kind: cmpWide128, p: 0, q: 2}, i64s(4)
		if !slices.Equal(ft.Params, params) || len(ft.Results) != 1 || ft.Results[0] != TI32 {
			return memHook{}, false
		}
		return h, true
	default:
		return memHook{}, false
	}
	want := TI32
	if h.wide {
		want = TI64
	}
	if !slices.Equal(ft.Params, params) || len(ft.Results) != 1 || ft.Results[0] != want {
		return memHook{}, false
	}
	return h, true
}

// offsetOperand reports the constant c when the left operand of the i32
// comparison at body[k] is a value plus c (`i32.const c; i32.add` or
// `i32.const -c; i32.sub`, then maybe a local.tee) and its right operand
// one instruction (a constant, local or global): LLVM's range checks and
// switch lookups, `x - 100001 <u 3` for 100001 <= x <= 100003. The log
// then holds x and the right operand minus c: the input holds x.
func offsetOperand(body []Instr, k int) (c int32, ok bool) {
	if body[k].Op < OpI32Eq || body[k].Op > OpI32GeU || k < 4 {
		return 0, false
	}
	switch body[k-1].Op {
	case OpI32Const, OpLocalGet, OpGlobalGet:
	default:
		return 0, false
	}
	j := k - 2
	if body[j].Op == OpLocalTee {
		j--
	}
	if j < 1 || body[j-1].Op != OpI32Const {
		return 0, false
	}
	v := int32(uint32(body[j-1].A))
	switch body[j].Op {
	case OpI32Add:
		return v, v != 0
	case OpI32Sub:
		return -v, v != 0
	}
	return 0, false
}

// compare logs the operands of the comparison in (unless the log is
// full), then performs it. offset: the left operand is a value plus
// offset, logged without it (offsetOperand).
func (rw *rewriter) compare(in *Instr, offset int32) {
	if rw.ncmp >= rw.cmpInts {
		rw.keep(in)
		return
	}
	entry := uint64(rw.cmpOff) + uint64(rw.ncmp)*CompareEntryBytes
	rw.ncmp++
	t, fn, bits := cmpType(in.Op), rw.cmpFunc, Op(0)
	switch t {
	case TF64:
		fn, bits = rw.cmpFunc+1, OpI64ReinterpretF64
	case TF32:
		bits = OpI32ReinterpretF32
	case TI64:
		fn = rw.cmpFunc + 1
	}
	a, b := rw.local(t, 200), rw.local(t, 201)
	rw.emit(OpLocalSet, uint64(b))
	rw.emit(OpLocalTee, uint64(a))
	if bits != 0 {
		rw.emit(bits, 0)
	}
	if offset != 0 {
		rw.i32(-int64(offset))
		rw.emit(OpI32Add, 0)
	}
	rw.emit(OpLocalGet, uint64(b))
	if bits != 0 {
		rw.emit(bits, 0)
	}
	if offset != 0 {
		rw.i32(-int64(offset))
		rw.emit(OpI32Add, 0)
	}
	rw.i32(int64(entry))
	rw.emit(OpCall, uint64(fn))
	rw.emit(OpLocalGet, uint64(a))
	rw.emit(OpLocalGet, uint64(b))
	rw.keep(in)
}

// switchCompare logs the value a switch's br_table selects on, the index
// on the stack plus base (its index is the value minus base), against each
// case value in cases, CompareSlots of them an entry, so that every case
// is tried.
func (rw *rewriter) switchCompare(cases []uint32, base uint32) {
	sel := rw.local(TI32, 202)
	rw.emit(OpLocalTee, uint64(sel))
	var entry uint64
	for k, c := range cases {
		if k%CompareSlots == 0 {
			if rw.ncmp >= rw.cmpInts {
				return
			}
			entry = uint64(rw.cmpOff) + uint64(rw.ncmp)*CompareEntryBytes
			rw.ncmp++
		}
		rw.emit(OpLocalGet, uint64(sel))
		rw.i32(int64(base))
		rw.emit(OpI32Add, 0)
		rw.i32(int64(c))
		rw.i32(int64(entry))
		rw.emit(OpCall, uint64(rw.cmpFunc))
	}
}

// memCompare logs the buffers of a byte comparison at its entry (the
// operands of a binary128 one).
func (rw *rewriter) memCompare(h memHook) {
	entry := uint64(rw.cmpOff) + uint64(rw.cmpInts)*CompareEntryBytes + uint64(rw.nmem)*CompareMemEntryBytes
	rw.nmem++
	if h.kind == cmpWide128 {
		for _, l := range []uint32{h.p, h.p + 1, h.q, h.q + 1} {
			rw.emit(OpLocalGet, uint64(l))
		}
		rw.i32(int64(entry))
		rw.emit(OpCall, uint64(rw.cmpFunc+3))
		return
	}
	rw.memOperands(h)
	rw.i32(int64(entry))
	rw.emit(OpCall, uint64(rw.cmpFunc+2))
}

// memOperands pushes what the hooks of a byte comparison take: its two
// pointers and two lengths as i32 (CompareMemBytes for a length the
// function does not take), then its kind.
func (rw *rewriter) memOperands(h memHook) {
	get := func(local int) {
		if local < 0 {
			rw.i32(CompareMemBytes)
			return
		}
		rw.emit(OpLocalGet, uint64(local))
		if h.wide {
			rw.emit(OpI32WrapI64, 0)
		}
	}
	get(int(h.p))
	get(int(h.q))
	get(h.na)
	get(h.nb)
	rw.i32(int64(h.kind))
}

// logSlot counts a pair in the log entry at local e (its first word), sets
// its second word to what second pushes (an i32), and points e at the
// slot the old count selects, slotBytes apiece: the slot's fields are then
// at offsets 8 and up from e. n is a scratch local.
func logSlot(e, n uint64, second Instr, slotBytes uint64) []Instr {
	return []Instr{
		{Op: OpLocalGet, A: e}, {Op: OpLocalGet, A: e}, {Op: OpI32Load, B: 2}, {Op: OpLocalTee, A: n},
		{Op: OpI32Const, A: 1}, {Op: OpI32Add}, {Op: OpI32Store, B: 2},
		{Op: OpLocalGet, A: e}, second, {Op: OpI32Store, A: 4, B: 2},
		{Op: OpLocalGet, A: e}, {Op: OpLocalGet, A: n}, {Op: OpI32Const, A: CompareSlots - 1}, {Op: OpI32And},
		{Op: OpI32Const, A: slotBytes}, {Op: OpI32Mul}, {Op: OpI32Add}, {Op: OpLocalSet, A: e},
	}
}

// addCompareFuncs appends $cmp32(a, b i32, entry i32), $cmp64(a, b i64,
// entry i32) and $cmpmem(p, q, na, nb, kind, entry i32), in that order, at
// function index rw.cmpFunc. Their memory accesses address the reserved
// region directly (they are not rewritten).
func (rw *rewriter) addCompareFuncs() {
	m := rw.m
	for _, t := range []ValType{TI32, TI64} {
		ti := rw.typeIndex([]ValType{t, t, TI32}, nil)
		const a, b, e, n = 0, 1, 2, 3
		eq, ext := OpI32Eq, []Instr{{Op: OpI64ExtendI32U}}
		size := 4
		if t == TI64 {
			eq, ext, size = OpI64Eq, nil, 8
		}
		body := []Instr{{Op: OpLocalGet, A: a}, {Op: OpLocalGet, A: b}, {Op: eq}, {Op: OpIf, C: 0x40}, {Op: OpReturn}, {Op: OpEnd}}
		body = append(body, logSlot(e, n, Instr{Op: OpI32Const, A: uint64(size)}, 16)...)
		body = append(body, Instr{Op: OpLocalGet, A: e}, Instr{Op: OpLocalGet, A: a})
		body = append(body, ext...)
		body = append(body, Instr{Op: OpI64Store, A: 8, B: 3}, Instr{Op: OpLocalGet, A: e}, Instr{Op: OpLocalGet, A: b})
		body = append(body, ext...)
		body = append(body, Instr{Op: OpI64Store, A: 16, B: 3}, Instr{Op: OpEnd})
		m.Funcs = append(m.Funcs, ti)
		m.Code = append(m.Code, Code{Locals: []LocalDecl{{Count: 1, Type: TI32}}, Body: Expr{Instrs: body}})
	}
	ti := rw.typeIndex([]ValType{TI32, TI32, TI32, TI32, TI32, TI32}, nil)
	const p, q, na, nb, kind, e, c, lim, i = 0, 1, 2, 3, 4, 5, 6, 7, 8
	rb := int64(rw.rb)
	// clamp: n = min(n, CompareMemBytes), unsigned
	clamp := func(n uint64) []Instr {
		return []Instr{
			{Op: OpLocalGet, A: n}, {Op: OpI32Const, A: CompareMemBytes}, {Op: OpLocalGet, A: n}, {Op: OpI32Const, A: CompareMemBytes},
			{Op: OpI32LtU}, {Op: OpSelect}, {Op: OpLocalSet, A: n},
		}
	}
	// outOfRange returns when target bytes [x, x+n) run past the memory
	outOfRange := func(x, n uint64) []Instr {
		return []Instr{
			{Op: OpLocalGet, A: x}, {Op: OpI64ExtendI32U}, {Op: OpI64Const, A: uint64(rb)}, {Op: OpI64Add},
			{Op: OpLocalGet, A: n}, {Op: OpI64ExtendI32U}, {Op: OpI64Add}, {Op: OpLocalGet, A: lim}, {Op: OpI64GtU},
			{Op: OpIf, C: 0x40}, {Op: OpReturn}, {Op: OpEnd},
		}
	}
	// copyBytes copies n target bytes from x to the slot's buffer at off,
	// a byte at a time (core 1.0 has no memory.copy; the loads reach
	// target addresses through offset rb)
	copyBytes := func(x, n, off uint64) []Instr {
		return []Instr{
			{Op: OpI32Const}, {Op: OpLocalSet, A: i},
			{Op: OpBlock, C: 0x40}, {Op: OpLoop, C: 0x40},
			{Op: OpLocalGet, A: i}, {Op: OpLocalGet, A: n}, {Op: OpI32GeU}, {Op: OpBrIf, A: 1},
			{Op: OpLocalGet, A: e}, {Op: OpLocalGet, A: i}, {Op: OpI32Add},
			{Op: OpLocalGet, A: x}, {Op: OpLocalGet, A: i}, {Op: OpI32Add}, {Op: OpI32Load8U, A: uint64(rb)},
			{Op: OpI32Store8, A: off},
			{Op: OpLocalGet, A: i}, {Op: OpI32Const, A: 1}, {Op: OpI32Add}, {Op: OpLocalSet, A: i},
			{Op: OpBr, A: 0},
			{Op: OpEnd}, {Op: OpEnd},
		}
	}
	body := []Instr{{Op: OpMemorySize}, {Op: OpI64ExtendI32U}, {Op: OpI64Const, A: 16}, {Op: OpI64Shl}, {Op: OpLocalSet, A: lim}}
	body = append(body, clamp(na)...)
	body = append(body, clamp(nb)...)
	body = append(body, outOfRange(p, na)...)
	body = append(body, outOfRange(q, nb)...)
	body = append(body, logSlot(e, c, Instr{Op: OpLocalGet, A: kind}, compareMemSlot)...)
	body = append(body,
		Instr{Op: OpLocalGet, A: e}, Instr{Op: OpLocalGet, A: na}, Instr{Op: OpI32Store, A: 8, B: 2},
		Instr{Op: OpLocalGet, A: e}, Instr{Op: OpLocalGet, A: nb}, Instr{Op: OpI32Store, A: 12, B: 2},
	)
	body = append(body, copyBytes(p, na, 16)...)
	body = append(body, copyBytes(q, nb, 16+CompareMemBytes)...)
	body = append(body, Instr{Op: OpEnd})
	m.Funcs = append(m.Funcs, ti)
	m.Code = append(m.Code, Code{Locals: []LocalDecl{{Count: 1, Type: TI32}, {Count: 1, Type: TI64}, {Count: 1, Type: TI32}}, Body: Expr{Instrs: body}})
	if rw.has128 {
		rw.addCompare128()
	}
}

// addCompare128 appends $cmp128(alo, ahi, blo, bhi i64, entry i32) at
// rw.cmpFunc+3: a memory log slot of kind cmpMemBytes holding the two
// operands' 16 little-endian bytes each, unless they are equal.
func (rw *rewriter) addCompare128() {
	const alo, ahi, blo, bhi, e, n = 0, 1, 2, 3, 4, 5
	body := seq(
		one(localGet(alo), localGet(blo), bare(OpI64Eq), localGet(ahi), localGet(bhi), bare(OpI64Eq), bare(OpI32And)),
		ifThen(bare(OpReturn)),
		logSlot(e, n, i32Const(cmpMemBytes), compareMemSlot),
		one(localGet(e), i32Const(16), Instr{Op: OpI32Store, A: 8, B: 2}, localGet(e), i32Const(16), Instr{Op: OpI32Store, A: 12, B: 2}),
		one(localGet(e), localGet(alo), Instr{Op: OpI64Store, A: 16}, localGet(e), localGet(ahi), Instr{Op: OpI64Store, A: 24}),
		one(localGet(e), localGet(blo), Instr{Op: OpI64Store, A: 16 + CompareMemBytes}, localGet(e), localGet(bhi), Instr{Op: OpI64Store, A: 24 + CompareMemBytes}),
	)
	rw.appendFunc([]ValType{TI64, TI64, TI64, TI64, TI32}, nil, []LocalDecl{{Count: 1, Type: TI32}}, body)
}
