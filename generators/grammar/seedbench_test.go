package grammar

import (
	"math/rand/v2"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
)

// BenchmarkSeedParse parses sentences of the shipped grammars (100 per
// grammar, from random sequences): the cost of reading seeds.
func BenchmarkSeedParse(b *testing.B) {
	for _, p := range shipped {
		b.Run(p[len("../grammars/"):], func(b *testing.B) {
			g := mustLoad(b, p)
			sr, err := g.NewSeedReader(Options{})
			if err != nil {
				b.Fatal(err)
			}
			gen := mustGen(b, g, Options{})
			r := rand.New(rand.NewPCG(1, 1))
			var ins [][]byte
			size := 0
			for range 100 {
				in, _ := generators.Run(gen, randomSeq(r), generators.Options{})
				ins = append(ins, in)
				size += len(in)
			}
			b.SetBytes(int64(size / len(ins)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := sr.Parse("s", ins[i%len(ins)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
