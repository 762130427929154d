package grammar

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
)

// TestSeedRoundTrip: a sentence the generator makes (and its lexer reads
// back as made) parses, and the sequence read from its derivation
// regenerates it byte for byte: over 300 random sequences per grammar of
// retokenizeGrammars (100 with -short), every second with a dictionary.
func TestSeedRoundTrip(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 100
	}
	for _, path := range retokenizeGrammars {
		t.Run(path, func(t *testing.T) {
			g := mustLoad(t, path)
			c, err := g.compile(Options{})
			if err != nil {
				t.Fatal(err)
			}
			sr, err := g.NewSeedReader(Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(40, 2))
			var counts [4]int
			tried := 0
			for i := range n {
				opts := generators.Options{}
				if i%2 == 1 {
					opts.Dictionary = testDict
				}
				seq := randomSeq(r)
				out, err := retokenize(c, seq, opts)
				if err != nil {
					continue // the lexer reads it otherwise: not a sentence of the grammar
				}
				tried++
				tree, err := sr.Parse("sentence", out)
				if err != nil {
					t.Fatalf("%q: %v", out, err)
				}
				// The derivation the parser picks (of several, in an
				// ambiguous grammar) may need higher limits than the
				// generated one.
				fit := sr.Fit(Options{}, []*Tree{tree}, 0)
				fr, err := sr.WithOptions(fit)
				if err != nil {
					t.Fatal(err)
				}
				q, m, err := fr.Sequence(tree, opts)
				counts[m]++
				if err != nil {
					t.Errorf("%q: %v\n%s", out, err, tree)
					continue
				}
				// A generated sentence has the generator's spacing: the
				// same bytes come back.
				again, _ := generators.Run(mustGen(t, g, fit), q, opts)
				if m != MatchBytes || !bytes.Equal(again, out) {
					t.Errorf("%q regenerates as %q (%v)", out, again, m)
				}
			}
			t.Logf("%d sentences: %d same bytes, %d same tokens, %d same types, %d other", tried, counts[0], counts[1], counts[2], counts[3])
		})
	}
}
