package engine

import (
	"bytes"
	"context"
	"math"
	"slices"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
)

// TestChooseStream: BeDivFuzz's stream choice from given scores and ε on a
// scripted source.
func TestChooseStream(t *testing.T) {
	const below = 0          // a uniform draw of 0: under any ε > 0
	const above = ^uint64(0) // a uniform draw of ~1: over any ε < 1
	tests := []struct {
		name   string
		rs, rv float64
		eps    float64
		empty  bool
		u64s   []uint64
		ints   []int
		want   uint8
	}{
		{"v empty: s, no draw", 0, 1, 0.2, true, nil, nil, streamS},
		{"explore, coin says v", 0.9, 0, 0.2, false, []uint64{below}, []int{1}, streamV},
		{"explore, coin says s", 0, 0.9, 0.2, false, []uint64{below}, []int{0}, streamS},
		{"exploit: r_s higher", 0.5, 0.25, 0.2, false, []uint64{above}, nil, streamS},
		{"exploit: r_v higher", 0.25, 0.5, 0.2, false, []uint64{above}, nil, streamV},
		{"exploit: tie, coin", 0.5, 0.5, 0.2, false, []uint64{above}, []int{1}, streamV},
		{"ε = 0: no exploration draw", 0.1, 0.3, 0, false, nil, nil, streamV},
		{"ε edge: 0.2 draws over 0.2 exploit", 0.3, 0.1, 0.2, false, []uint64{1801439850948199 << 11} /* the first draw ≥ 0.2 */, nil, streamS},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &script{t: t, ints: tc.ints, u64s: tc.u64s}
			if got := chooseStream(r, tc.rs, tc.rv, tc.eps, tc.empty); got != tc.want {
				t.Errorf("got stream %d, expected %d", got, tc.want)
			}
			r.done()
		})
	}
}

// TestChooseStreamShares: over many draws, ε = 0.2 with r_s > r_v mutates v
// in ε/2 = 10 % of the children.
func TestChooseStreamShares(t *testing.T) {
	r := &pcgRand{}
	r.Seed(1, 2)
	v := 0
	const n = 20000
	for range n {
		v += int(chooseStream(r, 0.4, 0.1, 0.2, false))
	}
	if got := float64(v) / n; math.Abs(got-0.1) > 0.01 {
		t.Errorf("share of v mutations %.3f, expected 0.100", got)
	}
}

// TestBeDivFuzzMutatesOneStream: a child changes the stream chosen and
// copies the other.
func TestBeDivFuzzMutatesOneStream(t *testing.T) {
	s, v := []byte{1, 2, 3, 4}, []byte{10, 20, 30, 40, 50}
	parent := &Entry{Choices: joinStreams(nil, s, v)}
	m := (&BeDivFuzz{}).NewMutator(0, &MutatorEnv{FreshLen: 64})
	for _, tc := range []struct {
		p    *bedivParam
		want uint8
	}{{&bedivParam{rs: 1, rv: 0, eps: 0.2}, streamS}, {&bedivParam{rs: 0, rv: 1, eps: 0.2}, streamV}} {
		// exploit (Uint64 over ε), m = 1 (IntN(4) = 0), k = 1, l = 2
		// (IntN(4) = 1 then 0), two random bytes 0xaa 0xbb
		r := &script{t: t, u64s: []uint64{^uint64(0), 0xbbaa}, ints: []int{0, 1, 1, 0}}
		child := m.Mutate(nil, &Job{Parent: parent, Param: tc.p}, r)
		r.done()
		cs, cv := splitStreams(child)
		ws, wv := s, v
		if tc.want == streamS {
			ws = []byte{1, 0xaa, 0xbb, 4}
		} else {
			wv = []byte{10, 0xaa, 0xbb, 40, 50}
		}
		if !bytes.Equal(cs, ws) || !bytes.Equal(cv, wv) {
			t.Errorf("stream %d: got s %v v %v, expected s %v v %v", tc.want, cs, cv, ws, wv)
		}
	}
	if kinds := m.Done(nil).([]uint8); len(kinds) != 2 || kinds[0] != streamS || kinds[1] != streamV {
		t.Errorf("note %v, expected [s v]", kinds)
	}
}

