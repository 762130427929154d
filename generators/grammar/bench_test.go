package grammar

import (
	"math/rand/v2"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
)

// BenchmarkGenerate runs each shipped grammar's generator, and the
// built-in JSON generator for comparison, on 256 prepared random
// sequences (one Runner, as a worker has):
//
//	go test ./generators/grammar -run '^$' -bench Generate -count 6
func BenchmarkGenerate(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	seqs := make([]*generators.Sequence, 256)
	for i := range seqs {
		seqs[i] = randomSeq(r)
	}
	cases := []struct {
		name string
		gen  generators.Generator
	}{{"builtin-json", generators.JSON}}
	for _, p := range shipped {
		cases = append(cases, struct {
			name string
			gen  generators.Generator
		}{p[len("../grammars/"):], mustGen(b, mustLoad(b, p), Options{})})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			runner := generators.NewRunner(c.gen, generators.Options{})
			n, i := 0, 0
			for b.Loop() {
				in, _ := runner.Run(seqs[i%len(seqs)])
				n += len(in)
				i++
			}
			b.ReportMetric(float64(n)/float64(i), "bytes/sentence")
		})
	}
}
