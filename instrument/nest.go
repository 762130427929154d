package instrument

// Leaf loop nests count in locals.
//
// A counter in memory is a load, an add and a store of the same byte, so a
// site hit on every iteration of a tight loop chains each iteration to the
// store of the one before (store-to-load forwarding, several cycles) on top
// of the instructions themselves. Inside a leaf loop (an innermost loop
// whose body makes no call and has no exception handling or br_on_*
// branch, and has at most maxNestSites sites) every site instead counts
// into an i64 local: one register add per hit. (Innermost, not whole nests: the accumulators of an outer loop stay
// live across its inner loops, and wazero's register allocator then spills
// the hot ones to the stack.) The locals are added to the memory counters,
// saturating at 255, wherever control leaves the loop: after its end,
// before a br, br_if or br_table arm whose target is outside it, before
// return, and before the fuel check's trap. With Options.Fuel the loop
// also burns fuel in a local, loaded before the loop and stored back at the
// same places (a global is a load and a store per iteration, another chain).
// A trap raised by the target inside the loop loses the loop's pending
// counts and fuel of that run (the counters of a crashing run may then miss
// its last loop, and its remaining fuel reads as at the loop's entry);
// nothing else can leave a leaf loop without a call.
//
// Leaf loops with more sites than registers to spare (maxNestSites) or whose
// flush code would be large (sites × exits above maxNestFlushCost) keep
// memory counters. In this file a "nest" is such a
// leaf loop.

const (
	// maxNestSites bounds the sites of a nest that counts in locals. The
	// flush where the loop is left costs about as much as a dozen memory
	// counter hits per site, so locals pay only for loops that run several
	// iterations each time: true of single-branch loops (copies, sums,
	// hashes), often false of a parser's short scans (skip blanks, read
	// digits: two conditions, four sites). runtime's
	// BenchmarkInstrumentedLoop, cpu-ns per run with no loop in locals /
	// at most 2 sites / at most 6 sites: cexpr 216 / 219 / 270, a
	// 100k-iteration loop 304k / 168k / 169k. More sites also get
	// accumulators spilled (BenchmarkCounterForm/loop, 18 sites: 7.7 ns per
	// iteration in locals against 6.9 in memory).
	maxNestSites = 2
	// maxNestFlushCost bounds sites × exits of a nest that counts in locals:
	// each exit repeats the flush of every site (about 14 instructions).
	maxNestFlushCost = 512
	// accSlot is the first scratch-local slot of the accumulators.
	accSlot = 1000
)

// nest is a leaf loop being rewritten.
type nest struct {
	frame int    // index in rewriter.ctl of the loop's frame
	first uint32 // first site id in the nest
	n     uint32 // number of sites in the nest
	fuel  uint64 // local holding the fuel inside the nest (Options.Fuel)
}

// leafNests finds, for each leaf loop of body cheap enough to flush, the
// number of sites in it, keyed by the index of its loop instruction.
func leafNests(e *Expr, maxSites int) map[int]uint32 {
	var found map[int]uint32
	body := e.Instrs
	for k := 0; k < len(body); k++ {
		if body[k].Op != OpLoop {
			continue
		}
		end, sites, exits, leaf := scanNest(e, k)
		if !leaf {
			continue // a loop inside may be one
		}
		if sites > 0 && sites <= maxSites && sites*exits <= maxNestFlushCost {
			if found == nil {
				found = make(map[int]uint32)
			}
			found[k] = uint32(sites)
		}
		k = end
	}
	return found
}

// scanNest scans the loop at body[k] to its matching end: it returns the
// end's index, the sites inside, the exits (branches to labels outside the
// loop, returns, plus the fall-through) and whether it is a leaf loop.
func scanNest(e *Expr, k int) (end, sites, exits int, leaf bool) {
	body := e.Instrs
	leaf = true
	exits = 1
	depth := 0
	for i := k; i < len(body); i++ {
		in := &body[i]
		switch in.Op {
		case OpLoop:
			leaf = leaf && i == k
			depth++
		case OpBlock, OpIf:
			depth++
		case OpEnd:
			depth--
			if depth == 0 {
				return i, sites, exits, leaf
			}
		}
		switch in.Op {
		case OpIf:
			sites += 2
		case OpBrIf:
			sites += 2
			if int(in.A) >= depth {
				exits++
			}
		case OpBr:
			if int(in.A) >= depth {
				exits++
			}
		case OpBrTable:
			sites += int(in.B)
			if in.A+in.B > uint64(len(e.Pool)) {
				return i, sites, exits, false
			}
			for _, l := range e.Pool[in.A : in.A+in.B] {
				if int(l) >= depth {
					exits++
				}
			}
		case OpReturn:
			exits++
		case OpCall, OpCallIndirect, OpCallRef, OpReturnCall, OpReturnCallIndirect, OpReturnCallRef,
			OpTry, OpTryTable, OpCatch, OpCatchAll, OpDelegate, OpThrow, OpRethrow, OpThrowRef,
			OpBrOnNull, OpBrOnNonNull:
			leaf = false
		}
	}
	return len(body) - 1, sites, exits, false
}

