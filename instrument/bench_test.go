package instrument_test

// Benchmarks of the instrumentation scheme:
//
//   - BenchmarkInstrument: rewrite throughput (MB/s) on programs from 100 KB
//     to 6.5 MB (linearity: MB/s should not fall with size).
//   - BenchmarkRun: one execution of a real program's _start on a fresh
//     instance (instantiation not timed), original vs instrumented; the
//     ratio of the times is the run-time cost of instrumentation.
//   - BenchmarkReadoutClear: the host's per-execution cost for N counters: a
//     zero-copy Memory().Read view, a scan 8 bytes at a time, and a clear.
//
// Besides wall-clock ns/op, each reports cpu-ns/op: the CPU time of the test
// process (all threads, GC included) per op, which other processes on a
// shared machine do not inflate as they do wall-clock time.
//
//	go test ./instrument -run '^$' -bench . -count 6 | tee bench.txt
//	go run golang.org/x/perf/cmd/benchstat@latest bench.txt

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/internal/cputime"
	"github.com/wafer-fuzz/wafer/internal/wasip1"
)

func benchRead(b *testing.B, path string) []byte {
	b.Helper()
	wasm, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return wasm
}

// benchCPU measures the process CPU time of a benchmark body.
type benchCPU struct {
	start, total time.Duration
	ok           bool
}

func (c *benchCPU) begin() {
	c.start, c.ok = cputime.Process()
}

func (c *benchCPU) end() {
	if now, ok := cputime.Process(); ok && c.ok {
		c.total += now - c.start
	}
}

// report adds cpu-ns/op and, when bytes > 0, cpu-MB/s.
func (c *benchCPU) report(b *testing.B, bytes int) {
	if !c.ok || b.N == 0 {
		return
	}
	perOp := float64(c.total.Nanoseconds()) / float64(b.N)
	b.ReportMetric(perOp, "cpu-ns/op")
	if bytes > 0 && perOp > 0 {
		b.ReportMetric(float64(bytes)/perOp*1e9/1e6, "cpu-MB/s")
	}
}

func BenchmarkInstrument(b *testing.B) {
	for _, p := range []struct{ name, path string }{
		{"cwords-107KB", "testdata/programs/cwords/cwords.wasm"},
		{"gocalc-3.4MB", "testdata/programs/gocalc/gocalc.wasm"},
		{"gobig-6.5MB", "testdata/programs/gobig/gobig.wasm"},
	} {
		wasm := benchRead(b, p.path)
		for _, o := range []struct {
			name string
			opts instrument.Options
		}{
			{"counters", instrument.Options{}},
			{"fuel+dirty", instrument.Options{Fuel: true, DirtyPages: true}},
		} {
			b.Run(p.name+"/"+o.name, func(b *testing.B) {
				_, sm, err := instrument.Instrument(wasm, o.opts)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(wasm)))
				b.ReportAllocs()
				var cpu benchCPU
				b.ResetTimer()
				cpu.begin()
				for i := 0; i < b.N; i++ {
					if _, _, err := instrument.Instrument(wasm, o.opts); err != nil {
						b.Fatal(err)
					}
				}
				cpu.end()
				cpu.report(b, len(wasm))
				b.ReportMetric(float64(len(sm.Sites)), "sites")
			})
		}
		b.Run(p.name+"/decode-encode", func(b *testing.B) {
			b.SetBytes(int64(len(wasm)))
			b.ReportAllocs()
			var cpu benchCPU
			cpu.begin()
			for i := 0; i < b.N; i++ {
				m, err := instrument.Decode(wasm)
				if err != nil {
					b.Fatal(err)
				}
				_ = m.Encode()
			}
			cpu.end()
			cpu.report(b, len(wasm))
		})
	}
}

