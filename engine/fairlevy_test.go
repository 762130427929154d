package engine

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"
)

// TestRarityCutoff: 2^i with 2^(i−1) < min ≤ 2^i (docs/ALGORITHMS.md §3).
func TestRarityCutoff(t *testing.T) {
	for _, tc := range []struct{ min, want uint64 }{
		{0, 0}, {1, 1}, {2, 2}, {3, 4}, {4, 4}, {5, 8}, {16, 16}, {17, 32}, {32, 32}, {33, 64}, {1 << 40, 1 << 40}, {1<<40 + 1, 1 << 41},
	} {
		if got := RarityCutoff(tc.min); got != tc.want {
			t.Errorf("RarityCutoff(%d): expected %d, got %d", tc.min, tc.want, got)
		}
	}
	// property: a power of two, at least min, less than twice min
	r := rand.New(rand.NewPCG(1, 2))
	for range 10_000 {
		m := 1 + r.Uint64N(1<<50)
		c := RarityCutoff(m)
		if c&(c-1) != 0 || c < m || c >= 2*m {
			t.Fatalf("RarityCutoff(%d) = %d: expected the power of two in [min, 2·min)", m, c)
		}
	}
}

// TestFairFuzzTargetsRarestArm: with known hit counts (rarest arm hit 17
// times, so the cutoff is 32) an entry is targeted at its rarest arm, not
// at a rarer site that is no arm; an entry whose rarest arm is above the
// cutoff is skipped, and a banned target is not targeted again.
func TestFairFuzzTargetsRarestArm(t *testing.T) {
	tr := func(sites ...uint32) []byte {
		var b []byte
		for _, s := range sites {
			b = append(b, byte(1), byte(s), byte(s>>8), byte(s>>16))
		}
		return b
	}
	cov := newCoverage(0)
	cov.grow(8)
	// site 0: function entry (no arm), hit 3 times; arms 1..6
	copy(cov.Hits, []uint64{3, 1000, 17, 40, 30, 500, 33, 0})
	cov.Branches = 7
	st := &State{Cov: cov, Execs: 10_000, Conditionals: []int32{-1, 1, 1, 3, 3, 5, 5, 7}}
	common := &Entry{ID: 0, Choices: []byte("aaaa"), Trace: tr(0, 1, 3, 5), Branches: 4}  // rarest arm 3 (40 > 32)
	rare := &Entry{ID: 1, Choices: []byte("bbbb"), Trace: tr(0, 1, 2, 4, 5), Branches: 5} // rarest arm 2 (17)
	rare2 := &Entry{ID: 2, Choices: []byte("cccc"), Trace: tr(0, 4, 6), Branches: 3}      // rarest arm 4 (30)
	st.Queue = []*Entry{common, rare, rare2}
	f := NewFairFuzz(StrategyOptions{Raw: true, FairFuzz: FairFuzzConfig{PlainEvery: -1, ProbeRounds: 8}})
	if got := f.cutoff(st); got != 32 {
		t.Fatalf("expected cutoff 32 for a rarest arm hit 17 times, got %d", got)
	}
	e, n, p := f.Next(st)
	d, ok := p.(Dependent)
	if e != rare || !ok || d.Param.(*fairProbe).target != 2 {
		t.Fatalf("expected a probe job of entry 1 targeting arm 2, got entry %v, param %#v", e.ID, p)
	}
	if want := d.Param.(*fairProbe).runs(4); n != want {
		t.Fatalf("expected %d probe runs, got %d", want, n)
	}
	// the probe job comes back: no I/D probe kept arm 2, so it is banned
	job := &Job{Parent: rare, Param: d.Param, chain: true}
	f.JobDone(st, job, &fairNote{x: []byte("bb"), mask: []uint8{maskO, 0, maskI}, keptID: false})
	e, n, p = f.Next(st)
	if e != rare || n != f.NumCandidates(st, rare) {
		t.Fatalf("expected the masked round of entry 1 with %d children, got entry %d, %d", f.NumCandidates(st, rare), e.ID, n)
	}
	if m, ok := p.(*fairMask); !ok || string(m.x) != "bb" {
		t.Fatalf("expected the trimmed copy as the round's param, got %#v", p)
	}
	e, _, p = f.Next(st)
	if e != rare2 || p.(Dependent).Param.(*fairProbe).target != 4 {
		t.Fatalf("expected entry 2 targeting arm 4 (entry 0 skipped), got entry %d %#v", e.ID, p)
	}
	// next pass: entry 0 skipped again, entry 1's rarest arm 2 banned
	e, _, p = f.Next(st)
	if e != rare2 {
		t.Fatalf("expected entry 2 again (0 not rare, 1's target banned), got entry %d %#v", e.ID, p)
	}
	if f.Banned != 1 || f.Rounds != 3 {
		t.Fatalf("expected 1 banned target and 3 rounds, got %d and %d", f.Banned, f.Rounds)
	}
}