// TestStreamsLayout: joinStreams and splitStreams round-trip, and any
// bytes split without panicking into streams that join back within them.
func TestStreamsLayout(t *testing.T) {
	for _, tc := range [][2][]byte{{nil, nil}, {{1}, nil}, {nil, {2, 3}}, {bytes.Repeat([]byte{7}, 300), {9}}} {
		s, v := splitStreams(joinStreams(nil, tc[0], tc[1]))
		if !bytes.Equal(s, tc[0]) || !bytes.Equal(v, tc[1]) {
			t.Errorf("round trip of %v: got %v %v", tc, s, v)
		}
	}
	if s, v := splitStreams([]byte{0xff}); len(s) != 0 || !bytes.Equal(v, []byte{0xff}) {
		t.Errorf("bad header: got s %v v %v, expected no s and the bytes as v", s, v)
	}
	if s, v := splitStreams([]byte{5, 1, 2}); !bytes.Equal(s, []byte{1, 2}) || len(v) != 0 {
		t.Errorf("long header: got s %v v %v, expected s cut to what is there", s, v)
	}
}

func FuzzSplitStreams(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2, 1, 2, 3})
	f.Add([]byte{0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, v := splitStreams(b)
		if len(s)+len(v) > len(b) {
			t.Fatalf("streams longer than the bytes")
		}
		s2, v2 := splitStreams(joinStreams(nil, s, v))
		if !bytes.Equal(s, s2) || !bytes.Equal(v, v2) {
			t.Fatalf("join/split is not a round trip")
		}
	})
}

// FuzzBeDivFuzzMutate: children of any parent split into streams of which
// exactly the chosen one may differ from the parent's, the other equal.
func FuzzBeDivFuzzMutate(f *testing.F) {
	f.Add([]byte{3, 1, 2, 3, 4, 5}, uint64(1), 0.5, 0.1)
	f.Add([]byte{}, uint64(2), 0.0, 0.0)
	f.Fuzz(func(t *testing.T, parent []byte, seed uint64, rs, rv float64) {
		m := (&BeDivFuzz{}).NewMutator(0, &MutatorEnv{FreshLen: 64})
		r := &pcgRand{}
		r.Seed(seed, 0)
		ps, pv := splitStreams(parent)
		j := &Job{Parent: &Entry{Choices: parent}, Param: &bedivParam{rs: rs, rv: rv, eps: 0.2}}
		child := m.Mutate(nil, j, r)
		k := m.Done(j).([]uint8)[0]
		cs, cv := splitStreams(child)
		if k == streamS && !bytes.Equal(cv, pv) || k == streamV && !bytes.Equal(cs, ps) {
			t.Fatalf("stream %d mutated, the other changed: %x|%x -> %x|%x", k, ps, pv, cs, cv)
		}
	})
}

// pairGen draws a structural alternative and a value: its structural
// signature is the alternative.
func pairGen(s *generators.Source) []byte {
	return []byte{byte(s.Pick(4)), byte(s.Int(0, 9))}
}

func seqOf(t *testing.T, st, v []byte) *generators.Sequence {
	t.Helper()
	_, q := generators.Run(pairGen, generators.FromStreams(st, v), generators.Options{})
	return q
}

