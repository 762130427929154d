package instrument

import (
	"fmt"
	"slices"
)

// frame is an open block while rewriting a body.
type frame struct {
	op      Op
	c       uint32 // block type code
	a       uint64 // block type index / heap
	hasElse bool
	// elseSite is the id reserved for the else arm of an if.
	elseSite uint32
	// dead: the rest of this block is unreachable (after br, return,
	// unreachable, throw...): its operand stack is polymorphic, so branch
	// rewrites that need label types are not applied there (the sites keep
	// their ids and can never be hit).
	dead bool
}

// function rewrites defined function i.
func (rw *rewriter) function(i uint32, nimp uint32) error {
	m := rw.m
	c := &m.Code[i]
	lo := len(rw.sm.Sites)
	rw.begin(i, nimp, c)
	disp := rw.disp
	if int(m.Funcs[i]) >= len(m.Types) {
		return fmt.Errorf("instrument: function %d: type index %d out of range", rw.fn, m.Funcs[i])
	}
	ft := &m.Types[m.Funcs[i]]
	rw.results = ft.Results
	nlocals := uint64(len(ft.Params))
	for _, l := range c.Locals {
		nlocals += uint64(l.Count)
	}
	if nlocals > maxLocals {
		return fmt.Errorf("instrument: function %d: %d locals, parameters included: %w: wafer instruments functions of at most %d (the limit of V8, which compilers targeting the web keep to)", rw.fn, nlocals, ErrUnsupported, maxLocals)
	}
	rw.next = uint32(nlocals)
	body := c.Body.Instrs
	if len(body) == 0 {
		return fmt.Errorf("instrument: function %d: empty body", rw.fn)
	}
	rw.hasGoFr = false
	if rw.opts.DirtyPages {
		rw.elide = rw.marks.elidedMarks(body, rw.next)
		if disp.table >= 0 && !rw.opts.MarkGoFrameStores {
			rw.goFrame, rw.hasGoFr = rw.frames.goFrameMarks(body, c.Body.Pool, disp, uint32(len(ft.Params)), uint32(nimp), rw.elide)
		}
	}
	if rw.heapCheck && rw.hasStack {
		rw.frame = frameLocals(body, uint32(len(ft.Params)), rw.next, rw.stack.global, rw.frame)
	}
	first := &body[0]
	rw.ctl = append(rw.ctl, frame{op: OpBlock})
	rw.trap = noTrap
	if rw.heapCheck && !rw.unchecked[i] {
		rw.openTrap(ft.Results)
	}
	rw.entry(i, body, disp)
	rw.body = body
	for k := range body {
		rw.k = k
		in := body[k]
		if err := rw.instr(&in, k, body); err != nil {
			return fmt.Errorf("instrument: function %d: %w", rw.fn, err)
		}
		if k == 1 && rw.hasGoFr {
			rw.frameMark(rw.goFrame) // after `global.get SP; local.set L`
		}
		rw.trackRegion(k)
	}
	if len(rw.ctl) != 0 {
		return fmt.Errorf("instrument: function %d: unbalanced blocks", rw.fn)
	}
	if rw.count && len(rw.sm.Sites)-lo != len(rw.plan.sum) {
		// derive.go's plan and the rewriter disagree on the sites
		return fmt.Errorf("instrument: function %d: %d sites placed, %d planned (a bug of wafer's)", rw.fn, len(rw.sm.Sites)-lo, len(rw.plan.sum))
	}
	if first.Off >= m.CodeOffset {
		rw.funcOff[i] = first.Off - m.CodeOffset
	}
	rw.reverseSites(lo)
	rw.encodeBody(c)
	return nil
}

