package runtime

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"math/bits"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wafer-fuzz/wafer/internal/wasip1"
)

// Benchmarks report ns/op (= ns per execution) and execs/s. The ceiling is
// bare wazero: the uninstrumented module, initialised once, the input
// copied once into the malloc'd buffer and LLVMFuzzerTestOneInput called
// in a loop with CallWithStack and a reused stack: no reset, no counters,
// no classification. Compare with benchstat:
//
//	go test ./runtime -run '^$' -bench . -count 6 > new.txt
//	go run golang.org/x/perf/cmd/benchstat@latest new.txt

var benchTargets = []struct {
	name, fixture, input string
}{
	{"libfuzzer", "clib/clib.wasm", "V"},
	{"go", "goreactor/goreactor.wasm", "V"},
	// A run that does work: 100,000 loop iterations.
	{"libfuzzer-loop", "clib/clib.wasm", "K"},
	// Realistic small-input C targets: the cli's examples (paths relative
	// to ../testdata) on a short valid input.
	{"cexpr", "../examples/cexpr/cexpr.wasm", "12*(3+4)"},
	{"tlv", "../examples/tlv/tlv.wasm", "WTLV\x01\x01\x03\x01\x04demo\x04\x03\x01\x02\x03\x03\x02\x00\x02"},
	// A third-party decoder: Zstandard on a 98-byte frame
	// (examples/czstd/seeds/json-best).
	{"czstd", "../examples/czstd/czstd.wasm", "(\xb5/\xfd\x04\x00\xad\x02\x00\"F\x14\x1apk\b\x10K\xec\xc5@\x92h\x8bѴ\xab\xaaA1\n\x00!\x8c\xc2UUa\x05k\xad\xa5(Mڊ\x95\x9dXٷ\xb2\x17\xc8$̋\x00P\x11=\xd4\xd0B\t\x1dT\xd0@\xd1a\xe7E^\xd29\xf7\xe7i\x92\x0f;1\x8e\xb9709g\x1b\x97\xcbU\x00Y\xb2\x8a\x8f"},
}

// report adds execs/s (wall clock) and, where the OS reports process CPU
// time, cpu-ns/exec and cpu-execs/s: the machine these run on is shared and
// overloaded, so wall-clock ns/op includes time spent waiting for a core.
func report(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "execs/s")
	if cpu := cpuTime() - cpu0; cpu > 0 && cpu0 > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/exec")
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "cpu-execs/s")
	}
}

func BenchmarkCeiling(b *testing.B) {
	for _, bt := range benchTargets {
		b.Run(bt.name, func(b *testing.B) {
			ctx := context.Background()
			r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().
				WithCompilationCache(benchCache(b)))
			defer r.Close(ctx)
			if _, err := wasip1.Instantiate(ctx, r); err != nil {
				b.Fatal(err)
			}
			st := &wasip1.State{}
			ctx = wasip1.WithState(ctx, st)
			mod, err := r.InstantiateWithConfig(ctx, fixture(b, bt.fixture), wazero.NewModuleConfig().WithStartFunctions())
			if err != nil {
				b.Fatal(err)
			}
			if f := mod.ExportedFunction("_initialize"); f != nil {
				if _, err := f.Call(ctx); err != nil {
					b.Fatal(err)
				}
			}
			res, err := mod.ExportedFunction("malloc").Call(ctx, 4096)
			if err != nil {
				b.Fatal(err)
			}
			ptr := uint32(res[0])
			fn := mod.ExportedFunction(exportTest)
			in := []byte(bt.input)
			if !mod.Memory().Write(ptr, in) {
				b.Fatal("input buffer outside memory")
			}
			stack := make([]uint64, 2)
			stack[0], stack[1] = uint64(ptr), uint64(len(in))
			if err := fn.CallWithStack(ctx, stack); err != nil || stack[0] != 0 {
				b.Fatalf("bare run: expected 0 (valid), got %d, %v", stack[0], err)
			}
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				stack[0], stack[1] = uint64(ptr), uint64(len(in))
				if err := fn.CallWithStack(ctx, stack); err != nil {
					b.Fatal(err)
				}
			}
			report(b, cpu0)
		})
	}
}

// BenchmarkInstrumentedLoop is the ceiling's loop on the instrumented
// module (fuel, dirty pages): no reset, counters neither read nor cleared,
// fuel set once. Between it and the ceiling is the instrumentation's cost
// (counter increments, fuel checks, dirty marks); between it and
// BenchmarkRun's persistent mode, runtime's per-run cost.
func BenchmarkInstrumentedLoop(b *testing.B) {
	for _, bt := range benchTargets {
		b.Run(bt.name, func(b *testing.B) {
			tg := loadInstrumented(b, bt.fixture, fullOpts, Config{Reset: Persistent, MaxInputLen: 4096, CacheDir: benchDir(b)})
			callLoop(b, worker(b, tg), []byte(bt.input))
		})
	}
}

// callLoop runs in once through w, then calls the harness export with it
// in a loop as the ceiling does: no reset, counters neither read nor
// cleared, fuel (if any) set once to the most there is.
func callLoop(b *testing.B, w *Worker, in []byte) {
	ctx := context.Background()
	if r, err := w.Run(ctx, in); err != nil || r.Outcome != Valid {
		b.Fatalf("first run: %v %v %v", r.Outcome, r.Failure, err)
	}
	if w.fuel != nil {
		w.fuel.(api.MutableGlobal).Set(math.MaxInt64)
	}
	cctx := w.io.context(ctx)
	stack := w.stack[:]
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		stack[0], stack[1] = uint64(w.inPtr), uint64(len(in))
		if err := w.test.CallWithStack(cctx, stack); err != nil {
			b.Fatal(err)
		}
	}
	report(b, cpu0)
}

