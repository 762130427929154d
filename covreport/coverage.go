package covreport

import (
	"fmt"

	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/internal/enumname"
)

// Outcome is how one replayed input ended, as the runtime classifies it.
type Outcome int

// Outcomes.
const (
	Valid   Outcome = iota // the harness accepted the input
	Invalid                // the harness rejected it
	Crash                  // the target trapped, panicked or exited abnormally
	Hang                   // the target ran out of fuel
)

var outcomeNames = enumname.New[Outcome]("Outcome", "outcome", "valid", "invalid", "crash", "hang")

func (o Outcome) String() string { return outcomeNames.String(o) }

// Failed reports whether o is a crash or hang, whose coverage a campaign
// does not count.
func (o Outcome) Failed() bool { return o == Crash || o == Hang }

// Input is one replayed input: its file, outcome and, for a crash or a
// hang, the failure's one-line description.
type Input struct {
	Path    string
	Size    int
	Outcome Outcome
	Failure string
}

// Coverage accumulates the runs of a corpus on one instrumented build. The
// zero value is not usable: make one with NewCoverage. Not safe for
// concurrent use.
type Coverage struct {
	sm *instrument.SiteMap
	// Hits[id] is the sum over counted runs of site id's count in that
	// run (each run's count saturates at 255); Inputs[id] the number of
	// counted runs that hit it; Valid[id] whether a valid run did.
	Hits   []uint64
	Inputs []uint64
	Valid  []bool
	// Runs lists every input added, in order.
	Runs    []Input
	scratch []byte
}

// NewCoverage returns an empty Coverage for the build described by sm.
func NewCoverage(sm *instrument.SiteMap) *Coverage {
	n := len(sm.Sites)
	return &Coverage{sm: sm, Hits: make([]uint64, n), Inputs: make([]uint64, n), Valid: make([]bool, n), scratch: make([]byte, n)}
}

// SiteMap returns the site map the coverage is for.
func (c *Coverage) SiteMap() *instrument.SiteMap { return c.sm }

// Add records one input's run: counters is the run's counter view (one
// byte per site; it is not kept). A crash or hang is listed but its
// counters are not counted. Counters longer than the site map are an
// error: they come from another build.
func (c *Coverage) Add(in Input, counters []byte) error {
	if len(counters) > len(c.sm.Sites) {
		return fmt.Errorf("%s: the run has %d counters, the site map %d sites: not the same build", in.Path, len(counters), len(c.sm.Sites))
	}
	c.Runs = append(c.Runs, in)
	if in.Outcome.Failed() {
		return nil
	}
	clear(c.scratch)
	copy(c.scratch, counters)
	c.sm.FillDerived(c.scratch)
	for id, n := range c.scratch {
		if n == 0 {
			continue
		}
		c.Hits[id] += uint64(n)
		c.Inputs[id]++
		if in.Outcome == Valid {
			c.Valid[id] = true
		}
	}
	return nil
}

// Totals are the campaign's coverage numbers over counted sites (those
// with a counter of their own): Sites is fuzzer_stats' total_edges,
// Covered its edges_found and ValidCovered its valid_edges.
type Totals struct {
	Sites, Covered, ValidCovered int
}

// Totals returns the campaign's numbers for the runs added so far.
func (c *Coverage) Totals() Totals {
	var t Totals
	for id, s := range c.sm.Sites {
		if s.Sum != 0 {
			continue
		}
		t.Sites++
		if c.Inputs[id] > 0 {
			t.Covered++
		}
		if c.Valid[id] {
			t.ValidCovered++
		}
	}
	return t
}