// benchPrograms are BenchmarkRun's WASI commands and their stdin.
var benchPrograms = []struct{ name, path, input string }{
	{"cwords", "testdata/programs/cwords/cwords.wasm", strings.Repeat("hello world\nthree little words\naeiou bcd aeiou bcd aeiou bcd\n", 30)},
	{"crunch", "testdata/programs/crunch/crunch.wasm", "42\n"},
	{"gocalc", "testdata/programs/gocalc/gocalc.wasm", `[{"op":"set","name":"x","args":[3]},{"op":"get","name":"x"},{"op":"mul","args":[2]},{"op":"sort","args":[9,-1,4]},{"op":"json"},{"op":"print"}]`},
}

// benchReactors are BenchmarkRun's libFuzzer-style reactors (third-party
// C code: Zstandard's decoder, SQLite), each with the seed file it runs
// and how many calls of LLVMFuzzerTestOneInput one timed batch makes.
var benchReactors = []struct {
	name, path, seed string
	calls            int
}{
	{"czstd", "../examples/czstd/czstd.wasm", "../examples/czstd/seeds/json-best", 200},
	{"csqlite", "../examples/csqlite/csqlite.wasm", "../examples/csqlite/seeds/create-select", 10},
}

// BenchmarkRun measures the run-time cost of instrumentation on real
// programs, original against each variant (counters, counters+fuel,
// counters+fuel+dirty pages: what a campaign runs; and fuel+dirty pages
// without counters):
//
//   - a WASI command (benchPrograms) runs _start once per op on a fresh
//     instance (instantiation and a garbage collection happen before the
//     clock starts);
//   - a reactor (benchReactors) keeps one instance per variant and layout
//     and calls LLVMFuzzerTestOneInput on its input a batch of times per
//     op, timed per call (counters and dirty map are not cleared in
//     between: the cost measured is the target's, not runtime's).
//
// Every variant runs in each of runLayouts code layouts, in an order that
// rotates with the op. It reports the original's median time per run
// over all layouts and the ratios of the variants' medians to it: a ratio
// measured side by side in one run, which drifts in machine load do not
// bias as they bias one variant timed after another.
//
// Code layout decides as much as the counters do. wazero places functions
// one after the other at 16-byte alignment and does not align loops, so
// growing one function moves the loops of every later one against the
// CPU's 32- and 64-byte fetch and cache boundaries. Padding crunch's first
// function (padLayout) moved its original's run time between 2.7 and 4.4
// ms, and the counters variant's ratio to it between 0.71 and 1.73, from
// one padding to the next. One layout per variant measures that luck as
// much as the instrumentation, so every variant runs in runLayouts
// paddings of the original (each variant instrumenting the padded
// original), and the medians pool them. The compiled modules are cached
// on disk (benchCache): the first run compiles 4 × runLayouts modules
// per program.
//
//	go test ./instrument -run '^$' -bench Run -count 6
func BenchmarkRun(b *testing.B) {
	ctx := context.Background()
	cache := benchCache(b)
	defer cache.Close(ctx)
	type program struct {
		name, path string
		// newRun prepares one variant in one layout and returns what
		// runs it once and reports ns per run.
		newRun func(rt wazero.Runtime, tg *realTarget) func(b *testing.B) float64
	}
	var programs []program
	for _, p := range benchPrograms {
		programs = append(programs, program{p.name, p.path, func(rt wazero.Runtime, tg *realTarget) func(*testing.B) float64 {
			return func(b *testing.B) float64 { return runCommand(b, rt, tg, p.input) }
		}})
	}
	for _, p := range benchReactors {
		in := benchRead(b, p.seed)
		programs = append(programs, program{p.name, p.path, func(rt wazero.Runtime, tg *realTarget) func(*testing.B) float64 {
			return newReactorRun(b, rt, tg, in, p.calls)
		}})
	}
	for _, p := range programs {
		wasm := benchRead(b, p.path)
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler().WithCompilationCache(cache))
		if _, err := wasip1.Instantiate(ctx, rt); err != nil {
			b.Fatal(err)
		}
		type variant struct {
			name string
			ns   []float64
		}
		type slot struct {
			v   *variant
			run func(*testing.B) float64
		}
		var vs []*variant
		var order []slot
		// "uncounted" is "dirty" with no counters (every function
		// skipped): the memory shift, fuel and dirty marks alone, the
		// floor under any placement or number of counters in a
		// restore-mode campaign.
		// "depth" is "dirty" with the stack checked and its depth kept;
		// "guard" adds the heap guard, "check" the heap check.
		variants := append(realVariants(), realVariant{"uncounted", &instrument.Options{Fuel: true, DirtyPages: true, Skip: []string{"*"}}},
			realVariant{"depth", &instrument.Options{Fuel: true, DirtyPages: true, StackCheck: true, StackDepth: true}},
			realVariant{"guard", &instrument.Options{Fuel: true, DirtyPages: true, StackCheck: true, StackDepth: true, HeapGuard: true}},
			realVariant{"check", &instrument.Options{Fuel: true, DirtyPages: true, StackCheck: true, StackDepth: true, HeapGuard: true, HeapCheck: true}})
		for _, v := range variants {
			switch v.name {
			case "original", "counters", "fuel", "dirty", "uncounted", "depth", "guard", "check":
			default:
				continue
			}
			vr := &variant{name: v.name}
			for k := range runLayouts {
				tg, err := newRealTarget(ctx, rt, p.name, padLayout(b, wasm, k), v.opts)
				if err != nil {
					b.Fatal(err)
				}
				order = append(order, slot{vr, p.newRun(rt, tg)})
			}
			vs = append(vs, vr)
		}
		b.Run(p.name, func(b *testing.B) {
			for _, v := range vs {
				v.ns = v.ns[:0]
			}
			for i := 0; i < b.N; i++ {
				for j := range order {
					s := order[(i+j)%len(order)]
					s.v.ns = append(s.v.ns, s.run(b))
				}
			}
			base := median(vs[0].ns)
			b.ReportMetric(base, "original-ns")
			for _, v := range vs[1:] {
				b.ReportMetric(median(v.ns)/base, "x-"+v.name)
			}
		})
		rt.Close(ctx)
	}
}

