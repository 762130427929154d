package instrument

import "slices"

// Derived sites.
//
// Some sites need no counter because their count is a sum of others. The
// function entry, the start of an if arm and the fall-through of a br_if
// are followed by straight-line code; when that code reaches an if or a
// br_if before anything that can leave it (end, else, loop, another
// branch, return, unreachable, a call, exception handling),
// every execution of the site is followed by exactly one hit of one of
// that branch's arms. The site's count is then the sum of the arms' counts,
// and saturating at 255 keeps it exact: a sum that reaches 255 has a true
// value of at least 255. Entering a block does not leave straight-line
// code; a loop header does (its body runs once per iteration). A trap in
// the straight-line code (a memory access out of bounds, a division by
// zero) loses the site's hit of that run: the same loss a trap in a leaf
// loop causes (nest.go), only on crashing runs. A br_table is not a source:
// rewriter.brTable leaves the arms of one it cannot type uncounted.
//
// A derived site keeps its id and its byte in the counters, which stays 0;
// SiteMap.FillDerived computes its count from its sources. Coverage
// feedback needs no derived count: a derived site is hit exactly when one
// of its sources is.

// derivation is a function's site plan, in function-local site numbers
// (0 is the entry, then the sites of each branch in instruction order, as
// rewriter.site allocates them).
type derivation struct {
	// siteAt[k] is the number of the first site of body[k] (of the next
	// branch's for other instructions).
	siteAt []uint32
	// from and sum by site: a derived site's count is the sum of sites
	// from..from+sum-1; sum 0 means counted.
	from, sum []uint32
	// dispatch is 1 + the body index of a Go function's resume-point
	// br_table, which gets no sites (godispatch.go); 0: none.
	dispatch int
}

// derived reports whether function-local site s needs no counter.
func (d *derivation) derived(s uint32) bool {
	return s < uint32(len(d.sum)) && d.sum[s] > 0
}

// plan fills d for body, reusing its storage; with derive false every
// site is counted.
func (d *derivation) plan(body []Instr, derive bool) {
	d.siteAt = grown(d.siteAt, len(body))
	n := uint32(1) // the entry
	var elseOf map[int]int
	var open []int // enclosing blocks: the if's index, -1 for others
	for k := range body {
		d.siteAt[k] = n
		switch in := &body[k]; in.Op {
		case OpIf:
			n += 2
			open = append(open, k)
		case OpBrIf:
			n += 2
		case OpBrTable:
			if k+1 != d.dispatch {
				n += uint32(in.B)
			}
		case OpBlock, OpLoop, OpTry, OpTryTable:
			open = append(open, -1)
		case OpElse:
			if m := len(open); m > 0 && open[m-1] >= 0 {
				if elseOf == nil {
					elseOf = make(map[int]int)
				}
				elseOf[open[m-1]] = k
			}
		case OpEnd, OpDelegate:
			if m := len(open); m > 0 {
				open = open[:m-1]
			}
		}
	}
	d.from, d.sum = grown(d.from, int(n)), grown(d.sum, int(n))
	if !derive {
		return
	}
	derivable := func(s uint32, start int) {
		b := branchAhead(body, start)
		if b < 0 {
			return
		}
		d.from[s], d.sum[s] = d.siteAt[b], 2
	}
	derivable(0, 0)
	for k := range body {
		switch body[k].Op {
		case OpIf:
			derivable(d.siteAt[k], k+1)
			if e, ok := elseOf[k]; ok {
				derivable(d.siteAt[k]+1, e+1)
			}
		case OpBrIf:
			derivable(d.siteAt[k]+1, k+1)
		}
	}
}

// grown returns s resized to n zeros, reusing its storage.
func grown(s []uint32, n int) []uint32 {
	s = slices.Grow(s[:0], n)[:n]
	clear(s)
	return s
}

// branchAhead returns the index of the if or br_if that straight-line
// code from body[start] reaches, or -1 if something that can leave it
// comes first.
func branchAhead(body []Instr, start int) int {
	if i := controlAhead(body, start); i >= 0 && (body[i].Op == OpIf || body[i].Op == OpBrIf) {
		return i
	}
	return -1
}

// controlAhead returns the index of the first instruction from
// body[start] on that is not straight-line code (anything but control
// instructions, nop and entering a block), or -1.
func controlAhead(body []Instr, start int) int {
	for i := start; i < len(body); i++ {
		switch body[i].Op {
		case OpBlock, OpNop:
		case OpIf, OpBrIf, OpBrTable, OpUnreachable, OpLoop, OpElse, OpEnd, OpBr, OpReturn,
			OpCall, OpCallIndirect, OpCallRef, OpReturnCall, OpReturnCallIndirect, OpReturnCallRef,
			OpTry, OpTryTable, OpCatch, OpCatchAll, OpDelegate, OpThrow, OpRethrow, OpThrowRef,
			OpBrOnNull, OpBrOnNonNull:
			return i
		}
	}
	return -1
}

// FillDerived sets the count of every derived site in counts (one byte per
// site id, as read from the counters) to the saturating sum of its
// sources. Sources have lower ids than the sites derived from them, so one
// pass in id order completes chains.
func (m *SiteMap) FillDerived(counts []byte) {
	for id := range min(len(m.Sites), len(counts)) {
		s := &m.Sites[id]
		if s.Sum == 0 || uint64(s.From)+uint64(s.Sum) > uint64(id) {
			continue
		}
		sum := 0
		for _, c := range counts[s.From : s.From+s.Sum] {
			sum += int(c)
		}
		counts[id] = byte(min(sum, 255))
	}
}

// Counted is the number of sites with a counter of their own (the others
// are derived).
func (m *SiteMap) Counted() int {
	n := 0
	for i := range m.Sites {
		if m.Sites[i].Sum == 0 {
			n++
		}
	}
	return n
}
