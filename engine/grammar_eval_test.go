package engine

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/wafer-fuzz/wafer/evalstats"
	"github.com/wafer-fuzz/wafer/generators"
	"github.com/wafer-fuzz/wafer/generators/grammar"
)

// TestGrammarCampaign is the evaluation "Grammar-based generation on
// csqlite" in docs/EVALUATION.md: campaigns on csqlite, one worker each, an equal budget of
// executions (WAFER_EVAL_RUNS, default 20,000) and seeds 1–5
// (WAFER_EVAL_SEEDS), with
//
//   - grammar/zest: Zest over the generator of generators/grammars/SQLite.g4;
//   - sql/zest: Zest over the hand-written generators.SQL;
//   - havoc: raw-byte havoc from examples/csqlite/seeds;
//   - grammar/spoton: SpotOn over the SQLite.g4 generator, with the
//     target's conditionals (instrument.SiteMap.Conditionals);
//
// all with the target's dictionary. It prints, per configuration, the
// median, minimum and maximum of the final coverage (counted sites) and of
// the valid share, and the two-sided Mann-Whitney U p-value (exact for
// these sample sizes) and the Vargha-Delaney A12 of grammar/zest against
// each other one (package evalstats). Two
// campaigns run at a time. WAFER_EVAL_ONLY=havoc,sql/zest runs only the
// configurations named. Runs only with WAFER_EVAL_GRAMMAR=1:
//
//	WAFER_EVAL_GRAMMAR=1 go test ./engine -run TestGrammarCampaign -v -timeout 60m
func TestGrammarCampaign(t *testing.T) {
	if os.Getenv("WAFER_EVAL_GRAMMAR") == "" {
		t.Skip("set WAFER_EVAL_GRAMMAR=1 to run the grammar campaign evaluation")
	}
	runs := int64(20000)
	if v, err := strconv.ParseInt(os.Getenv("WAFER_EVAL_RUNS"), 10, 64); err == nil && v > 0 {
		runs = v
	}
	nseeds := 5
	if v, err := strconv.Atoi(os.Getenv("WAFER_EVAL_SEEDS")); err == nil && v > 0 {
		nseeds = v
	}
	tgt, sm := loadTarget(t, "../examples/csqlite/csqlite.wasm", false)
	g, err := grammar.Load("../generators/grammars/SQLite.g4")
	if err != nil {
		t.Fatal(err)
	}
	ggen, err := g.Generator(grammar.Options{})
	if err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob("../examples/csqlite/seeds/*")
	var seeds [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	dopts := generators.Options{Dictionary: sm.Dictionary}
	conds := sm.Conditionals()
	configs := []struct {
		name  string
		deps  func() Deps
		strat string
	}{
		{"grammar/zest", func() Deps { return Deps{Generator: FromGenerator(ggen, dopts)} }, "zest"},
		{"sql/zest", func() Deps { return Deps{Generator: FromGenerator(generators.SQL, dopts)} }, "zest"},
		{"havoc", func() Deps { return Deps{Seeds: seeds} }, "havoc"},
		{"grammar/spoton", func() Deps { return Deps{Generator: FromGenerator(ggen, dopts)} }, "spoton"},
	}
	if only := os.Getenv("WAFER_EVAL_ONLY"); only != "" {
		// A subset, e.g. havoc alone with a budget of equal wall time.
		keep := configs[:0]
		for _, c := range configs {
			if slices.Contains(strings.Split(only, ","), c.name) {
				keep = append(keep, c)
			}
		}
		configs = keep
	}
	type result struct {
		cov, valid float64
		execs      int64
		secs       float64
	}
	res := make([][]result, len(configs))
	for i := range res {
		res[i] = make([]result, nseeds)
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for s := range nseeds {
		for ci, c := range configs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				deps := c.deps()
				deps.NewExecutor = runtimeExecutors(tgt)
				deps.TargetDict = sm.Dictionary
				sum, err := Fuzz(context.Background(), Config{Search: Search{Strategy: c.strat, Seed: uint64(s + 1), Runs: runs, KeepGoing: true, NoShrink: true}, Conditionals: conds}, deps)
				if err != nil {
					t.Error(err)
					return
				}
				st := sum.Stats
				res[ci][s] = result{float64(st.Coverage), 100 * float64(st.Valid) / float64(max(st.Execs, 1)), st.Execs, st.Elapsed.Seconds()}
				t.Logf("%s seed %d: coverage %d, valid %.1f%%, %d execs in %.0f s", c.name, s+1, st.Coverage, res[ci][s].valid, st.Execs, st.Elapsed.Seconds())
			}()
		}
	}
	wg.Wait()
	var b strings.Builder
	fmt.Fprintf(&b, "csqlite, %d executions per campaign, seeds 1-%d, one worker:\n\n", runs, nseeds)
	fmt.Fprintf(&b, "| configuration | coverage median (min-max) | valid %% median (min-max) | execs/s median | vs grammar/zest: p (MWU) | A12 (grammar/zest > it) |\n|---|---|---|---|---|---|\n")
	col := func(ci int, f func(result) float64) []float64 {
		var out []float64
		for _, r := range res[ci] {
			out = append(out, f(r))
		}
		return out
	}
	cov := func(r result) float64 { return r.cov }
	for ci, c := range configs {
		cv := col(ci, cov)
		vv := col(ci, func(r result) float64 { return r.valid })
		ev := col(ci, func(r result) float64 { return float64(r.execs) / math.Max(r.secs, 1e-9) })
		cmp := "-"
		a12 := "-"
		if ci > 0 && configs[0].name == "grammar/zest" {
			cmp = fmt.Sprintf("%.3f", evalstats.MannWhitney(col(0, cov), cv).P)
			a12 = fmt.Sprintf("%.2f", evalstats.A12(col(0, cov), cv))
		}
		cs, vs := evalstats.Summarize(cv), evalstats.Summarize(vv)
		fmt.Fprintf(&b, "| %s | %.0f (%.0f-%.0f) | %.1f (%.1f-%.1f) | %.0f | %s | %s |\n", c.name,
			cs.Median, cs.Min, cs.Max, vs.Median, vs.Min, vs.Max, evalstats.Summarize(ev).Median, cmp, a12)
	}
	t.Log("\n" + b.String())
	if out := os.Getenv("WAFER_EVAL_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
}