// rareTarget: arm 2 ("rare") is taken when the input starts with "ABCD";
// arm 1 otherwise. With exact, it also needs the length to be 12.
func rareTarget(exact bool) *fakeTarget {
	return &fakeTarget{sites: 4, run: func(in []byte, c fakeCov) (Outcome, *Failure) {
		c.hit(0)
		if bytes.HasPrefix(in, []byte("ABCD")) && (!exact || len(in) == 12) {
			c.hit(2)
		} else {
			c.hit(1)
		}
		return Valid, nil
	}}
}

// runProbe runs a probe job of parent targeting site 2 on target and
// returns its note and the inputs it ran.
func runProbe(t *testing.T, target *fakeTarget, parent []byte, p *fairProbe) (*fairNote, [][]byte) {
	t.Helper()
	var ran [][]byte
	ex, _ := target.executors(func(int) func([]byte) {
		return func(in []byte) { ran = append(ran, slices.Clone(in)) }
	})(context.Background(), 0)
	f := NewFairFuzz(StrategyOptions{Raw: p.id})
	w := newTestWorker(ex, f.NewMutator(0, &MutatorEnv{MaxLen: 1 << 10, FreshLen: 8, Raw: p.id}))
	e := &Entry{Choices: parent, Input: parent}
	j := &Job{Parent: e, N: p.runs(len(parent)), Param: p, chain: true}
	res := w.run(context.Background(), j)
	n, ok := res.note.(*fairNote)
	if !ok {
		t.Fatalf("expected a fairNote, got %#v", res.note)
	}
	if int(res.execs) != len(ran) {
		t.Fatalf("expected %d execs, ran %d", res.execs, len(ran))
	}
	return n, ran
}

// TestFairFuzzMask: the O/I/D mask of a fixture where only known positions
// keep the rare arm: bytes 0..3 ("ABCD") may not be flipped, deleted or
// preceded by an insertion; every later byte may; the end allows I. (An
// insertion before byte 3 of a 'D' keeps the prefix: the test reads the
// byte the probe inserted.)
func TestFairFuzzMask(t *testing.T) {
	parent := []byte("ABCDxxxxxxxx")
	p := &fairProbe{target: 2, maxPos: 4096, id: true}
	n, ran := runProbe(t, rareTarget(false), parent, p)
	if want := 3*len(parent) + 1; len(ran) != want {
		t.Fatalf("expected %d probe runs (3 a byte, I at the end), got %d", want, len(ran))
	}
	want := make([]uint8, len(parent)+1)
	for i := range parent {
		if i >= 4 {
			want[i] = maskAll
		}
	}
	want[len(parent)] = maskI
	// I at 3 is run 3·3+1
	if bytes.HasPrefix(ran[10], []byte("ABCD")) {
		want[3] |= maskI
	}
	if !bytes.Equal(n.mask, want) {
		t.Fatalf("expected mask %v, got %v", want, n.mask)
	}
	if !n.keptID || !bytes.Equal(n.x, parent) {
		t.Fatalf("expected I/D kept and the untrimmed parent, got %v %q", n.keptID, n.x)
	}

	// exact length: only O probes past the prefix keep the arm
	n, _ = runProbe(t, rareTarget(true), parent, p)
	for i, m := range n.mask {
		w := uint8(0)
		if i >= 4 && i < len(parent) {
			w = maskO
		}
		if m != w {
			t.Fatalf("exact fixture: expected mask[%d] = %d, got %d (mask %v)", i, w, m, n.mask)
		}
	}
	if n.keptID {
		t.Fatalf("exact fixture: expected no I/D probe to keep the arm")
	}

	// generator mode: O only, one run per position
	p = &fairProbe{target: 2, maxPos: 4096}
	n, ran = runProbe(t, rareTarget(false), parent, p)
	if len(ran) != len(parent) {
		t.Fatalf("generator mode: expected %d O probes, got %d runs", len(parent), len(ran))
	}
	for i := range parent {
		if got := n.mask[i] & maskO; (got != 0) != (i >= 4) {
			t.Fatalf("generator mode: expected O at %d iff i ≥ 4, mask %v", i, n.mask)
		}
	}

	// a cap of 5 positions: 5 sampled, distinct, the rest fully mutable
	p = &fairProbe{target: 2, maxPos: 5, id: true}
	n, ran = runProbe(t, rareTarget(false), parent, p)
	if len(ran) != 3*5+1 {
		t.Fatalf("capped: expected 16 runs, got %d", len(ran))
	}
	tested := 0
	for i := range parent {
		if n.mask[i] != maskAll {
			tested++
			if i >= 4 {
				t.Fatalf("capped: position %d ≥ 4 lost a bit: %v", i, n.mask)
			}
		}
	}
	if tested > 4 {
		t.Fatalf("capped: expected at most the 4 prefix positions restricted, mask %v", n.mask)
	}
}

