package grammar

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
)

// spliceShare splices, n times, a random subtree of one random sentence
// of g into a same-rule subtree of another, and returns how many results
// contain the text the donor subtree derives on its own (a generator
// starting from its rule, fed its bytes), and how many splices were made.
func spliceShare(t *testing.T, g *Grammar, opts Options, seed uint64, n int) (ok, made int) {
	t.Helper()
	gen, err := g.Generator(opts)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 1))
	runner := generators.NewRunner(gen, generators.Options{})
	var seqs []*generators.Sequence
	for range 64 {
		b := make([]byte, 8+r.IntN(120))
		for i := range b {
			b[i] = byte(r.Uint64())
		}
		_, q := runner.Run(generators.FromBytes(b))
		if q.NumSubtrees() > 0 {
			seqs = append(seqs, q)
		}
	}
	alone := map[string]*generators.Runner{}
	for range n {
		q, d := seqs[r.IntN(len(seqs))], seqs[r.IntN(len(seqs))]
		i := r.IntN(q.NumSubtrees())
		typ := q.Subtree(i).Type
		js := d.SubtreesOf(typ)
		if len(js) == 0 {
			continue
		}
		j := js[r.IntN(len(js))]
		c, err := q.Splice(i, d, j)
		if err != nil {
			t.Fatal(err)
		}
		in, _ := runner.Run(c)
		if alone[typ] == nil {
			o := opts
			o.Start = typ
			ag, err := g.Generator(o)
			if err != nil {
				t.Fatal(err)
			}
			alone[typ] = generators.NewRunner(ag, generators.Options{})
		}
		st := d.Subtree(j)
		var sub []byte
		for k := st.Start; k < st.End; k++ {
			sub = append(sub, d.Choice(k).Bytes...)
		}
		want, _ := alone[typ].Run(generators.FromBytes(sub))
		made++
		if strings.Contains(string(in), string(want)) {
			ok++
		} else if opts.MaxDepth > DefaultMaxDepth {
			t.Errorf("splice of %s: %q not in %q", typ, want, in)
		}
	}
	return ok, made
}

// With limits no sentence reaches, a rule's derivation does not depend on
// where it is: a spliced subtree's text is in the result.
func TestSpliceText(t *testing.T) {
	g, err := Parse("T.g4", mustRead(t, "testdata/T.g4"))
	if err != nil {
		t.Fatal(err)
	}
	ok, made := spliceShare(t, g, Options{MaxDepth: 1000, MaxSize: 1 << 20}, 1, 500)
	if made < 400 || ok != made {
		t.Fatalf("%d of %d splices kept the donor's text", ok, made)
	}
}

// With the default limits, depth and size change some derivations; most
// splices still carry the donor's text.
func TestSpliceTextJSON(t *testing.T) {
	src, err := os.ReadFile("../grammars/JSON.g4")
	if err != nil {
		t.Fatal(err)
	}
	g, err := Parse("JSON.g4", src)
	if err != nil {
		t.Fatal(err)
	}
	ok, made := spliceShare(t, g, Options{}, 2, 600)
	t.Logf("%d of %d splices kept the donor's text", ok, made)
	if made < 300 || ok*10 < made*8 {
		t.Fatalf("%d of %d splices kept the donor's text, want 80 %%", ok, made)
	}
}
