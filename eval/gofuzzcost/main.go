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
// the snapshot (Config.WarmUp). wafer fuzz gives a harness.Fuzz reactor
// its seeds as warm-up (--warm-up-seeds) and a Go fuzz test none; this
// program gives an arm only the warm-up named.
//
// It does not fuzz: the inputs are fixed, so both arms run the same
// ones.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/wafer-fuzz/wafer/evalstats"
	"github.com/wafer-fuzz/wafer/gofuzz"
	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/internal/cputime"
	"github.com/wafer-fuzz/wafer/runtime"
)

type arm struct {
	name   string
	worker *runtime.Worker
	inputs [][]byte
	perRun []float64 // wall ns per run, one per round
	cpuRun []float64 // the process's CPU ns per run, one per round
	fuel   map[runtime.Outcome][]uint64
}

func main() {
	rounds := flag.Int("rounds", 5, "rounds: every arm runs every input once per round")
	flag.Parse()
	if err := run(context.Background(), *rounds, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "gofuzzcost:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, rounds int, specs []string) error {
	if len(specs) == 0 {
		return errors.New("expected arms NAME=TARGET@INPUTS[+WARMUP]")
	}
	var arms []*arm
	for _, s := range specs {
		a, err := newArm(ctx, s)
		if err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
		defer a.worker.Close(ctx)
		arms = append(arms, a)
	}
	for r := 0; r < rounds; r++ {
		for _, a := range arms {
			start := time.Now()
			cpu0, _ := cputime.Process()
			for _, in := range a.inputs {
				res, err := a.worker.Run(ctx, in)
				if err != nil {
					return fmt.Errorf("%s: %w", a.name, err)
				}
				if r == 0 {
					a.fuel[res.Outcome] = append(a.fuel[res.Outcome], res.Fuel)
				}
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

func newArm(ctx context.Context, spec string) (*arm, error) {
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
		b, err := os.ReadFile(warm)
		if err != nil {
			return nil, err
		}
		cfg.WarmUp = [][]byte{b}
	}
	sum, err := instrument.Summarize(wasm)
	if err != nil {
		return nil, err
	}
	steps := runtime.Preparation(sum, cfg)
	steps.Instrument = &instrument.Options{Fuel: true, DirtyPages: runtime.RestoresMemory(sum, cfg), StackCheck: true}
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
		return nil, err
	}
	a := &arm{name: name, worker: w, fuel: map[runtime.Outcome][]uint64{}}
	ents, err := os.ReadDir(inputs)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(inputs, n))
		if err != nil {
			return nil, err
		}
		a.inputs = append(a.inputs, b)
	}
	if len(a.inputs) == 0 {
		return nil, fmt.Errorf("no inputs in %s", inputs)
	}
	a.inputs = slices.Clip(a.inputs)
	return a, nil
}