// TestFairFuzzTrim: relaxed trimming shortens the parent while the target
// arm is still hit (not the whole trace: the padding's own sites change).
func TestFairFuzzTrim(t *testing.T) {
	target := &fakeTarget{sites: 300, run: func(in []byte, c fakeCov) (Outcome, *Failure) {
		c.hit(0)
		if bytes.Contains(in, []byte("ABCD")) {
			c.hit(2)
		} else {
			c.hit(1)
		}
		c.hit(10 + len(in)%200) // a site per length: the trace always changes
		return Valid, nil
	}}
	parent := append(bytes.Repeat([]byte("p"), 100), append([]byte("ABCD"), bytes.Repeat([]byte("q"), 100)...)...)
	n, ran := runProbe(t, target, parent, &fairProbe{target: 2, maxPos: 4096, trim: true, id: true})
	if !bytes.Contains(n.x, []byte("ABCD")) || len(n.x) > 12 {
		t.Fatalf("expected a trimmed copy of at most 12 bytes keeping ABCD, got %q", n.x)
	}
	probes := 3*len(n.x) + 1
	if len(ran)-probes > trimRuns(len(parent)) {
		t.Fatalf("expected at most %d trimming runs, got %d", trimRuns(len(parent)), len(ran)-probes)
	}
	t.Logf("trimmed %d → %d bytes in %d runs", len(parent), len(n.x), len(ran)-probes)
}

// TestMaskPick: every drawn position's whole range allows the operation,
// and every allowed position is drawn.
func TestMaskPick(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	for range 300 {
		l := r.IntN(40)
		mask := make([]uint8, l+1)
		for i := range mask {
			mask[i] = uint8(r.IntN(8))
		}
		c := []uint8{maskO, maskI, maskD}[r.IntN(3)]
		n := 1 + r.IntN(4)
		limit := l - n
		var allowed []int
		for k := 0; k <= limit; k++ {
			ok := true
			for i := k; i < k+n; i++ {
				ok = ok && mask[i]&c != 0
			}
			if ok {
				allowed = append(allowed, k)
			}
		}
		seen := map[int]bool{}
		for range 400 {
			k := maskPick(mask, c, n, limit, r)
			if len(allowed) == 0 {
				if k != -1 {
					t.Fatalf("mask %v, op %d, n %d: expected -1, got %d", mask, c, n, k)
				}
				break
			}
			if !slices.Contains(allowed, k) {
				t.Fatalf("mask %v, op %d, n %d: drew %d, not in %v", mask, c, n, k, allowed)
			}
			seen[k] = true
		}
		if len(allowed) > 0 && len(allowed) <= 20 && len(seen) != len(allowed) {
			t.Fatalf("mask %v: drew %d of the %d allowed positions", mask, len(seen), len(allowed))
		}
	}
}

// checkProtected reports whether child keeps the protected blocks of the
// fixture parent in order and intact.
func checkProtected(child []byte) bool {
	i := bytes.Index(child, []byte("FORBIDDEN!"))
	return i >= 0 && bytes.Contains(child[i+10:], []byte("KEEP"))
}

// maskFixture: "FORBIDDEN!" at 10..19 and "KEEP" at 40..43 allow nothing
// (no overwrite, no deletion, no insertion before them); other positions
// allow everything.
func maskFixture() *fairMask {
	x := []byte("0123456789FORBIDDEN!abcdefghijklmnopqrstKEEPuvwxyz0123456789")
	if string(x[10:20]) != "FORBIDDEN!" || string(x[40:44]) != "KEEP" {
		panic("maskFixture: blocks misplaced")
	}
	m := fullMask(len(x))
	for i := 10; i < 20; i++ {
		m[i] = 0
	}
	for i := 40; i < 44; i++ {
		m[i] = 0
	}
	return &fairMask{x: x, mask: m}
}