// begin resets the per-function state for defined function i (code c):
// its index, its counting, and with counters the plan of derived sites
// (derive.go) and its leaf nests (nest.go).
func (rw *rewriter) begin(i uint32, nimp uint32, c *Code) {
	rw.fn = nimp + i
	rw.def = i
	rw.count = !rw.skip[i]
	rw.out = rw.out[:0]
	rw.pool = c.Body.Pool
	rw.ctl = rw.ctl[:0]
	rw.added = rw.added[:0]
	rw.scratch = rw.scratch[:0]
	rw.cpos = rw.cpos[:0]
	rw.fnLo = uint32(len(rw.sm.Sites))
	rw.nest = nil
	rw.nests = nil
	rw.plan.sum = rw.plan.sum[:0]
	disp := rw.dispatch[i]
	rw.disp = disp
	rw.plan.dispatch = disp.table + 1
	if rw.count {
		rw.plan.plan(c.Body.Instrs, !rw.opts.allCounted)
		limit := maxNestSites
		if rw.opts.nestSites != 0 {
			limit = rw.opts.nestSites
		}
		rw.nests = leafNests(&c.Body, limit, &rw.plan)
	}
}

// entry emits what runs at the entry of defined function i, before its
// body: the counter base, the memory comparison hook, the fuel check and
// the entry counter.
func (rw *rewriter) entry(i uint32, body []Instr, disp goDispatch) {
	m := rw.m
	first := &body[0]
	if rw.count {
		rw.emit(OpGlobalGet, uint64(rw.baseGlobal))
		rw.emit(OpLocalSet, uint64(rw.local(TI32, -1)))
	}
	if rw.cmpMems != nil && rw.cmpMems[i].kind != 0 {
		if rw.opts.Compares {
			rw.memCompare(rw.cmpMems[i])
		}
		if rw.vpSites > 0 {
			rw.valueMem(rw.cmpMems[i])
		}
	}
	if rw.opts.Fuel && mayRunLong(body) && (!loopsFirst(body) || disp.loop >= 0) {
		rw.fuel(&body[0])
	}
	if rw.count {
		if rw.plan.derived(0) {
			// no entry counter: the first access still checks the bounds
			// of the function's highest counter address (docs/PERFORMANCE.md, "The counter's form and its increment")
			rw.check()
		}
		entry := rw.site(first, FuncEntry, 0)
		rw.counter(entry)
		if first.Off >= m.CodeOffset {
			rw.regions.start(first.Off-m.CodeOffset, entry)
		}
	}
}

// reverseSites reverses the ids of the function's sites, which begin at
// lo, in its counter accesses, its derived sites' sources and the SiteMap,
// and closes its regions.
func (rw *rewriter) reverseSites(lo int) {
	// ids run backwards within the function (docs/PERFORMANCE.md, "The counter's form and its increment")
	hi := uint64(len(rw.sm.Sites) - 1)
	for _, p := range rw.cpos {
		rw.out[p].A = uint64(lo) + hi - rw.out[p].A
	}
	// derived sites name their sources by reversed ids too: the range
	// from..from+sum-1 reverses to start at the last one's new id
	for s, n := range rw.plan.sum {
		if n > 0 {
			last := uint64(lo) + uint64(rw.plan.from[s]) + uint64(n) - 1
			rw.sm.Sites[lo+s].From = uint32(uint64(lo) + hi - last)
			rw.sm.Sites[lo+s].Sum = n
		}
	}
	slices.Reverse(rw.sm.Sites[lo:])
	rw.sm.Regions = rw.regions.finish(rw.sm.Regions, uint32(lo), uint32(hi))
}

// encodeBody encodes the rewritten body of c, its added locals
// included, and drops the decoded one.
func (rw *rewriter) encodeBody(c *Code) {
	// Encode the new body right away into the shared output arena: the
	// rewritten instructions never need their own allocation.
	c.Locals = append(c.Locals, rw.added...)
	e := encoder{buf: rw.bodies, src: rw.src}
	start := len(e.buf)
	e.len(len(c.Locals))
	for _, l := range c.Locals {
		e.u32(l.Count)
		e.valType(l.Type)
	}
	x := Expr{Instrs: rw.out, Pool: rw.pool}
	e.expr(&x)
	rw.bodies = e.buf
	c.raw = e.buf[start:len(e.buf):len(e.buf)]
	c.Body = Expr{}
}

