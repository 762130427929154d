// Command goskip is the evaluation of issue 29's Go-specific builds
// (docs/PERFORMANCE.md, "Go targets: the resume-point dispatch and
// the runtime are not counted"): on the Go reactor examples, havoc campaigns of
// equal executions, several seeds, on three builds (fuel and dirty pages
// as a restore-mode campaign has them):
//
//   - counted: every arm of Go's resume-point dispatch counted, fuel at
//     its loop header, the runtime counted (wafer before issue 29);
//   - dispatch: the dispatch uncounted (instrument/godispatch.go);
//   - skip: dispatch, and the runtime's functions (runtime.*) skipped.
//
// Coverage is counted on the same sites for every build: each campaign's
// queue is replayed on one reference build (dispatch) and the sites hit
// outside runtime.* are counted. Speed is the CPU time (the process's,
// so other load on the machine does not count) per run of a replay of the
// same inputs on each build, side by side in rounds (in restore mode, as
// campaigns run, and in persistent mode beside the original module, the
// instrumentation's cost without the restore), and, for the record,
// each campaign's CPU time per execution (which also depends on the
// inputs it found).
// It prints medians with min/max, and Mann-Whitney U p and Vargha-Delaney
// Â12 of each build against counted (package evalstats).
//
//	go run ./eval/goskip -runs 3000 -seeds 5
//
// With -decompose it measures instead what each part of the default build
// costs a run (counters, fuel, dirty marks, restore; see decompose):
//
//	go run ./eval/goskip -decompose -runs 20000 -rounds 8
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/wafer-fuzz/wafer/campaign"
	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/engine"
	"github.com/wafer-fuzz/wafer/evalstats"
	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/internal/cputime"
	"github.com/wafer-fuzz/wafer/runtime"
)

type build struct {
	name string
	opts instrument.Options
}

var builds = []build{
	{"counted", instrument.Options{Fuel: true, DirtyPages: true, CountGoDispatch: true}},
	{"dispatch", instrument.Options{Fuel: true, DirtyPages: true}},
	{"skip", instrument.Options{Fuel: true, DirtyPages: true, Skip: []string{"runtime.*"}}},
}