// TestMaskedHavocRespectsMask: 10,000 masked havoc children (AFL's stacking
// of up to 128 operations, tokens, splices) never touch a forbidden byte,
// while the allowed bytes do change, and the mask follows the bytes.
func TestMaskedHavocRespectsMask(t *testing.T) {
	fx := maskFixture()
	env := &MutatorEnv{MaxLen: 4096, Raw: true, Dict: [][]byte{[]byte("TOKEN"), []byte("+")}}
	f := NewFairFuzz(StrategyOptions{Raw: true, Havoc: HavocConfig{StackPow2: 7}})
	m := f.NewMutator(0, env).(*fairMutator)
	parent := &Entry{ID: 0, Choices: fx.x}
	donors := []*Entry{parent, {ID: 1, Choices: bytes.Repeat([]byte("d"), 80)}, {ID: 2, Choices: []byte("short")}}
	j := &Job{Parent: parent, Queue: donors, Param: fx}
	r := rand.New(rand.NewPCG(7, 8))
	changed, lenChanged := 0, 0
	for i := range 10_000 {
		child := m.Mutate(nil, j, r)
		if !checkProtected(child) {
			t.Fatalf("child %d touched a forbidden byte: %q", i, child)
		}
		if len(m.mb) != len(child)+1 {
			t.Fatalf("child %d: mask of %d entries for %d bytes", i, len(m.mb), len(child))
		}
		// the mask followed the bytes: the protected bytes' entries are still 0
		// (copies of it may precede it: look for the one the mask marks)
		found := false
		for k := 0; k+10 <= len(child); k++ {
			if string(child[k:k+10]) == "FORBIDDEN!" && bytes.Equal(m.mb[k:k+10], make([]uint8, 10)) {
				found = true
			}
		}
		if !found {
			t.Fatalf("child %d: the mask did not follow the protected block: %v", i, m.mb)
		}
		if !bytes.Equal(child, fx.x) {
			changed++
		}
		if len(child) != len(fx.x) {
			lenChanged++
		}
	}
	if changed < 9_000 || lenChanged < 1_000 {
		t.Fatalf("expected most children changed and many of other length, got %d and %d of 10000", changed, lenChanged)
	}
	// generator mode: masked Zest keeps the O-forbidden bytes too
	for i := range 10_000 {
		child := maskedZest(slices.Clone(fx.x), fx.mask, r)
		if !bytes.Equal(child[10:20], []byte("FORBIDDEN!")) || !bytes.Equal(child[40:44], []byte("KEEP")) {
			t.Fatalf("masked Zest child %d touched a forbidden byte: %q", i, child)
		}
	}
}

// TestLevyTailExponent: the steps' tail P(|l| > x) ~ x^−α, estimated by
// Hill's estimator on the top 0.1 % of 10^6 samples, is within 10 % of α.
func TestLevyTailExponent(t *testing.T) {
	r := &pcgRand{}
	for _, alpha := range []float64{0.5, 1, 1.5} {
		r.Seed(uint64(alpha*10), 1)
		const n = 1_000_000
		xs := make([]float64, n)
		for i := range xs {
			s := levyStep(alpha, r)
			if s == 0 {
				t.Fatalf("α %g: a zero step", alpha)
			}
			xs[i] = math.Abs(float64(s))
		}
		sort.Float64s(xs)
		k := n / 1000
		var sum float64
		for i := n - k; i < n; i++ {
			sum += math.Log(xs[i] / xs[n-k-1])
		}
		est := float64(k) / sum
		if math.Abs(est-alpha) > 0.1*alpha {
			t.Errorf("α %g: expected a Hill estimate within 10 %%, got %.3f", alpha, est)
		}
		t.Logf("α %g: Hill estimate %.3f (k = %d)", alpha, est, k)
	}
}

// TestLevyAlpha: α_i = 2/(1+e^(b_i − Ē)) for the batch quality Ē against
// the history before the batch, and the FIFO history forgets the oldest
// test cases.
func TestLevyAlpha(t *testing.T) {
	l := NewLevy(StrategyOptions{Workers: 1, Levy: LevyConfig{History: 3, B1: 3, B2: 1, Quality: LevyAbsolute}})
	st := &State{Queue: []*Entry{{Choices: []byte("abcd")}}, Execs: 1, Cov: newCoverage(0)}
	batch := func(sites ...[]uint32) (float64, float64, float64) {
		_, _, p := l.Next(st)
		j := &Job{Param: p.(Dependent).Param}
		l.JobDone(st, j, &levyNote{x: []byte("abcd"), sites: sites})
		return l.Alphas(0)
	}
	want := func(b, e float64) float64 { return 2 / (1 + math.Exp(b-e)) }
	check := func(name string, a1, a2, q, e float64) {
		t.Helper()
		if q != e || math.Abs(a1-want(3, e)) > 1e-12 || math.Abs(a2-want(1, e)) > 1e-12 {
			t.Fatalf("%s: expected Ē %g, α1 %g, α2 %g; got %g, %g, %g", name, e, want(3, e), want(1, e), q, a1, a2)
		}
	}
	// empty history: every site is new; Ē = (3+2)/2, each child against
	// the history before the batch (not against its batch mates)
	a1, a2, q := batch([]uint32{1, 2, 3}, []uint32{1, 2})
	check("first batch", a1, a2, q, 2.5)
	// same sites: nothing new, α at its floor 2/(1+e^b)
	a1, a2, q = batch([]uint32{1, 2, 3})
	check("repeat", a1, a2, q, 0)
	// history now holds the last 3: {1,2}, {1,2,3} and... {1,2,3} twice
	// after this batch; site 9 is new, 1 is not
	a1, a2, q = batch([]uint32{9, 1}, []uint32{8})
	check("new sites", a1, a2, q, 1)
	// history: {1,2,3}, {9,1}, {8}: site 2 is still there; then push two
	// more to evict {1,2,3}: 2 and 3 become new again
	batch([]uint32{9})
	batch([]uint32{8})
	a1, a2, q = batch([]uint32{2, 3, 4})
	check("after eviction", a1, a2, q, 3)
	// Ē large: α → 2
	if a := levyAlpha(3, 50); a != 2 {
		t.Fatalf("expected α 2 for a large quality, got %g", a)
	}
}