// runCommand runs tg's _start once on a fresh instance with stdin and
// returns its wall time in ns (instantiation and a garbage collection
// before the clock starts).
func runCommand(b *testing.B, rt wazero.Runtime, tg *realTarget, stdin string) float64 {
	ctx := context.Background()
	b.StopTimer()
	defer b.StartTimer()
	st := &wasip1.State{Base: tg.base(), Args: []string{tg.name}, Stdin: []byte(stdin), Seed: 1}
	rctx := wasip1.WithState(ctx, st)
	mod, err := rt.InstantiateModule(rctx, tg.cm, wazero.NewModuleConfig().WithStartFunctions())
	if err != nil {
		b.Fatal(err)
	}
	defer mod.Close(ctx)
	if tg.sm != nil && tg.sm.Layout.FuelExport != "" {
		mod.ExportedGlobal(tg.sm.Layout.FuelExport).(api.MutableGlobal).Set(realFuel)
	}
	start := mod.ExportedFunction("_start")
	goruntime.GC()
	b.StartTimer()
	t0 := time.Now()
	_, err = start.Call(rctx)
	ns := float64(time.Since(t0).Nanoseconds())
	b.StopTimer()
	var exit *sys.ExitError
	if err != nil && (!errors.As(err, &exit) || exit.ExitCode() != 0) {
		b.Fatalf("%s: run failed: %v", tg.name, err)
	}
	return ns
}