// exits reports whether a branch to label depth d leaves the current nest.
func (rw *rewriter) exits(d uint64) bool {
	return rw.nest != nil && len(rw.ctl)-1-int(d) < rw.nest.frame
}

// armCounter emits the hit of a branch arm to label depth d: when the arm
// leaves the nest, the flush and then a memory counter (an exit arm runs
// once per time the loop runs, so a local would only make the flush
// dearer), otherwise counter.
func (rw *rewriter) armCounter(id uint32, d uint64) {
	if !rw.exits(d) {
		rw.counter(id)
		return
	}
	rw.flush()
	rw.direct = true
	rw.counter(id)
	rw.direct = false
}

// notTakenCounter emits the hit of a br_if's not-taken arm: a memory
// counter when the loop's end follows, so that arm leaves the nest (the
// bottom of a do-while), otherwise counter.
func (rw *rewriter) notTakenCounter(id uint32) {
	nt := rw.nest
	rw.direct = nt != nil && len(rw.ctl)-1 == nt.frame && rw.k+1 < len(rw.body) && rw.body[rw.k+1].Op == OpEnd
	rw.counter(id)
	rw.direct = false
}

// accumulate emits a hit of site id of the current nest: acc += 1.
func (rw *rewriter) accumulate(id uint32) {
	acc := uint64(rw.local(TI64, accSlot+int(id-rw.nest.first)))
	rw.emit(OpLocalGet, acc)
	rw.emit(OpI64Const, 1)
	rw.emit(OpI64Add, 0)
	rw.emit(OpLocalSet, acc)
}

// flush stores the nest's fuel and, unless every local is 0 (a loop left
// on its first pass: exit arms count in memory), for every site
// counter = min(255, counter + acc); acc = 0.
func (rw *rewriter) flush() {
	nt := rw.nest
	if rw.opts.Fuel {
		rw.emit(OpLocalGet, nt.fuel)
		rw.emit(OpGlobalSet, uint64(rw.fuelGlobal))
	}
	b := uint64(rw.local(TI32, -1))
	t := uint64(rw.local(TI64, 3))
	for k := uint32(0); k < nt.n; k++ {
		rw.emit(OpLocalGet, uint64(rw.local(TI64, accSlot+int(k))))
		if k > 0 {
			rw.emit(OpI64Or, 0)
		}
	}
	rw.emit(OpI64Const, 0)
	rw.emit(OpI64Ne, 0)
	rw.out = append(rw.out, Instr{Op: OpIf, C: 0x40})
	defer func() {
		rw.emit(OpEnd, 0)
		// a join: pin $base again (doc.go, "The increment")
		rw.emit(OpLocalGet, b)
		rw.emit(OpLocalSet, b)
	}()
	for k := uint32(0); k < nt.n; k++ {
		id := uint64(nt.first + k)
		acc := uint64(rw.local(TI64, accSlot+int(k)))
		rw.emit(OpLocalGet, b)
		rw.emit(OpLocalGet, b)
		rw.cpos = append(rw.cpos, len(rw.out))
		rw.emitMem(OpI32Load8U, id, 0)
		rw.emit(OpI64ExtendI32U, 0)
		rw.emit(OpLocalGet, acc)
		rw.emit(OpI64Add, 0)
		rw.emit(OpLocalTee, t)
		rw.emit(OpI64Const, 255)
		rw.emit(OpLocalGet, t)
		rw.emit(OpI64Const, 255)
		rw.emit(OpI64LtU, 0)
		rw.emit(OpSelect, 0)
		rw.emit(OpI32WrapI64, 0)
		rw.cpos = append(rw.cpos, len(rw.out))
		rw.emitMem(OpI32Store8, id, 0)
		rw.emit(OpI64Const, 0)
		rw.emit(OpLocalSet, acc)
	}
}
