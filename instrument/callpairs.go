package instrument

import "math/bits"

// Indirect call pairs (Options.CallPairs).
//
// A call through a table reaches whichever function the table holds at
// the index the caller computed: which callees a call site reached is
// coverage that the callees' entry counters do not give when they are
// also reached from elsewhere (a dispatch table, a vtable, a callback).
// libFuzzer counts caller-callee pairs by default
// (-fsanitize-coverage=indirect-calls); so does wafer, in a region of
// CallSites counters after the branch sites: each call_indirect and
// return_call_indirect of a counted function hashes its own constant with
// the table index it calls into a counter of the region and sets it to 1:
// a pair was seen or not, as in libFuzzer's feature map. (Counted as
// branches are, the counters of pairs that share one add up, and every
// sum is a new hit-count bucket: csqlite's 120 s campaign kept 10 % fewer
// branch features; set to 1, csqlite's three 120 s campaigns kept 80,332
// branch features against 80,371 without pairs.) The region has 16
// counters per call site, a power of two between 64 and 4,096: pairs of
// different sites may share a counter (libFuzzer's pairs share its
// feature map too), the branch sites stay collision-free. call_ref's
// callee is a reference, not an index, and is not counted.

// Bounds of the region's size (a power of two).
const (
	minCallSites = 64
	maxCallSites = 4096
)

// callSiteCount returns the size of the region for n indirect call sites:
// 0 for none.
func callSiteCount(n int) int {
	if n == 0 {
		return 0
	}
	return min(max(1<<bits.Len(uint(16*n-1)), minCallSites), maxCallSites)
}

// isIndirectCall reports whether op calls through a table by index.
func isIndirectCall(op Op) bool { return op == OpCallIndirect || op == OpReturnCallIndirect }

// countIndirectCalls counts the indirect calls of body.
func countIndirectCalls(e *Expr) int {
	n := 0
	for i := range e.Instrs {
		if isIndirectCall(e.Instrs[i].Op) {
			n++
		}
	}
	return n
}

// callPair emits, before the indirect call on top of the stack (its table
// index the top operand), the store of 1 in the region's counter for this
// call site and that index: index (kept) xor the site's constant, times a
// golden-ratio constant, the top bits select the counter.
func (rw *rewriter) callPair() {
	t := uint64(rw.local(TI32, 301))
	site := rw.ncall
	rw.ncall++
	rw.emit(OpLocalTee, t)
	rw.i32(int64(int32(uint32(site) * 0x85ebca6b)))
	rw.emit(OpI32Xor, 0)
	golden := uint32(0x9e3779b1)
	rw.i32(int64(int32(golden)))
	rw.emit(OpI32Mul, 0)
	rw.i32(int64(32 - bits.TrailingZeros(uint(rw.callSites))))
	rw.emit(OpI32ShrU, 0)
	rw.i32(1)
	rw.emitMem(OpI32Store8, uint64(rw.callFirst), 0)
	rw.emit(OpLocalGet, t)
}