// TestBeDivFuzzSave: the "structure" rule accepts a valid child with new
// coverage and an unseen signature, and refuses one whose signature was
// saved (even with other structural bytes decoding to the same decision),
// an invalid one and one with nothing new; "simple" drops the signature
// condition.
func TestBeDivFuzzSave(t *testing.T) {
	newCov := Feedback{Outcome: Valid, NewBranch: true}
	with := func(fb Feedback, q *generators.Sequence) *Feedback { fb.Seq = q; return &fb }
	a := seqOf(t, []byte{1}, []byte{5})
	sameDecision := seqOf(t, []byte{5}, []byte{7}) // 5 % 4 == 1
	b := seqOf(t, []byte{2}, []byte{5})
	steps := []struct {
		name         string
		fb           *Feedback
		structure    bool
		simple       bool
		structureNow int // signatures saved after the step
	}{
		{"valid, new branch, new signature", with(newCov, a), true, true, 1},
		{"same decisions, new branch", with(newCov, sameDecision), false, true, 1},
		{"invalid, new branch, new signature", with(Feedback{Outcome: Invalid, NewBranch: true}, b), false, false, 1},
		{"valid, nothing new, new signature", with(Feedback{Outcome: Valid, NewTrace: true, NewValidTrace: true}, b), false, false, 1},
		{"valid, new bucket, new signature", with(Feedback{Outcome: Valid, NewBucket: true}, b), true, true, 2},
		{"valid, new valid branch, seen signature", with(Feedback{Outcome: Valid, NewValidBranch: true}, b), false, true, 2},
	}
	structure, simple := &BeDivFuzz{}, &BeDivFuzz{Simple: true}
	for _, st := range steps {
		if got := structure.Save(nil, st.fb); got != st.structure {
			t.Errorf("%s: structure saves %v, expected %v", st.name, got, st.structure)
		}
		if got := simple.Save(nil, st.fb); got != st.simple {
			t.Errorf("%s: simple saves %v, expected %v", st.name, got, st.simple)
		}
		if len(structure.sigs) != st.structureNow {
			t.Errorf("%s: %d signatures saved, expected %d", st.name, len(structure.sigs), st.structureNow)
		}
	}
}

// TestBeDivFuzzScores: n and u count the current parent's children by
// stream (n from the mutators' notes, u from new valid traces), the scores
// go out with the next job, and both reset when the cycle moves on.
func TestBeDivFuzzScores(t *testing.T) {
	p0 := &Entry{ID: 0, Branches: 10}
	p1 := &Entry{ID: 1, Branches: 10}
	st := &State{Queue: []*Entry{p0, p1}, Cov: &Coverage{Branches: 10}}
	b := &BeDivFuzz{JobSize: 4}
	e, n, param := b.Next(st)
	if e != p0 || n != 4 {
		t.Fatalf("first job: parent %v, %d children, expected p0 and 4", e, n)
	}
	if p := param.(*bedivParam); p.rs != 0 || p.rv != 0 || p.eps != 0.2 {
		t.Fatalf("first job's scores %+v, expected 0, 0, ε 0.2", p)
	}
	j := &Job{Parent: p0}
	note := []uint8{streamS, streamS, streamV, streamS}
	b.Learn(st, j, &Feedback{Outcome: Valid, NewValidTrace: true, Index: 1, Note: note})
	b.Learn(st, j, &Feedback{Outcome: Valid, NewTrace: true, Index: 2, Note: note}) // new trace, not new valid trace
	b.Learn(st, j, &Feedback{Outcome: Valid, NewValidTrace: true, Index: 2, Note: note})
	b.JobDone(st, j, note)
	if rs, rv := b.Scores(); rs != 1.0/3 || rv != 1 {
		t.Fatalf("scores r_s %v r_v %v, expected 1/3 and 1", rs, rv)
	}
	_, _, param = b.Next(st)
	if p := param.(*bedivParam); p.rs != 1.0/3 || p.rv != 1 {
		t.Fatalf("second job's scores %+v, expected 1/3 and 1", p)
	}
	// a late job of another parent does not count
	b.JobDone(st, &Job{Parent: p1}, note)
	if rs, rv := b.Scores(); rs != 1.0/3 || rv != 1 {
		t.Fatalf("another parent's job changed the scores: %v %v", rs, rv)
	}
	for b.cur == p0 {
		e, _, param = b.Next(st)
	}
	if p := param.(*bedivParam); e != p1 || p.rs != 0 || p.rv != 0 {
		t.Fatalf("next parent %v with scores %+v, expected p1 with 0, 0", e, p)
	}
}

// pairTarget is valid when the pair's value is below 8, and covers a site
// per alternative and per value.
var pairTarget = &fakeTarget{sites: 20, run: func(in []byte, c fakeCov) (Outcome, *Failure) {
	c.hit(0)
	if len(in) != 2 {
		return Invalid, nil
	}
	c.hit(1 + int(in[0]%4))
	c.hit(5 + int(in[1]%10))
	if in[1] >= 8 {
		return Invalid, nil
	}
	return Valid, nil
}}

