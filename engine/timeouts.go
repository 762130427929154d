package engine

import "context"

// Hangs cost a campaign their whole fuel budget, every time: one endless
// loop a mutation reaches again and again (a decoder that never advances)
// took 160 of a 180 s campaign at 2^28 units a run. As AFL++ does with its
// two timeouts, a mutated child first runs with a smaller budget; one that
// exhausts it (a timeout) is run again with the whole budget only when it
// reached a site no earlier timeout reached, and is dropped otherwise, so
// a loop the campaign knows costs the small budget, and a slow input on a
// new path is still told from a hang. Seeds and the resumed queue run with
// the whole budget: their fuel sets their children's.

// A FuelExecutor is an Executor whose runs count fuel (runtime's
// instrumented modules). The engine gives its mutated children a first
// budget below Fuel (childFuel).
type FuelExecutor interface {
	Executor
	// Fuel is the budget Run gives a run: a run that needs more is a
	// hang. Zero: the target counts no fuel (RunFuel is never called).
	Fuel() uint64
	// RunFuel runs input as Run does with a budget of fuel units.
	RunFuel(ctx context.Context, input []byte, fuel uint64) (Result, error)
}

const (
	// firstFuelShift: a child's first budget is at least the whole budget
	// >> firstFuelShift (1/64: 4M units of the default 2^28, tens of
	// milliseconds on a typical target, where AFL++'s timeouts are
	// 20-1000 ms against its 1 s hang timeout).
	firstFuelShift = 6
	// parentFuelFactor: and at least this many times its parent's fuel
	// (a slow parent's children, larger or quadratic, are not timeouts).
	parentFuelFactor = 8
)

// childFuel is the first budget of a child of a parent that used parent
// units of fuel, when a run's whole budget is full; full means no smaller
// first budget.
func childFuel(parent, full uint64) uint64 {
	b := full >> firstFuelShift
	if parent > full/parentFuelFactor {
		return full
	}
	return min(full, max(b, parentFuelFactor*parent))
}

// siteSet is a set of sites: the sites timeouts reached (the coordinator's,
// and each worker's private subset of it, which, like the coverage filter,
// holds only what the worker sent: a timeout its set covers is covered by
// the coordinator's when merged, so the worker drops it without asking).
type siteSet []uint64

// covers reports whether s holds every site of the sparse trace tr.
func (s siteSet) covers(tr []byte) bool {
	for i := range len(tr) / traceEntry {
		site, _ := traceSite(tr, i)
		if w := int(site >> 6); w >= len(s) || s[w]&(1<<(site&63)) == 0 {
			return false
		}
	}
	return true
}

// add adds the sites of tr and reports whether any was new.
func (s *siteSet) add(tr []byte) (added bool) {
	for i := range len(tr) / traceEntry {
		site, _ := traceSite(tr, i)
		w := int(site >> 6)
		if w >= len(*s) {
			*s = append(*s, make([]uint64, w+1-len(*s))...)
		}
		if bit := uint64(1) << (site & 63); (*s)[w]&bit == 0 {
			(*s)[w] |= bit
			added = true
		}
	}
	return added
}
