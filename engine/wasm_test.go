package engine

import (
	"bytes"
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/runtime"
)

// loadTarget instruments a checked-in example module and compiles it;
// bare=true compiles the original module without counters (the runtime's
// ceiling).
func loadTarget(tb testing.TB, path string, bare bool) (*runtime.Target, *instrument.SiteMap) {
	tb.Helper()
	if bare {
		return loadWith(tb, path, nil)
	}
	return loadWith(tb, path, &instrument.Options{Fuel: true, DirtyPages: true})
}

// loadWith compiles the module at path, instrumented with opts unless
// opts is nil.
func loadWith(tb testing.TB, path string, opts *instrument.Options) (*runtime.Target, *instrument.SiteMap) {
	tb.Helper()
	wasm, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	cfg := runtime.Config{MaxInputLen: 1 << 16, CacheDir: tb.TempDir()}
	p := &instrument.Prepared{Wasm: wasm}
	if opts != nil {
		// As a campaign does (campaign's compile): the runtime's
		// preparation (allocator exports for the heap reserve, command
		// export unwrapping) with the instrumentation, in one pass.
		s, err := instrument.Summarize(wasm)
		if err != nil {
			tb.Fatalf("decode %s: %v", path, err)
		}
		b := runtime.Preparation(s, cfg)
		b.Instrument = opts
		if p, err = instrument.Prepare(wasm, b); err != nil {
			tb.Fatalf("instrument %s: %v", path, err)
		}
	}
	t, err := runtime.New(ctx, p, cfg)
	if err != nil {
		tb.Fatalf("load %s: %v", path, err)
	}
	tb.Cleanup(func() { t.Close(ctx) })
	return t, p.SiteMap
}

const tlvWasm = "../examples/tlv/tlv.wasm"

// TestTLVFindsPlantedBug runs havoc on the tlv example (instrumented, fuel,
// dirty pages) from its valid seed and expects the planted divide-by-zero.
func TestTLVFindsPlantedBug(t *testing.T) {
	tgt, sm := loadTarget(t, tlvWasm, false)
	seed, err := os.ReadFile("../examples/tlv/seeds/valid")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Fuzz(context.Background(), Config{Search: Search{Seed: 1, Runs: 300_000}},
		Deps{NewExecutor: runtimeExecutors(tgt), Seeds: [][]byte{seed}, TargetDict: sm.Dictionary})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stop %s after %d runs (%.0f/s), coverage %d/%d sites, queue %d", sum.Stop, sum.Stats.Execs, sum.Stats.ExecsPerSec, sum.Stats.Coverage, len(sm.Sites), sum.Stats.Queue)
	if sum.Stop != "crash" || len(sum.Failures) != 1 {
		t.Fatalf("expected to stop at one crash, got %q with %d failures", sum.Stop, len(sum.Failures))
	}
	f := sum.Failures[0]
	t.Logf("identity %s, shrunk %v, input %q", f.Identity, f.Shrunk, f.Input)
}

// BenchmarkCeiling runs the tlv seed in a loop on one runtime Worker, with
// no engine: "bare" on the original module (no counters, no fuel, no
// dirty-page map, so restore copies all memory: runtime's bare-wazero
// ceiling), "instrumented" on the module the loop benchmarks run
// (counters, fuel, dirty pages), "instrumented-crash" with the crashing
// input.
func BenchmarkCeiling(b *testing.B) {
	seed, err := os.ReadFile("../examples/tlv/seeds/valid")
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		bare  bool
		input []byte
	}{
		{"bare", true, seed},
		{"instrumented", false, seed},
		// The planted bug: a crash discards the instance, so the next run
		// instantiates a new one (what a crash costs the loop).
		{"instrumented-crash", false, []byte("WTLV\x01\x01\x01\x02\x02\x00\x00")},
	} {
		b.Run(tc.name, func(b *testing.B) {
			tgt, _ := loadTarget(b, tlvWasm, tc.bare)
			replay(b, tgt, [][]byte{tc.input})
		})
	}
}

