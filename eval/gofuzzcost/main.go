// Command gofuzzcost tells where an execution's time goes in a Go fuzz
// test built by wafer (package gofuzz) against a hand-written harness.Fuzz
// reactor of the same property: each arm's module is built as a campaign
// runs it (counters, fuel, dirty pages, restore mode; runtime.New, one
// worker) and runs the same inputs, arm after arm, ROUNDS times; per arm
// it prints the median wall and CPU time per run over rounds (median
// (min–max)) and the mean fuel
// (function entries + loop iterations: the work, whatever the load) per
// valid and per invalid run.
//
//	gofuzzcost -rounds 5 \
//	    harness=examples/gojson/gojson.wasm@/tmp/in/harness \
//	    gotest=./examples/gotest:FuzzJSON@/tmp/in/gotest \
//	    gotest-warm=./examples/gotest:FuzzJSON@/tmp/in/gotest+examples/gojson/seeds/object.json
//
// An arm is NAME=TARGET@INPUTS[+WARMUP]: TARGET a .wasm or PKG:FuzzXxx
// (found from the working directory, or PKG an absolute directory,
// built as wafer fuzz builds it), the
// inputs every file of the directory INPUTS (as they are: a Go fuzz
// test's inputs in wafer's tuple encoding), WARMUP a file run once before
// the snapshot (Config.WarmUp), or every file of a directory WARMUP.
// wafer fuzz gives a harness.Fuzz reactor its seeds as warm-up
// (--warm-up-seeds), and a Go fuzz test its f.Add values and testdata
// files; this program gives an arm only the warm-up named.
//
// With -record N, the first arm runs a havoc campaign of N executions
// (engine.Fuzz, seed 1, one worker, its INPUTS as seeds) first, and
// every arm's inputs are the inputs that campaign ran instead of its
// INPUTS files (mostly invalid, as a campaign's are); -prefix NAME=HEX
// puts bytes before each of them for arm NAME (FuzzParse's mode byte).
// With -loop, each round runs the inputs through the engine's loop as a
// campaign's seeds (engine.Fuzz, one worker, Runs = the inputs), so the
// per-run cost includes the engine's reading of the counters; it then
// prints execs per CPU second and, per round, the ratio of each arm's to
// the first arm's (median (min–max) over rounds). -cpuprofile writes
// the rounds' CPU profile.
//
// Modules are built as a campaign builds them with the default options
// (the Go runtime and, with -count-test-machinery off, a Go fuzz test's
// campaign.GoTestSkip and the build's Summary.Uncounted uncounted).
//
// It does not fuzz (but for -record): the inputs are fixed, so all arms
// run the same ones.
package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/wafer-fuzz/wafer/campaign"
	"github.com/wafer-fuzz/wafer/engine"
	"github.com/wafer-fuzz/wafer/evalstats"
	"github.com/wafer-fuzz/wafer/gofuzz"
	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/internal/cputime"
	"github.com/wafer-fuzz/wafer/runtime"
)

type arm struct {
	name   string
	tgt    *runtime.Target
	sm     *instrument.SiteMap
	worker *runtime.Worker
	inputs [][]byte
	perRun []float64 // wall ns per run, one per round
	cpuRun []float64 // the process's CPU ns per run, one per round
	fuel   map[runtime.Outcome][]uint64
}

func main() {
	var o options
	flag.IntVar(&o.rounds, "rounds", 5, "rounds: every arm runs every input once per round")
	flag.StringVar(&o.profile, "cpuprofile", "", "write a CPU profile of the rounds (not the builds) to `file`")
	flag.IntVar(&o.record, "record", 0, "run the inputs of a havoc campaign of `N` executions on the first arm instead of the INPUTS files")
	flag.BoolVar(&o.loop, "loop", false, "run the inputs through the engine's loop (engine.Fuzz) instead of Worker.Run")
	flag.Func("prefix", "`NAME=HEX`: bytes put before each recorded input for arm NAME", func(v string) error {
		name, h, ok := strings.Cut(v, "=")
		b, err := hex.DecodeString(h)
		if !ok || err != nil {
			return fmt.Errorf("expected NAME=HEX, got %q", v)
		}
		if o.prefix == nil {
			o.prefix = map[string][]byte{}
		}
		o.prefix[name] = b
		return nil
	})
	flag.BoolVar(&o.countTest, "count-test-machinery", false, "give a Go fuzz test's testing package and generated file counters (campaign.GoTestSkip, Summary.Uncounted)")
	flag.Parse()
	if err := run(context.Background(), o, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "gofuzzcost:", err)
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	rounds  int
	profile string            // CPU profile file, "" for none
	record  int               // executions of the recorded campaign, 0 for none
	loop    bool              // rounds through engine.Fuzz
	prefix  map[string][]byte // by arm name, before each recorded input
	// countTest counts a Go fuzz test's testing machinery
	// (campaign.GoTestSkip's functions)
	countTest bool
}