// BenchmarkRun is Worker.Run per harness and reset mode on the module
// instrumented with fuel and dirty pages, reading the counters after each
// run and zeroing them in the same pass (scan, with SetCallerClears: what
// the engine does). "plain" is the uninstrumented module (restore = a
// full memory copy).
func BenchmarkRun(b *testing.B) {
	for _, bt := range benchTargets {
		for _, inst := range []bool{true, false} {
			for _, mode := range []Reset{Restore, Persistent, Fresh} {
				name := bt.name + "/instrumented/" + mode.String()
				if !inst {
					name = bt.name + "/plain/" + mode.String()
				}
				b.Run(name, func(b *testing.B) {
					cfg := Config{Reset: mode, MaxInputLen: 4096, CacheDir: benchDir(b)}
					var tg *Target
					if inst {
						tg = loadInstrumented(b, bt.fixture, fullOpts, cfg)
					} else {
						tg = load(b, bt.fixture, meta{}, cfg)
					}
					benchWorker(b, tg, []byte(bt.input))
				})
			}
		}
	}
	b.Run("command/plain/fresh", func(b *testing.B) {
		tg := load(b, "gocmd/gocmd.wasm", meta{}, Config{CacheDir: benchDir(b)})
		benchWorker(b, tg, []byte("hello"))
	})
}

// BenchmarkBackstop measures what wazero's WithCloseOnContextDone costs a
// loop-heavy run (clib "K": 100,000 iterations), uninstrumented.
func BenchmarkBackstop(b *testing.B) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
	}{{"off", -1}, {"on", time.Minute}} {
		b.Run(tc.name, func(b *testing.B) {
			tg := load(b, "clib/clib.wasm", meta{}, Config{Reset: Persistent, Timeout: tc.timeout, CacheDir: benchDir(b)})
			benchWorker(b, tg, []byte("K"))
		})
	}
}

func benchWorker(b *testing.B, tg *Target, in []byte) {
	w := worker(b, tg)
	w.SetCallerClears(true)
	// cancelable, as a campaign's: the watcher of a run in flight is set
	// up for it (cancel.go)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if r, err := w.Run(ctx, in); err != nil || r.Outcome != Valid {
		b.Fatalf("warm-up: %v %v %v", r.Outcome, r.Failure, err)
	} else {
		clear(r.Counters)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	var hits int
	for range b.N {
		r, err := w.Run(ctx, in)
		if err != nil || r.Outcome != Valid {
			b.Fatalf("%v %v %v", r.Outcome, r.Failure, err)
		}
		hits += scan(r.Counters)
	}
	report(b, cpu0)
	if hits < 0 {
		b.Fatal("negative counter sum") // keeps the scan's result live
	}
}

// zeroBlock is the size of the zero blocks scan skips with one
// bytes.Equal, as engine's scanner does.
const zeroBlock = 4096

// zeros is zeroBlock zero bytes: a constant.
var zeros [zeroBlock]byte

// scan reads the counters as a coverage scan must: it skips zero blocks of
// 4 KiB with one comparison each, then zero runs 64 bytes at a time and, inside a non-zero run, visits each non-zero counter
// of each non-zero 8-byte word (TrailingZeros jumps, as engine's scanner
// does), summing site and value so every hit is read, and zeroes the run
// (the caller's clearing, SetCallerClears). The sum is returned so the
// work cannot be optimised away.
func scan(c []byte) int {
	le := binary.LittleEndian
	sum, i := 0, 0
	for ; i+64 <= len(c); i += 64 {
		for i&(zeroBlock-1) == 0 && i+zeroBlock <= len(c) && bytes.Equal(c[i:i+zeroBlock], zeros[:]) {
			i += zeroBlock
		}
		if i+64 > len(c) {
			break
		}
		b := c[i : i+64 : i+64]
		if le.Uint64(b[0:])|le.Uint64(b[8:])|le.Uint64(b[16:])|le.Uint64(b[24:])|
			le.Uint64(b[32:])|le.Uint64(b[40:])|le.Uint64(b[48:])|le.Uint64(b[56:]) == 0 {
			continue
		}
		for j := 0; j < 64; j += 8 {
			for w := le.Uint64(b[j:]); w != 0; {
				sh := bits.TrailingZeros64(w) &^ 7
				sum += i + j + sh>>3 + int(uint8(w>>sh))
				w &^= 0xff << sh
			}
		}
		for j := 0; j < 64; j += 8 {
			le.PutUint64(b[j:], 0) // inline stores: a memclr call per block costs more
		}
	}
	for ; i < len(c); i++ {
		if v := c[i]; v != 0 {
			sum += i + int(v)
			c[i] = 0
		}
	}
	return sum
}

func benchDir(b *testing.B) string { return testConfig(b, Config{}).CacheDir }

func benchCache(b *testing.B) wazero.CompilationCache {
	c, err := wazero.NewCompilationCacheWithDir(benchDir(b))
	if err != nil {
		b.Fatal(err)
	}
	return c
}
