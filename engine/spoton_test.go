package engine

import (
	"context"
	"maps"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestSpotOnDistances: d_T after a known sequence of found/not-found
// draws: ¾ on found (not below the initial distance), 4/3 on not found (at
// most 1000), replayed from a job's note in order.
func TestSpotOnDistances(t *testing.T) {
	so := &SpotOn{}
	so.dist.grow(2)
	so.dist.init[1] = 0.5 // one credit
	events := []spotEvent{
		{0, false}, {0, false}, {0, true}, // 1 → 4/3 → 16/9 → 4/3
		{1, true},              // 0.5 stays: not below its initial value
		{1, false}, {1, false}, // 0.5 → 2/3 → 8/9
		{1, true}, // 8/9 → 2/3
	}
	so.JobDone(nil, &Job{}, &spotNote{events: events})
	if d := so.dist.d(0); !near(d, 4.0/3) {
		t.Errorf("d_0 = %v, expected 4/3", d)
	}
	if d := so.dist.d(1); !near(d, 2.0/3) {
		t.Errorf("d_1 = %v, expected 2/3", d)
	}
	for range 40 {
		so.dist.missed(0)
	}
	if d := so.dist.d(0); !near(d, spotMaxDistance) {
		t.Errorf("after 40 misses d_0 = %v, expected the cap 1000", d)
	}
	for range 100 {
		so.dist.found(0)
	}
	if d := so.dist.d(0); !near(d, 1) {
		t.Errorf("after 100 finds d_0 = %v, expected its initial 1", d)
	}
}

// TestSpotOnPick: P(T) ∝ 1/d_T.
func TestSpotOnPick(t *testing.T) {
	var d distances
	d.grow(3)
	d.init[0], d.init[1], d.init[2] = 1, 0.5, 1
	d.factor[2] = 4 // d = 1, 0.5, 4: weights 1, 2, 0.25
	r := &pcgRand{}
	r.Seed(4, 4)
	var n [3]int
	const draws = 30000
	for range draws {
		n[d.pick(r)]++
	}
	for i, w := range []float64{1, 2, 0.25} {
		if got, want := float64(n[i])/draws, w/3.25; math.Abs(got-want) > 0.01 {
			t.Errorf("type %d picked %.3f of the time, expected %.3f", i, got, want)
		}
	}
}

// TestSpotOnTargets: targets are the uncovered arms of conditionals with a
// covered arm; non-arms (function entries) never are.
func TestSpotOnTargets(t *testing.T) {
	// site 0: a function entry; 1,2: an if; 3,4,5: a br_table; 6,7: an
	// if never reached; 8: another entry, uncovered
	so := &SpotOn{Conditionals: []int32{-1, 1, 1, 3, 3, 3, 6, 6, -1}}
	cov := newCoverage(0)
	cov.grow(9)
	for _, s := range []int{0, 1, 4} {
		cov.total[s] = 1
	}
	if got, want := so.Targets(cov), []int{2, 3, 5}; !slices.Equal(got, want) {
		t.Errorf("targets %v, expected %v", got, want)
	}
	cov.total[2] = 1
	if got, want := so.Targets(cov), []int{3, 5}; !slices.Equal(got, want) {
		t.Errorf("after covering site 2: targets %v, expected %v", got, want)
	}
}

// typed draws two typed objects, A (two ints and a string) and B (one
// int), and an untyped int.
func typed(s *generators.Source) []byte {
	var out []byte
	generators.Call(s, "A", func(s *generators.Source) int {
		out = append(out, byte(s.Int(0, 15)), byte(s.Int(0, 15)))
		out = append(out, s.String("xyz", 4, 4)...)
		return 0
	})
	generators.Call(s, "B", func(s *generators.Source) int {
		out = append(out, byte(s.Int(0, 15)))
		return 0
	})
	return append(out, byte(s.Int(0, 15)))
}

// TestSpotOnTargetedMutation: a targeted child rewrites T-annotated
// choices only, whole choices at a time, and runs (indexes reused) to an
// input whose other parts are the parent's.
func TestSpotOnTargetedMutation(t *testing.T) {
	runner := generators.NewRunner(typed, generators.Options{CallSites: true})
	_, q := runner.Run(generators.FromBytes([]byte{1, 2, 0, 0, 0, 0, 0, 0, 3, 4}))
	parent := &Entry{Choices: q.Bytes(), Seq: q}
	so := &SpotOn{Tree: TreeOptions{Share: -1}} // byte mutations only
	so.scan(&State{Queue: []*Entry{parent}})
	if !slices.Equal(so.types, []string{"A", "B"}) {
		t.Fatalf("types %v, expected [A B]", so.types)
	}
	m := so.NewMutator(0, &MutatorEnv{}).(*spotMutator)
	p := &spotParam{targeted: 1, types: so.types, dist: so.dist.clone()}
	p.dist.factor[1] = 1000 // B almost never
	j := &Job{Parent: parent, Param: p}
	// targeted (Uint64 0 < 1), pick A (Uint64 0), one run (IntN(4) = 0)
	// from A's first choice (IntN(len) = 0) over 3 choices (IntN(4) = 1, 1,
	// 0), not zeros (IntN(10) = 5), random bytes
	r := &script{t: t, u64s: []uint64{0, 0, 0xf1f2f3f4f5f6f7f8, 0xe1e2e3e4e5e6e7e8, 0xd1d2d3d4d5d6d7d8}, ints: []int{0, 0, 1, 1, 0, 5}}
	child := m.Mutate(nil, j, r)
	r.done()
	aChoices := q.TypeChoices("A")
	inA := map[int]bool{}
	for _, ci := range aChoices[:3] {
		off, n := q.Span(ci)
		for p := off; p < off+n; p++ {
			inA[p] = true
		}
	}
	for i := range child {
		if !inA[i] && child[i] != q.Bytes()[i] {
			t.Errorf("byte %d outside the rewritten A choices changed: %d -> %d", i, q.Bytes()[i], child[i])
		}
	}
	for _, ci := range aChoices[:3] {
		off, n := q.Span(ci)
		if slices.Equal(child[off:off+n], q.Bytes()[off:off+n]) {
			t.Errorf("A choice %d (%d bytes) not rewritten", ci, n)
		}
	}
	note := m.Done(j).(*spotNote)
	if !slices.Equal(note.child, []int{0}) || len(note.events) != 1 || note.events[0] != (spotEvent{0, true}) {
		t.Errorf("note %+v, expected child type A and one found draw of A", note)
	}
	// the child runs on the parent's indexes: B and the untyped int keep
	// the parent's values
	in, _ := runner.Run(q.WithBytes(child))
	pin, _ := runner.Run(q)
	if in[len(in)-2] != pin[len(pin)-2] || in[len(in)-1] != pin[len(pin)-1] {
		t.Errorf("child %v changed B or the untyped int of parent %v", in, pin)
	}
}

// TestSpotOnMissedDraws: a type the parent lacks is drawn, pushed away
// (4/3), and drawn again; ten misses fall back to a plain mutation.
func TestSpotOnMissedDraws(t *testing.T) {
	runner := generators.NewRunner(typed, generators.Options{})
	_, q := runner.Run(generators.FromBytes([]byte{1, 2, 3}))
	parent := &Entry{Choices: q.Bytes(), Seq: q}
	m := (&SpotOn{Tree: TreeOptions{Share: -1}}).NewMutator(0, &MutatorEnv{}).(*spotMutator)
	var d distances
	d.grow(1)
	j := &Job{Parent: parent, Param: &spotParam{targeted: 1, types: []string{"C"}, dist: d}}
	u := []uint64{0} // targeted
	for range spotDraws {
		u = append(u, 0) // pick C, missing
	}
	u = append(u, 0xff) // the plain mutation's byte
	r := &script{t: t, u64s: u, ints: []int{0, 0, 0}}
	child := m.Mutate(nil, j, r)
	r.done()
	if slices.Equal(child, q.Bytes()) {
		t.Errorf("no mutation")
	}
	note := m.Done(j).(*spotNote)
	if len(note.events) != spotDraws || note.child[0] != -1 {
		t.Fatalf("note %+v: expected %d misses and a plain child", note, spotDraws)
	}
	if want := math.Pow(4.0/3, spotDraws); !near(m.dist.d(0), want) {
		t.Errorf("job-local d_C %v, expected (4/3)^10 = %v", m.dist.d(0), want)
	}
}

// TestSpotOnCredit: a targeted child that newly covers an arm credits its
// type for that conditional, and the type's initial distance for the
// current targets becomes 1/(1+credits).
func TestSpotOnCredit(t *testing.T) {
	so := &SpotOn{Conditionals: []int32{-1, 1, 1, 3, 3}}
	so.types, so.credits = []string{"A", "B"}, make([]map[int32]int, 2)
	so.dist.grow(2)
	cov := newCoverage(0)
	cov.grow(5)
	cov.total[0], cov.total[1] = 1, 1
	st := &State{Cov: cov}
	note := &spotNote{child: []int{1, -1}}
	// child 0 (targeted B) covers site 2 (flipping conditional 1) and 3
	so.Learn(st, &Job{}, &Feedback{Outcome: Valid, NewBranch: true, Index: 0, Note: note, Trace: sparse(0, 1, 2, 1, 3, 1)})
	// child 1 (plain) credits nothing
	so.Learn(st, &Job{}, &Feedback{Outcome: Valid, NewBranch: true, Index: 1, Note: note, Trace: sparse(4, 1)})
	if so.credits[1][1] != 1 || so.credits[1][3] != 1 || so.credits[0] != nil || len(so.credits[1]) != 2 {
		t.Fatalf("credits %v, expected B: {1: 1, 3: 1}", so.credits)
	}
	// now 0,1,2,3 covered: conditional 1 is done, 3 half covered (target 4)
	cov.total[2], cov.total[3] = 1, 1
	so.updateTargets(cov)
	so.initial()
	if !near(so.dist.init[1], 0.5) || !near(so.dist.init[0], 1) {
		t.Errorf("initial distances %v, expected A 1, B 1/2 (one credit among the targets)", so.dist.init)
	}
}

// TestSpotOnFuelBound: a parent that burns k times the queue's mean fuel
// gets about 1/k of Zest's children.
func TestSpotOnFuelBound(t *testing.T) {
	cheap := &Entry{ID: 0, Branches: 10, Fuel: 100}
	dear := &Entry{ID: 1, Branches: 10, Fuel: 700}
	st := &State{Queue: []*Entry{cheap, dear}, Cov: &Coverage{Branches: 10}}
	so := &SpotOn{}
	_, n0, _ := so.Next(st)
	_, n1, _ := so.Next(st)
	if n0 != 200 || n1 != 29 { // 50 × 400/100, 50 × 400/700
		t.Errorf("children %d and %d, expected 200 and 29", n0, n1)
	}
	so = &SpotOn{NoFuelBound: true}
	if _, n, _ := so.Next(st); n != 50 {
		t.Errorf("without the bound: %d children, expected 50", n)
	}
}

// FuzzTargetedMutate: a targeted mutation of any sequence changes only the
// bytes of the listed choices and keeps the length.
func FuzzTargetedMutate(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, uint64(1))
	f.Add([]byte{}, uint64(2))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		_, q := generators.Run(typed, generators.FromBytes(data), generators.Options{CallSites: true})
		for _, typ := range []string{"A", "B"} {
			idx := q.TypeChoices(typ)
			if len(idx) == 0 {
				continue
			}
			r := &pcgRand{}
			r.Seed(seed, 1)
			child := targetedMutate(slices.Clone(q.Bytes()), q, idx, r, 4, 4)
			if len(child) != q.Len() {
				t.Fatalf("length changed")
			}
			in := map[int]bool{}
			for _, ci := range idx {
				off, n := q.Span(ci)
				for p := off; p < off+n; p++ {
					in[p] = true
				}
			}
			for i := range child {
				if !in[i] && child[i] != q.Bytes()[i] {
					t.Fatalf("%s: byte %d outside its choices changed", typ, i)
				}
			}
		}
	})
}