func run(ctx context.Context, o options, specs []string) error {
	rounds := o.rounds
	if len(specs) == 0 {
		return errors.New("expected arms NAME=TARGET@INPUTS[+WARMUP]")
	}
	var arms []*arm
	for _, s := range specs {
		a, err := newArm(ctx, s, o.countTest)
		if err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
		defer a.tgt.Close(ctx)
		defer a.worker.Close(ctx)
		arms = append(arms, a)
	}
	if o.record > 0 {
		inputs, err := record(ctx, arms[0], o.record)
		if err != nil {
			return err
		}
		for _, a := range arms {
			a.inputs = make([][]byte, len(inputs))
			for i, in := range inputs {
				a.inputs[i] = append(slices.Clip(o.prefix[a.name]), in...)
			}
		}
	}
	if o.profile != "" {
		f, err := os.Create(o.profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if o.loop {
		return loop(ctx, arms, rounds)
	}
	for r := 0; r < rounds; r++ {
		for _, a := range arms {
			start := time.Now()
			cpu0, _ := cputime.Process()
			var err error
			pprof.Do(ctx, pprof.Labels("arm", a.name), func(ctx context.Context) {
				for _, in := range a.inputs {
					var res runtime.Result
					if res, err = a.worker.Run(ctx, in); err != nil {
						return
					}
					if r == 0 {
						a.fuel[res.Outcome] = append(a.fuel[res.Outcome], res.Fuel)
					}
				}
			})
			if err != nil {
				return fmt.Errorf("%s: %w", a.name, err)
			}
			a.perRun = append(a.perRun, float64(time.Since(start).Nanoseconds())/float64(len(a.inputs)))
			cpu1, _ := cputime.Process()
			a.cpuRun = append(a.cpuRun, float64((cpu1-cpu0).Nanoseconds())/float64(len(a.inputs)))
		}
	}
	fmt.Println("| arm | inputs | wall µs per run | CPU µs per run | fuel per valid run (n) | fuel per invalid run (n) | other outcomes |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, a := range arms {
		s, c := evalstats.Summarize(a.perRun), evalstats.Summarize(a.cpuRun)
		other := 0
		for o, f := range a.fuel {
			if o != runtime.Valid && o != runtime.Invalid {
				other += len(f)
			}
		}
		fmt.Printf("| %s | %d | %.1f (%.1f–%.1f) | %.1f (%.1f–%.1f) | %s | %s | %d |\n", a.name, len(a.inputs), s.Median/1e3, s.Min/1e3, s.Max/1e3,
			c.Median/1e3, c.Min/1e3, c.Max/1e3,
			mean(a.fuel[runtime.Valid]), mean(a.fuel[runtime.Invalid]), other)
	}
	return nil
}

// record returns the inputs of a havoc campaign of n executions on a
// (seed 1, one worker, a's inputs as seeds).
func record(ctx context.Context, a *arm, n int) ([][]byte, error) {
	var inputs [][]byte
	_, err := engine.Fuzz(ctx,
		engine.Config{Search: engine.Search{Seed: 1, Runs: int64(n), Workers: 1, KeepGoing: true, NoShrink: true}, Conditionals: a.sm.Conditionals()},
		engine.Deps{NewExecutor: campaign.Executors(a.tgt), Seeds: a.inputs, TargetDict: a.sm.Dictionary, OnRun: func(_ uint64, _ int, in []byte) {
			inputs = append(inputs, bytes.Clone(in))
		}})
	if err != nil {
		return nil, fmt.Errorf("%s: recording %d executions: %w", a.name, n, err)
	}
	return inputs, nil
}

// loop runs every arm's inputs as the seeds of an engine.Fuzz campaign
// that runs nothing else, arm after arm, rounds times, and prints execs
// per CPU second and each round's ratio to the first arm's.
func loop(ctx context.Context, arms []*arm, rounds int) error {
	rate := make([][]float64, len(arms))
	// One executor per arm for all rounds, its instance made (and
	// snapshotted, warmed up) before the first: a campaign pays that
	// once, not per round.
	execs := make([]kept, len(arms))
	// The conditional sites too: a campaign works them out once
	// (campaign's engine.Config), and their cost grows with the map.
	conds := make([][]int32, len(arms))
	for i, a := range arms {
		conds[i] = a.sm.Conditionals()
		ex, err := campaign.Executors(a.tgt)(ctx, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", a.name, err)
		}
		if c, ok := ex.(interface{ Close(context.Context) error }); ok {
			defer c.Close(ctx)
		}
		execs[i] = kept{ex.(engine.FuelExecutor)}
		if _, err := ex.Run(ctx, a.inputs[0]); err != nil {
			return fmt.Errorf("%s: %w", a.name, err)
		}
	}
	for r := 0; r < rounds; r++ {
		for i, a := range arms {
			ex := execs[i]
			cpu0, _ := cputime.Process()
			var sum *engine.Summary
			var err error
			// labelled by arm: go tool pprof -tagfocus arm=NAME
			pprof.Do(ctx, pprof.Labels("arm", a.name), func(ctx context.Context) {
				sum, err = engine.Fuzz(ctx,
					engine.Config{Search: engine.Search{Seed: 1, Runs: int64(len(a.inputs)), Workers: 1, KeepGoing: true, NoShrink: true}, Conditionals: conds[i]},
					engine.Deps{NewExecutor: func(context.Context, int) (engine.Executor, error) { return ex, nil }, Seeds: a.inputs, TargetDict: a.sm.Dictionary})
			})
			if err != nil {
				return fmt.Errorf("%s: %w", a.name, err)
			}
			cpu1, _ := cputime.Process()
			rate[i] = append(rate[i], float64(sum.Stats.Execs)/(cpu1-cpu0).Seconds())
		}
	}
	fmt.Printf("| arm | inputs | execs per CPU second | / %s's in the same round |\n", arms[0].name)
	fmt.Println("|---|---|---|---|")
	for i, a := range arms {
		ratio := make([]float64, rounds)
		for r := range ratio {
			ratio[r] = rate[i][r] / rate[0][r]
		}
		e, q := evalstats.Summarize(rate[i]), evalstats.Summarize(ratio)
		fmt.Printf("| %s | %d | %.0f (%.0f–%.0f) | %.3f (%.3f–%.3f) |\n", a.name, len(a.inputs), e.Median, e.Min, e.Max, q.Median, q.Min, q.Max)
	}
	return nil
}

// kept is an executor that the engine's Close leaves open, for the next
// round.
type kept struct{ engine.FuelExecutor }

// Close implements the engine's executor closing: it does nothing.
func (kept) Close(context.Context) error { return nil }

func mean(xs []uint64) string {
	if len(xs) == 0 {
		return "–"
	}
	var sum float64
	for _, x := range xs {
		sum += float64(x)
	}
	return fmt.Sprintf("%.0f (%d)", sum/float64(len(xs)), len(xs))
}

func newArm(ctx context.Context, spec string, countTest bool) (*arm, error) {
	name, rest, ok := strings.Cut(spec, "=")
	target, inputs, ok2 := strings.Cut(rest, "@")
	if !ok || !ok2 {
		return nil, errors.New("expected NAME=TARGET@INPUTS[+WARMUP]")
	}
	inputs, warm, _ := strings.Cut(inputs, "+")
	cfg := runtime.Config{}
	path := target
	if pkg, fn, ok := gofuzz.ParseSpec(target); ok && !strings.HasSuffix(target, ".wasm") {
		dir := "."
		if filepath.IsAbs(pkg) {
			dir, pkg = pkg, "." // a package in another module
		}
		t, err := gofuzz.Find(ctx, "go", dir, pkg, fn)
		if err != nil {
			return nil, err
		}
		if path, err = gofuzz.Build(ctx, t, gofuzz.BuildOptions{Log: os.Stderr}); err != nil {
			return nil, err
		}
		sys, _, err := t.System()
		if err != nil {
			return nil, err
		}
		cfg.Files, cfg.Env = sys.Files, sys.Env
	}
	wasm, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if warm != "" {
		if cfg.WarmUp, err = readInputs(warm); err != nil {
			return nil, err
		}
	}
	sum, err := instrument.Summarize(wasm)
	if err != nil {
		return nil, err
	}
	steps := runtime.Preparation(sum, cfg)
	// as campaign's Target.compile builds it with the default options
	skip := []string{campaign.GoRuntimeSkip}
	if gofuzz.IsGoFuzzTest(wasm) && !countTest {
		skip = append(skip, campaign.GoTestSkip()...)
		skip = append(skip, sum.Uncounted...)
	}
	steps.Instrument = &instrument.Options{Fuel: true, DirtyPages: runtime.RestoresMemory(sum, cfg), Skip: skip, HeapGuard: true,
		StackCheck: true, StackDepth: true, CallPairs: true}
	p, err := instrument.Prepare(wasm, steps)
	if err != nil {
		return nil, err
	}
	tgt, err := runtime.New(ctx, p, cfg)
	if err != nil {
		return nil, err
	}
	w, err := tgt.NewWorker(ctx)
	if err != nil {
		tgt.Close(ctx)
		return nil, err
	}
	a := &arm{name: name, tgt: tgt, sm: p.SiteMap, worker: w, fuel: map[runtime.Outcome][]uint64{}}
	if a.inputs, err = readInputs(inputs); err != nil {
		w.Close(ctx)
		tgt.Close(ctx)
		return nil, err
	}
	return a, nil
}

// readInputs reads the file path, or every file of the directory path in
// name order.
func readInputs(path string) ([][]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		b, err := os.ReadFile(path)
		return [][]byte{b}, err
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var out [][]byte
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(path, n))
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no inputs in %s", path)
	}
	return slices.Clip(out), nil
}
