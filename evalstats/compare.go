package evalstats

import (
	"fmt"
	"math"
	"strings"

	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/internal/enumname"
)

// Metric is one column of a comparison.
type Metric int

// Metrics, in the order a comparison prints them.
const (
	Branches          Metric = iota // edges_found
	ValidBranches                   // valid_edges
	ValidPct                        // valid_pct
	UniqueTraces                    // unique_traces
	B0                              // Hill number B(0)
	B1                              // B(1)
	B2                              // B(2)
	Crashes                         // saved_crashes (unique)
	ExecsToFirstCrash               // executions when the first crash was found (campaigns with one only)
	ExecsPerSec                     // execs_per_sec
	numMetrics
)

// metricNames has one name per metric (TestMetricNames).
var metricNames = enumname.New[Metric]("Metric", "metric", "branches", "valid branches", "valid %", "unique traces", "B(0)", "B(1)", "B(2)", "unique crashes", "execs to 1st crash", "execs/s")

func (m Metric) String() string { return metricNames.String(m) }

// Campaign is one finished campaign of a comparison.
type Campaign struct {
	Strategy string
	Seed     uint64
	Dir      string
	Values   [numMetrics]float64
	// Has marks the values present: ExecsToFirstCrash is absent for a
	// campaign that found no crash.
	Has [numMetrics]bool
}

// FromStats makes a Campaign of a campaign's final fuzzer_stats and the
// executions at its first crash (firstCrash 0: none found).
func FromStats(strategy string, seed uint64, dir string, st corpus.Stats, firstCrash uint64) Campaign {
	c := Campaign{Strategy: strategy, Seed: seed, Dir: dir}
	set := func(m Metric, v float64) { c.Values[m], c.Has[m] = v, true }
	set(Branches, float64(st.EdgesFound))
	set(ValidBranches, float64(st.ValidEdges))
	set(ValidPct, st.ValidPct)
	set(UniqueTraces, float64(st.UniqueTraces))
	set(B0, st.B0)
	set(B1, st.B1)
	set(B2, st.B2)
	set(Crashes, float64(st.SavedCrashes))
	set(ExecsPerSec, st.ExecsPerSec)
	if firstCrash > 0 {
		set(ExecsToFirstCrash, float64(firstCrash))
	}
	return c
}

// Cell is one strategy's figures for one metric: the summary over its
// campaigns and, for every strategy but the first, the Mann-Whitney test
// and Â12 against the first (P and A12 NaN for the first, or when a
// sample is empty).
type Cell struct {
	Summary
	Test Test
	A12  float64
}

// Row is one strategy's line of the table.
type Row struct {
	Strategy  string
	Campaigns int
	Cells     [numMetrics]Cell
}

// Table is a comparison: one row per strategy, the first the baseline.
type Table struct {
	Rows []Row
}

// Compare builds the table of campaigns for strategies, in that order; the
// first strategy is the baseline of the tests.
func Compare(campaigns []Campaign, strategies []string) Table {
	samples := func(s string, m Metric) []float64 {
		var xs []float64
		for _, c := range campaigns {
			if c.Strategy == s && c.Has[m] {
				xs = append(xs, c.Values[m])
			}
		}
		return xs
	}
	var t Table
	for i, s := range strategies {
		r := Row{Strategy: s}
		for _, c := range campaigns {
			if c.Strategy == s {
				r.Campaigns++
			}
		}
		for m := range numMetrics {
			xs := samples(s, m)
			cell := Cell{Summary: Summarize(xs), Test: Test{P: math.NaN()}, A12: math.NaN()}
			if i > 0 {
				base := samples(strategies[0], m)
				cell.Test = MannWhitney(xs, base)
				cell.A12 = A12(xs, base)
			}
			r.Cells[m] = cell
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// Format renders the table as text: a block per metric, a line per
// strategy with median [min, max], p and Â12 against the first.
func (t Table) Format() string {
	var b strings.Builder
	if len(t.Rows) == 0 {
		return ""
	}
	base := t.Rows[0].Strategy
	fmt.Fprintf(&b, "median [min, max] over seeds; p: two-sided Mann-Whitney U against %s; A12: Vargha-Delaney, > 0.5 means larger than %s\n", base, base)
	w := len("strategy")
	for _, r := range t.Rows {
		w = max(w, len(r.Strategy))
	}
	for m := range numMetrics {
		fmt.Fprintf(&b, "\n%s\n", m)
		for _, r := range t.Rows {
			c := r.Cells[m]
			fmt.Fprintf(&b, "  %-*s  ", w, r.Strategy)
			if c.N == 0 {
				fmt.Fprintf(&b, "-  (0/%d campaigns)\n", r.Campaigns)
				continue
			}
			fmt.Fprintf(&b, "%s [%s, %s]", num(c.Median), num(c.Min), num(c.Max))
			if c.N != r.Campaigns {
				fmt.Fprintf(&b, " (%d/%d campaigns)", c.N, r.Campaigns)
			}
			if !math.IsNaN(c.Test.P) {
				fmt.Fprintf(&b, "  p=%.3g A12=%.2f", c.Test.P, c.A12)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// num prints integers as integers and other values with two decimals.
func num(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.2f", x)
}
