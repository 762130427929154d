package generators

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// sexpr is a tree generator whose frames' draws depend on nothing but
// their own bytes (no depth limit): a node is a leaf ("a".."ccc") or a
// list of 1-3 nodes, an "atom" frame around each leaf. Whatever bytes a
// "node" frame reads, it derives the same text anywhere.
func sexpr(s *Source) []byte {
	var b []byte
	var node func()
	node = func() {
		s.Enter("node")
		defer s.Leave()
		if s.Decide(0.35) {
			n := s.Len(1, 3)
			b = append(b, '(')
			for i := range n {
				if i > 0 {
					b = append(b, ' ')
				}
				node()
			}
			b = append(b, ')')
			return
		}
		s.Enter("atom")
		b = append(b, s.String("abc", 1, 3)...)
		s.Leave()
	}
	node()
	return b
}

// textOf returns the text a "node" or "atom" subtree of q derives on its
// own.
func textOf(t *testing.T, q *Sequence, i int) string {
	t.Helper()
	st := q.Subtree(i)
	var sub []byte
	for k := st.Start; k < st.End; k++ {
		sub = append(sub, q.Choice(k).Bytes...)
	}
	g := sexpr
	if st.Type == "atom" {
		g = func(s *Source) []byte {
			s.Enter("atom")
			defer s.Leave()
			return []byte(s.String("abc", 1, 3))
		}
	}
	out, _ := Run(g, FromBytes(sub), Options{})
	return string(out)
}

// sexprSeqs returns n runs of sexpr over random sequences.
func sexprSeqs(seed uint64, n int) (texts []string, seqs []*Sequence) {
	r := rand.New(rand.NewPCG(seed, 1))
	for range n {
		b := make([]byte, r.IntN(64))
		for i := range b {
			b[i] = byte(r.Uint64())
		}
		in, q := Run(sexpr, FromBytes(b), Options{})
		texts, seqs = append(texts, string(in)), append(seqs, q)
	}
	return texts, seqs
}

func TestSubtrees(t *testing.T) {
	texts, seqs := sexprSeqs(1, 200)
	nested := false
	for n, q := range seqs {
		subs := q.Subtrees()
		if len(subs) == 0 {
			t.Fatalf("run %d (%q): no subtrees", n, texts[n])
		}
		if subs[0].Type != "node" || subs[0].Depth != 0 || subs[0].Parent != -1 || subs[0].Start != 0 || subs[0].End != q.NumChoices() {
			t.Fatalf("run %d: first subtree %+v, want the whole run's node", n, subs[0])
		}
		for i, st := range subs {
			if st.Start >= st.End || st.End > q.NumChoices() {
				t.Fatalf("run %d: subtree %d: bad range %+v", n, i, st)
			}
			for k := st.Start; k < st.End; k++ {
				if ty := q.Choice(k).Types; len(ty) <= st.Depth || ty[st.Depth] != st.Type {
					t.Fatalf("run %d: subtree %d %+v: choice %d has types %v", n, i, st, k, ty)
				}
			}
			if st.Parent >= 0 {
				nested = true
				p := subs[st.Parent]
				if st.Parent >= i || p.Depth != st.Depth-1 || p.Start > st.Start || p.End < st.End {
					t.Fatalf("run %d: subtree %d %+v not inside its parent %+v", n, i, st, p)
				}
			}
			if got := textOf(t, q, i); !strings.Contains(texts[n], got) {
				t.Fatalf("run %d: subtree %d derives %q alone, not in %q", n, i, got, texts[n])
			}
		}
		if got := len(q.SubtreesOf("atom")) + len(q.SubtreesOf("node")); got != len(subs) {
			t.Fatalf("run %d: SubtreesOf counts %d of %d", n, got, len(subs))
		}
	}
	if !nested {
		t.Fatal("no nested subtree in 200 runs")
	}
	if n := FromBytes([]byte{1, 2}).NumSubtrees(); n != 0 {
		t.Fatalf("FromBytes: %d subtrees, want 0", n)
	}
}

