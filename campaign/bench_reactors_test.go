package campaign

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/wafer-fuzz/wafer/engine"
	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/internal/atomicfile"
	"github.com/wafer-fuzz/wafer/internal/cputime"
	"github.com/wafer-fuzz/wafer/runtime"
)

// benchReactors are the targets of BenchmarkReactors: one line each (a
// module and its seed directory, from this package's directory, and the
// executions of the recorded campaign: about a second of the loop).
var benchReactors = []struct {
	name, wasm, seeds string
	runs              int
}{
	{"gojson", "../examples/gojson/gojson.wasm", "../examples/gojson/seeds", 20_000},
	{"gopng", "../examples/gopng/gopng.wasm", "../examples/gopng/seeds", 20_000},
	{"goparser", "../examples/goparser/goparser.wasm", "../examples/goparser/seeds", 3_000},
	// C targets with fast runs, where the engine's own cost shows most
	// (tlv's planted crash is found early: crashes are part of its loop).
	{"cexpr", "../examples/cexpr/cexpr.wasm", "../examples/cexpr/seeds", 300_000},
	{"tlv", "../examples/tlv/tlv.wasm", "../examples/tlv/seeds", 300_000},
}

// BenchmarkReactors measures, per target and side by side in one run, on
// the same inputs: those of a havoc campaign of benchReactors' runs
// executions (WAFER_BENCH_RUNS overrides them all) from the target's seeds, seed 1, one worker,
// recorded untimed. One op is the whole set: every input once (bare,
// replay) or one campaign of as many executions (the loops), so run it
// with -benchtime 1x:
//
//   - bare: the module as it is (no counters, no fuel), persistent (no
//     state restore), no wall-clock backstop: the input written and the
//     export called, the ceiling;
//   - replay: Worker.Run on the build a campaign runs (Target.compile's
//     buildCounters with the default options: counters, fuel, dirty pages,
//     restore; on a Go reactor with the seeds as warm-up, as wafer fuzz
//     runs it, or without when WAFER_BENCH_COLD is set), the counters
//     scanned by nobody: the runtime alone;
//   - loop-1w, loop-2w: the engine's loop (engine.Fuzz, havoc)) on that build through the campaign's executors, one and
//     two workers; loop-2w-det with Deterministic, whose inputs are
//     loop-1w's. Input-to-state mutation and the heap check's sampled
//     build are left out (their runs are not counted as executions, so
//     they would blur the per-execution cost).
//
// Each reports execs/s (wall clock) and execs/cpu-s (the process's CPU
// time, what the machine's load does not change); the loops also
// search-execs/s, over the search alone (Summary.Stats.Elapsed: without
// the campaign's start, where the workers' instances and snapshots are
// made one after another). loop-1w over replay is
// the engine's cost, replay over bare instrumentation's and restore's;
// loop-2w over loop-1w in execs/s is the scaling, in execs/cpu-s the
// overhead of a second worker. Adding a target is one line of
// benchReactors. Runs only when WAFER_BENCH_REACTORS is set (compiling
// the Go modules takes seconds):
//
//	WAFER_BENCH_REACTORS=1 go test ./campaign -run '^$' -bench Reactors -benchtime 1x -count 6
//
// WAFER_BENCH_REACTORS may instead name targets, comma-separated
// ("gojson,cexpr").
func BenchmarkReactors(b *testing.B) {
	sel := envSelection(b, "WAFER_BENCH_REACTORS", "1 (or names, e.g. gojson,cexpr)")
	record := 0
	if s := os.Getenv("WAFER_BENCH_RUNS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("WAFER_BENCH_RUNS: expected a positive count, got %q", s)
		}
		record = n
	}
	ctx := context.Background()
	for _, bt := range benchReactors {
		if !selected(sel, bt.name) {
			continue
		}
		seeds := readSeeds(b, bt.seeds)
		wasm, tgt, sm := counterBuild(b, bt.wasm, seeds)
		bareOpts := TargetOptions{Reset: ResetPersistent, Timeout: -1}
		bareT, err := Load(bt.wasm, wasm, bareOpts) // with its Summary, as compile needs
		if err != nil {
			b.Fatal(err)
		}
		bare, _, err := bareT.compile(ctx, buildPlain, DefaultMaxLen, ResetDefault, true)
		if err != nil {
			b.Fatal(err)
		}
		loop := func(b *testing.B, runs int64, workers int, det bool, onRun func(uint64, int, []byte)) *engine.Summary {
			sum, err := engine.Fuzz(ctx,
				engine.Config{Search: engine.Search{Seed: 1, Runs: runs, Workers: workers, Deterministic: det, KeepGoing: true, NoShrink: true}, Conditionals: sm.Conditionals()},
				engine.Deps{NewExecutor: Executors(tgt), Seeds: seeds, TargetDict: sm.Dictionary, OnRun: onRun})
			if err != nil {
				b.Fatal(err)
			}
			return sum
		}
		runs := bt.runs
		if record > 0 {
			runs = record
		}
		inputs := recordHavoc(b, tgt, sm, seeds, runs)
		b.Run(bt.name+"/bare", func(b *testing.B) { replayInputs(b, bare, inputs) })
		b.Run(bt.name+"/replay", func(b *testing.B) { replayInputs(b, tgt, inputs) })
		for _, tc := range []struct {
			name    string
			workers int
			det     bool
		}{
			{"loop-1w", 1, false},
			{"loop-2w", 2, false},
			{"loop-2w-det", 2, true},
		} {
			b.Run(bt.name+"/"+tc.name, func(b *testing.B) {
				var execs, fails int64
				var share, wait float64
				var inLoop time.Duration
				cpu0 := benchCPU()
				for b.Loop() {
					sum := loop(b, int64(len(inputs)), tc.workers, tc.det, nil)
					execs += sum.Stats.Execs
					inLoop += sum.Stats.Elapsed
					fails += sum.Stats.CrashRuns + sum.Stats.HangRuns
					share += sum.Stats.ExecuteShare
					wait += sum.Waited.Seconds() / (float64(tc.workers) * sum.Stats.Elapsed.Seconds())
				}
				reportExecs(b, execs, b.Elapsed(), benchCPU()-cpu0)
				// The search alone (Summary.Stats.Elapsed): without the
				// campaign's start, the workers' instances and snapshots
				// (made one after another), which a run of a second pays
				// and a campaign of minutes does not.
				b.ReportMetric(float64(execs)/inLoop.Seconds(), "search-execs/s")
				b.ReportMetric(100*share/float64(b.N), "exec%")
				b.ReportMetric(100*float64(fails)/float64(execs), "fail%")
				// Worker time spent waiting for a batch: what the
				// coordinator costs the workers (0 when they never starve).
				b.ReportMetric(100*wait/float64(b.N), "wait%")
			})
		}
		tgt.Close(ctx)
		bare.Close(ctx)
	}
}

