package engine

import (
	"bytes"
	"context"
	"maps"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
	"github.com/wafer-fuzz/wafer/generators/grammar"
)

func TestParseTreeOps(t *testing.T) {
	tests := []struct {
		in   string
		want TreeOps
		str  string
		err  string
	}{
		{"all", AllTreeOps, "replace,splice,recurse,duplicate", ""},
		{"none", 0, "none", ""},
		{"splice", 1 << TreeSplice, "splice", ""},
		{"duplicate, replace", 1<<TreeDuplicate | 1<<TreeReplace, "replace,duplicate", ""},
		{"replace,graft", 0, "", `unknown tree mutation "graft": expected one of replace, splice, recurse, duplicate`},
	}
	for _, tc := range tests {
		got, err := ParseTreeOps(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want || got.String() != tc.str {
			t.Errorf("%q: got %v (%s), %v; want %v (%s)", tc.in, uint8(got), got, err, uint8(tc.want), tc.str)
		}
	}
}

// treeGrammar's rules derive the same text wherever they are, within
// limits no sentence reaches.
func treeGrammar(t *testing.T) (generators.Generator, *grammar.Grammar) {
	t.Helper()
	src, err := os.ReadFile("../generators/grammar/testdata/T.g4")
	if err != nil {
		t.Fatal(err)
	}
	g, err := grammar.Parse("T.g4", src)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := g.Generator(grammar.Options{MaxDepth: 1000, MaxSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return gen, g
}

// Each strategy's mutator, with one tree operator at share 1, makes
// children the worker runs on the operator's sequence (in every layout:
// BeDivFuzz's streams too), whose used choices replay to the same input
// with no base, as a queue entry is replayed; a splice puts a donor's
// subtree text into the input.
func TestTreeChildren(t *testing.T) {
	gen, _ := treeGrammar(t)
	for _, strategy := range []string{"zest", "bedivfuzz", "spoton"} {
		for op := range numTreeOps {
			t.Run(strategy+"/"+op.String(), func(t *testing.T) {
				tree := TreeOptions{Share: 1, Off: AllTreeOps &^ (1 << op)}
				st, err := NewStrategy(strategy, StrategyOptions{Generative: GenerativeOptions{Tree: tree}})
				if err != nil {
					t.Fatal(err)
				}
				g := FromGenerator(gen, generators.Options{})
				if w, ok := st.(generatorWrapper); ok {
					g = w.wrapGenerator(g)
				}
				g = workerGenerator(g, 0)
				sg := g.(StructuredGenerator)
				r := &pcgRand{}
				r.Seed(7, uint64(op))
				var queue []*Entry
				for i := range 16 {
					fresh := make([]byte, 64)
					fillRandom(fresh, r)
					in, used, seq, err := sg.GenerateFrom(nil, fresh)
					if err != nil {
						t.Fatal(err)
					}
					queue = append(queue, &Entry{ID: i, Choices: used, Input: in, Seq: seq})
				}
				env := &MutatorEnv{FreshLen: 64}
				w := &worker{gen: g, sgen: sg, mut: st.NewMutator(0, env)}
				if im, ok := w.mut.(IndexedMutator); ok {
					w.reuse = im.ReuseIndexes()
				}
				trees, spliced := 0, 0
				for n := range 64 {
					p := queue[n%len(queue)]
					j := &Job{Parent: p, N: 1, Queue: queue}
					if strategy == "bedivfuzz" {
						j.Param = &bedivParam{eps: 0.2}
					}
					child := w.mut.Mutate(nil, j, r)
					tc := w.mut.(treeChilder).treeChild()
					in, used, _, err := w.generate(j, child)
					if err != nil {
						t.Fatal(err)
					}
					if tc == nil {
						continue
					}
					trees++
					if bytes.Equal(tc.Bytes(), p.Seq.(*generators.Sequence).Bytes()) {
						t.Fatalf("child %d: the tree child has its parent's choices", n)
					}
					want, _ := generators.Run(gen, tc, generators.Options{CallSites: strategy == "spoton"})
					if !bytes.Equal(in, want) {
						t.Fatalf("child %d: input %q, the tree child's sequence gives %q", n, in, want)
					}
					if again, _, err := g.Generate(used); err != nil || !bytes.Equal(again, in) {
						t.Fatalf("child %d: used choices replay to %q, want %q (%v)", n, again, in, err)
					}
					if op == TreeSplice {
						for _, d := range queue {
							if d != p && len(d.Input) > 0 && strings.Contains(string(in), string(d.Input)) {
								spliced++ // a whole donor (prog) spliced
								break
							}
						}
					}
				}
				if trees < 32 {
					t.Fatalf("%d of 64 children were tree mutations", trees)
				}
				if op == TreeSplice && spliced == 0 {
					t.Fatalf("no splice carried a donor's whole sentence")
				}
			})
		}
	}
}

// Share -1 (or every operator off) makes no tree child.
func TestTreeOff(t *testing.T) {
	gen, _ := treeGrammar(t)
	_, seq := generators.Run(gen, generators.FromBytes([]byte("some choices")), generators.Options{})
	p := &Entry{Choices: seq.Bytes(), Seq: seq}
	for _, o := range []TreeOptions{{Share: -1}, {Share: 1, Off: AllTreeOps}} {
		tm := newTreeMutator(o)
		r := &pcgRand{}
		for range 100 {
			if _, ok := tm.mutate(nil, &Job{Parent: p, Queue: []*Entry{p}}, r); ok || tm.child != nil {
				t.Fatalf("%+v: made a tree child", o)
			}
		}
	}
}

// A campaign with tree mutations is a function of its seed: with two
// workers and Config.Deterministic, each strategy (the tree arm and a
// portfolio with it included) runs the very same inputs on every campaign
// of a seed.
func TestTreeCampaignDeterministic(t *testing.T) {
	gen, _ := treeGrammar(t)
	tgt := &fakeTarget{sites: 64, run: func(in []byte, c fakeCov) (Outcome, *Failure) {
		for _, b := range in {
			c.hit(int(b) % 64)
		}
		return Valid, nil
	}}
	for _, strat := range []string{"zest", "bedivfuzz", "spoton", "tree", "auto"} {
		record := func() map[[2]uint64]string {
			var mu sync.Mutex
			runs := map[[2]uint64]string{}
			cfg := Config{Search: Search{Strategy: strat, Runs: 1500, Workers: 2, Seed: 3, Deterministic: true,
				Generative: GenerativeOptions{Tree: TreeOptions{Share: 0.5}}}}
			if strat == "auto" {
				cfg.AutoArms = []string{"zest", "bedivfuzz", "tree"}
			}
			deps := Deps{NewExecutor: tgt.executors(nil), Generator: FromGenerator(gen, generators.Options{}),
				OnRun: func(job uint64, child int, in []byte) {
					mu.Lock()
					runs[[2]uint64{job, uint64(child)}] = string(in)
					mu.Unlock()
				}}
			if _, err := Fuzz(context.Background(), cfg, deps); err != nil {
				t.Fatal(err)
			}
			return runs
		}
		a, b := record(), record()
		if len(a) != 1500 || !maps.Equal(a, b) {
			t.Errorf("%s: two campaigns of one seed differ (%d and %d runs)", strat, len(a), len(b))
		}
	}
}

// treeChildren counts the tree children among n children of st's mutator
// (a Zest-layout strategy) from parent p.
func treeChildren(st Strategy, p *Entry, n int) int {
	m := st.NewMutator(0, &MutatorEnv{FreshLen: 64})
	r := &pcgRand{}
	r.Seed(5, 0)
	trees := 0
	for range n {
		m.Mutate(nil, &Job{Parent: p, N: 1, Queue: []*Entry{p}}, r)
		if m.(treeChilder).treeChild() != nil {
			trees++
		}
	}
	return trees
}

// The tree strategy makes every child a tree mutation where one applies
// (with replace alone, always: it applies to any subtree), whatever
// --tree-share says; in a portfolio with the tree arm, zest and bedivfuzz
// draw no tree mutation (the tree arm owns them), without it zest draws
// its share.
func TestTreeArm(t *testing.T) {
	gen, _ := treeGrammar(t)
	_, seq := generators.Run(gen, generators.FromBytes([]byte("some choices to derive a tree from")), generators.Options{})
	if seq.NumSubtrees() == 0 {
		t.Fatal("expected subtrees in the parent")
	}
	p := &Entry{Choices: seq.Bytes(), Seq: seq}
	replace := AllTreeOps &^ (1 << TreeReplace)
	for _, share := range []float64{0, -1, 0.5} {
		st, err := NewStrategy("tree", StrategyOptions{Generative: GenerativeOptions{Tree: TreeOptions{Share: share, Off: replace}}})
		if err != nil {
			t.Fatal(err)
		}
		if n := treeChildren(st, p, 200); n != 200 {
			t.Fatalf("tree share %g: %d of 200 children were tree mutations, expected all", share, n)
		}
	}
	with, err := NewAuto(StrategyOptions{Generative: GenerativeOptions{Tree: TreeOptions{Off: replace}}}, "zest", "bedivfuzz", "tree")
	if err != nil {
		t.Fatal(err)
	}
	a := AsAuto(with)
	if n := treeChildren(a.arms[0].s, p, 200); n != 0 {
		t.Fatalf("zest beside the tree arm made %d tree children, expected none", n)
	}
	if b := a.arms[1].s.(*BeDivFuzz); newTreeMutator(b.Tree).share > 0 {
		t.Fatalf("bedivfuzz beside the tree arm draws tree mutations (share %g)", newTreeMutator(b.Tree).share)
	}
	if n := treeChildren(a.arms[2].s, p, 200); n != 200 {
		t.Fatalf("the tree arm made %d tree children of 200, expected all", n)
	}
	without, err := NewAuto(StrategyOptions{Generative: GenerativeOptions{Tree: TreeOptions{Off: replace}}}, "zest", "bedivfuzz")
	if err != nil {
		t.Fatal(err)
	}
	if n := treeChildren(AsAuto(without).arms[0].s, p, 200); n < 20 || n > 60 {
		t.Fatalf("zest without the tree arm made %d tree children of 200, expected its share 0.2", n)
	}
}