func main() {
	runs := flag.Int64("runs", 3000, "executions per campaign")
	seeds := flag.Int("seeds", 5, "PRNG seeds per build (1..N)")
	root := flag.String("root", ".", "the repository's root")
	rounds := flag.Int("rounds", 8, "replay rounds per build")
	decomp := flag.Bool("decompose", false, "instead: what each part of the default build costs a run (see decompose)")
	flag.Parse()
	ctx := context.Background()
	cache, err := os.MkdirTemp("", "goskip-cache")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(cache)
	for _, name := range []string{"gojson", "gopng", "goparser"} {
		dir := filepath.Join(*root, "examples", name)
		wasm, err := os.ReadFile(filepath.Join(dir, name+".wasm"))
		if err != nil {
			fail(err)
		}
		inputs := readSeeds(filepath.Join(dir, "seeds"))
		if *decomp {
			decompose(ctx, name, wasm, inputs, *runs, *rounds, cache)
			continue
		}
		ref, refSM := compile(ctx, wasm, builds[1].opts, cache)
		refW, err := ref.NewWorker(ctx)
		if err != nil {
			fail(err)
		}
		own := make([]bool, len(refSM.Sites))
		for id, s := range refSM.Sites {
			ok, _ := path.Match("runtime.*", refSM.Funcs[s.Func].Name)
			own[id] = !ok && s.Kind != instrument.StackDepth && s.Kind != instrument.CallPair
		}
		cov := make([][]float64, len(builds))
		cpu := make([][]float64, len(builds))
		sites := make([]int, len(builds))
		tgts := make([]*runtime.Target, len(builds))
		var replaySet [][]byte // the first campaign's queue and the seeds
		for b, bl := range builds {
			tgt, sm := compile(ctx, wasm, bl.opts, cache)
			tgts[b] = tgt
			sites[b] = len(sm.Sites)
			for seed := 1; seed <= *seeds; seed++ {
				st := &queueStore{}
				cfg := engine.Config{Search: engine.Search{Seed: uint64(seed), Runs: *runs, Workers: 1, KeepGoing: true, NoShrink: true, Strategy: "havoc"}, Conditionals: sm.Conditionals(), StatsInterval: time.Second}
				deps := engine.Deps{NewExecutor: campaign.Executors(tgt), Seeds: inputs, TargetDict: sm.Dictionary, Store: st}
				c0, _ := cputime.Process()
				sum, err := engine.Fuzz(ctx, cfg, deps)
				c1, _ := cputime.Process()
				if err != nil {
					fail(fmt.Errorf("%s %s seed %d: %w", name, bl.name, seed, err))
				}
				if replaySet == nil {
					replaySet = append(append([][]byte(nil), st.inputs...), inputs...)
				}
				hit := make([]bool, len(refSM.Sites))
				for _, in := range append(st.inputs, inputs...) {
					r, err := refW.Run(ctx, in)
					if err != nil {
						fail(err)
					}
					counts := append([]byte(nil), r.Counters...)
					refSM.FillDerived(counts) // a derived site is hit when a source is
					for id, c := range counts {
						if c != 0 && id < len(hit) {
							hit[id] = true
						}
					}
				}
				n := 0
				for id, h := range hit {
					if h && own[id] {
						n++
					}
				}
				cov[b] = append(cov[b], float64(n))
				cpu[b] = append(cpu[b], float64((c1-c0).Microseconds())/float64(sum.Stats.Execs))
				fmt.Fprintf(os.Stderr, "%s %s seed %d: %d execs, own sites %d, %.1f µs CPU/exec\n", name, bl.name, seed, sum.Stats.Execs, n, cpu[b][len(cpu[b])-1])
			}
		}
		replay := replayCost(ctx, tgts, replaySet, *rounds)
		for _, tgt := range tgts {
			tgt.Close(ctx)
		}
		// Persistent mode, beside the original: what instrumentation
		// costs the target's own code, restore excluded.
		pers := []*runtime.Target{compilePlain(ctx, wasm, cache)}
		for _, bl := range builds {
			tgt, _ := compileWith(ctx, wasm, bl.opts, cache, runtime.Persistent)
			pers = append(pers, tgt)
		}
		persistent := replayCost(ctx, pers, replaySet, *rounds)
		for _, tgt := range pers {
			tgt.Close(ctx)
		}
		refW.Close(ctx)
		ref.Close(ctx)
		fmt.Printf("\n%s (%d executions per campaign, seeds 1-%d)\n\n", name, *runs, *seeds)
		fmt.Printf("replay: %d inputs (the first campaign's queue and the seeds) per round, %d rounds, builds in rotating order\n\n", len(replaySet), *rounds)
		fmt.Println("| build | sites | replay CPU µs per run, median (min-max) | vs counted: ratio, p (U), Â12 | campaign CPU µs per execution, median (min-max) | program's own sites reached, median (min-max) | coverage vs counted: p (U), Â12 |")
		fmt.Println("|---|---|---|---|---|---|---|")
		base := evalstats.Summarize(replay[0]).Median
		fmt.Println("persistent mode (no restore), CPU µs per run, median (min-max), and ratio to the original:")
		for b, name := range []string{"original", builds[0].name, builds[1].name, builds[2].name} {
			sp := evalstats.Summarize(persistent[b])
			fmt.Printf("  %s %.1f (%.1f-%.1f) %.2f\n", name, sp.Median, sp.Min, sp.Max, sp.Median/evalstats.Summarize(persistent[0]).Median)
		}
		fmt.Println()
		for b, bl := range builds {
			sr, sc, sv := evalstats.Summarize(replay[b]), evalstats.Summarize(cpu[b]), evalstats.Summarize(cov[b])
			vs, vr := "-", fmt.Sprintf("%.2f", sr.Median/base)
			if b > 0 {
				vs = fmt.Sprintf("%.3f, %.2f", evalstats.MannWhitney(cov[b], cov[0]).P, evalstats.A12(cov[b], cov[0]))
				vr += fmt.Sprintf(", %.3f, %.2f", evalstats.MannWhitney(replay[b], replay[0]).P, evalstats.A12(replay[b], replay[0]))
			}
			fmt.Printf("| %s | %d | %.1f (%.1f-%.1f) | %s | %.0f (%.0f-%.0f) | %.0f (%.0f-%.0f) | %s |\n", bl.name, sites[b], sr.Median, sr.Min, sr.Max, vr,
				sc.Median, sc.Min, sc.Max, sv.Median, sv.Min, sv.Max, vs)
		}
	}
}