// envSelection is the value of the environment variable env, which
// selects what a benchmark runs; without it tb is skipped with a message
// saying what to set it to (want).
func envSelection(tb testing.TB, env, want string) string {
	sel := os.Getenv(env)
	if sel == "" {
		tb.Skipf("set %s to %s", env, want)
	}
	return sel
}

// recordHavoc returns the inputs a havoc campaign of runs executions
// makes on tgt from seeds (seed 1, one worker, the target's conditional
// sites and dictionary, as a campaign has them), in the order they ran.
func recordHavoc(tb testing.TB, tgt *runtime.Target, sm *instrument.SiteMap, seeds [][]byte, runs int) [][]byte {
	var inputs [][]byte
	var mu sync.Mutex
	_, err := engine.Fuzz(context.Background(),
		engine.Config{Search: engine.Search{Seed: 1, Runs: int64(runs), Workers: 1, KeepGoing: true, NoShrink: true}, Conditionals: sm.Conditionals()},
		engine.Deps{NewExecutor: Executors(tgt), Seeds: seeds, TargetDict: sm.Dictionary, OnRun: func(_ uint64, _ int, in []byte) {
			mu.Lock()
			inputs = append(inputs, bytes.Clone(in))
			mu.Unlock()
		}})
	if err != nil {
		tb.Fatal(err)
	}
	return inputs
}

// selected reports whether name is one of the comma-separated names, or
// names is "1" (all).
func selected(names, name string) bool {
	if names == "1" {
		return true
	}
	for len(names) > 0 {
		i := bytes.IndexByte([]byte(names), ',')
		if i < 0 {
			return names == name
		}
		if names[:i] == name {
			return true
		}
		names = names[i+1:]
	}
	return false
}

// counterBuild reads the module at path and compiles the build a
// campaign runs (counters, fuel, dirty pages; no source lines). A Go
// reactor gets seeds as warm-up inputs, as wafer fuzz gives it its seeds
// (--warm-up-seeds), unless WAFER_BENCH_COLD is set.
func counterBuild(tb testing.TB, path string, seeds [][]byte) ([]byte, *runtime.Target, *instrument.SiteMap) {
	wasm, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	t, err := Load(path, wasm, TargetOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	if t.Harness() == HarnessGo && os.Getenv("WAFER_BENCH_COLD") == "" {
		t.opts.WarmUp = seeds
	}
	tgt, sm, err := t.compile(context.Background(), buildCounters, DefaultMaxLen, ResetDefault, true)
	if err != nil {
		tb.Fatal(err)
	}
	return wasm, tgt, sm
}

// readSeeds reads every file of dir, in name order.
func readSeeds(b testing.TB, dir string) [][]byte {
	ents, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var seeds [][]byte
	for _, e := range ents {
		if e.Type().IsRegular() {
			s, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				b.Fatal(err)
			}
			seeds = append(seeds, s)
		}
	}
	return seeds
}

