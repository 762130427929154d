package campaign

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/wafer-fuzz/wafer/engine"
	"github.com/wafer-fuzz/wafer/gofuzz"
	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/runtime"
)

// goFuzzBenches pair each hand-written Go reactor with the fuzz test of
// examples/gotest that checks the same property: prefix goes before each
// of the reactor's inputs to make the test's (FuzzParse's mode byte,
// ParseComments as the reactor parses).
var goFuzzBenches = []struct {
	name, reactor, seeds, test string
	prefix                     []byte
	runs                       int
}{
	{"json", "../examples/gojson/gojson.wasm", "../examples/gojson/seeds", "FuzzJSON", nil, 10_000},
	{"png", "../examples/gopng/gopng.wasm", "../examples/gopng/seeds", "FuzzPNG", nil, 10_000},
	{"parser", "../examples/goparser/goparser.wasm", "../examples/goparser/seeds", "FuzzParse", []byte{4}, 3_000},
}

// BenchmarkGoFuzzTests measures a Go fuzz test's generated target (the
// build `wafer fuzz ./examples/gotest:FuzzXxx` runs) against the
// hand-written harness.Fuzz reactor of the same function, on the same
// inputs: those of a havoc campaign of the reactor (runs executions from
// its seeds, seed 1, one worker, recorded untimed), run through the
// engine's loop as a campaign's seeds and nothing else (engine.Fuzz, one
// worker), each target warmed up with the seeds as wafer fuzz does. One
// op is the set through each target once, the two alternating which goes
// first; it reports each one's execs/cpu-s (the process's CPU time) and
// their ratio, gotest/reactor, whose median and spread over the counts
// benchstat gives:
//
//	WAFER_BENCH_GOFUZZ=1 go test ./campaign -run '^$' -bench GoFuzzTests -benchtime 1x -count 15 > gofuzz.txt
//	benchstat gofuzz.txt
//
// Runs only when WAFER_BENCH_GOFUZZ is set (the build of examples/gotest
// for wasip1 and the compilation of both modules take a minute); it may
// name targets instead, comma-separated ("png,json").
func BenchmarkGoFuzzTests(b *testing.B) {
	sel := envSelection(b, "WAFER_BENCH_GOFUZZ", "1 (or names, e.g. png,json)")
	ctx := context.Background()
	for _, bt := range goFuzzBenches {
		if !selected(sel, bt.name) {
			continue
		}
		seeds := readSeeds(b, bt.seeds)
		_, reactor, rsm := counterBuild(b, bt.reactor, seeds)
		inputs := recordHavoc(b, reactor, rsm, seeds, bt.runs)
		test, tsm := goTestBuild(b, bt.test, prefixed(bt.prefix, seeds))
		arms := []struct {
			ex     kept
			cond   []int32
			dict   [][]byte
			inputs [][]byte
		}{
			{keptExecutor(b, reactor, inputs[0]), rsm.Conditionals(), rsm.Dictionary, inputs},
			{keptExecutor(b, test, prefixed(bt.prefix, inputs[:1])[0]), tsm.Conditionals(), tsm.Dictionary, prefixed(bt.prefix, inputs)},
		}
		b.Run("target="+bt.name, func(b *testing.B) {
			var cpu [2]time.Duration
			var execs [2]int64
			i := 0
			for b.Loop() {
				// the arms alternate which goes first, so that a change
				// of the machine's load falls on both
				for k := range 2 {
					a := &arms[(i+k)%2]
					cpu0 := benchCPU()
					sum, err := engine.Fuzz(ctx,
						engine.Config{Search: engine.Search{Seed: 1, Runs: int64(len(a.inputs)), Workers: 1, KeepGoing: true, NoShrink: true}, Conditionals: a.cond},
						engine.Deps{NewExecutor: func(context.Context, int) (engine.Executor, error) { return a.ex, nil }, Seeds: a.inputs, TargetDict: a.dict})
					if err != nil {
						b.Fatal(err)
					}
					cpu[(i+k)%2] += benchCPU() - cpu0
					execs[(i+k)%2] += sum.Stats.Execs
				}
				i++
			}
			if cpu[0] > 0 && cpu[1] > 0 {
				r, g := float64(execs[0])/cpu[0].Seconds(), float64(execs[1])/cpu[1].Seconds()
				b.ReportMetric(r, "reactor-execs/cpu-s")
				b.ReportMetric(g, "gotest-execs/cpu-s")
				b.ReportMetric(g/r, "gotest/reactor")
			}
		})
		for _, a := range arms {
			a.ex.FuelExecutor.(interface{ Close(context.Context) error }).Close(ctx)
		}
		test.Close(ctx)
		reactor.Close(ctx)
	}
}

// kept is an executor that the engine's Close leaves open, for the next
// op: a campaign makes its instance and snapshot once, not per round.
type kept struct{ engine.FuelExecutor }

// Close implements the engine's executor closing: it does nothing.
func (kept) Close(context.Context) error { return nil }

// keptExecutor makes tgt's executor and runs first on it (the instance
// and its snapshot made, untimed).
func keptExecutor(tb testing.TB, tgt *runtime.Target, first []byte) kept {
	ctx := context.Background()
	ex, err := Executors(tgt)(ctx, 0)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := ex.Run(ctx, first); err != nil {
		tb.Fatal(err)
	}
	return kept{ex.(engine.FuelExecutor)}
}

// prefixed returns each input with prefix before it.
func prefixed(prefix []byte, inputs [][]byte) [][]byte {
	if len(prefix) == 0 {
		return inputs
	}
	out := make([][]byte, len(inputs))
	for i, in := range inputs {
		out[i] = append(bytes.Clone(prefix), in...)
	}
	return out
}

// goTestBuild builds examples/gotest's fuzz test name as wafer fuzz does
// (gofuzz.Find and Build, the test's files and environment) and compiles
// the build a campaign runs, warmed up with warm.
func goTestBuild(tb testing.TB, name string, warm [][]byte) (*runtime.Target, *instrument.SiteMap) {
	ctx := context.Background()
	t, err := gofuzz.Find(ctx, "go", "..", "./examples/gotest", name)
	if err != nil {
		tb.Fatal(err)
	}
	path, err := gofuzz.Build(ctx, t, gofuzz.BuildOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	sys, _, err := t.System()
	if err != nil {
		tb.Fatal(err)
	}
	wasm, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	tg, err := Load(path, wasm, TargetOptions{Env: sys.Env, Files: sys.Files, WarmUp: warm})
	if err != nil {
		tb.Fatal(err)
	}
	tgt, sm, err := tg.compile(ctx, buildCounters, DefaultMaxLen, ResetDefault, true)
	if err != nil {
		tb.Fatal(err)
	}
	return tgt, sm
}
