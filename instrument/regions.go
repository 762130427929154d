package instrument

import "slices"

// Region says which counter stands for the code from Offset (code-section
// relative, the origin of Site.Offset and DWARF addresses) up to the next
// Region: when site Site was hit, that code ran, as far as structured
// control flow tells. Site is NoRegion for code no site stands for: code
// after an unconditional branch up to its construct's end (unreachable),
// the bytes between function bodies, and functions left uninstrumented.
//
// The regions follow the instructions in order:
//
//   - a function starts in its FuncEntry site's region;
//   - after an if, its IfThen site's; after its else, its IfElse site's
//     (the IfElse site of an if without else stands for no code);
//   - after a br_if in reachable code, its BrIfNotTaken site's, up to the
//     end of the construct around it;
//   - after br, br_table, return, unreachable, throw and the tail calls,
//     NoRegion up to the construct's end;
//   - after an end (or delegate), the region that was active before the
//     construct began: the end joins the fall-through with every branch
//     to it, and whatever reached the construct's start may reach its end.
//     When nothing can reach the end (the body ended unreachable and no
//     branch targets a block's end; a loop's label is its start), NoRegion.
//
// A Go function's resume blocks get their regions from the ways into
// them (goregions.go); a block entered several ways is in a join region,
// whose Site names SiteMap.Joins (JoinRegion).
//
// Like llvm-cov's counters after a call, a region does not end at a call:
// a call that traps, exits or never returns makes the code after it in
// the same region look reached. Catch clauses of legacy try resume the
// region before the try.
type Region struct {
	Offset uint32
	Site   uint32
}

// NoRegion is the Site of a Region no counter stands for.
const NoRegion = ^uint32(0)

// JoinRegion returns the join a Region's Site stands for: the index j of
// SiteMap.Joins whose sites' hits mean the code ran (any one of them),
// false for a site or NoRegion. Join j is the Site NoRegion-1-j (a Go
// function's resume block entered several ways, goregions.go).
func (m *SiteMap) JoinRegion(site uint32) (int, bool) {
	if site == NoRegion || site < NoRegion-uint32(len(m.Joins)) {
		return 0, false
	}
	return int(NoRegion - 1 - site), true
}

// regionTracker computes the Regions of one function while the rewriter
// walks its body in instruction order. Site ids are the rewriter's (in
// placement order); the rewriter maps them to the final, reversed ids.
type regionTracker struct {
	cur  uint32 // region of the code being walked
	open []regionFrame
	out  []Region
	// goBlocks follows the ways into a Go function's resume blocks
	// (goregions.go); joins are the join regions' sites (SiteMap.Joins),
	// final ids up to joinsDone, the function's placement ids after.
	goBlocks  goBlockRegions
	joins     [][]uint32
	joinsDone int
}

// regionFrame is an open construct: the region before it began, the else
// site of an if, and the paths that reach its end: how many (2 stands for
// "several") and, for one, the region of that path.
type regionFrame struct {
	op       Op
	before   uint32
	elseSite uint32
	edges    int
	edge     uint32
	goSeg    int  // a Go resume block: the block its end starts, plus one (0: not one)
	goLoop   bool // a Go function's entryPointLoop, the target of its jumps
}

// reach records a branch to the label at depth: a path to the end of a
// block, none to a loop's end (its label is its start).
func (t *regionTracker) reach(depth uint64, region uint32, edges int) {
	if depth < uint64(len(t.open)) {
		if f := &t.open[len(t.open)-1-int(depth)]; f.op != OpLoop {
			f.path(region, edges)
		}
	}
}

// path records a path to the end of f: its region (NoRegion with edges 2
// for "some path whose site is not known").
func (f *regionFrame) path(region uint32, edges int) {
	if f.edges == 0 || f.edge != region {
		f.edges += edges
	}
	f.edge = region
}

// start begins a function whose first instruction is at offset off and
// whose entry site is entry.
func (t *regionTracker) start(off, entry uint32) {
	t.open = append(t.open[:0], regionFrame{op: OpBlock, before: NoRegion})
	t.cur = entry
	t.record(off)
}

// record makes t.cur the region from offset off on.
func (t *regionTracker) record(off uint32) {
	if n := len(t.out); n > 0 && t.out[n-1].Offset == off {
		t.out = t.out[:n-1]
	}
	if n := len(t.out); n > 0 && t.out[n-1].Site == t.cur {
		return
	}
	t.out = append(t.out, Region{Offset: off, Site: t.cur})
}