// sameChoice reports whether choice i of a and j of b have the same key,
// kind and bytes.
func sameChoice(a *Sequence, i int, b *Sequence, j int) bool {
	x, y := a.Choice(i), b.Choice(j)
	return x.Index == y.Index && x.Kind == y.Kind && bytes.Equal(x.Bytes, y.Bytes)
}

// checkAround asserts that out (the run of an operator's result on q's
// subtree i) keeps q's choices before and after the subtree, and returns
// the number of choices out has in its place.
func checkAround(t *testing.T, q, out *Sequence, i int) int {
	t.Helper()
	st := q.Subtree(i)
	for k := 0; k < st.Start; k++ {
		if !sameChoice(q, k, out, k) {
			t.Fatalf("choice %d before the subtree changed", k)
		}
	}
	after := q.NumChoices() - st.End
	if out.NumChoices() < st.Start+after {
		t.Fatalf("%d choices, fewer than the %d around the subtree", out.NumChoices(), st.Start+after)
	}
	for k := range after {
		if !sameChoice(q, st.End+k, out, out.NumChoices()-after+k) {
			t.Fatalf("choice %d after the subtree changed", st.End+k)
		}
	}
	return out.NumChoices() - st.Start - after
}

func TestReplace(t *testing.T) {
	_, seqs := sexprSeqs(2, 100)
	r := rand.New(rand.NewPCG(2, 2))
	changed := 0
	for _, q := range seqs {
		i := r.IntN(q.NumSubtrees())
		fresh := []byte{byte(r.Uint64()), byte(r.Uint64()), byte(r.Uint64()), byte(r.Uint64())}
		c, err := q.Replace(i, fresh)
		if err != nil {
			t.Fatal(err)
		}
		in, out := Run(sexpr, c, Options{})
		n := checkAround(t, q, out, i)
		st := q.Subtree(i)
		// the new frame reads fresh first
		if got := out.Choice(st.Start).Bytes; !bytes.HasPrefix(fresh, got) && !bytes.HasPrefix(got, fresh) {
			t.Fatalf("first new choice %x does not start from fresh %x", got, fresh)
		}
		if n != st.End-st.Start || !bytes.Equal(out.Bytes(), q.Bytes()) {
			changed++
		}
		c2, _ := q.Replace(i, fresh)
		if in2, _ := Run(sexpr, c2, Options{}); !bytes.Equal(in, in2) {
			t.Fatalf("same fresh bytes, different inputs %q, %q", in, in2)
		}
	}
	if changed < 50 {
		t.Fatalf("only %d of 100 replacements changed the subtree", changed)
	}
}

func TestSplice(t *testing.T) {
	texts, seqs := sexprSeqs(3, 100)
	r := rand.New(rand.NewPCG(3, 3))
	for n := range 300 {
		a, b := r.IntN(len(seqs)), r.IntN(len(seqs))
		q, d := seqs[a], seqs[b]
		i := r.IntN(q.NumSubtrees())
		typ := q.Subtree(i).Type
		cands := d.SubtreesOf(typ)
		if len(cands) == 0 {
			continue
		}
		j := cands[r.IntN(len(cands))]
		c, err := q.Splice(i, d, j)
		if err != nil {
			t.Fatal(err)
		}
		in, out := Run(sexpr, c, Options{})
		k := checkAround(t, q, out, i)
		ds := d.Subtree(j)
		if k != ds.End-ds.Start {
			t.Fatalf("splice %d: %d new choices, donor has %d", n, k, ds.End-ds.Start)
		}
		st := q.Subtree(i)
		for x := range k {
			if !bytes.Equal(out.Choice(st.Start+x).Bytes, d.Choice(ds.Start+x).Bytes) {
				t.Fatalf("splice %d: choice %d differs from the donor's", n, x)
			}
			// types stay attached: the target's frame, then the donor's inner ones
			if got, want := out.Choice(st.Start + x).Types[st.Depth:], d.Choice(ds.Start + x).Types[ds.Depth:]; strings.Join(got, "/") != strings.Join(want, "/") {
				t.Fatalf("splice %d: choice %d types %v, donor's %v", n, x, got, want)
			}
		}
		want := textOf(t, d, j)
		if !strings.Contains(string(in), want) || len(in) != len(texts[a])-len(textOf(t, q, i))+len(want) {
			t.Fatalf("splice %d: %q with %q in place of %q gave %q", n, texts[a], want, textOf(t, q, i), in)
		}
	}
}

