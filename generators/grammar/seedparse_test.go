package grammar

import (
	"bytes"
	"errors"
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

// FuzzSeedParse: the seed parser never panics on any input, with each of
// the shipped grammars and the test grammars using modes; a refusal is an
// *Error whose position lies inside the input; an input that parses gets
// a sequence, which, when it matches, regenerates its tokens.
func FuzzSeedParse(f *testing.F) {
	var readers []*SeedReader
	for _, p := range retokenizeGrammars {
		g := mustLoad(f, p)
		sr, err := g.NewSeedReader(Options{})
		if err != nil {
			f.Fatal(err)
		}
		readers = append(readers, sr)
	}
	for _, s := range []string{
		`{"a":[1,2.5,"x",null,true],"b":{"c":"\u00e9"}}`, "[1, 2", "CREATE TABLE t1(a);SELECT*FROM t1",
		"1+2*(3-x)", "[s]\nk=v\n", "<a x=\"1\">t</a>", "{{ x }}", "a,b\n1,\"2\"\n", "\xff\x00",
	} {
		for i := range readers {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		sr := readers[int(which)%len(readers)]
		tree, err := sr.Parse("in", data)
		if err != nil {
			var ge *Error
			if !errors.As(err, &ge) {
				t.Fatalf("error without a position: %v", err)
			}
			if lines := bytes.Count(data, []byte("\n")) + 1; ge.Pos.Line < 1 || ge.Pos.Line > lines || ge.Pos.Col < 1 || ge.File != "in" {
				t.Fatalf("position %d:%d outside the input (%d lines): %v", ge.Pos.Line, ge.Pos.Col, lines, err)
			}
			return
		}
		_ = tree.String()
		q, m, err := sr.Sequence(tree, generators.Options{})
		if err != nil {
			return
		}
		out, _ := generators.Run(sr.c.generate, q, generators.Options{})
		if got := sr.compare(tree, out); got != m || got > MatchTypes {
			t.Fatalf("%q: Sequence says %v, regenerates %q (%v)", data, m, out, got)
		}
	})
}