// TestSpotOnCampaign: a campaign on a typed generator runs deterministically
// with call-site indexes and makes targeted children.
func TestSpotOnCampaign(t *testing.T) {
	target := &fakeTarget{sites: 12, run: func(in []byte, c fakeCov) (Outcome, *Failure) {
		c.hit(0)
		if len(in) < 8 {
			return Invalid, nil
		}
		// an if on A's first int, one on B's
		if in[0] == 7 {
			c.hit(1)
		} else {
			c.hit(2)
		}
		if in[6] == 3 {
			c.hit(3)
		} else {
			c.hit(4)
		}
		return Valid, nil
	}}
	run := func() *Summary {
		sum, err := Fuzz(context.Background(),
			Config{Search: Search{Strategy: "spoton", Seed: 5, Runs: 4000}, Conditionals: []int32{-1, 1, 1, 3, 3}},
			Deps{NewExecutor: target.executors(nil), Generator: FromGenerator(typed, generators.Options{})})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	a, b := run(), run()
	if len(a.Queue) != len(b.Queue) || a.Stats.Coverage != b.Stats.Coverage || a.Stats.UniqueTraces != b.Stats.UniqueTraces {
		t.Fatalf("not deterministic")
	}
	if a.Stats.Coverage != 5 {
		t.Errorf("coverage %d, expected all 5 sites", a.Stats.Coverage)
	}
}

// TestSpotOnOptions: GenerativeOptions' cap and draw count reach the
// strategy and its mutators.
func TestSpotOnOptions(t *testing.T) {
	so := newSpotOn(StrategyOptions{Generative: GenerativeOptions{MaxDistance: 10, TypeDraws: 3}})
	so.Next(&State{Cov: newCoverage(0)})
	so.dist.grow(1)
	for range 20 {
		so.dist.missed(0)
	}
	if d := so.dist.d(0); !near(d, 10) {
		t.Errorf("capped distance %v, expected 10", d)
	}
	runner := generators.NewRunner(typed, generators.Options{})
	_, q := runner.Run(generators.FromBytes([]byte{1, 2, 3}))
	m := so.NewMutator(0, &MutatorEnv{}).(*spotMutator)
	var d distances
	d.grow(1)
	j := &Job{Parent: &Entry{Choices: q.Bytes(), Seq: q}, Param: &spotParam{targeted: 1, types: []string{"C"}, dist: d}}
	r := &pcgRand{}
	r.Seed(1, 1)
	m.Mutate(nil, j, r)
	if n := m.Done(j).(*spotNote); len(n.events) != 3 {
		t.Errorf("%d type draws, expected 3", len(n.events))
	}
}

// TestGenerativeDeterministic: with two workers and Config.Deterministic,
// bedivfuzz and spoton run the very same inputs on every run of a seed.
func TestGenerativeDeterministic(t *testing.T) {
	for _, strat := range []string{"bedivfuzz", "spoton"} {
		record := func() map[[2]uint64]string {
			var mu sync.Mutex
			runs := map[[2]uint64]string{}
			_, err := Fuzz(context.Background(),
				Config{Search: Search{Strategy: strat, Seed: 9, Runs: 3000, Workers: 2, Deterministic: true}, Conditionals: []int32{-1, 1, 1, 3, 3}},
				Deps{NewExecutor: pairTarget.executors(nil), Generator: FromGenerator(typed, generators.Options{}),
					OnRun: func(job uint64, child int, in []byte) {
						mu.Lock()
						runs[[2]uint64{job, uint64(child)}] = string(in)
						mu.Unlock()
					}})
			if err != nil {
				t.Fatal(err)
			}
			return runs
		}
		a, b := record(), record()
		if len(a) != 3000 || !maps.Equal(a, b) {
			t.Errorf("%s: two campaigns of one seed differ (%d and %d runs)", strat, len(a), len(b))
		}
	}
}
