// Command tracebound measures what bounding the coordinator's trace sets
// costs (docs/EVALUATION.md, "Bounded trace sets: effect on the Hill
// numbers and coverage"): the same campaigns, one worker, equal execution
// budgets and seeds, under three budgets of engine.Search.TraceMemory:
//
//   - exact: 1 GiB a set, exact up to 33 million traces (no filter in
//     these budgets);
//   - default: engine.DefaultTraceMemory (a 4 MiB table, then a 16 MiB
//     Bloom filter);
//   - scaled: the default divided by 64 (a 64 KiB table, a 256 KiB
//     filter), so that a budget of a minute fills the filter as far as
//     the default's is filled by a campaign of several hours.
//
// It writes one JSON line per campaign; -report turns the file into
// Markdown tables: per metric, the median [min-max] of each arm, against
// exact the exact two-sided Mann-Whitney U p-value and the
// Vargha-Delaney Â12 (package evalstats), and the median [min, max] of
// scaled's difference from exact on the same seed, in percent.
//
//	go run ./eval/tracebound -out /tmp/tracebound.jsonl
//	go run ./eval/tracebound -report /tmp/tracebound.jsonl
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/wafer-fuzz/wafer/campaign"
	"github.com/wafer-fuzz/wafer/engine"
	"github.com/wafer-fuzz/wafer/evalstats"
	"github.com/wafer-fuzz/wafer/generators"
)

// arm is a trace budget under test.
type arm struct {
	name string
	mem  int64
}

var arms = []arm{
	{"exact", 1 << 30},
	{"default", engine.DefaultTraceMemory},
	{"scaled", engine.DefaultTraceMemory / 64},
}

// result is one campaign's line of output.
type result struct {
	Campaign, Arm string
	Seed          uint64
	Execs         int64
	Coverage      int
	ValidCoverage int
	UniqueTraces  int
	Queue         int
	B0, B1, B2    float64
	ValidB1       float64
	ExecsPerSec   float64
}

// metrics are the report's rows: name and reader.
var metrics = []struct {
	name string
	get  func(r result) float64
}{
	{"coverage", func(r result) float64 { return float64(r.Coverage) }},
	{"valid coverage", func(r result) float64 { return float64(r.ValidCoverage) }},
	{"unique traces", func(r result) float64 { return float64(r.UniqueTraces) }},
	{"queue", func(r result) float64 { return float64(r.Queue) }},
	{"B(0)", func(r result) float64 { return r.B0 }},
	{"B(1)", func(r result) float64 { return r.B1 }},
	{"B(2)", func(r result) float64 { return r.B2 }},
	{"valid B(1)", func(r result) float64 { return r.ValidB1 }},
}