// newReactorRun instantiates tg as a reactor (_initialize, then malloc
// for the input) and returns what calls LLVMFuzzerTestOneInput on in
// calls times and reports the mean ns per call. The instance stays open
// until the runtime closes.
func newReactorRun(b *testing.B, rt wazero.Runtime, tg *realTarget, in []byte, calls int) func(*testing.B) float64 {
	ctx := wasip1.WithState(context.Background(), &wasip1.State{Base: tg.base(), Args: []string{tg.name}, Seed: 1})
	mod, err := rt.InstantiateModule(ctx, tg.cm, wazero.NewModuleConfig().WithStartFunctions().WithName(""))
	if err != nil {
		b.Fatal(err)
	}
	if f := mod.ExportedFunction("_initialize"); f != nil {
		if _, err := f.Call(ctx); err != nil {
			b.Fatalf("%s: _initialize: %v", tg.name, err)
		}
	}
	res, err := mod.ExportedFunction("malloc").Call(ctx, uint64(len(in)))
	if err != nil || res[0] == 0 {
		b.Fatalf("%s: malloc: %v", tg.name, err)
	}
	ptr := uint32(res[0])
	if !mod.Memory().Write(uint32(tg.base())+ptr, in) {
		b.Fatalf("%s: input buffer outside memory", tg.name)
	}
	var fuel api.MutableGlobal
	if tg.sm != nil && tg.sm.Layout.FuelExport != "" {
		fuel = mod.ExportedGlobal(tg.sm.Layout.FuelExport).(api.MutableGlobal)
	}
	test := mod.ExportedFunction("LLVMFuzzerTestOneInput")
	stack := make([]uint64, 2)
	return func(b *testing.B) float64 {
		if fuel != nil {
			b.StopTimer()
			fuel.Set(realFuel)
			b.StartTimer()
		}
		t0 := time.Now()
		for range calls {
			stack[0], stack[1] = uint64(ptr), uint64(len(in))
			if err := test.CallWithStack(ctx, stack); err != nil {
				b.Fatalf("%s: %v", tg.name, err)
			}
		}
		return float64(time.Since(t0).Nanoseconds()) / float64(calls)
	}
}

