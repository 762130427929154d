package instrument

import (
	"context"
	_ "embed"
	"fmt"
	goruntime "runtime"
	"testing"

	"github.com/tetratelabs/wazero"
)

// testdata/hot.wat, rebuilt by testdata/build.sh.
//
//go:embed testdata/hot.wasm
var hotWasm []byte

// BenchmarkCounterForm measures the increment in wazero's compiler: ns
// per loop iteration of testdata/hot.wat ("loop": 9 counter hits per
// iteration; "calls": 5 hits and a call in half the iterations; "tight": a
// leaf loop of two sites, one hit per iteration), for the original module,
// the instrumented one, and the instrumented one with every counter in
// memory (no leaf loop in locals, nest.go). The numbers are in
// docs/PERFORMANCE.md, "The counter's form and its increment".
//
//	go test ./instrument -run '^$' -bench CounterForm -count 6
func BenchmarkCounterForm(b *testing.B) {
	ctx := context.Background()
	forms := []struct {
		name string
		inst bool
		opts Options
	}{
		{"original", false, Options{}},
		{"counters", true, Options{}},
		{"memory-only", true, Options{nestSites: -1}},
	}
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler())
	defer rt.Close(ctx)
	const iters = 1 << 16
	for _, fn := range []string{"loop", "calls", "tight"} {
		for _, f := range forms {
			wasm := hotWasm
			if f.inst {
				var err error
				wasm, _, err = Instrument(hotWasm, f.opts)
				if err != nil {
					b.Fatal(err)
				}
			}
			mod, err := rt.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithName(""))
			if err != nil {
				b.Fatal(err)
			}
			call := mod.ExportedFunction(fn)
			b.Run(fmt.Sprintf("%s/%s", fn, f.name), func(b *testing.B) {
				// The machine is shared: thread CPU time is far less noisy
				// than wall time, so report both.
				goruntime.LockOSThread()
				defer goruntime.UnlockOSThread()
				cpu0 := threadCPU()
				for b.Loop() {
					if _, err := call.Call(ctx, iters); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(threadCPU()-cpu0)/float64(b.N)/iters, "cpu-ns/iter")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/iters, "ns/iter")
			})
			mod.Close(ctx)
		}
	}
}
