package instrument

import "slices"

// Regions of a Go function's resume blocks.
//
// A Go function's basic blocks are the resume blocks of its dispatch
// (godispatch.go), entered through the dispatch's br_table, which has no
// sites. Taken as structured code, every block would be in the region
// before the dispatch, the function's entry: a line would look reached
// whenever its function ran. The tracker follows the ways into each block
// instead: falling through from the block before (the region there), a
// jump (`i32.const PC; local.set 0; br <entryPointLoop>`, the region at
// the br: an if arm's site for a conditional jump), the entry for block
// 0, or another branch to the block's end. While the function is walked
// a block's region is a placeholder (goPlaceholder). At its end each
// block gets the sites of its ways in, a placeholder standing for the
// sites of its block (to the least fixed point, so a loop's header gets
// those of the ways into the loop):
//
//   - block 0: the entry's site;
//   - one site (the commonest: the block an `if err != nil` jumps to, the
//     one a call returns to): that site's region;
//   - several (a join after if/else, a loop header, the block that a
//     panic's call would fall through to and a conditional jumps to): a
//     join region (Region, SiteMap.Joins), reached when any of them was
//     hit;
//   - more than goJoinMax, or a way in whose site is not known: the
//     region of its immediate dominator in the graph of blocks and ways
//     in, the block that ran every time it did;
//   - none (a block no way reaches from block 0, one the runtime resumes
//     by itself: a deferreturn after a recover): no region.
//
// A branch to the dispatch loop that is not a recognised jump leaves
// every block in the entry's region, as structured code would.

// goJoinMax bounds the sites of one join region.
const goJoinMax = 16

// goEdge is a way into a resume block: the block it comes from (-1: the
// function's entry) and the region there (known false: a branch whose
// site is not known).
type goEdge struct {
	from   int
	region uint32
	known  bool
}

// goBlockRegions is the tracker's state for one Go function's blocks.
type goBlockRegions struct {
	active bool
	broken bool       // a branch to the dispatch loop that is not a jump
	cur    int        // the block being walked, -1 before the first
	in     [][]goEdge // ways into each block
	jump   int        // the block the instruction being stepped jumps to, -1: not a jump
}

// goPlaceholder is the region of block s until the function ends: a
// value above every site id and below NoRegion.
func goPlaceholder(s int) uint32 { return NoRegion - 1 - uint32(s) }

// placeholder returns the block whose placeholder v is, false for none.
func (g *goBlockRegions) placeholder(v uint32) (int, bool) {
	if !g.active || v == NoRegion {
		return 0, false
	}
	s := int(NoRegion - 1 - v)
	return s, s >= 0 && s < len(g.in)
}

// goDispatch starts the blocks of a function whose dispatch br_table
// (labels: its arms, the default last) is being stepped with the region
// entry: the innermost open blocks are the resume blocks, innermost
// first, and the construct around them the jumps' loop when it is one.
// False when the open constructs do not fit.
func (t *regionTracker) goDispatch(labels []uint64, entry uint32) bool {
	n := len(t.open)
	if len(labels) == 0 || entry == NoRegion || slices.Max(labels) >= uint64(n-1) {
		return false
	}
	nres := int(slices.Max(labels)) + 1
	for j := range nres {
		if t.open[n-1-j].op != OpBlock {
			return false
		}
	}
	for j := range nres {
		t.open[n-1-j].goSeg = j + 1
	}
	if f := &t.open[n-1-nres]; f.op == OpLoop {
		f.goLoop = true
	}
	g := &t.goBlocks
	*g = goBlockRegions{active: true, cur: -1, jump: -1, in: make([][]goEdge, nres)}
	g.in[0] = append(g.in[0], goEdge{from: -1, region: entry, known: true})
	return true
}

// goEnd follows the end of resume block frame f: the ways into the next
// block are the fall-through (live: the region t.cur) and the frame's
// other branches; the code after it is in the block's placeholder.
func (t *regionTracker) goEnd(f regionFrame, live bool) {
	g := &t.goBlocks
	s := f.goSeg - 1
	if live {
		g.in[s] = append(g.in[s], goEdge{from: g.cur, region: t.cur, known: true})
	}
	switch {
	case f.edges == 1:
		g.in[s] = append(g.in[s], goEdge{from: g.cur, region: f.edge, known: f.edge != NoRegion})
	case f.edges > 1:
		g.in[s] = append(g.in[s], goEdge{from: g.cur})
	}
	g.cur = s
	t.cur = goPlaceholder(s)
}

// goBr follows a br to frame f in live code with region t.cur: a jump to
// a block is a way into it; any other branch to the loop breaks the
// blocks.
func (t *regionTracker) goBr(f *regionFrame) {
	g := &t.goBlocks
	if !g.active || !f.goLoop {
		return
	}
	if g.jump < 0 || g.jump >= len(g.in) {
		g.broken = true
		return
	}
	g.in[g.jump] = append(g.in[g.jump], goEdge{from: g.cur, region: t.cur, known: true})
}

