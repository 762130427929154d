package generators

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// runMany runs draw on n random sequences and returns the results.
func runMany[T any](n int, opts Options, draw func(s *Source) T) []T {
	r := rand.New(rand.NewPCG(10, 10))
	var out []T
	runner := NewRunner(func(s *Source) []byte { out = append(out, draw(s)); return nil }, opts)
	for range n {
		runner.Run(randomSeq(r))
	}
	return out
}

func share[T any](xs []T, f func(T) bool) float64 {
	n := 0
	for _, x := range xs {
		if f(x) {
			n++
		}
	}
	return float64(n) / float64(len(xs))
}

func TestIntRanges(t *testing.T) {
	tests := []struct {
		lo, hi   int64
		minEdges float64 // least share of lo or hi
	}{
		{0, 0, 1},
		{10, 12, 0.5},
		{-5, 1000, 0.04},
		{0, 1e6, 0.04},
		{math.MinInt64, math.MaxInt64, 0.04},
	}
	for _, tc := range tests {
		xs := runMany(5000, Options{}, func(s *Source) int64 { return s.Int64(tc.lo, tc.hi) })
		for _, x := range xs {
			if x < tc.lo || x > tc.hi {
				t.Fatalf("[%d, %d]: drew %d", tc.lo, tc.hi, x)
			}
		}
		edges := share(xs, func(x int64) bool { return x == tc.lo || x == tc.hi })
		if edges < tc.minEdges {
			t.Errorf("[%d, %d]: boundaries drawn %.3f of the time, expected ≥ %.3f", tc.lo, tc.hi, edges, tc.minEdges)
		}
	}
}

// TestDictionaryRates: string draws take a dictionary entry with
// probability 0.5, integer draws with 0.1 (docs/ALGORITHMS.md §5).
func TestDictionaryRates(t *testing.T) {
	opts := Options{Dictionary: [][]byte{[]byte("select"), []byte("from"), {42, 0, 0, 0}, []byte("1234567"), []byte("NOT-IN-ALPHABET")}}
	strs := runMany(20000, opts, func(s *Source) string { return s.String("abcdefghijklmnopqrstuvwxyz", 0, 10) })
	sd := share(strs, func(x string) bool { return x == "select" || x == "from" })
	if sd < 0.47 || sd > 0.54 {
		t.Errorf("strings: dictionary share %.3f, expected ≈ 0.5", sd)
	}
	if slices.Contains(strs, "NOT-IN-ALPHABET") {
		t.Error("strings: drew an entry outside the alphabet")
	}
	ints := runMany(20000, opts, func(s *Source) int { return s.Int(0, 1e7) })
	id := share(ints, func(x int) bool { return x == 42 || x == 1234567 })
	if id < 0.085 || id > 0.12 {
		t.Errorf("ints: dictionary share %.3f, expected ≈ 0.1", id)
	}
	d := runMany(20000, opts, func(s *Source) bool { _, ok := s.Dict(0.25); return ok })
	if x := share(d, func(b bool) bool { return b }); x < 0.22 || x > 0.28 {
		t.Errorf("Dict(0.25): share %.3f", x)
	}
	t.Logf("dictionary shares: strings %.3f, ints %.3f", sd, id)
}

func TestStructuralCombinators(t *testing.T) {
	if xs := runMany(2000, Options{}, func(s *Source) bool { return s.Decide(0) }); slices.Contains(xs, true) {
		t.Error("Decide(0) returned true")
	}
	if xs := runMany(2000, Options{}, func(s *Source) bool { return s.Decide(1) }); slices.Contains(xs, false) {
		t.Error("Decide(1) returned false")
	}
	if x := share(runMany(10000, Options{}, func(s *Source) bool { return s.Decide(0.3) }), func(b bool) bool { return b }); x < 0.27 || x > 0.33 {
		t.Errorf("Decide(0.3): %.3f", x)
	}
	ws := runMany(10000, Options{}, func(s *Source) int { return s.Weighted(0, 2, 1) })
	if slices.Contains(ws, 0) {
		t.Error("Weighted picked a zero weight")
	}
	if x := share(ws, func(i int) bool { return i == 1 }); x < 0.63 || x > 0.70 {
		t.Errorf("Weighted(0, 2, 1): index 1 share %.3f, expected ≈ 0.667", x)
	}
	ps := runMany(2000, Options{}, func(s *Source) int { return s.Pick(5) })
	for v := range 5 {
		if !slices.Contains(ps, v) {
			t.Errorf("Pick(5) never gave %d", v)
		}
	}
	ls := runMany(5000, Options{}, func(s *Source) int { return s.Len(2, 9) })
	if slices.Min(ls) != 2 || slices.Max(ls) != 9 {
		t.Errorf("Len(2, 9): range [%d, %d]", slices.Min(ls), slices.Max(ls))
	}
	if x := share(ls, func(n int) bool { return n <= 4 }); x < 0.5 {
		t.Errorf("Len(2, 9): sizes ≤ 4 only %.3f of the time; expected small sizes to dominate", x)
	}
	strs := runMany(2000, Options{}, func(s *Source) string { return s.String("xyz", 1, 3) })
	for _, x := range strs {
		if len(x) < 1 || len(x) > 3 || strings.Trim(x, "xyz") != "" {
			t.Fatalf("String(xyz, 1, 3) = %q", x)
		}
	}
	depths := runMany(2000, Options{}, func(s *Source) int {
		d := 0
		for _, c := range sinkTree(s) {
			if c == '(' {
				d++
			}
		}
		return d
	})
	if slices.Max(depths) == 0 {
		t.Error("Recurse never recursed")
	}
	nest := runMany(2000, Options{}, func(s *Source) int { return maxNest(sinkTree(s)) })
	if m := slices.Max(nest); m > 3 {
		t.Errorf("Recurse nested %d deep, limit 3", m)
	}
}