// benchCache is a compilation cache in the user's cache directory, shared
// by benchmark runs (wazero keys it by module and wazero version).
func benchCache(b *testing.B) wazero.CompilationCache {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	c, err := wazero.NewCompilationCacheWithDir(filepath.Join(dir, "wafer", "bench-instrument"))
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// runLayouts is the number of code layouts BenchmarkRun pools.
const runLayouts = 8

// padLayout returns wasm with k never-taken global increments prepended to
// its first defined function, behind `global.get $pad; if` on a new
// mutable global holding 0: the function's machine code grows with k, and
// every later function moves by a multiple of 16 bytes. k = 0 still adds
// the global and the empty if, so every layout has the same sites.
func padLayout(b *testing.B, wasm []byte, k int) []byte {
	b.Helper()
	m, err := instrument.Decode(wasm)
	if err != nil {
		b.Fatal(err)
	}
	if len(m.Code) == 0 {
		b.Fatal("padLayout: no function to pad")
	}
	g := uint64(m.NumImported(instrument.ExternGlobal)) + uint64(len(m.Globals))
	m.Globals = append(m.Globals, instrument.Global{
		Type: instrument.GlobalType{Type: instrument.TI32, Mutable: true},
		Init: instrument.Expr{Instrs: []instrument.Instr{{Op: instrument.OpI32Const}, {Op: instrument.OpEnd}}},
	})
	pad := []instrument.Instr{{Op: instrument.OpGlobalGet, A: g}, {Op: instrument.OpIf, C: 0x40}}
	for range k {
		pad = append(pad,
			instrument.Instr{Op: instrument.OpGlobalGet, A: g},
			instrument.Instr{Op: instrument.OpI32Const, A: 1},
			instrument.Instr{Op: instrument.OpI32Add},
			instrument.Instr{Op: instrument.OpGlobalSet, A: g})
	}
	pad = append(pad, instrument.Instr{Op: instrument.OpEnd})
	body := &m.Code[0].Body
	body.Instrs = append(pad, body.Instrs...)
	return m.Encode()
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	x = slices.Clone(x)
	slices.Sort(x)
	return x[len(x)/2]
}

// BenchmarkReadoutClear measures what runtime/ does after every execution
// with the chosen placement: take a zero-copy view of N counter bytes in
// the instance's memory, find the hit ones 8 bytes at a time, clear them.
// About 1% of the counters are hit, as in a typical run; "mark" alone (the
// simulated hits) is the baseline to subtract.
func BenchmarkReadoutClear(b *testing.B) {
	ctx := context.Background()
	wasm := benchRead(b, "testdata/programs/gobig/gobig.wasm")
	out, sm, err := instrument.Instrument(wasm, instrument.Options{})
	if err != nil {
		b.Fatal(err)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler())
	defer rt.Close(ctx)
	if _, err := wasip1.Instantiate(ctx, rt); err != nil {
		b.Fatal(err)
	}
	mod, err := rt.InstantiateWithConfig(ctx, out, wazero.NewModuleConfig().WithStartFunctions())
	if err != nil {
		b.Fatal(err)
	}
	mem := mod.ExportedMemory(sm.Layout.MemoryExport)
	b.Logf("gobig: %d sites, %d reserved pages", sm.Layout.Counters, sm.Layout.ReservedPages)
	for _, n := range []uint32{1_000, 10_000, 100_000} {
		if n > mem.Size() {
			b.Fatalf("memory has %d bytes, need %d", mem.Size(), n)
		}
		mark := func(i int) {
			v, _ := mem.Read(sm.Layout.CountersOffset, n)
			for j := uint32(i % 97); j < n; j += 97 {
				v[j]++
			}
		}
		b.Run(benchSize(n)+"/mark", func(b *testing.B) {
			var cpu benchCPU
			cpu.begin()
			for i := 0; i < b.N; i++ {
				mark(i)
			}
			cpu.end()
			cpu.report(b, 0)
			v, _ := mem.Read(sm.Layout.CountersOffset, n)
			clear(v)
		})
		b.Run(benchSize(n)+"/mark+readout+clear", func(b *testing.B) {
			var hits int
			var cpu benchCPU
			cpu.begin()
			for i := 0; i < b.N; i++ {
				mark(i)
				view, ok := mem.Read(sm.Layout.CountersOffset, n)
				if !ok {
					b.Fatal("counters not readable")
				}
				for j := 0; j+8 <= len(view); j += 8 {
					if binary.LittleEndian.Uint64(view[j:]) == 0 {
						continue
					}
					for k := j; k < j+8; k++ {
						if view[k] != 0 {
							hits++
						}
					}
				}
				clear(view)
			}
			cpu.end()
			cpu.report(b, 0)
			b.ReportMetric(float64(hits)/float64(b.N), "hits/op")
		})
	}
}

// benchSize names a count: 1000 → "1k".
func benchSize(n uint32) string {
	switch {
	case n >= 1000 && n%1000 == 0:
		return benchSize(n/1000) + "k"
	case n < 10:
		return string(rune('0' + n))
	}
	return benchSize(n/10) + string(rune('0'+n%10))
}

// BenchmarkInstantiate measures what BenchmarkRun leaves out of its
// clock: instantiating a fresh instance of a C command, original and
// instrumented with counters (one more 64 KiB page of memory, the
// counters' global and exports).
//
//	go test ./instrument -run '^$' -bench Instantiate -count 6
func BenchmarkInstantiate(b *testing.B) {
	ctx := context.Background()
	for _, p := range benchPrograms[:2] { // the C programs
		orig := benchRead(b, p.path)
		inst, _, err := instrument.Instrument(orig, instrument.Options{})
		if err != nil {
			b.Fatal(err)
		}
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler())
		if _, err := wasip1.Instantiate(ctx, rt); err != nil {
			b.Fatal(err)
		}
		for _, v := range []struct {
			name string
			wasm []byte
		}{{"original", orig}, {"counters", inst}} {
			cm, err := rt.CompileModule(ctx, v.wasm)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(p.name+"/"+v.name, func(b *testing.B) {
				for b.Loop() {
					st := &wasip1.State{Args: []string{p.name}, Seed: 1}
					mod, err := rt.InstantiateModule(wasip1.WithState(ctx, st), cm, wazero.NewModuleConfig().WithName("").WithStartFunctions())
					if err != nil {
						b.Fatal(err)
					}
					mod.Close(ctx)
				}
			})
		}
		rt.Close(ctx)
	}
}
