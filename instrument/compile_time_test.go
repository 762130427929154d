package instrument

import (
	"context"
	"os"
	goruntime "runtime"
	"testing"

	"github.com/tetratelabs/wazero"
)

// BenchmarkCompile compares wazero's compile time (thread CPU) for a Go
// program before and after instrumentation: br_table arms become nested
// blocks, so this is where instrumentation could hurt start-up.
//
//	go test ./instrument -run '^$' -bench Compile -count 3
func BenchmarkCompile(b *testing.B) {
	wasm, err := os.ReadFile("testdata/programs/gocalc/gocalc.wasm")
	if err != nil {
		b.Skipf("program not built: %v", err)
	}
	inst, _, err := Instrument(wasm, Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range []struct {
		name string
		wasm []byte
	}{{"original", wasm}, {"counters", inst}} {
		b.Run(v.name, func(b *testing.B) {
			goruntime.LockOSThread()
			defer goruntime.UnlockOSThread()
			ctx := context.Background()
			cpu0 := threadCPU()
			for b.Loop() {
				rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler())
				if _, err := rt.CompileModule(ctx, v.wasm); err != nil {
					b.Fatal(err)
				}
				rt.Close(ctx)
			}
			b.ReportMetric(float64(threadCPU()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}