// TestBeDivFuzzCampaign: a campaign with a generator runs deterministically,
// saves only valid entries with distinct signatures ("structure") and
// covers every alternative.
func TestBeDivFuzzCampaign(t *testing.T) {
	run := func(simple bool) *Summary {
		sum, err := Fuzz(context.Background(),
			Config{Search: Search{Strategy: "bedivfuzz", Seed: 3, Runs: 3000, Generative: GenerativeOptions{BeDivSimple: simple}}},
			Deps{NewExecutor: pairTarget.executors(nil), Generator: FromGenerator(pairGen, generators.Options{})})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	a, b := run(false), run(false)
	if len(a.Queue) != len(b.Queue) || a.Stats.Coverage != b.Stats.Coverage {
		t.Fatalf("not deterministic: queues %d and %d", len(a.Queue), len(b.Queue))
	}
	if a.Stats.Coverage != 15 {
		t.Errorf("coverage %d, expected all 15 sites", a.Stats.Coverage)
	}
	sigs := map[uint64]bool{}
	for _, e := range a.Queue[1:] { // the first is the initial sequence, saved whatever it is
		if e.Outcome != Valid {
			t.Errorf("entry %d is %v: structure saves valid children only", e.ID, e.Outcome)
		}
		sig, _ := signature(e.Seq)
		if sigs[sig] {
			t.Errorf("entry %d: signature saved twice", e.ID)
		}
		sigs[sig] = true
		s, v := splitStreams(e.Choices)
		if in, _ := generators.Run(pairGen, generators.FromStreams(s, v), generators.Options{}); !bytes.Equal(in, e.Input) {
			t.Errorf("entry %d: its streams give %v, saved input %v", e.ID, in, e.Input)
		}
	}
	if len(a.Queue) > 1+4 {
		t.Errorf("structure: %d entries for 4 structures", len(a.Queue))
	}
	if s := run(true); len(s.Queue) <= len(a.Queue) {
		t.Errorf("simple saved %d entries, structure %d: expected more without the signature condition", len(s.Queue), len(a.Queue))
	}
}

// TestHillValid: the valid-only abundance counts unique valid traces only,
// and Config.ValidHill reports its Hill numbers as B(0..2).
func TestHillValid(t *testing.T) {
	c := newCoverage(0)
	for _, step := range []struct {
		o    Outcome
		hash uint64
		tr   []byte
	}{
		{Valid, 1, sparse(0, 1, 1, 1)},
		{Invalid, 2, sparse(0, 1, 2, 1, 3, 1)},
		{Valid, 3, sparse(0, 1, 2, 1)},
		{Valid, 3, sparse(0, 1, 2, 1)}, // the same trace again
	} {
		fb := c.classify(step.o, step.hash, step.tr, false)
		c.merge(&fb)
	}
	if got, want := c.ValidAbundance[:4], []uint64{2, 1, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("valid abundance %v, expected %v", got, want)
	}
	if got, want := c.Abundance[:4], []uint64{3, 1, 2, 1}; !slices.Equal(got, want) {
		t.Errorf("abundance %v, expected %v", got, want)
	}
	b0, b1, b2 := c.HillValid()
	// p = 1/2, 1/4, 1/4: B(1) = exp(1.5 ln 2) = 2^1.5, B(2) = 1/(3/8)
	if b0 != 3 || math.Abs(b1-math.Pow(2, 1.5)) > 1e-9 || math.Abs(b2-8.0/3) > 1e-9 {
		t.Errorf("valid Hill numbers %v %v %v, expected 3, 2^1.5, 8/3", b0, b1, b2)
	}
	sum, err := Fuzz(context.Background(), Config{Search: Search{Strategy: "bedivfuzz", Seed: 1, Runs: 500, ValidHill: true}},
		Deps{NewExecutor: pairTarget.executors(nil), Generator: FromGenerator(pairGen, generators.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	st := sum.Stats
	if st.B0 != st.ValidB0 || st.B1 != st.ValidB1 || st.B2 != st.ValidB2 || st.ValidB0 >= float64(st.Coverage) {
		t.Errorf("ValidHill: B %v/%v/%v, valid B %v/%v/%v, coverage %d: expected B = valid B, B(0) below the coverage of invalid runs too",
			st.B0, st.B1, st.B2, st.ValidB0, st.ValidB1, st.ValidB2, st.Coverage)
	}
}