func main() {
	out := flag.String("out", "", "write one JSON line per campaign to `FILE` (appending; campaigns already in it are skipped)")
	report := flag.String("report", "", "print the Markdown tables of `FILE` (the -out of a run) and exit")
	specs := flag.String("campaigns", "cexpr/bedivfuzz/expr=1000000,cexpr/havoc/=2000000", "comma-separated `TARGET/STRATEGY/GENERATOR=EXECS` (empty generator: raw mode from examples/TARGET/seeds)")
	seeds := flag.Int("seeds", 5, "PRNG seeds 1..N per (campaign, arm)")
	root := flag.String("root", ".", "repository root")
	flag.Parse()
	var err error
	switch {
	case *report != "":
		err = printReport(os.Stdout, *report)
	case *out == "":
		fmt.Fprintln(os.Stderr, "tracebound: -out or -report is required")
		os.Exit(2)
	default:
		err = runAll(*root, *out, *specs, *seeds)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func runAll(root, out, specs string, seeds int) error {
	done := map[string]bool{}
	if old, err := readResults(out); err == nil {
		for _, r := range old {
			done[fmt.Sprintf("%s %s %d", r.Campaign, r.Arm, r.Seed)] = true
		}
	}
	f, err := os.OpenFile(out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	ctx := context.Background()
	for _, spec := range strings.Split(specs, ",") {
		name, b, ok := strings.Cut(spec, "=")
		parts := strings.Split(name, "/")
		budget, err := strconv.ParseInt(b, 10, 64)
		if !ok || len(parts) != 3 || err != nil || budget <= 0 {
			return fmt.Errorf("-campaigns: expected TARGET/STRATEGY/GENERATOR=EXECS, got %q", spec)
		}
		tname, strategy, gname := parts[0], parts[1], parts[2]
		dir := filepath.Join(root, "examples", tname)
		wasm, err := os.ReadFile(filepath.Join(dir, tname+".wasm"))
		if err != nil {
			return err
		}
		tgt, err := campaign.Load(tname, wasm, campaign.TargetOptions{})
		if err != nil {
			return err
		}
		opts := campaign.Options{Search: campaign.Search{Strategy: strategy, Runs: budget, Workers: 1, KeepGoing: true, NoShrink: true}}
		if gname != "" {
			g, ok := generators.Lookup(gname)
			if !ok {
				return fmt.Errorf("-campaigns: %q: unknown generator %q", spec, gname)
			}
			opts.Generator = g
		} else if opts.Seeds, err = readSeeds(filepath.Join(dir, "seeds")); err != nil {
			return err
		}
		// seed-major, arm-minor: a drift of the machine's load touches every arm alike
		for s := 1; s <= seeds; s++ {
			for _, a := range arms {
				if done[fmt.Sprintf("%s %s %d", name, a.name, s)] {
					continue
				}
				o := opts
				o.Seed, o.TraceMemory = uint64(s), a.mem
				sum, err := tgt.Fuzz(ctx, o)
				if err != nil {
					return fmt.Errorf("%s %s seed %d: %w", name, a.name, s, err)
				}
				st := sum.Stats
				r := result{Campaign: name, Arm: a.name, Seed: uint64(s), Execs: st.Execs, Coverage: st.Coverage,
					ValidCoverage: st.ValidCoverage, UniqueTraces: st.UniqueTraces, Queue: st.Queue,
					B0: st.B0, B1: st.B1, B2: st.B2, ValidB1: st.ValidB1, ExecsPerSec: st.ExecsPerSec}
				line, _ := json.Marshal(r)
				if _, err := f.Write(append(line, '\n')); err != nil {
					return err
				}
				fmt.Fprintf(os.Stderr, "%s %s seed %d: coverage %d, traces %d, B(1) %.1f, %.0f execs/s\n", name, a.name, s, r.Coverage, r.UniqueTraces, r.B1, r.ExecsPerSec)
			}
		}
	}
	return f.Sync()
}

func readSeeds(dir string) ([][]byte, error) {
	var inputs [][]byte
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		inputs = append(inputs, b)
		return err
	})
	return inputs, err
}

func readResults(path string) ([]result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rs []result
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		var r result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: expected a campaign's JSON line: %w", path, line, err)
		}
		rs = append(rs, r)
	}
	return rs, sc.Err()
}

// printReport prints one table per campaign: a row per metric, the
// median [min-max] per arm, and each arm against exact.
func printReport(w io.Writer, path string) error {
	rs, err := readResults(path)
	if err != nil {
		return err
	}
	var names []string
	for _, r := range rs {
		if !slices.Contains(names, r.Campaign) {
			names = append(names, r.Campaign)
		}
	}
	for _, n := range names {
		sample := func(a string, get func(result) float64) []float64 {
			var xs []float64
			for _, r := range rs {
				if r.Campaign == n && r.Arm == a {
					xs = append(xs, get(r))
				}
			}
			return xs
		}
		k := len(sample("exact", func(result) float64 { return 0 }))
		fmt.Fprintf(w, "\n%s, %d seeds per arm\n\n", n, k)
		fmt.Fprintln(w, "| metric | exact | default | scaled | default vs exact: p, Â12 | scaled vs exact: p, Â12 | scaled - exact, same seed |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
		for _, m := range metrics {
			ex := sample("exact", m.get)
			row := "| " + m.name
			for _, a := range arms {
				s := evalstats.Summarize(sample(a.name, m.get))
				row += fmt.Sprintf(" | %s [%s-%s]", num(s.Median), num(s.Min), num(s.Max))
			}
			for _, a := range arms[1:] {
				xs := sample(a.name, m.get)
				row += fmt.Sprintf(" | %.3g, %.2f", evalstats.MannWhitney(xs, ex).P, evalstats.A12(xs, ex))
			}
			// the same seed's difference, in percent of exact's value
			var diffs []float64
			for _, r := range rs {
				if r.Campaign != n || r.Arm != "scaled" {
					continue
				}
				for _, e := range rs {
					if e.Campaign == n && e.Arm == "exact" && e.Seed == r.Seed && m.get(e) != 0 {
						diffs = append(diffs, 100*(m.get(r)-m.get(e))/m.get(e))
					}
				}
			}
			d := evalstats.Summarize(diffs)
			row += fmt.Sprintf(" | %+.2f %% [%+.2f, %+.2f]", d.Median, d.Min, d.Max)
			fmt.Fprintln(w, row+" |")
		}
	}
	return nil
}

func num(x float64) string {
	if x == float64(int64(x)) {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'f', 1, 64)
}
