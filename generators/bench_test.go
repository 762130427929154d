package generators

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkGenerate measures inputs generated per second from fresh random
// sequences (FromBytes of 0–511 random bytes, then PRNG extension): the
// "random" baseline and the start of every run.
func BenchmarkGenerate(b *testing.B) {
	for _, tc := range generatorCases {
		b.Run(tc.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(12, 12))
			seqs := make([]*Sequence, 256)
			for i := range seqs {
				seqs[i] = randomSeq(r)
			}
			runner := NewRunner(tc.gen, Options{Dictionary: testDict})
			size := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				in, _ := runner.Run(seqs[i%len(seqs)])
				size += len(in)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "inputs/s")
			b.ReportMetric(float64(size)/float64(b.N), "B/input")
		})
	}
}

// BenchmarkMutateReplay measures the engine's inner step: Zest-mutate a
// clone of a saved (indexed) sequence and run the generator on it.
func BenchmarkMutateReplay(b *testing.B) {
	for _, tc := range generatorCases {
		b.Run(tc.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(13, 13))
			runner := NewRunner(tc.gen, Options{Dictionary: testDict})
			parents := make([]*Sequence, 64)
			for i := range parents {
				_, parents[i] = runner.Run(randomSeq(r))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				child := parents[i%len(parents)].Clone()
				MutateBytes(r, child.Bytes(), false)
				runner.Run(child)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "inputs/s")
		})
	}
}

func BenchmarkStructuralSignature(b *testing.B) {
	_, q := Run(JSON, randomSeq(rand.New(rand.NewPCG(14, 14))), Options{})
	b.SetBytes(int64(q.Len()))
	for i := 0; i < b.N; i++ {
		q.StructuralSignature()
	}
}