// benchTargets are the example targets the loop benchmarks run: tlv (a
// planted crash that havoc finds early, so crashes and the instance
// re-creation they cost are part of the loop), cexpr (no crash) and czstd
// (a real decoder).
type benchTarget struct{ name, wasm, seed string }

var benchTargets = []benchTarget{
	{"tlv", tlvWasm, "../examples/tlv/seeds/valid"},
	{"cexpr", "../examples/cexpr/cexpr.wasm", "../examples/cexpr/seeds/mul"},
	// A third-party decoder (Zstandard's), 2,795 counted sites.
	{"czstd", "../examples/czstd/czstd.wasm", "../examples/czstd/seeds/json-best"},
	// A large one (SQLite): 47,686 counted sites, ~840 hit a run.
	{"csqlite", "../examples/csqlite/csqlite.wasm", "../examples/csqlite/seeds/functions"},
}

// BenchmarkLoop runs whole campaigns of b.N executions on an instrumented
// example target from its seed (havoc, target dictionary, keep going, no
// shrinking): compare its execs/s with BenchmarkReplay's on the same
// target.
func BenchmarkLoop(b *testing.B) {
	for _, bt := range benchTargets {
		seed, err := os.ReadFile(bt.seed)
		if err != nil {
			b.Fatal(err)
		}
		tgt, sm := loadTarget(b, bt.wasm, false)
		for _, tc := range []struct {
			name    string
			workers int
			det     bool
		}{
			{"havoc-1w", 1, false},
			{"havoc-2w", 2, false},
			{"havoc-2w-det", 2, true},
		} {
			b.Run(bt.name+"/"+tc.name, func(b *testing.B) {
				n := int64(max(b.N, 1000))
				b.ResetTimer()
				cpu0 := cpuTime()
				sum, err := Fuzz(context.Background(),
					Config{Search: Search{Seed: 1, Runs: n, Workers: tc.workers, Deterministic: tc.det, KeepGoing: true, NoShrink: true}},
					Deps{NewExecutor: runtimeExecutors(tgt), Seeds: [][]byte{seed}, TargetDict: sm.Dictionary})
				if err != nil {
					b.Fatal(err)
				}
				reportCPU(b, sum.Stats.Execs, cpuTime()-cpu0)
				b.ReportMetric(float64(sum.Stats.Execs)/b.Elapsed().Seconds(), "execs/s")
				b.ReportMetric(100*sum.Stats.ExecuteShare, "exec%")
				b.ReportMetric(100*float64(sum.Stats.CrashRuns+sum.Stats.HangRuns)/float64(sum.Stats.Execs), "fail%")
				// Worker time spent waiting for a batch: what the
				// coordination costs the workers (0 when they never
				// starve), apart from the machine's load.
				b.ReportMetric(100*sum.Waited.Seconds()/(float64(tc.workers)*sum.Stats.Elapsed.Seconds()), "wait%")
				b.ReportMetric(1000*float64(sum.Reported)/float64(sum.Stats.Execs), "sent/kexec")
			})
		}
	}
}