// decompose prints what each part of the default build (the runtime
// skipped) costs a run of the Go reactor: one seed-1 havoc campaign of
// runs executions on that build gives the inputs (its queue and the
// seeds), replayed in rounds, builds in rotating order, on the original
// module and on builds adding fuel (no counters: every function skipped),
// counters (the runtime's skipped), dirty marks (persistent: no
// restore; every store into a Go frame marked, as before goframe.go, then
// frames marked at their functions' entry) and the call pairs and stack
// depth, which make it the build a campaign runs, then on that build in
// restore mode, as campaigns run
// (what BenchmarkReactors calls replay). Every build has fuel, so none
// runs with the wall-clock backstop (which slows loops 3-6x).
func decompose(ctx context.Context, name string, wasm []byte, seeds [][]byte, runs int64, rounds int, cache string) {
	skip := []string{"runtime.*"}
	// what campaign.Target.compile builds for a Go reactor (Go modules
	// get no heap guard and no stack check)
	campaignOpts := &instrument.Options{Fuel: true, DirtyPages: true, Skip: skip, StackDepth: true, CallPairs: true}
	parts := []struct {
		name   string
		opts   *instrument.Options // nil: the original module
		reset  runtime.Reset
		warmUp bool // the seeds run before the snapshot (--warm-up)
	}{
		{"original", nil, runtime.Persistent, false},
		{"fuel", &instrument.Options{Fuel: true, Skip: []string{"*"}}, runtime.Persistent, false},
		{"+ counters", &instrument.Options{Fuel: true, Skip: skip}, runtime.Persistent, false},
		{"+ dirty marks, every frame store marked", &instrument.Options{Fuel: true, DirtyPages: true, Skip: skip, MarkGoFrameStores: true}, runtime.Persistent, false},
		{"+ dirty marks, frames marked at entry instead", &instrument.Options{Fuel: true, DirtyPages: true, Skip: skip}, runtime.Persistent, false},
		{"+ call pairs, stack depth", campaignOpts, runtime.Persistent, false},
		{"+ restore", campaignOpts, runtime.Restore, false},
		{"restore, the seeds as warm-up", campaignOpts, runtime.Restore, true},
	}
	tgt, sm := compile(ctx, wasm, *campaignOpts, cache)
	st := &queueStore{}
	cfg := engine.Config{Search: engine.Search{Seed: 1, Runs: runs, Workers: 1, KeepGoing: true, NoShrink: true, Strategy: "havoc"}, Conditionals: sm.Conditionals()}
	if _, err := engine.Fuzz(ctx, cfg, engine.Deps{NewExecutor: campaign.Executors(tgt), Seeds: seeds, TargetDict: sm.Dictionary, Store: st}); err != nil {
		fail(err)
	}
	tgt.Close(ctx)
	inputs := append(st.inputs, seeds...)
	tgts := make([]*runtime.Target, len(parts))
	for i, p := range parts {
		var warmUp [][]byte
		if p.warmUp {
			warmUp = seeds
		}
		if p.opts == nil {
			tgts[i] = compilePlain(ctx, wasm, cache)
		} else {
			tgts[i], _ = compileWarm(ctx, wasm, *p.opts, cache, p.reset, warmUp)
		}
	}
	cost := replayCost(ctx, tgts, inputs, rounds)
	for _, t := range tgts {
		t.Close(ctx)
	}
	fmt.Printf("\n%s: %d inputs (a %d-run campaign's queue and the seeds), %d rounds\n\n", name, len(inputs), runs, rounds)
	fmt.Println("| build | CPU µs per run, median (min-max) | ratio to the original | added by this part | to the row above, within a round: median (min-max) |")
	fmt.Println("|---|---|---|---|---|")
	orig := evalstats.Summarize(cost[0]).Median
	prev := orig
	for i, p := range parts {
		sp := evalstats.Summarize(cost[i])
		paired := "-"
		if i > 0 {
			// the two builds ran one after the other in each round, so
			// their ratio is what a load that changes between rounds
			// moves least
			r := make([]float64, len(cost[i]))
			for j := range r {
				r[j] = cost[i][j] / cost[i-1][j]
			}
			sr := evalstats.Summarize(r)
			paired = fmt.Sprintf("%.2f (%.2f-%.2f)", sr.Median, sr.Min, sr.Max)
		}
		fmt.Printf("| %s | %.1f (%.1f-%.1f) | %.2f | %+.2f | %s |\n", p.name, sp.Median, sp.Min, sp.Max, sp.Median/orig, (sp.Median-prev)/orig, paired)
		prev = sp.Median
	}
}

