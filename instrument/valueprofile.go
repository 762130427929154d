package instrument

import "math/bits"

// Value profile (Options.ValueProfile): how close the operands of each
// comparison came, as coverage (libFuzzer's -use_value_profile, AFL++'s
// value-profile mode, wasmfuzz's cmpcov). A check on a value computed
// from the input (a weighted sum, a hash, a mask assembled from byte
// checks) has one branch for "equal" and one for "not": coverage keeps no
// input that gets closer. With the value profile each comparison the log
// of compare.go would take (integer and float comparisons, switch cases,
// the 128-bit idioms, the soft-float calls) records two features: the
// number of differing bits of its operands (popcount(a^b), 0..64) and
// their distance |a-b| (unsigned 64-bit) on a log scale with four steps
// per doubling: its bit length and the two bits below its top bit (an
// input is kept for coming 1.25 times closer, not only twice; the
// weighted-sum puzzle at -O0 went unsolved in 3M runs with bit length
// alone, seed 1); the
// memcmp/strcmp family records the length of the common prefix (up to
// CompareMemBytes) and the equal bits of the first differing byte. A
// feature is its comparison's ordinal and value, hashed (golden-ratio
// multiply, top bits) into a region of ValueSites counters of kind
// ValueProfile after every other site, set to 1: seen or not, as in
// libFuzzer's value-profile map. Features of different comparisons may
// share a counter; the branch sites before the region never do, so the
// region takes nothing from branch coverage's share. The region has 64
// counters per comparison, a power of two between 1,024 and 65,536.
//
// Each comparison calls $vp (or $vpmem) on every execution, so the
// option costs speed; wafer's --value-profile decides whether a campaign
// pays it (docs/ALGORITHMS.md §8, figures in docs/EVALUATION.md).

// Bounds of the region's size (a power of two), and counters per
// comparison.
const (
	minValueSites = 1 << 10
	maxValueSites = 1 << 16
	valueSitesPer = 64
)

// valueSiteCount returns the size of the region for n comparisons: 0 for
// none.
func valueSiteCount(n int) int {
	if n == 0 {
		return 0
	}
	return min(max(1<<bits.Len(uint(valueSitesPer*n-1)), minValueSites), maxValueSites)
}

// countValueCompares counts the comparisons of a body the value profile
// instruments (switch cases one each). Its only use is the region's size.
func countValueCompares(e *Expr) int {
	n := 0
	for i := range e.Instrs {
		if loggedCompare(e.Instrs[i].Op) || xorIdiom(e.Instrs, i) {
			n++
		}
		if _, cases := switchCases(e, i, maxSwitchCases); cases != nil {
			n += len(cases)
		}
	}
	return n
}

// toI64 converts the value of type t on the stack to the i64 $vp takes:
// integers zero-extended, floats as their bits.
func (rw *rewriter) toI64(t ValType) {
	switch t {
	case TI32:
		rw.emit(OpI64ExtendI32U, 0)
	case TF32:
		rw.emit(OpI32ReinterpretF32, 0)
		rw.emit(OpI64ExtendI32U, 0)
	case TF64:
		rw.emit(OpI64ReinterpretF64, 0)
	}
}

// valueCompare records the features of the comparison in, whose two
// operands of type t are on the stack (left where they are).
func (rw *rewriter) valueCompare(t ValType) {
	a, b := rw.local(t, 210), rw.local(t, 211)
	rw.emit(OpLocalSet, uint64(b))
	rw.emit(OpLocalTee, uint64(a))
	rw.toI64(t)
	rw.emit(OpLocalGet, uint64(b))
	rw.toI64(t)
	rw.i32(int64(rw.nvp))
	rw.nvp++
	rw.emit(OpCall, uint64(rw.vpFunc))
	rw.emit(OpLocalGet, uint64(a))
	rw.emit(OpLocalGet, uint64(b))
}

// valueSwitch records, for the br_table switch whose index is on the
// stack (the value minus base), the features of the value against each
// case value.
func (rw *rewriter) valueSwitch(cases []uint32, base uint32) {
	sel := rw.local(TI32, 212)
	rw.emit(OpLocalTee, uint64(sel))
	for _, c := range cases {
		rw.emit(OpLocalGet, uint64(sel))
		rw.i32(int64(base))
		rw.emit(OpI32Add, 0)
		rw.emit(OpI64ExtendI32U, 0)
		rw.emit(OpI64Const, uint64(c))
		rw.i32(int64(rw.nvp))
		rw.nvp++
		rw.emit(OpCall, uint64(rw.vpFunc))
	}
}

// valueMem records, at the entry of a byte or soft-float comparison
// function, the features of its operands.
func (rw *rewriter) valueMem(h memHook) {
	if h.kind == cmpWide128 {
		// high halves, then low halves
		for _, pair := range [2][2]uint32{{h.p + 1, h.q + 1}, {h.p, h.q}} {
			rw.emit(OpLocalGet, uint64(pair[0]))
			rw.emit(OpLocalGet, uint64(pair[1]))
			rw.i32(int64(rw.nvp))
			rw.nvp++
			rw.emit(OpCall, uint64(rw.vpFunc))
		}
		return
	}
	rw.memOperands(h)
	rw.i32(int64(rw.nvp))
	rw.nvp++
	rw.emit(OpCall, uint64(rw.vpFunc+1))
}

