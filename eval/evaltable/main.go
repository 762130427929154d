// Command evaltable summarises the campaigns of an evaluation run (the
// final JSON stats line of each `wafer fuzz`, one file per campaign named
// TARGET__CONFIG__SEED.json) as Markdown tables: per target and
// configuration the median [min–max] of each metric over the seeds, and
// against a baseline configuration the Vargha-Delaney Â12 and the two-sided
// Mann-Whitney U p-value (package evalstats: exact from every split of the
// pooled values while there are few, else the normal approximation).
//
//	go run ./eval/evaltable -base zest DIR
//
// -metrics picks other columns (comma-separated FIELD=HEADING, e.g.
// "cov_branches=branches,execs=execs"); then every column gets its Â12.
//
// It reads nothing but DIR and writes only to stdout.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wafer-fuzz/wafer/evalstats"
)

// metric is one column: its JSON field and heading.
type metric struct{ field, head string }

var defaultMetrics = []metric{
	{"valid_coverage", "valid cov"},
	{"coverage", "all cov"},
	{"valid_pct", "valid %"},
	{"b0", "B(0)"},
	{"b1", "B(1)"},
	{"b2", "B(2)"},
	{"valid_b1", "valid B(1)"},
	{"unique_crashes", "crashes"},
	{"execs_per_sec", "execs/s"},
}

func main() {
	base := flag.String("base", "zest", "configuration the others are compared against")
	cols := flag.String("metrics", "", "columns as comma-separated FIELD=HEADING (default: the generator evaluation's)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: evaltable [-base CONFIG] [-metrics FIELD=HEADING,...] DIR")
		os.Exit(2)
	}
	metrics, tested := defaultMetrics, 7
	if *cols != "" {
		var err error
		if metrics, err = parseMetrics(*cols); err != nil {
			fmt.Fprintln(os.Stderr, "evaltable: -metrics:", err)
			os.Exit(2)
		}
		tested = len(metrics)
	}
	if err := run(os.Stdout, flag.Arg(0), *base, metrics, tested); err != nil {
		fmt.Fprintln(os.Stderr, "evaltable:", err)
		os.Exit(1)
	}
}

// runs[target][config] is one value list per metric, over the seeds.
type runs map[string]map[string]map[string][]float64

// parseMetrics reads "FIELD=HEADING,..." (a field alone is its own
// heading).
func parseMetrics(s string) ([]metric, error) {
	var out []metric
	for _, kv := range strings.Split(s, ",") {
		f, h, ok := strings.Cut(kv, "=")
		if !ok {
			h = f
		}
		if f == "" || h == "" {
			return nil, fmt.Errorf("expected FIELD=HEADING, got %q", kv)
		}
		out = append(out, metric{f, h})
	}
	return out, nil
}

func load(dir string, metrics []metric) (runs, []string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, nil, err
	}
	r := runs{}
	var order []string
	for _, f := range files {
		parts := strings.Split(strings.TrimSuffix(filepath.Base(f), ".json"), "__")
		if len(parts) != 3 {
			return nil, nil, fmt.Errorf("%s: expected TARGET__CONFIG__SEED.json", f)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, nil, fmt.Errorf("%s: %v", f, err)
		}
		t, c := parts[0], parts[1]
		if r[t] == nil {
			r[t] = map[string]map[string][]float64{}
		}
		if r[t][c] == nil {
			r[t][c] = map[string][]float64{}
			if !slices.Contains(order, c) {
				order = append(order, c)
			}
		}
		for _, mt := range metrics {
			v, ok := m[mt.field].(float64)
			if !ok {
				return nil, nil, fmt.Errorf("%s: no number %q", f, mt.field)
			}
			r[t][c][mt.field] = append(r[t][c][mt.field], v)
		}
	}
	return r, order, nil
}

// run writes the tables of dir's campaigns: metrics' columns, the first
// tested of them also against base.
func run(w io.Writer, dir, base string, metrics []metric, tested int) error {
	r, order, err := load(dir, metrics)
	if err != nil {
		return err
	}
	targets := make([]string, 0, len(r))
	for t := range r {
		targets = append(targets, t)
	}
	slices.Sort(targets)
	// the baseline first, the rest in name order
	slices.SortStableFunc(order, func(a, b string) int {
		switch {
		case a == base:
			return -1
		case b == base:
			return 1
		}
		return strings.Compare(a, b)
	})
	configs := func(t string) []string {
		var out []string
		for _, c := range order {
			if r[t][c] != nil {
				out = append(out, c)
			}
		}
		return out
	}
	for _, t := range targets {
		n := 0
		for _, c := range configs(t) {
			n = max(n, len(r[t][c][metrics[0].field]))
		}
		fmt.Fprintf(w, "\n**%s** (median [min–max] over %d seeds)\n\n| config |", t, n)
		for _, m := range metrics {
			fmt.Fprintf(w, " %s |", m.head)
		}
		fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---|", len(metrics)))
		for _, c := range configs(t) {
			fmt.Fprintf(w, "| %s |", c)
			for _, m := range metrics {
				v := slices.Clone(r[t][c][m.field])
				slices.Sort(v)
				fmt.Fprintf(w, " %s [%s–%s] |", num(median(v)), num(v[0]), num(v[len(v)-1]))
			}
			fmt.Fprintln(w)
		}
		bv := r[t][base]
		if bv == nil {
			continue
		}
		fmt.Fprintf(w, "\n%s against %s: Â12 (p, two-sided Mann-Whitney U)\n\n| config |", t, base)
		for _, m := range metrics[:tested] {
			fmt.Fprintf(w, " %s |", m.head)
		}
		fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---|", tested))
		for _, c := range configs(t) {
			if c == base {
				continue
			}
			fmt.Fprintf(w, "| %s |", c)
			for _, m := range metrics[:tested] {
				x, y := r[t][c][m.field], bv[m.field]
				fmt.Fprintf(w, " %.2f (%.3f) |", a12(x, y), mannWhitneyP(x, y))
			}
			fmt.Fprintln(w)
		}
	}
	return nil
}

func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// a12 is Vargha and Delaney's Â12: the probability that a value of x beats
// one of y, ties counting half.
func a12(x, y []float64) float64 {
	var s float64
	for _, a := range x {
		for _, b := range y {
			switch {
			case a > b:
				s++
			case a == b:
				s += 0.5
			}
		}
	}
	return s / float64(len(x)*len(y))
}

// mannWhitneyP is the two-sided p-value of the U test (evalstats: exact
// from every split of the pooled values up to evalstats.MaxExactSplits
// splits, the normal approximation above, e.g. 20 seeds a side).
func mannWhitneyP(x, y []float64) float64 { return evalstats.MannWhitney(x, y).P }
