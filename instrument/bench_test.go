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

// BenchmarkRun measures the run-time cost of instrumentation on real WASI
// commands: each op runs _start once on a fresh instance of every variant
// (original, counters, counters+fuel, counters+fuel+dirty pages: what a
// campaign runs), in an order that rotates with the
// op, timing only _start (instantiation and a garbage collection happen
// before the clock starts). It reports the median wall time of the
// original and the ratios of the variants' medians to it: a ratio measured
// side by side in one run, which drifts in machine load do not bias as
// they bias one variant timed after another.
//
//	go test ./instrument -run '^$' -bench Run -count 6
func BenchmarkRun(b *testing.B) {
	ctx := context.Background()
	for _, p := range benchPrograms {
		wasm := benchRead(b, p.path)
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler())
		if _, err := wasip1.Instantiate(ctx, rt); err != nil {
			b.Fatal(err)
		}
		type variant struct {
			name string
			tg   *realTarget
			ns   []float64
		}
		var vs []*variant
		for _, v := range realVariants() {
			if v.name != "original" && v.name != "counters" && v.name != "fuel" && v.name != "dirty" {
				continue
			}
			tg, err := newRealTarget(ctx, rt, p.name, wasm, v.opts)
			if err != nil {
				b.Fatal(err)
			}
			vs = append(vs, &variant{name: v.name, tg: tg})
		}
		b.Run(p.name, func(b *testing.B) {
			for _, v := range vs {
				v.ns = v.ns[:0]
			}
			for i := 0; i < b.N; i++ {
				for j := range vs {
					v := vs[(i+j)%len(vs)]
					b.StopTimer()
					st := &wasip1.State{Base: v.tg.base(), Args: []string{p.name}, Stdin: []byte(p.input), Seed: 1}
					rctx := wasip1.WithState(ctx, st)
					mod, err := rt.InstantiateModule(rctx, v.tg.cm, wazero.NewModuleConfig().WithStartFunctions())
					if err != nil {
						b.Fatal(err)
					}
					if v.tg.sm != nil && v.tg.sm.Layout.FuelExport != "" {
						mod.ExportedGlobal(v.tg.sm.Layout.FuelExport).(api.MutableGlobal).Set(realFuel)
					}
					start := mod.ExportedFunction("_start")
					goruntime.GC()
					b.StartTimer()
					t0 := time.Now()
					_, err = start.Call(rctx)
					v.ns = append(v.ns, float64(time.Since(t0).Nanoseconds()))
					b.StopTimer()
					var exit *sys.ExitError
					if err != nil && (!errors.As(err, &exit) || exit.ExitCode() != 0) {
						b.Fatalf("%s: run failed: %v", v.name, err)
					}
					mod.Close(ctx)
					b.StartTimer()
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