// vpStore sets the region's counter for the feature key on the stack (an
// i32).
func (rw *rewriter) vpStore() []Instr {
	golden := uint32(0x9e3779b1)
	return []Instr{
		i32Const(int64(int32(golden))), bare(OpI32Mul),
		i32Const(int64(32 - bits.TrailingZeros(uint(rw.vpSites)))), bare(OpI32ShrU),
		i32Const(1), memAt(OpI32Store8, uint64(rw.vpFirst)),
	}
}

// addValueFuncs appends $vp(a, b i64, ord i32) and $vpmem(p, q, na, nb,
// kind, ord i32), in that order, at function index rw.vpFunc. Their
// stores address the counters directly (they are not rewritten).
func (rw *rewriter) addValueFuncs() {
	{
		const a, b, s, d = 0, 1, 2, 3
		key := func(extra int64) []Instr {
			return []Instr{localGet(s), i32Const(9), bare(OpI32Shl), i32Const(extra), bare(OpI32Add)}
		}
		body := seq(
			key(0),
			one(localGet(a), localGet(b), bare(OpI64Xor), bare(OpI64Popcnt), bare(OpI32WrapI64), bare(OpI32Add)),
			rw.vpStore(),
			one(localGet(a), localGet(b), bare(OpI64Sub), localSet(d), localGet(a), localGet(b), bare(OpI64LtU)),
			ifThen(localGet(b), localGet(a), bare(OpI64Sub), localSet(d)),
			// 4 * bit length + the two bits below the top one
			key(128),
			one(i64Const(64), localGet(d), bare(OpI64Clz), bare(OpI64Sub), bare(OpI32WrapI64), i32Const(2), bare(OpI32Shl), bare(OpI32Add)),
			one(localGet(d), localGet(d), bare(OpI64Clz), bare(OpI64Shl), i64Const(61), bare(OpI64ShrU), i64Const(3), bare(OpI64And), bare(OpI32WrapI64), bare(OpI32Add)),
			rw.vpStore(),
		)
		rw.appendFunc([]ValType{TI64, TI64, TI32}, nil, []LocalDecl{{Count: 1, Type: TI64}}, body)
	}
	// $vpmem: the common prefix l of the first min(na, nb, CompareMemBytes)
	// bytes (a string's up to its NUL), and the equal bits of the first
	// differing byte: key ord*512 + 9l + equal bits. Buffers that run past
	// the end of memory record nothing.
	const p, q, na, nb, kind, s, lim, i, x = 0, 1, 2, 3, 4, 5, 6, 7, 8
	rb := rw.rb
	outOfRange := func(ptr uint64) []Instr {
		return seq(
			one(localGet(ptr), bare(OpI64ExtendI32U), i64Const(rb), bare(OpI64Add), localGet(na), bare(OpI64ExtendI32U), bare(OpI64Add), localGet(lim), bare(OpI64GtU)),
			ifThen(bare(OpReturn)),
		)
	}
	body := seq(
		one(bare(OpMemorySize), bare(OpI64ExtendI32U), i64Const(16), bare(OpI64Shl), localSet(lim)),
		// na = min(na, nb, CompareMemBytes)
		one(localGet(na), localGet(nb), localGet(na), localGet(nb), bare(OpI32LtU), bare(OpSelect), localSet(na)),
		one(localGet(na), i32Const(CompareMemBytes), localGet(na), i32Const(CompareMemBytes), bare(OpI32LtU), bare(OpSelect), localSet(na)),
		outOfRange(p), outOfRange(q),
		one(i32Const(0), localSet(i), Instr{Op: OpBlock, C: 0x40}, Instr{Op: OpLoop, C: 0x40}),
		one(localGet(i), localGet(na), bare(OpI32GeU), Instr{Op: OpBrIf, A: 1}),
		one(localGet(p), localGet(i), bare(OpI32Add), memAt(OpI32Load8U, rb),
			localGet(q), localGet(i), bare(OpI32Add), memAt(OpI32Load8U, rb), bare(OpI32Xor), localTee(x), Instr{Op: OpBrIf, A: 1}),
		// equal bytes: a string's NUL ends it
		one(localGet(kind), i32Const(cmpMemString), bare(OpI32Eq),
			localGet(p), localGet(i), bare(OpI32Add), memAt(OpI32Load8U, rb), bare(OpI32Eqz), bare(OpI32And), Instr{Op: OpBrIf, A: 1}),
		one(localGet(i), i32Const(1), bare(OpI32Add), localSet(i), Instr{Op: OpBr, A: 0}, bare(OpEnd), bare(OpEnd)),
		// x is the first differing byte's xor (0 past the end or at a NUL)
		one(localGet(s), i32Const(9), bare(OpI32Shl), localGet(i), i32Const(9), bare(OpI32Mul), bare(OpI32Add),
			i32Const(8), localGet(x), bare(OpI32Popcnt), bare(OpI32Sub), bare(OpI32Add)),
		rw.vpStore(),
	)
	rw.appendFunc([]ValType{TI32, TI32, TI32, TI32, TI32, TI32}, nil,
		[]LocalDecl{{Count: 1, Type: TI64}, {Count: 2, Type: TI32}}, body)
}