// replayCost runs inputs on one worker of each target per round, the
// targets in an order that rotates with the round, and returns each
// target's CPU µs per run of every round.
func replayCost(ctx context.Context, tgts []*runtime.Target, inputs [][]byte, rounds int) [][]float64 {
	ws := make([]*runtime.Worker, len(tgts))
	for i, t := range tgts {
		w, err := t.NewWorker(ctx)
		if err != nil {
			fail(err)
		}
		defer w.Close(ctx)
		ws[i] = w
		for _, in := range inputs { // warm up: first runs grow the heap
			if _, err := w.Run(ctx, in); err != nil {
				fail(err)
			}
		}
	}
	out := make([][]float64, len(tgts))
	for r := range rounds {
		for j := range ws {
			k := (r + j) % len(ws)
			c0, _ := cputime.Process()
			for _, in := range inputs {
				if _, err := ws[k].Run(ctx, in); err != nil {
					fail(err)
				}
			}
			c1, _ := cputime.Process()
			out[k] = append(out[k], float64((c1-c0).Nanoseconds())/1e3/float64(len(inputs)))
		}
	}
	return out
}

func compile(ctx context.Context, wasm []byte, opts instrument.Options, cache string) (*runtime.Target, *instrument.SiteMap) {
	return compileWith(ctx, wasm, opts, cache, runtime.Restore)
}

// compilePlain compiles the original module, runs persistent.
func compilePlain(ctx context.Context, wasm []byte, cache string) *runtime.Target {
	tgt, err := runtime.New(ctx, &instrument.Prepared{Wasm: wasm}, runtime.Config{Reset: runtime.Persistent, Timeout: -1, MaxInputLen: engine.DefaultMaxLen, CacheDir: cache}) // no backstop: it slows loops 3-6x
	if err != nil {
		fail(err)
	}
	return tgt
}

func compileWith(ctx context.Context, wasm []byte, opts instrument.Options, cache string, reset runtime.Reset) (*runtime.Target, *instrument.SiteMap) {
	return compileWarm(ctx, wasm, opts, cache, reset, nil)
}

// compileWarm is compileWith with warm-up inputs (runtime.Config.WarmUp).
func compileWarm(ctx context.Context, wasm []byte, opts instrument.Options, cache string, reset runtime.Reset, warmUp [][]byte) (*runtime.Target, *instrument.SiteMap) {
	out, sm, err := instrument.Instrument(wasm, opts)
	if err != nil {
		fail(err)
	}
	tgt, err := runtime.New(ctx, &instrument.Prepared{Wasm: out, SiteMap: sm}, runtime.Config{Reset: reset, MaxInputLen: engine.DefaultMaxLen, CacheDir: cache, WarmUp: warmUp})
	if err != nil {
		fail(err)
	}
	return tgt, sm
}

func readSeeds(dir string) [][]byte {
	seeds, skipped, err := corpus.ReadSeeds(context.Background(), nil, dir)
	if err == nil {
		err = skipped
	}
	if err != nil {
		fail(err)
	}
	inputs := make([][]byte, len(seeds))
	for i, sd := range seeds {
		inputs[i] = sd.Data
	}
	return inputs
}

// queueStore is an engine.Store keeping the queue's inputs.
type queueStore struct{ inputs [][]byte }

func (s *queueStore) Load(context.Context) ([][]byte, error) { return nil, nil }
func (s *queueStore) AddEntry(_ context.Context, e *engine.Entry) error {
	s.inputs = append(s.inputs, append([]byte(nil), e.Input...))
	return nil
}
func (s *queueStore) AddFailure(context.Context, *engine.Finding) error { return nil }
func (s *queueStore) WriteStats(context.Context, *engine.Stats) error   { return nil }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "goskip:", err)
	os.Exit(1)
}