// levyBatches feeds l batches of 64 children whose mean number of new
// sites Ē is ks[i]/64 (child j of batch i has ks[i]/64 new sites, plus one
// more for j < ks[i]%64) and returns the offset walk's α and Ē after each.
func levyBatches(l *Levy, ks []int) (alphas, qualities []float64) {
	// the seed executed site 0, as every child does
	st := &State{Queue: []*Entry{{Choices: []byte("abcd"), Trace: []byte{1, 0, 0, 0}}}, Execs: 1, Cov: newCoverage(0)}
	fresh := uint32(1)
	for _, k := range ks {
		_, _, p := l.Next(st)
		j := &Job{Param: p.(Dependent).Param}
		sites := make([][]uint32, 64)
		for c := range sites {
			sites[c] = []uint32{0}
			for range k/64 + min(1, max(0, k%64-c)) {
				sites[c] = append(sites[c], fresh)
				fresh++
			}
		}
		l.JobDone(st, j, &levyNote{x: []byte("abcd"), sites: sites})
		a1, _, q := l.Alphas(0)
		alphas, qualities = append(alphas, a1), append(qualities, q)
	}
	return alphas, qualities
}

// TestLevyRelative: with qualities as low as the examples' (most batches
// find nothing, a few children a site or two), the paper's absolute α
// never leaves its floor while the relative one (the default) does,
// exactly on the batches that found something, above 1 for a batch
// better than the recent mean and at the floor for one that found
// nothing; multiplying every quality by 10 leaves the relative α
// unchanged.
func TestLevyRelative(t *testing.T) {
	floor := levyAlpha(3, 0)
	for seed := range uint64(5) {
		r := &pcgRand{}
		r.Seed(seed, 0)
		ks := make([]int, 400)
		for i := range ks {
			if r.IntN(8) == 0 { // an eighth of the batches find 1-4 sites
				ks[i] = 1 + r.IntN(4)
			}
		}
		abs := NewLevy(StrategyOptions{Workers: 1, Levy: LevyConfig{Quality: LevyAbsolute}})
		aa, _ := levyBatches(abs, ks)
		for i, a := range aa {
			if a > floor+0.01 {
				t.Fatalf("seed %d batch %d: absolute α %g left its floor %g at Ē %g", seed, i, a, floor, float64(ks[i])/64)
			}
		}
		if abs.FloorBatches != len(ks) {
			t.Fatalf("seed %d: expected every batch at the floor, got %d of %d", seed, abs.FloorBatches, len(ks))
		}
		rel := NewLevy(StrategyOptions{Workers: 1})
		ra, rq := levyBatches(rel, ks)
		mean, off := 0.0, 0
		for i, a := range ra {
			// the recent mean, this batch included
			mean += (rq[i] - mean) / float64(min(i+1, levyRecent))
			switch {
			case ks[i] == 0:
				if math.Abs(a-floor) > 1e-12 {
					t.Fatalf("seed %d batch %d: expected the floor %g after nothing new, got %g", seed, i, floor, a)
				}
			case rq[i] > mean*(1+1e-9) && a <= 1:
				t.Fatalf("seed %d batch %d: Ē %g above the recent mean %g, expected α > 1, got %g", seed, i, rq[i], mean, a)
			case rq[i] < mean*(1-1e-9) && a >= 1:
				t.Fatalf("seed %d batch %d: Ē %g below the recent mean %g, expected α < 1, got %g", seed, i, rq[i], mean, a)
			}
			if a > floor+0.01 {
				off++
			}
		}
		novel := 0
		for _, k := range ks {
			if k > 0 {
				novel++
			}
		}
		if off != novel || rel.FloorBatches != len(ks)-novel || novel == 0 {
			t.Fatalf("seed %d: expected α off its floor after the %d batches with new sites, got %d (FloorBatches %d)", seed, novel, off, rel.FloorBatches)
		}
		scaled := slices.Clone(ks)
		for i := range scaled {
			scaled[i] *= 10
		}
		sa, _ := levyBatches(NewLevy(StrategyOptions{Workers: 1}), scaled)
		for i := range ra {
			if math.Abs(sa[i]-ra[i]) > 1e-9 {
				t.Fatalf("seed %d batch %d: expected the same relative α at 10x the quality, got %g and %g", seed, i, ra[i], sa[i])
			}
		}
	}
}