// goResolve gives every block its region (the rules above), replaces
// the placeholders in t.out and appends the function's joins to
// t.joins (their sites placement ids, as t.out's).
func (t *regionTracker) goResolve() {
	g := &t.goBlocks
	if !g.active {
		return
	}
	defer func() { *g = goBlockRegions{} }()
	n := len(g.in)
	region := make([]uint32, n)
	entry := g.in[0][0].region
	for s := range region {
		region[s] = entry
	}
	if !g.broken {
		for s := range region {
			region[s] = NoRegion
		}
		sets, over := g.siteSets()
		idom := goDominators(g.in)
		for _, s := range goReversePostorder(g.in) {
			switch {
			case s == 0:
				region[s] = entry
			case over[s]:
				if d := idom[s]; d >= 0 {
					region[s] = region[d]
				}
			case len(sets[s]) == 1:
				region[s] = sets[s][0]
			case len(sets[s]) > 1:
				region[s] = joinRef(len(t.joins))
				t.joins = append(t.joins, sets[s])
			}
		}
	}
	for i := range t.out {
		if s, ok := g.placeholder(t.out[i].Site); ok {
			t.out[i].Site = region[s]
		}
	}
}

// siteSets returns the sites of the ways into every block (placeholders
// replaced by their blocks' sites, to the least fixed point), sorted,
// and which blocks have more than goJoinMax or a way in of unknown site.
func (g *goBlockRegions) siteSets() ([][]uint32, []bool) {
	n := len(g.in)
	sets := make([][]uint32, n)
	over := make([]bool, n)
	sets[0] = []uint32{g.in[0][0].region}
	for changed := true; changed; {
		changed = false
		for s := 1; s < n; s++ {
			if over[s] {
				continue
			}
			var set []uint32
			for _, e := range g.in[s] {
				if t, ok := g.placeholder(e.region); ok {
					if over[t] {
						over[s] = true
						break
					}
					set = append(set, sets[t]...)
					continue
				}
				if !e.known {
					over[s] = true
					break
				}
				if e.region != NoRegion {
					set = append(set, e.region)
				}
			}
			slices.Sort(set)
			set = slices.Compact(set)
			if len(set) > goJoinMax {
				over[s] = true
			}
			if over[s] {
				sets[s], changed = nil, true
				continue
			}
			if !slices.Equal(set, sets[s]) {
				sets[s], changed = set, true
			}
		}
	}
	return sets, over
}

// joinRef is the Region.Site of join j (SiteMap.Joins).
func joinRef(j int) uint32 { return NoRegion - 1 - uint32(j) }

// goSuccs returns the graph's successor lists from its ways in.
func goSuccs(in [][]goEdge) [][]int {
	succ := make([][]int, len(in))
	for s, edges := range in {
		for _, e := range edges {
			if e.from >= 0 && e.from < len(in) {
				succ[e.from] = append(succ[e.from], s)
			}
		}
	}
	return succ
}

// goReversePostorder returns the blocks reachable from block 0 in
// reverse postorder.
func goReversePostorder(in [][]goEdge) []int {
	succ := goSuccs(in)
	seen := make([]bool, len(in))
	var post []int
	type frame struct{ s, next int }
	stack := []frame{{0, 0}}
	seen[0] = true
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(succ[top.s]) {
			c := succ[top.s][top.next]
			top.next++
			if !seen[c] {
				seen[c] = true
				stack = append(stack, frame{c, 0})
			}
			continue
		}
		post = append(post, top.s)
		stack = stack[:len(stack)-1]
	}
	slices.Reverse(post)
	return post
}

// goDominators returns each block's immediate dominator from block 0
// (-1 for block 0 and for blocks it does not reach), by the iterative
// algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast Dominance
// Algorithm") over the reverse postorder.
func goDominators(in [][]goEdge) []int {
	order := goReversePostorder(in)
	rpo := make([]int, len(in))
	for i := range rpo {
		rpo[i] = -1
	}
	for i, s := range order {
		rpo[s] = i
	}
	idom := make([]int, len(in))
	for i := range idom {
		idom[i] = -1
	}
	idom[0] = 0
	intersect := func(a, b int) int {
		for a != b {
			for rpo[a] > rpo[b] {
				a = idom[a]
			}
			for rpo[b] > rpo[a] {
				b = idom[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for _, s := range order[1:] {
			d := -1
			for _, e := range in[s] {
				p := e.from
				if p < 0 || p >= len(in) || rpo[p] < 0 || idom[p] < 0 {
					continue
				}
				if d < 0 {
					d = p
				} else {
					d = intersect(p, d)
				}
			}
			if d >= 0 && idom[s] != d {
				idom[s], changed = d, true
			}
		}
	}
	idom[0] = -1
	return idom
}

var debugGoRegions func(*goBlockRegions)
var debugGoEnd func(int, uint32, uint32)
