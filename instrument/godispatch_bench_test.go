package instrument_test

import (
	"context"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/internal/wasip1"
)

// goReactors are the Go reactor examples BenchmarkGoDispatch runs, each on
// one seed, with the calls of one timed batch.
var goReactors = []struct {
	name, path, seed string
	calls            int
}{
	{"gojson", "../examples/gojson/gojson.wasm", "../examples/gojson/seeds/object.json", 200},
	{"gopng", "../examples/gopng/gopng.wasm", "../examples/gopng/seeds/2x1.png", 20},
	{"goparser", "../examples/goparser/goparser.wasm", "../examples/goparser/seeds/types.src", 50},
}

// BenchmarkGoDispatch measures what Go's resume-point dispatch and the Go
// runtime's counters cost a Go reactor's run, side by side in one run: the
// original module, and what a campaign runs (counters, fuel, dirty pages,
// the stack and call pair options) with the dispatch counted as before
// (x-counted), without it (x-dispatch), and without it and with the
// runtime's functions skipped (x-skip). One instance per variant calls
// LLVMFuzzerTestOneInput on the seed in batches, in an order that rotates
// with the op; it reports the original's median ns per call and each
// variant's median over it. One code layout each (BenchmarkRun pools
// several for the C programs; a Go module takes seconds to compile).
//
//	go test ./instrument -run '^$' -bench GoDispatch -count 6
func BenchmarkGoDispatch(b *testing.B) {
	ctx := context.Background()
	cache := benchCache(b)
	defer cache.Close(ctx)
	campaign := instrument.Options{Fuel: true, DirtyPages: true, HeapGuard: true, StackCheck: true, StackDepth: true, CallPairs: true}
	counted, skip := campaign, campaign
	counted.CountGoDispatch = true
	skip.Skip = []string{"runtime.*"}
	variants := []realVariant{{"original", nil}, {"counted", &counted}, {"dispatch", &campaign}, {"skip", &skip}}
	for _, p := range goReactors {
		wasm, in := benchRead(b, p.path), benchRead(b, p.seed)
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler().WithCompilationCache(cache))
		if _, err := wasip1.Instantiate(ctx, rt); err != nil {
			b.Fatal(err)
		}
		runs := make([]func(*testing.B) float64, len(variants))
		for i, v := range variants {
			tg, err := newRealTarget(ctx, rt, p.name, wasm, v.opts)
			if err != nil {
				b.Fatal(err)
			}
			runs[i] = newReactorRun(b, rt, tg, in, p.calls)
		}
		b.Run(p.name, func(b *testing.B) {
			ns := make([][]float64, len(variants))
			for i := 0; i < b.N; i++ {
				for j := range variants {
					k := (i + j) % len(variants)
					ns[k] = append(ns[k], runs[k](b))
				}
			}
			base := median(ns[0])
			b.ReportMetric(base, "original-ns")
			for k, v := range variants[1:] {
				b.ReportMetric(median(ns[k+1])/base, "x-"+v.name)
			}
		})
		rt.Close(ctx)
	}
}