// TestLevyWalk: each child is the previous one with one segment changed,
// the length never changes, and a flight's next batch continues from its
// last child and walk states.
func TestLevyWalk(t *testing.T) {
	for _, segBits := range []int{8, 16, 32} {
		l := NewLevy(StrategyOptions{Workers: 1, Levy: LevyConfig{SegmentBits: segBits, Batch: 50}})
		seed := []byte("0123456789abcdef0123456789abcdef")
		st := &State{Queue: []*Entry{{Choices: seed}}, Execs: 1, Cov: newCoverage(0)}
		m := l.NewMutator(0, &MutatorEnv{FreshLen: 8, Raw: true})
		r := &pcgRand{}
		prev := seed
		seg := segBits / 8
		for b := range 3 {
			_, n, p := l.Next(st)
			if _, _, p2 := l.Next(st); p2 != nil {
				t.Fatalf("expected Wait while the only flight is in flight, got %#v", p2)
			}
			j := &Job{Seq: uint64(b), N: n, Param: p.(Dependent).Param}
			r.Seed(1, j.Seq)
			for range n {
				child := m.Mutate(nil, j, r)
				if len(child) != len(seed) {
					t.Fatalf("%d-bit segments: length changed to %d", segBits, len(child))
				}
				diff := 0
				for s := 0; s < len(seed)/seg; s++ {
					if !bytes.Equal(child[s*seg:(s+1)*seg], prev[s*seg:(s+1)*seg]) {
						diff++
					}
				}
				if diff > 1 {
					t.Fatalf("%d-bit segments: child differs from its predecessor in %d segments", segBits, diff)
				}
				m.Observe(j, Local{})
				prev = child
			}
			note := m.Done(j)
			l.JobDone(st, j, note)
			if !bytes.Equal(l.flights[0].x, prev) {
				t.Fatalf("expected the flight to continue from its last child")
			}
		}
		if bytes.Equal(prev, seed) {
			t.Fatalf("%d-bit segments: 150 children never changed the seed", segBits)
		}
	}
}

// chainStrategy is a scripted dependent strategy: each parent's round is
// a dependent job whose children each append the previous child's
// number of trace sites, ended early by the mutator after a number of
// children that depends on the results; then a plain round whose size is
// the dependent job's result. Two rounds at a time are in flight.
type chainStrategy struct {
	Cycle
	Base
	busy    int
	ready   []chainResult
	results []int
}

type chainResult struct {
	e *Entry
	n int
}

type chainParam struct{ e *Entry }

func (c *chainStrategy) Next(s *State) (*Entry, int, any) {
	if len(c.ready) > 0 {
		r := c.ready[0]
		c.ready = c.ready[1:]
		return r.e, r.n, nil
	}
	if len(s.Queue) == 0 || c.busy >= 2 {
		if c.busy == 0 {
			return c.Cycle.Next(s)
		}
		return nil, Wait, nil
	}
	e, _, _ := c.Cycle.Next(s)
	c.busy++
	return e, 64, Dependent{Param: &chainParam{e: e}}
}

func (c *chainStrategy) JobDone(_ *State, j *Job, note any) {
	if p, ok := j.Param.(*chainParam); ok {
		c.busy--
		n := note.(int)
		c.results = append(c.results, n)
		c.ready = append(c.ready, chainResult{p.e, 1 + n%50})
	}
}

func (c *chainStrategy) NewMutator(int, *MutatorEnv) Mutator { return &chainMutator{} }

type chainMutator struct {
	job   *Job
	last  int
	count int
}

func (m *chainMutator) Mutate(dst []byte, j *Job, r Rand) []byte {
	b := dst[:0]
	if j.Parent != nil {
		b = append(b, j.Parent.Choices...)
	}
	if _, ok := j.Param.(*chainParam); ok {
		if m.job != j {
			m.job, m.last, m.count = j, 0, 0
		}
		m.count++
		b = append(b, byte(m.last))
	}
	if len(b) > 0 {
		b[r.IntN(len(b))] = byte(r.Uint64())
	}
	return b
}

func (m *chainMutator) Observe(j *Job, l Local) {
	if m.job == j {
		m.last = len(l.Trace)/traceEntry + int(l.Outcome)
	}
}

func (m *chainMutator) More(j *Job) bool { return m.job != j || m.count < 3+m.last }