// step follows instruction in, whose next instruction is at offset next;
// sites is the number of sites placed so far (an if's, a br_if's or a
// br_table's are the last ones once the rewriter handled it), pool the
// body's operand pool.
func (t *regionTracker) step(in *Instr, pool []uint64, sites int, next uint32) {
	live := t.cur != NoRegion
	switch in.Op {
	case OpBlock, OpLoop, OpTry:
		t.open = append(t.open, regionFrame{op: in.Op, before: t.cur})
	case OpTryTable:
		start, n := in.B&(1<<32-1), in.B>>32
		for k := range n {
			if i := start + 3*k + 2; live && i < uint64(len(pool)) {
				t.reach(pool[i], NoRegion, 2) // catch labels count from outside the try_table
			}
		}
		t.open = append(t.open, regionFrame{op: in.Op, before: t.cur})
	case OpIf:
		f := regionFrame{op: in.Op, before: t.cur, elseSite: NoRegion}
		t.cur = NoRegion
		if live {
			f.elseSite, t.cur = uint32(sites-1), uint32(sites-2)
		}
		t.open = append(t.open, f)
	case OpElse:
		if n := len(t.open); n > 0 && t.open[n-1].op == OpIf {
			if live {
				t.open[n-1].path(t.cur, 1) // the then arm falls through
			}
			t.open[n-1].op = OpElse
			t.cur = t.open[n-1].elseSite
		}
	case OpCatch, OpCatchAll:
		if n := len(t.open); n > 0 {
			t.reach(0, NoRegion, 2)
			t.cur = t.open[n-1].before
		}
	case OpEnd, OpDelegate:
		n := len(t.open)
		if n == 0 {
			return
		}
		f := &t.open[n-1]
		if live {
			f.path(t.cur, 1) // falling through
		}
		if f.op == OpIf && f.elseSite != NoRegion {
			f.path(f.elseSite, 1) // the missing else
		}
		g := *f
		t.open = t.open[:n-1]
		if g.goSeg > 0 && t.goBlocks.active {
			t.goEnd(g, live)
			break
		}
		switch {
		case n == 1:
			t.cur = NoRegion // the function's end: the bytes after are no code
		case g.edges == 0:
			t.cur = NoRegion
		case g.edges == 1:
			t.cur = g.edge
		default:
			t.cur = g.before
		}
	case OpBr:
		if live {
			t.reach(in.A, t.cur, 1)
			if in.A < uint64(len(t.open)) {
				t.goBr(&t.open[len(t.open)-1-int(in.A)])
			}
		}
		t.cur = NoRegion
	case OpBrIf:
		if live {
			t.reach(in.A, uint32(sites-2), 1)
			t.cur = uint32(sites - 1)
		}
	case OpBrOnNull, OpBrOnNonNull:
		if live {
			t.reach(in.A, NoRegion, 2)
		}
	case OpBrTable:
		labels := pool[in.A : in.A+in.B]
		for i, l := range labels {
			if live {
				t.reach(l, uint32(sites-len(labels)+i), 1)
			}
		}
		t.cur = NoRegion
	case OpUnreachable, OpReturn, OpReturnCall, OpReturnCallIndirect, OpReturnCallRef, OpThrow, OpThrowRef, OpRethrow:
		t.cur = NoRegion
	default:
		return
	}
	t.record(next)
}

// finish appends the function's regions to out, with site ids from
// placement order mapped to the final ones (id -> lo+hi-id, the reversal
// of rewriter.function).
func (t *regionTracker) finish(out []Region, lo, hi uint32) []Region {
	t.goResolve()
	for _, j := range t.joins[t.joinsDone:] {
		for k := range j {
			j[k] = lo + hi - j[k]
		}
		slices.Sort(j)
	}
	t.joinsDone = len(t.joins)
	for _, r := range t.out {
		if r.Site != NoRegion && r.Site < joinRef(len(t.joins)-1) {
			r.Site = lo + hi - r.Site
		}
		if n := len(out); n > 0 && out[n-1].Offset == r.Offset {
			out = out[:n-1]
		}
		if n := len(out); n > 0 && out[n-1].Site == r.Site {
			continue
		}
		out = append(out, r)
	}
	t.out = t.out[:0]
	return out
}

// trackRegion follows body instruction k of a counted function with known
// offsets (rewriter.function calls it after rewriting the instruction).
func (rw *rewriter) trackRegion(k int) {
	in := &rw.body[k]
	if !rw.count || in.Off < rw.m.CodeOffset || rw.body[0].Off < rw.m.CodeOffset {
		return
	}
	next := in.Off + 1 // the final end is one byte
	if k+1 < len(rw.body) {
		next = rw.body[k+1].Off
	}
	if k == rw.disp.table {
		rw.regions.dispatch(in, rw.pool, next-rw.m.CodeOffset)
		return
	}
	rw.regions.goBlocks.jump = -1
	if in.Op == OpBr && rw.disp.table >= 0 && k >= 2 && rw.body[k-1].Op == OpLocalSet && rw.body[k-1].A == 0 && rw.body[k-2].Op == OpI32Const {
		// a jump: its PC's block is the dispatch's arm for it
		d := &rw.body[rw.disp.table]
		labels := rw.pool[d.A : d.A+d.B]
		rw.regions.goBlocks.jump = int(labels[min(uint64(uint32(rw.body[k-2].A)), uint64(len(labels)-1))])
	}
	rw.regions.step(in, rw.pool, len(rw.sm.Sites), next-rw.m.CodeOffset)
}

// dispatch follows Go's resume-point br_table, which has no sites
// (godispatch.go): each arm is a path of unknown site to its block's end,
// so the code after that end is in the region before the dispatch began
// (the function's entry) unless nothing else reaches it.
func (t *regionTracker) dispatch(in *Instr, pool []uint64, next uint32) {
	labels := pool[in.A : in.A+in.B]
	if !t.goDispatch(labels, t.cur) && t.cur != NoRegion {
		for _, l := range labels {
			t.reach(l, NoRegion, 2)
		}
	}
	t.cur = NoRegion
	t.record(next)
}