// replayInputs runs inputs in a cycle on one Worker of tgt (the counters,
// if any, zeroed by the runtime as it does for callers that do not clear
// them).
func replayInputs(b *testing.B, tgt *runtime.Target, inputs [][]byte) {
	ctx := context.Background()
	w, err := tgt.NewWorker(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close(ctx)
	// The first run makes the instance (and its snapshot): untimed.
	if _, err := w.Run(ctx, inputs[0]); err != nil {
		b.Fatal(err)
	}
	cpu0 := benchCPU()
	var execs, fails int64
	for b.Loop() {
		for _, in := range inputs {
			r, err := w.Run(ctx, in)
			if err != nil {
				b.Fatal(err)
			}
			if r.Outcome == runtime.Crash || r.Outcome == runtime.Hang {
				fails++
			}
		}
		execs += int64(len(inputs))
	}
	reportExecs(b, execs, b.Elapsed(), benchCPU()-cpu0)
	b.ReportMetric(100*float64(fails)/float64(execs), "fail%")
}

// reportExecs reports execs/s (wall clock) and execs/cpu-s (process CPU
// time, where the OS reports it).
func reportExecs(b *testing.B, execs int64, wall, cpu time.Duration) {
	b.ReportMetric(float64(execs)/wall.Seconds(), "execs/s")
	if cpu > 0 {
		b.ReportMetric(float64(execs)/cpu.Seconds(), "execs/cpu-s")
	}
}

// benchCPU is the process's CPU time, 0 where the platform does not
// report it.
func benchCPU() time.Duration {
	d, _ := cputime.Process()
	return d
}

// TestRecordCounters writes, per benchReactors target named in
// WAFER_RECORD_COUNTERS (comma-separated; skipped when unset), the
// counter maps of every 400th run of a seed-1 havoc campaign of 19,200
// runs, one worker, to ../engine/testdata/counters-<name>.bin: engine's
// BenchmarkScanRecorded scans real maps with them. Format, little-endian
// uint32s: per map, the number of counters, the number of hit sites n,
// then n entries site<<8|count.
//
//	WAFER_RECORD_COUNTERS=gopng,gojson go test ./campaign -run TestRecordCounters
func TestRecordCounters(t *testing.T) {
	sel := envSelection(t, "WAFER_RECORD_COUNTERS", "target names, e.g. gopng,gojson")
	ctx := context.Background()
	for _, bt := range benchReactors {
		if !selected(sel, bt.name) {
			continue
		}
		seeds := readSeeds(t, bt.seeds)
		_, tgt, sm := counterBuild(t, bt.wasm, seeds)
		rec := &counterRecorder{every: 400}
		newExec := Executors(tgt)
		_, err := engine.Fuzz(ctx,
			engine.Config{Search: engine.Search{Seed: 1, Runs: 48 * 400, Workers: 1, KeepGoing: true, NoShrink: true}, Conditionals: sm.Conditionals()},
			engine.Deps{Seeds: seeds, TargetDict: sm.Dictionary,
				NewExecutor: func(ctx context.Context, w int) (engine.Executor, error) {
					ex, err := newExec(ctx, w)
					if err != nil {
						return nil, err
					}
					rec.FuelExecutor = ex.(engine.FuelExecutor)
					return rec, nil
				}})
		tgt.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err = atomicfile.Write(filepath.Join("..", "engine", "testdata", "counters-"+bt.name+".bin"), rec.out); err != nil {
			t.Fatal(err)
		}
	}
}

// counterRecorder is a FuelExecutor that appends the counter map of
// every every-th run to out (TestRecordCounters' format).
type counterRecorder struct {
	engine.FuelExecutor
	every, runs int
	out         []byte
}

func (r *counterRecorder) Run(ctx context.Context, input []byte) (engine.Result, error) {
	return r.RunFuel(ctx, input, 0)
}

func (r *counterRecorder) RunFuel(ctx context.Context, input []byte, fuel uint64) (engine.Result, error) {
	res, err := r.FuelExecutor.RunFuel(ctx, input, fuel)
	if r.runs++; err == nil && r.runs%r.every == 0 {
		n := 0
		for _, v := range res.Counters {
			if v != 0 {
				n++
			}
		}
		r.out = binary.LittleEndian.AppendUint32(r.out, uint32(len(res.Counters)))
		r.out = binary.LittleEndian.AppendUint32(r.out, uint32(n))
		for site, v := range res.Counters {
			if v != 0 {
				r.out = binary.LittleEndian.AppendUint32(r.out, uint32(site)<<8|uint32(v))
			}
		}
	}
	return res, err
}