func TestRecurseDuplicate(t *testing.T) {
	texts, seqs := sexprSeqs(4, 300)
	recursed, duplicated := 0, 0
	for n, q := range seqs {
		for inner := range q.NumSubtrees() {
			for outer := q.Subtree(inner).Parent; outer >= 0; outer = q.Subtree(outer).Parent {
				if q.Subtree(outer).Type != q.Subtree(inner).Type {
					continue
				}
				c, err := q.Recurse(outer, inner)
				if err != nil {
					t.Fatal(err)
				}
				in, out := Run(sexpr, c, Options{})
				checkAround(t, q, out, inner)
				ot, it := textOf(t, q, outer), textOf(t, q, inner)
				if !strings.Contains(string(in), ot) || len(in) != len(texts[n])-len(it)+len(ot) {
					t.Fatalf("run %d: nesting %q in place of %q in %q gave %q", n, ot, it, texts[n], in)
				}
				if len(out.SubtreesOf("node")) <= len(q.SubtreesOf("node")) {
					t.Fatalf("run %d: recursion did not add nodes", n)
				}
				recursed++
				break
			}
			for dst := range q.NumSubtrees() {
				if dst == inner || q.Subtree(dst).Parent != q.Subtree(inner).Parent || q.Subtree(dst).Type != q.Subtree(inner).Type {
					continue
				}
				c, err := q.Duplicate(inner, dst)
				if err != nil {
					t.Fatal(err)
				}
				in, _ := Run(sexpr, c, Options{})
				st, dt := textOf(t, q, inner), textOf(t, q, dst)
				if strings.Count(string(in), st) < 2 || len(in) != len(texts[n])-len(dt)+len(st) {
					t.Fatalf("run %d: copying %q over %q in %q gave %q", n, st, dt, texts[n], in)
				}
				duplicated++
				break
			}
		}
	}
	if recursed < 20 || duplicated < 20 {
		t.Fatalf("%d recursions, %d duplications: too few to tell", recursed, duplicated)
	}
}

func TestTreeErrors(t *testing.T) {
	var q *Sequence
	_, seqs := sexprSeqs(5, 100)
	for _, s := range seqs {
		if len(s.SubtreesOf("atom")) >= 2 {
			q = s
			break
		}
	}
	if q == nil {
		t.Fatal("no sequence with two atoms in 100 runs")
	}
	atoms, nodes := q.SubtreesOf("atom"), q.SubtreesOf("node")
	inner := atoms[0]
	tests := []struct {
		name string
		f    func() (*Sequence, error)
		want string
	}{
		{"index", func() (*Sequence, error) { return q.Replace(q.NumSubtrees(), nil) }, "bad subtree: replace: expected an index in [0, " + itoa(q.NumSubtrees()) + "), got " + itoa(q.NumSubtrees())},
		{"negative", func() (*Sequence, error) { return q.Splice(-1, q, 0) }, "bad subtree: splice target: expected an index in [0, " + itoa(q.NumSubtrees()) + "), got -1"},
		{"donor", func() (*Sequence, error) { return q.Splice(0, FromBytes(nil), 0) }, "bad subtree: splice donor: expected an index in [0, 0), got 0"},
		{"types", func() (*Sequence, error) { return q.Splice(nodes[0], q, atoms[0]) }, "bad subtree: splice: expected a donor of type node, got atom"},
		{"not inside", func() (*Sequence, error) { return q.Recurse(nodes[1], 0) }, "bad subtree: recurse: expected subtree 0 inside subtree " + itoa(nodes[1])},
		{"recurse types", func() (*Sequence, error) { return q.Recurse(0, inner) }, "bad subtree: recurse: expected subtrees of one type, got node and atom"},
		{"self", func() (*Sequence, error) { return q.Duplicate(1, 1) }, "bad subtree: duplicate: expected two sibling subtrees of one type, got 1 and 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.f()
			if got != nil || !errors.Is(err, ErrSubtree) || err.Error() != tc.want {
				t.Fatalf("got %v, %v; want error %q", got, err, tc.want)
			}
		})
	}
}