func (m *chainMutator) Done(j *Job) any {
	if m.job != j {
		return nil
	}
	m.job = nil
	return m.count*100 + m.last
}

// TestDependentRunsDeterministic: a strategy that waits for its dependent
// jobs (a scripted one, fairfuzz and levy with two flights, with either
// quality) runs the same inputs with one worker and with two in
// deterministic mode, under perturbed scheduling.
func TestDependentRunsDeterministic(t *testing.T) {
	for _, name := range []string{"chain", "fairfuzz", "levy", "levy-absolute"} {
		t.Run(name, func(t *testing.T) {
			var logs [2]execLog
			var sums [2]*Summary
			var chains [2]*chainStrategy
			for i, workers := range []int{1, 2} {
				target := *progTarget
				inner := target.run
				if i == 1 {
					target.run = func(in []byte, c fakeCov) (Outcome, *Failure) {
						if len(in)%3 == 0 {
							time.Sleep(time.Microsecond)
						}
						return inner(in, c)
					}
				}
				cfg := Config{Search: Search{Seed: 9, Runs: 8000, Workers: workers, Deterministic: true, KeepGoing: true, NoShrink: true, Strategy: name, Levy: LevyConfig{Flights: 2}, FairFuzz: FairFuzzConfig{PlainExecs: 300}}}
				if name == "levy-absolute" {
					cfg.Strategy, cfg.Levy.Quality = "levy", LevyAbsolute
				}
				deps := Deps{NewExecutor: target.executors(nil), OnRun: logs[i].onRun, Seeds: [][]byte{{3, 0, 1, 1, 2, 5, 3, 0xff}}}
				var err error
				switch name {
				case "chain":
					chains[i] = &chainStrategy{}
					sums[i], err = FuzzWith(context.Background(), cfg, deps, chains[i])
				case "fairfuzz":
					f := NewFairFuzz(StrategyOptions{Raw: true, FairFuzz: cfg.FairFuzz})
					sums[i], err = FuzzWith(context.Background(), cfg, deps, f)
					if f.Rounds < 3 {
						t.Fatalf("expected targeted rounds, got %d", f.Rounds)
					}
				default:
					l := NewLevy(StrategyOptions{Raw: true, Workers: workers, Levy: cfg.Levy})
					sums[i], err = FuzzWith(context.Background(), cfg, deps, l)
					if l.Batches < 100 {
						t.Fatalf("expected flights' batches, got %d", l.Batches)
					}
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			h0, n0 := logs[0].hash()
			h1, n1 := logs[1].hash()
			if h0 != h1 || n0 != n1 || n0 != 8000 {
				t.Fatalf("expected identical 8000-run sequences, got %x over %d and %x over %d", h0, n0, h1, n1)
			}
			if len(sums[0].Queue) != len(sums[1].Queue) {
				t.Fatalf("expected identical queues, got %d and %d entries", len(sums[0].Queue), len(sums[1].Queue))
			}
			if name == "chain" {
				if !slices.Equal(chains[0].results, chains[1].results) || len(chains[0].results) < 10 {
					t.Fatalf("expected the same dependent results, got %v and %v", chains[0].results, chains[1].results)
				}
				// the mutator ended its jobs early: 3+last children, never 64
				for _, r := range chains[0].results {
					if r/100 >= 64 {
						t.Fatalf("expected dependent jobs ended early, got %d children", r/100)
					}
				}
			}
			t.Logf("%s: %d runs, queue %d, coverage %d", name, n0, len(sums[0].Queue), sums[0].Stats.Coverage)
		})
	}
}

// TestWaitWithNothingInFlight: a strategy that waits with no job in
// flight is a bug the campaign reports instead of ending quietly.
func TestWaitWithNothingInFlight(t *testing.T) {
	sum, err := FuzzWith(context.Background(), Config{Search: Search{Runs: 100, NoShrink: true}}, Deps{NewExecutor: magicTarget.executors(nil)}, waitForever{})
	if err == nil || sum == nil || sum.Stop != "error" {
		t.Fatalf("expected an error stop, got %v, %+v", err, sum)
	}
}

type waitForever struct{ Base }

func (waitForever) Next(*State) (*Entry, int, any)      { return nil, Wait, nil }
func (waitForever) NewMutator(int, *MutatorEnv) Mutator { return &randomMutator{env: &MutatorEnv{}} }
func (waitForever) Learn(*State, *Job, *Feedback)       {}
func (waitForever) JobDone(*State, *Job, any)           {}
func (waitForever) Save(*State, *Feedback) bool         { return true }

// BenchmarkMutateFairLevy: the cost of a child of each new mutator beside
// havoc's, on BenchmarkMutate's 64-byte parent: havoc with wafer's and
// AFL's stacking, fairfuzz's masked havoc (AFL's stacking; a quarter of
// the positions forbidden) and a Lévy flight step.
func BenchmarkMutateFairLevy(b *testing.B) {
	parent := &Entry{Choices: bytes.Repeat([]byte("wafer!"), 11)[:64]}
	donor := &Entry{Choices: bytes.Repeat([]byte{7}, 64)}
	env := &MutatorEnv{Dict: [][]byte{[]byte("KEY"), []byte("token")}, MaxLen: 4096, FreshLen: 64, Raw: true}
	mask := fullMask(64)
	for i := 0; i < 64; i += 4 {
		mask[i] = 0
	}
	levy := NewLevy(StrategyOptions{Workers: 1})
	st := &State{Queue: []*Entry{parent}, Execs: 1, Cov: newCoverage(0)}
	_, _, lp := levy.Next(st)
	cases := []struct {
		name  string
		m     Mutator
		param any
	}{
		{"havoc", (&Havoc{}).NewMutator(0, env), nil},
		{"havoc-afl", (&Havoc{StackPow2: 7}).NewMutator(0, env), nil},
		{"fairfuzz-masked-afl", NewFairFuzz(StrategyOptions{Raw: true, Havoc: HavocConfig{StackPow2: 7}}).NewMutator(0, env), &fairMask{x: parent.Choices, mask: mask}},
		{"fairfuzz-masked", NewFairFuzz(StrategyOptions{Raw: true}).NewMutator(0, env), &fairMask{x: parent.Choices, mask: mask}},
		{"levy", levy.NewMutator(0, env), lp.(Dependent).Param},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			job := &Job{Parent: parent, Queue: []*Entry{parent, donor}, Param: c.param}
			r := &pcgRand{}
			var buf []byte
			for b.Loop() {
				buf = c.m.Mutate(buf[:0], job, r)
			}
		})
	}
}

