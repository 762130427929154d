package engine

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
)

// BenchmarkGeneratorLengths runs b.N executions of a campaign on gojson
// with the json generator, one worker, seed 1, per strategy: ns/op is the
// time per execution, and it reports the inputs' mean and median length,
// the measure that explains zest's rate against random's
// (docs/EVALUATION.md, "Generator-mode strategies: BeDivFuzz, SpotOn,
// Zest, random"). Run with -benchtime 30000x -cpuprofile to see
// where the time goes.
func BenchmarkGeneratorLengths(b *testing.B) {
	tgt, sm := loadTarget(b, "../examples/gojson/gojson.wasm", false)
	g, _ := generators.Lookup("json")
	gen := FromGenerator(g, generators.Options{Dictionary: sm.Dictionary})
	for _, st := range []string{"zest", "random", "bedivfuzz", "spoton"} {
		b.Run(st, func(b *testing.B) {
			var mu sync.Mutex
			var lens []int
			_, err := Fuzz(context.Background(), Config{Search: Search{Seed: 1, Runs: int64(b.N), Strategy: st, KeepGoing: true, NoShrink: true}},
				Deps{NewExecutor: runtimeExecutors(tgt), Generator: gen, TargetDict: sm.Dictionary,
					OnRun: func(_ uint64, _ int, in []byte) { mu.Lock(); lens = append(lens, len(in)); mu.Unlock() }})
			if err != nil {
				b.Fatal(err)
			}
			slices.Sort(lens)
			sum := 0
			for _, l := range lens {
				sum += l
			}
			b.ReportMetric(float64(sum)/float64(len(lens)), "bytes/input")
			b.ReportMetric(float64(lens[len(lens)/2]), "p50-bytes")
		})
	}
}