func itoa(i int) string {
	if i < 0 {
		return "-" + itoa(-i)
	}
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// FuzzTreeOps applies one tree operator, chosen and placed by the input,
// to runs of a generator over the input's bytes, and checks that the
// result runs deterministically, keeps the choices before the subtree,
// gives valid input where the generator does, and (sexpr, whose frames
// are context-free) derives the donor's text in place.
func FuzzTreeOps(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Add([]byte{1, 1, 0xff, 2, 0xff, 0, 0xff, 0, 9, 9, 9, 9, 9, 9, 9, 9})
	f.Add([]byte{2, 2, 0xff, 3, 0xff, 2, 0xff, 1, 0xff, 0, 7, 7, 7, 7, 7, 7, 7, 7})
	f.Add([]byte{3, 3, 0xff, 3, 0xff, 2, 0xff, 1, 1, 0xff, 0, 0xff, 0, 5, 5, 5, 5, 5, 5})
	f.Add([]byte{5, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 8 {
			return
		}
		gens := []struct {
			gen   Generator
			valid func([]byte) error
		}{{sexpr, nil}}
		for _, tc := range generatorCases {
			gens = append(gens, struct {
				gen   Generator
				valid func([]byte) error
			}{tc.gen, tc.valid})
		}
		g := gens[int(data[0])%len(gens)]
		op, x, y := data[1]%4, int(data[2]), int(data[3])
		rest := data[4:]
		runner := NewRunner(g.gen, Options{})
		_, q := runner.Run(FromBytes(rest))
		_, d := runner.Run(FromBytes(rest[len(rest)/2:]))
		if q.NumSubtrees() == 0 {
			return
		}
		i := x % q.NumSubtrees()
		var c *Sequence
		var err error
		switch op {
		case 0:
			c, err = q.Replace(i, rest[:y%len(rest)])
		case 1:
			js := d.SubtreesOf(q.Subtree(i).Type)
			if len(js) == 0 {
				return
			}
			c, err = q.Splice(i, d, js[y%len(js)])
		case 2:
			outer := q.Subtree(i).Parent
			for outer >= 0 && q.Subtree(outer).Type != q.Subtree(i).Type {
				outer = q.Subtree(outer).Parent
			}
			if outer < 0 {
				return
			}
			c, err = q.Recurse(outer, i)
		case 3:
			dst := y % q.NumSubtrees()
			c, err = q.Duplicate(i, dst)
			if errors.Is(err, ErrSubtree) {
				return
			}
			i = dst // the subtree replaced
		}
		if err != nil {
			t.Fatal(err)
		}
		in, out := runner.Run(c)
		in2, out2 := runner.Run(c)
		if !bytes.Equal(in, in2) || !out.Equal(out2) {
			t.Fatalf("two runs of the result differ")
		}
		if in3, _ := runner.Run(out); !bytes.Equal(in, in3) {
			t.Fatalf("replaying the result's run differs")
		}
		st := q.Subtree(i)
		for k := 0; k < st.Start; k++ {
			if !sameChoice(q, k, out, k) {
				t.Fatalf("choice %d before the subtree changed", k)
			}
		}
		if g.valid != nil {
			if err := g.valid(in); err != nil {
				t.Fatalf("invalid input after a tree operator: %v: %q", err, in)
			}
		}
		if data[0]%byte(len(gens)) == 0 && op == 1 {
			checkAround(t, q, out, i)
		}
	})
}