// TestDependentRunsManyWorkers: fairfuzz and levy with four
// non-deterministic workers (results merged as they arrive, flights and
// probe rounds waiting on each other) spend exactly the budget.
func TestDependentRunsManyWorkers(t *testing.T) {
	for _, name := range []string{"fairfuzz", "levy"} {
		sum, err := Fuzz(context.Background(), Config{Search: Search{Seed: 2, Runs: 20_000, Workers: 4, KeepGoing: true, NoShrink: true, Strategy: name, FairFuzz: FairFuzzConfig{PlainExecs: 200}}},
			Deps{NewExecutor: progTarget.executors(nil), Seeds: [][]byte{{3, 0, 1, 1, 2, 5, 3, 0xff}}})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Stats.Execs != 20_000 || sum.Stop != "runs" {
			t.Fatalf("%s: expected 20000 executions and a runs stop, got %d, %q", name, sum.Stats.Execs, sum.Stop)
		}
	}
}

// TestFairLevyGeneratorMode: with a generator, fairfuzz targets rare
// branches of the generated programs with O-only probes over the choice
// sequence (nothing banned: no I/D probe runs) and levy walks over the
// choices; both reach past the generator's syntax checks.
func TestFairLevyGeneratorMode(t *testing.T) {
	cfg := Config{Search: Search{Seed: 4, Runs: 20_000, KeepGoing: true, NoShrink: true, FairFuzz: FairFuzzConfig{PlainExecs: 500}}}
	deps := Deps{NewExecutor: progTarget.executors(nil), Generator: progGen{}}
	f := NewFairFuzz(StrategyOptions{FairFuzz: cfg.FairFuzz})
	sum, err := FuzzWith(context.Background(), cfg, deps, f)
	if err != nil {
		t.Fatal(err)
	}
	if f.Rounds == 0 || f.Banned != 0 || f.TargetRuns == 0 {
		t.Fatalf("expected targeted rounds and none banned, got %d rounds, %d banned, %d targeted children", f.Rounds, f.Banned, f.TargetRuns)
	}
	t.Logf("fairfuzz: coverage %d, valid %d, %d rounds, %.0f %% of targeted children hit the target",
		sum.Stats.Coverage, sum.Stats.ValidCoverage, f.Rounds, 100*float64(f.TargetHits)/float64(f.TargetRuns))
	l := NewLevy(StrategyOptions{Workers: 1})
	sum, err = FuzzWith(context.Background(), cfg, deps, l)
	if err != nil {
		t.Fatal(err)
	}
	if l.Batches < 300 || sum.Stats.ValidCoverage == 0 {
		t.Fatalf("expected levy batches and valid coverage, got %d batches, %d valid sites", l.Batches, sum.Stats.ValidCoverage)
	}
	t.Logf("levy: coverage %d, valid %d, %d batches, %d novel", sum.Stats.Coverage, sum.Stats.ValidCoverage, l.Batches, l.NovelBatches)
}