// TestTLVDeterministic: on the real target (restore mode, fuel), two
// deterministic two-worker campaigns with one seed agree on every saved
// entry and on the number of unique traces.
func TestTLVDeterministic(t *testing.T) {
	tgt, sm := loadTarget(t, tlvWasm, false)
	seed, err := os.ReadFile("../examples/tlv/seeds/valid")
	if err != nil {
		t.Fatal(err)
	}
	var sums [2]*Summary
	for i := range sums {
		sums[i], err = Fuzz(context.Background(), Config{Search: Search{Seed: 11, Runs: 5000, Workers: 2, Deterministic: true, KeepGoing: true, NoShrink: true}},
			Deps{NewExecutor: runtimeExecutors(tgt), Seeds: [][]byte{seed}, TargetDict: sm.Dictionary})
		if err != nil {
			t.Fatal(err)
		}
	}
	a, b := sums[0], sums[1]
	if len(a.Queue) != len(b.Queue) || a.Stats.UniqueTraces != b.Stats.UniqueTraces || a.Stats.Coverage != b.Stats.Coverage || a.Stats.CrashRuns != b.Stats.CrashRuns {
		t.Fatalf("expected identical campaigns, got queue %d/%d, traces %d/%d, coverage %d/%d, crash runs %d/%d",
			len(a.Queue), len(b.Queue), a.Stats.UniqueTraces, b.Stats.UniqueTraces, a.Stats.Coverage, b.Stats.Coverage, a.Stats.CrashRuns, b.Stats.CrashRuns)
	}
	for i := range a.Queue {
		if string(a.Queue[i].Input) != string(b.Queue[i].Input) {
			t.Fatalf("queue entry %d differs: %q vs %q", i, a.Queue[i].Input, b.Queue[i].Input)
		}
	}
	t.Logf("queue %d, coverage %d, traces %d, crash runs %d", len(a.Queue), a.Stats.Coverage, a.Stats.UniqueTraces, a.Stats.CrashRuns)
}

// loopInputs records the inputs of a campaign like BenchmarkLoop's
// havoc-1w on bt (100,000 runs).
func loopInputs(b *testing.B, bt benchTarget) [][]byte {
	seed, err := os.ReadFile(bt.seed)
	if err != nil {
		b.Fatal(err)
	}
	tgt, sm := loadTarget(b, bt.wasm, false)
	var inputs [][]byte
	_, err = Fuzz(context.Background(), Config{Search: Search{Seed: 1, Runs: 100_000, KeepGoing: true, NoShrink: true}},
		Deps{NewExecutor: runtimeExecutors(tgt), Seeds: [][]byte{seed}, TargetDict: sm.Dictionary,
			OnRun: func(_ uint64, _ int, in []byte) { inputs = append(inputs, bytes.Clone(in)) }})
	if err != nil {
		b.Fatal(err)
	}
	return inputs
}