func maxNest(x string) int {
	d, m := 0, 0
	for _, c := range x {
		switch c {
		case '(':
			d++
			m = max(m, d)
		case ')':
			d--
		}
	}
	return m
}

// TestCombinatorKinds: each built-in combinator records the kind it
// documents.
func TestCombinatorKinds(t *testing.T) {
	tests := []struct {
		name string
		draw func(s *Source)
		want Kind
	}{
		{"Int", func(s *Source) { s.Int(0, 100) }, Value},
		{"Int64", func(s *Source) { s.Int64(0, 3) }, Value},
		{"Uint64", func(s *Source) { s.Uint64() }, Value},
		{"Bool", func(s *Source) { s.Bool() }, Value},
		{"String", func(s *Source) { s.String("ab", 0, 9) }, Value},
		{"Bytes", func(s *Source) { s.Bytes(0, 9) }, Value},
		{"Dict", func(s *Source) { s.Dict(0.5) }, Value},
		{"Draw value", func(s *Source) { s.Draw(Value, 3) }, Value},
		{"Decide", func(s *Source) { s.Decide(0.5) }, Structural},
		{"Pick", func(s *Source) { s.Pick(4) }, Structural},
		{"Weighted", func(s *Source) { s.Weighted(1, 2) }, Structural},
		{"Len", func(s *Source) { s.Len(0, 9) }, Structural},
		{"Draw structural", func(s *Source) { s.Draw(Structural, 3) }, Structural},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, q := Run(func(s *Source) []byte { tc.draw(s); return nil }, FromBytes([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9}), Options{Dictionary: testDict})
			if q.NumChoices() == 0 {
				t.Fatal("no choice recorded")
			}
			for i := range q.NumChoices() {
				if k := q.Choice(i).Kind; k != tc.want {
					t.Errorf("choice %d: %v, expected %v", i, k, tc.want)
				}
			}
		})
	}
}

// TestHashPinned pins mix64 and the structural signature: corpora store
// signatures, so the values must not change by accident. (The signature
// changed once on purpose, from the hash of the structural bytes to that of
// the decisions; sequence format 2 stores it.)
func TestHashPinned(t *testing.T) {
	tests := []struct {
		name string
		got  uint64
		want uint64
	}{
		{"mix64 empty", mix64(0, nil), 0x334cac70128a06a5},
		{"mix64 abc", mix64(0, []byte("abc")), 0xba788d5768564076},
		{"mix64 long", mix64(1, []byte("0123456789abcdefghij")), 0x40cd7b36c7c4edb9},
		{"hashString", hashString("json.Value"), 0x7fc0bdc353d3f655},
		{"signature", func() uint64 {
			_, q := Run(JSON, FromBytes([]byte("pinned structural signature input")), Options{})
			return q.StructuralSignature()
		}(), 0xd9e21a11382ff924},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %#x, expected %#x", tc.name, tc.got, tc.want)
		}
	}
}

func TestMutatePositions(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	for range 1000 {
		buf := make([]byte, 64)
		pos := []int{3, 9, 10, 40, 63}
		MutatePositions(r, buf, pos, false)
		for i, b := range buf {
			if b != 0 && !slices.Contains(pos, i) {
				t.Fatalf("position %d changed", i)
			}
		}
	}
	if MutatePositions(r, make([]byte, 8), nil, false) != 0 || MutateBytes(r, nil, false) != 0 {
		t.Fatal("mutated an empty selection")
	}
	buf := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	MutateBytes(r, buf, true)
	for i, b := range buf {
		if b != 0 && b != byte(i+1) {
			t.Fatalf("zero mutation wrote %x", b)
		}
	}
	// Scripted: a fixed PCG state gives a fixed child.
	got := []byte("0123456789abcdef")
	MutateBytes(rand.New(rand.NewPCG(1, 2)), got, false)
	if want := []byte("0123456789abcdef"); string(got) == string(want) {
		t.Errorf("fixed-seed mutation changed nothing")
	}
	runs := 0
	for range 10000 {
		runs += MutateBytes(r, make([]byte, 100), false)
	}
	if m := float64(runs) / 10000; m < 3.8 || m > 4.2 {
		t.Errorf("mean runs %.2f, expected 4", m)
	}
}