// instr rewrites instruction in, body[k], appending its rewrite to rw.out.
func (rw *rewriter) instr(in *Instr, k int, body []Instr) error {
	if (rw.cmpInts > 0 || rw.vpSites > 0) && rw.count && (loggedCompare(in.Op) || xorIdiom(body, k)) && !rw.ctl[len(rw.ctl)-1].dead {
		if rw.vpSites > 0 {
			rw.valueCompare(cmpType(in.Op))
		}
		if rw.cmpInts > 0 {
			off, _ := offsetOperand(body, k)
			rw.compare(in, off)
		} else {
			rw.keep(in)
		}
		return nil
	}
	info := opinfo(in.Op)
	switch in.Op {
	case OpBlock, OpTry, OpTryTable:
		rw.ctl = append(rw.ctl, frame{op: in.Op, c: in.C, a: in.A})
		rw.keep(in)
		return nil
	case OpLoop:
		rw.ctl = append(rw.ctl, frame{op: in.Op, c: in.C, a: in.A})
		if acc, ok := rw.nests[k]; ok && rw.nest == nil {
			rw.nest = &nest{frame: len(rw.ctl) - 1, first: uint32(len(rw.sm.Sites)), acc: acc}
			if rw.opts.Fuel {
				// the loop burns fuel in a local (nest.go)
				rw.nest.fuel = uint64(rw.local(TI64, 4))
				rw.emit(OpGlobalGet, uint64(rw.fuelGlobal))
				rw.emit(OpLocalSet, rw.nest.fuel)
			}
		}
		rw.keep(in)
		if rw.opts.Fuel && k != rw.disp.loop {
			// the loop's first instruction has the loop body's source
			// line; the loop instruction itself has none of its own
			// (Go's dispatch loop pays at its backward jumps instead)
			rw.fuel(&rw.body[min(rw.k+1, len(rw.body)-1)])
		}
		if rw.count && rw.nest == nil {
			// The base in a loop is a new SSA value (a phi): check it once
			// against the function's highest counter address, so no counter
			// in the loop needs a bounds check of its own.
			rw.check()
		}
		return nil
	case OpIf:
		rw.ctl = append(rw.ctl, frame{op: in.Op, c: in.C, a: in.A})
		rw.keep(in)
		if rw.count {
			rw.counter(rw.site(in, IfThen, 0))
			// reserve the else id now so ids follow instruction order
			rw.ctl[len(rw.ctl)-1].elseSite = rw.site(in, IfElse, 0)
		}
		return nil
	case OpElse:
		rw.keep(in)
		if n := len(rw.ctl); n > 0 && rw.ctl[n-1].op == OpIf {
			f := &rw.ctl[n-1]
			f.dead = false
			f.hasElse = true
			if rw.count {
				rw.counter(f.elseSite)
			}
		}
		return nil
	case OpEnd, OpDelegate:
		n := len(rw.ctl)
		if n == 0 {
			return fmt.Errorf("end without block")
		}
		f := rw.ctl[n-1]
		if f.op == OpIf && !f.hasElse && rw.count {
			rw.emit(OpElse, 0)
			rw.counter(f.elseSite)
		}
		rw.ctl = rw.ctl[:n-1]
		if n == 1 && rw.trap != noTrap {
			rw.closeTrap()
		}
		rw.keep(in)
		if rw.nest != nil && n-1 == rw.nest.frame {
			rw.flush()
			rw.nest = nil
		}
		if n > 1 && f.op != OpLoop && rw.count {
			// After a join, wazero's SSA builder answers the first lookup
			// of $base with the value the predecessors agree on (whose
			// bounds check they share) and later ones with a fresh alias
			// that is unchecked; redefining $base pins the checked one.
			rw.pin()
		}
		return nil
	case OpBrIf:
		if !rw.count {
			break
		}
		if rw.ctl[len(rw.ctl)-1].dead {
			rw.site(in, BrIfTaken, 0)
			rw.site(in, BrIfNotTaken, 0)
			break
		}
		rw.brIf(in)
		return nil
	case OpBrTable:
		if k == rw.disp.table {
			rw.keep(in) // Go's dispatch: no sites (godispatch.go)
			rw.ctl[len(rw.ctl)-1].dead = true
			return nil
		}
		if (rw.cmpInts > 0 || rw.vpSites > 0) && rw.count && !rw.ctl[len(rw.ctl)-1].dead {
			e := Expr{Instrs: body, Pool: rw.pool}
			if base, cases := switchCases(&e, k, maxSwitchCases); cases != nil {
				if rw.vpSites > 0 {
					rw.valueSwitch(cases, uint32(base))
				}
				if rw.cmpInts > 0 {
					rw.switchCompare(cases, uint32(base))
				}
			}
		}
		if rw.count {
			rw.brTable(in, rw.ctl[len(rw.ctl)-1].dead)
		} else {
			rw.keep(in)
		}
		rw.ctl[len(rw.ctl)-1].dead = true
		return nil
	case OpCallIndirect:
		if rw.callSites > 0 && rw.count && !rw.ctl[len(rw.ctl)-1].dead {
			rw.callPair()
		}
		rw.keep(in)
		return nil
	case OpUnreachable, OpBr, OpReturn, OpReturnCall, OpReturnCallIndirect, OpReturnCallRef, OpThrow, OpThrowRef, OpRethrow:
		if in.Op == OpReturnCallIndirect && rw.callSites > 0 && rw.count && !rw.ctl[len(rw.ctl)-1].dead {
			rw.callPair()
		}
		if to, ok := rw.disp.back[k]; ok && in.Op == OpBr && rw.opts.Fuel && !rw.ctl[len(rw.ctl)-1].dead {
			rw.fuel(&body[to]) // a backward jump of Go's dispatch (godispatch.go)
		}
		if (in.Op == OpBr && rw.exits(in.A)) || (in.Op == OpReturn && rw.nest != nil) {
			rw.flush()
		}
		rw.keep(in)
		rw.ctl[len(rw.ctl)-1].dead = true
		return nil
	case OpGlobalSet:
		rw.keep(in)
		if (rw.depth || rw.stackCheck) && uint32(in.A) == rw.stack.global && !rw.ctl[len(rw.ctl)-1].dead {
			rw.stackSet(body, k)
		}
		return nil
	case OpMemorySize:
		rw.keep(in)
		rw.i32(int64(rw.rp))
		rw.emit(OpI32Sub, 0)
		return nil
	case OpMemoryGrow:
		rw.memoryGrow(in)
		return nil
	case OpMemoryFill, OpMemoryCopy, OpMemoryInit:
		rw.bulk(in)
		return nil
	case OpCatch, OpCatchAll:
		// frames of legacy try stay open until end/delegate
		if n := len(rw.ctl); n > 0 {
			rw.ctl[n-1].dead = false
		}
	}
	if info.isMemarg() {
		if in.B&0x40 != 0 && in.C != 0 {
			return fmt.Errorf("memory index %d: %w", in.C, ErrUnsupported)
		}
		orig := in.A
		in.Off = 0 // modified: re-encode
		in.A += rw.rb
		if in.A > 0xffffffff {
			in.A = 0xffffffff // the original access was out of bounds for every address
		}
		mark := rw.opts.DirtyPages && (info.mem == memStore || info.mem == memRMW || info.mem == memCmpxchg) && !rw.elide[k]
		var check bool
		var size uint64
		var write bool
		if rw.heapCheck && !rw.unchecked[rw.def] && !rw.ctl[len(rw.ctl)-1].dead {
			size, write, check = checkedAccess(in.Op)
			check = check && !uncheckedAccess(body, k, rw.stack.global, rw.hasStack, rw.frame)
		}
		if mark || check {
			rw.guardAccess(in, info, orig, mark, check, size, write)
			return nil
		}
	}
	rw.keep(in)
	return nil
}