// replay runs inputs in a loop on one Worker of tgt.
func replay(b *testing.B, tgt *runtime.Target, inputs [][]byte) {
	ctx := context.Background()
	w, err := tgt.NewWorker(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close(ctx)
	cpu0 := cpuTime()
	i := 0
	for b.Loop() {
		if _, err := w.Run(ctx, inputs[i%len(inputs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	reportCPU(b, int64(b.N), cpuTime()-cpu0)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "execs/s")
}

// BenchmarkReplay is the runtime ceiling on the loop's own inputs: per
// target it records the inputs of a campaign like BenchmarkLoop's
// havoc-1w (untimed), then runs them on one Worker with no engine.
// Loop/<target>/havoc-1w over Replay/<target> is the cost of the engine
// itself (mutation, scanning, bookkeeping) on identical work, crashes
// included.
func BenchmarkReplay(b *testing.B) {
	for _, bt := range benchTargets {
		inputs := loopInputs(b, bt)
		tgt, _ := loadTarget(b, bt.wasm, false)
		b.Run(bt.name, func(b *testing.B) { replay(b, tgt, inputs) })
	}
}

// BenchmarkReplayBare is the bare ceiling on the same inputs: the
// original module (no counters, no fuel), persistent mode (no state
// restore; the planted crash still costs a new instance) and no wall-clock
// backstop: the runtime's simplest loop. Loop over ReplayBare is what
// instrumentation, restore and the engine together cost.
func BenchmarkReplayBare(b *testing.B) {
	for _, bt := range benchTargets {
		inputs := loopInputs(b, bt)
		wasm, err := os.ReadFile(bt.wasm)
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		tgt, err := runtime.New(ctx, &instrument.Prepared{Wasm: wasm}, runtime.Config{Reset: runtime.Persistent, Timeout: -1, MaxInputLen: 1 << 16, CacheDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bt.name, func(b *testing.B) { replay(b, tgt, inputs) })
		tgt.Close(ctx)
	}
}

// reportCPU reports executions per CPU-second of the whole process: on a
// machine shared with other work, wall-clock execs/s measure the load as
// much as the code; this measures the cost per execution.
func reportCPU(b *testing.B, execs int64, cpu time.Duration) {
	if cpu > 0 {
		b.ReportMetric(float64(execs)/cpu.Seconds(), "execs/cpu-s")
	}
}

// BenchmarkScanRecorded scans the counters of real runs: the inputs of a
// campaign like BenchmarkLoop's havoc-1w (recorded untimed, one in 50 of its
// 100,000 kept), each run once on a Worker and its counters kept, then scanned in
// turn by one scanner (each copied into the map the scan clears).
func BenchmarkScanRecorded(b *testing.B) {
	for _, bt := range benchTargets {
		inputs := loopInputs(b, bt)
		tgt, _ := loadTarget(b, bt.wasm, false)
		ctx := context.Background()
		w, err := tgt.NewWorker(ctx)
		if err != nil {
			b.Fatal(err)
		}
		var maps [][]byte
		var outs []Outcome
		for i := 0; i < len(inputs); i += max(5, len(inputs)/2000) {
			r, err := w.Run(ctx, inputs[i])
			if err != nil {
				b.Fatal(err)
			}
			maps = append(maps, bytes.Clone(r.Counters))
			outs = append(outs, r.Outcome)
		}
		w.Close(ctx)
		var sites, words int
		for _, m := range maps {
			for i, v := range m {
				if v != 0 {
					sites++
				}
				if i%8 == 0 && slices.ContainsFunc(m[i:min(i+8, len(m))], func(b byte) bool { return b != 0 }) {
					words++
				}
			}
		}
		b.Run(bt.name, func(b *testing.B) {
			s := newScanner()
			c := make([]byte, len(maps[0]))
			cpu0 := cpuTime()
			i := 0
			for b.Loop() {
				copy(c, maps[i%len(maps)])
				s.scan(c, outs[i%len(maps)])
				i++
				if len(s.touched) > 1<<12 {
					s.flushHits()
				}
			}
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
			b.ReportMetric(float64(sites)/float64(len(maps)), "sites/map")
			b.ReportMetric(float64(words)/float64(len(maps)), "words/map")
		})
	}
}

// TestStackDepthFindsDeepNesting: testdata/depth's elements ("<a>") keep
// 200 bytes each on the C stack, so about 300 levels overflow it, and
// above 32 levels its branches' hit counts (AFL's buckets) no longer
// change until 128. Built with instrument.Options.StackDepth, havoc keeps
// each input that nests deeper than any before and reaches the overflow
// within the budget. Without it (logged only: a fixed-seed run of a
// search that may improve) havoc has only the buckets to go by.
func TestStackDepthFindsDeepNesting(t *testing.T) {
	const runs = 400_000
	for _, depth := range []bool{true, false} {
		if !depth && testing.Short() {
			continue
		}
		tgt, sm := loadWith(t, "../testdata/depth/nest.wasm", &instrument.Options{Fuel: true, DirtyPages: true, StackDepth: depth})
		sum, err := Fuzz(context.Background(), Config{Search: Search{Seed: 1, Runs: runs}}, Deps{NewExecutor: runtimeExecutors(tgt), Seeds: [][]byte{[]byte("<a>")}, TargetDict: sm.Dictionary})
		if err != nil {
			t.Fatal(err)
		}
		found := sum.Stop == "crash" && len(sum.Failures) == 1 && sum.Failures[0].Failure.Kind == runtime.KindStackExhausted
		t.Logf("stack depth %v: stop %s after %d runs, queue %d, coverage %d, found the overflow: %v", depth, sum.Stop, sum.Stats.Execs, sum.Stats.Queue, sum.Stats.Coverage, found)
		if depth && !found {
			t.Errorf("with stack depth feedback: expected the stack overflow within %d runs, got stop %q and %d failures", runs, sum.Stop, len(sum.Failures))
		}
	}
}
