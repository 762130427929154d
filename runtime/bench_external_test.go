package runtime

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/internal/wasip1"
)

// BenchmarkExternal measures any libFuzzer-style or Go reactor target on
// one input: the bare-wazero ceiling, Worker.Run per reset mode on the
// instrumented module, and the ceiling's loop per instrumentation option.
// It runs only when WAFER_BENCH_WASM and WAFER_BENCH_INPUT name the files
// (a relative path is from the repository's root):
//
//	WAFER_BENCH_WASM=examples/gojson/gojson.wasm WAFER_BENCH_INPUT=examples/gojson/seeds/x \
//	  go test ./runtime -run '^$' -bench External -count 6
func BenchmarkExternal(b *testing.B) {
	wasmPath, inputPath := os.Getenv("WAFER_BENCH_WASM"), os.Getenv("WAFER_BENCH_INPUT")
	if wasmPath == "" || inputPath == "" {
		b.Skip("set WAFER_BENCH_WASM and WAFER_BENCH_INPUT")
	}
	fromRoot := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join("..", p) // go test runs in runtime/
	}
	wasmPath, inputPath = fromRoot(wasmPath), fromRoot(inputPath)
	wasm, err := os.ReadFile(wasmPath)
	if err != nil {
		b.Fatal(err)
	}
	in, err := os.ReadFile(inputPath)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("ceiling", func(b *testing.B) {
		ctx := context.Background()
		r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(benchCache(b)))
		defer r.Close(ctx)
		if _, err := wasip1.Instantiate(ctx, r); err != nil {
			b.Fatal(err)
		}
		ctx = wasip1.WithState(ctx, &wasip1.State{})
		mod, err := r.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithStartFunctions())
		if err != nil {
			b.Fatal(err)
		}
		if f := mod.ExportedFunction("_initialize"); f != nil {
			if _, err := f.Call(ctx); err != nil {
				b.Fatal(err)
			}
		}
		res, err := mod.ExportedFunction("malloc").Call(ctx, uint64(len(in)+1))
		if err != nil {
			b.Fatal(err)
		}
		ptr, fn, mem, stack := uint32(res[0]), mod.ExportedFunction(exportTest), mod.Memory(), make([]uint64, 2)
		b.ResetTimer()
		cpu0 := cpuTime()
		for range b.N {
			buf, _ := mem.Read(ptr, uint32(len(in)))
			copy(buf, in)
			stack[0], stack[1] = uint64(ptr), uint64(len(in))
			if err := fn.CallWithStack(ctx, stack); err != nil {
				b.Fatal(err)
			}
		}
		report(b, cpu0)
	})
	out, sm, err := instrument.Instrument(wasm, fullOpts)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		mode    Reset
		warmUp  [][]byte
		noEmpty bool
	}{
		{"restore", Restore, nil, false},
		// Without the empty run: a harness that sets up state on its first
		// call redoes it every run.
		{"restore-cold", Restore, nil, true},
		{"restore-warm", Restore, [][]byte{in}, false}, // the input itself as warm-up
		{"persistent", Persistent, nil, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			tg, err := New(ctx, &instrument.Prepared{Wasm: out, SiteMap: sm}, Config{Reset: tc.mode, WarmUp: tc.warmUp, NoEmptyRun: tc.noEmpty, MaxInputLen: max(len(in), 4096), CacheDir: benchDir(b)})
			if err != nil {
				b.Fatal(err)
			}
			defer tg.Close(ctx)
			benchWorker(b, tg, in)
		})
	}
	// What each instrumentation option costs: the ceiling's loop (callLoop)
	// on the module instrumented with every function skipped (the memory
	// moved up by the reserved pages, no counters), counters, counters and
	// fuel, and all three options.
	for _, v := range []struct {
		name string
		opts instrument.Options
	}{
		{"loop/skipped", instrument.Options{Skip: []string{"*"}}},
		{"loop/counters", instrument.Options{}},
		{"loop/fuel", instrument.Options{Fuel: true}},
		{"loop/dirty", fullOpts},
	} {
		out, sm, err := instrument.Instrument(wasm, v.opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(v.name, func(b *testing.B) {
			ctx := context.Background()
			tg, err := New(ctx, &instrument.Prepared{Wasm: out, SiteMap: sm}, Config{Reset: Persistent, Timeout: -1, MaxInputLen: max(len(in), 4096), CacheDir: benchDir(b)})
			if err != nil {
				b.Fatal(err)
			}
			defer tg.Close(ctx)
			w, err := tg.NewWorker(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close(ctx)
			callLoop(b, w, in)
		})
	}
}