// brIf: arity 0: `if; count taken; br L+1; else; count not taken; end`.
// With label values: keep the br_if and count on a copy of the condition.
func (rw *rewriter) brIf(in *Instr) {
	taken := rw.site(in, BrIfTaken, 0)
	notTaken := rw.site(in, BrIfNotTaken, 0)
	if len(rw.labelTypes(in.A)) == 0 {
		rw.out = append(rw.out, Instr{Op: OpIf, C: 0x40})
		rw.armCounter(taken, in.A)
		rw.emit(OpBr, in.A+1)
		rw.emit(OpElse, 0)
		rw.counter(notTaken)
		rw.emit(OpEnd, 0)
		return
	}
	c := rw.local(TI32, 1)
	rw.emit(OpLocalTee, uint64(c))
	rw.out = append(rw.out, Instr{Op: OpIf, C: 0x40})
	rw.armCounter(taken, in.A)
	rw.emit(OpElse, 0)
	rw.counter(notTaken)
	rw.emit(OpEnd, 0)
	rw.pin()
	rw.emit(OpLocalGet, uint64(c))
	rw.keep(in)
}

// brTable turns `br_table l0..ln-1 ld` into n+1 nested blocks, one per arm,
// each arm counting then branching to its original label.
func (rw *rewriter) brTable(in *Instr, dead bool) {
	labels := append([]uint64(nil), rw.pool[in.A:in.A+in.B]...)
	n := len(labels) - 1 // arms 0..n, n = default
	ids := make([]uint32, len(labels))
	for i := range labels {
		ids[i] = rw.site(in, BrTableArm, uint32(i))
	}
	types := rw.labelTypes(labels[n])
	if !dead {
		// With typed references, labels may have different (super)types;
		// then the values cannot be stashed in locals of one type.
		for _, l := range labels[:n] {
			if !slices.Equal(rw.labelTypes(l), types) {
				dead = true
				break
			}
		}
	}
	if dead {
		// unreachable (or untypable here): keep the instruction, the arm
		// sites are never hit
		if rw.nest != nil {
			rw.flush() // an untypable br_table may leave the nest uncounted
		}
		rw.keep(in)
		return
	}
	var stash []uint32
	bt := Instr{Op: OpBlock, C: 0x40}
	if len(types) > 0 && !defaultable(types) {
		// non-defaultable values ride through block parameters (multi-value)
		ps := append(append([]ValType(nil), types...), TI32)
		bt = Instr{Op: OpBlock, C: 0, A: uint64(rw.typeIndex(ps, types))}
	} else {
		sel := rw.local(TI32, 1)
		rw.emit(OpLocalSet, uint64(sel))
		stash = make([]uint32, len(types))
		for i := len(types) - 1; i >= 0; i-- {
			stash[i] = rw.local(types[i], 100+i)
			rw.emit(OpLocalSet, uint64(stash[i]))
		}
	}
	for i := 0; i <= n; i++ {
		rw.out = append(rw.out, bt)
	}
	if bt.C == 0x40 {
		rw.emit(OpLocalGet, uint64(rw.local(TI32, 1)))
	}
	start := uint64(len(rw.pool))
	for i := 0; i <= n; i++ {
		rw.pool = append(rw.pool, uint64(i))
	}
	rw.out = append(rw.out, Instr{Op: OpBrTable, A: start, B: uint64(n + 1)})
	for i := 0; i <= n; i++ {
		rw.emit(OpEnd, 0)
		rw.armCounter(ids[i], labels[i])
		for _, s := range stash {
			rw.emit(OpLocalGet, uint64(s))
		}
		rw.emit(OpBr, labels[i]+uint64(n-i))
	}
}
