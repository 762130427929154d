package instrument

// Leaf loops count in locals.
//
// A counter in memory is a load, an add and a store of the same byte, so a
// site hit on every iteration of a tight loop chains each iteration to the
// store of the one before (store-to-load forwarding, several cycles) on top
// of the instructions themselves. Inside a leaf loop (an innermost loop
// whose body makes no call and has no exception handling or br_on_*
// branch) the sites that keep control in the loop count into i64 locals
// instead: one register add per hit. Exit arms (a branch out of the loop,
// the not-taken arm of a br_if right before the loop's end) run once each
// time the loop runs and count in memory. (Innermost loops, not whole
// nests: the locals of an outer loop stay live across its inner loops,
// and wazero's register allocator then spills the hot ones to the stack.)
//
// The locals are added to the memory counters, saturating at 255, wherever
// control leaves the loop: after its end, before a br, br_if or br_table
// arm whose target is outside it, before return, and before the fuel
// check's trap; the flush is skipped when every local is 0 (a loop left on
// its first pass). With Options.Fuel the loop also burns fuel in a local,
// loaded before the loop and stored back at the same places (a global is a
// load and a store per iteration, another chain). A trap raised by the
// target inside the loop loses the loop's pending counts and fuel of that
// run (the counters of a crashing run may then miss its last loop, and its
// remaining fuel reads as at the loop's entry); nothing else can leave a
// leaf loop without a call.
//
// Leaf loops with more sites in locals than maxNestSites, or whose flush
// code would be large (sites × exits above maxNestFlushCost), keep memory
// counters. In this file a "nest" is a leaf loop that counts in locals.

const (
	// maxNestSites bounds the sites of a nest that count in locals: a
	// typical loop of two conditions (a bounds check and a test: two sites
	// staying in the loop, two exit arms). More cost more at each exit and
	// get spilled (BenchmarkCounterForm/loop, 18 sites: 7.7 ns per
	// iteration in locals against 6.9 in memory). runtime's
	// BenchmarkInstrumentedLoop, cpu-ns per run, no loop in locals / exit
	// arms in locals too, up to 6 sites / this rule: cexpr (short scans)
	// 213 / 270 / 208, a 100k-iteration loop 306k / 169k / 173k.
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
	acc   []bool // by site (id - first): counts in a local (else in memory)
	fuel  uint64 // local holding the fuel inside the nest (Options.Fuel)
}

// leafNests finds the leaf loops of body cheap enough to flush, keyed by
// the index of their loop instruction: for each site of the loop, in id
// order, whether it counts in a local (false: an exit arm, which runs once
// each time the loop runs and counts in memory).
func leafNests(e *Expr, maxSites int, d *derivation) map[int][]bool {
	var found map[int][]bool
	body := e.Instrs
	for k := 0; k < len(body); k++ {
		if body[k].Op != OpLoop {
			continue
		}
		end, acc, exits, leaf := scanNest(e, k, d)
		if !leaf {
			continue // a loop inside may be one
		}
		n := 0
		for _, a := range acc {
			if a {
				n++
			}
		}
		if n > 0 && n <= maxSites && n*exits <= maxNestFlushCost {
			if found == nil {
				found = make(map[int][]bool)
			}
			found[k] = acc
		}
		k = end
	}
	return found
}

// scanNest scans the loop at body[k] to its matching end: it returns the
// end's index, for each site inside whether it stays in the loop (acc),
// the exits (branches to labels outside the loop, returns, plus the
// fall-through) and whether it is a leaf loop.
func scanNest(e *Expr, k int, d *derivation) (end int, acc []bool, exits int, leaf bool) {
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
				return i, acc, exits, leaf
			}
		}
		switch in.Op {
		case OpIf:
			s := d.siteAt[i]
			acc = append(acc, !d.derived(s), !d.derived(s+1))
		case OpBrIf:
			out := int(in.A) >= depth
			if out {
				exits++
			}
			// not taken at the loop's top level right before its end:
			// the fall-through exit
			last := depth == 1 && i+1 < len(body) && body[i+1].Op == OpEnd
			acc = append(acc, !out, !last && !d.derived(d.siteAt[i]+1))
		case OpBr:
			if int(in.A) >= depth {
				exits++
			}
		case OpBrTable:
			if in.A+in.B > uint64(len(e.Pool)) {
				return i, acc, exits, false
			}
			if i+1 == d.dispatch {
				break // no sites; its labels are the loop's own blocks
			}
			for _, l := range e.Pool[in.A : in.A+in.B] {
				out := int(l) >= depth
				if out {
					exits++
				}
				acc = append(acc, !out)
			}
		case OpReturn:
			exits++
		case OpCall, OpCallIndirect, OpCallRef, OpReturnCall, OpReturnCallIndirect, OpReturnCallRef,
			OpTry, OpTryTable, OpCatch, OpCatchAll, OpDelegate, OpThrow, OpRethrow, OpThrowRef,
			OpBrOnNull, OpBrOnNonNull:
			leaf = false
		}
	}
	return len(body) - 1, acc, exits, false
}

// exits reports whether a branch to label depth d leaves the current nest.
func (rw *rewriter) exits(d uint64) bool {
	return rw.nest != nil && len(rw.ctl)-1-int(d) < rw.nest.frame
}

// armCounter emits the hit of a branch arm to label depth d: when the arm
// leaves the nest, the flush first (the arm itself counts in memory).
func (rw *rewriter) armCounter(id uint32, d uint64) {
	if rw.exits(d) {
		rw.flush()
	}
	rw.counter(id)
}

// inLocal reports whether site id counts in a local of the nest.
func (nt *nest) inLocal(id uint32) bool {
	return id >= nt.first && id-nt.first < uint32(len(nt.acc)) && nt.acc[id-nt.first]
}

// accLocal is the local that counts the nest's k-th site.
func (rw *rewriter) accLocal(k int) uint64 {
	return uint64(rw.local(TI64, accSlot+k))
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
	first := true
	for k, a := range nt.acc {
		if !a {
			continue
		}
		rw.emit(OpLocalGet, rw.accLocal(k))
		if !first {
			rw.emit(OpI64Or, 0)
		}
		first = false
	}
	rw.emit(OpI64Const, 0)
	rw.emit(OpI64Ne, 0)
	rw.out = append(rw.out, Instr{Op: OpIf, C: 0x40})
	for k, a := range nt.acc {
		if !a {
			continue
		}
		id := uint64(nt.first) + uint64(k)
		acc := rw.accLocal(k)
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
	rw.emit(OpEnd, 0)
	rw.pin() // a join
}
