package engine

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// script is a Rand that returns scripted values and fails the test when a
// value is out of range or the script runs out.
type script struct {
	t    *testing.T
	ints []int
	u64s []uint64
}

func (s *script) IntN(n int) int {
	s.t.Helper()
	if len(s.ints) == 0 {
		s.t.Fatalf("script: IntN(%d) called with no value left", n)
	}
	v := s.ints[0]
	s.ints = s.ints[1:]
	if v < 0 || v >= n {
		s.t.Fatalf("script: value %d not in [0, %d)", v, n)
	}
	return v
}

func (s *script) Uint64() uint64 {
	s.t.Helper()
	if len(s.u64s) == 0 {
		s.t.Fatalf("script: Uint64 called with no value left")
	}
	v := s.u64s[0]
	s.u64s = s.u64s[1:]
	return v
}

func (s *script) done() {
	s.t.Helper()
	if len(s.ints) != 0 || len(s.u64s) != 0 {
		s.t.Errorf("script: %d ints and %d uint64s left unused", len(s.ints), len(s.u64s))
	}
}

func TestHavocOps(t *testing.T) {
	env := &MutatorEnv{Dict: [][]byte{[]byte("KEY"), []byte("xy")}, MaxLen: 16}
	donor := &Entry{Choices: []byte("abcdefgh")}
	parent := &Entry{Choices: []byte("01234567")}
	job := &Job{Parent: parent, Queue: []*Entry{parent, donor}}
	tests := []struct {
		name string
		op   havocOp
		in   string
		ints []int
		want string // "<nil>" when the op does not apply
	}{
		{"flip bit 0 of byte 1", opFlipBit, "\x00\x00", []int{8}, "\x00\x01"},
		{"flip bit 7 of byte 0", opFlipBit, "\x00\x00", []int{7}, "\x80\x00"},
		{"flip empty", opFlipBit, "", nil, "<nil>"},
		{"interesting8 -1 at 1", opInteresting8, "aaa", []int{1, 1}, "a\xffa"},
		{"interesting16 LE 1000 at 0", opInteresting16, "aaa", []int{0, 6, 0}, "\xe8\x03a"},
		{"interesting16 BE 1000 at 1", opInteresting16, "aaa", []int{1, 6, 1}, "a\x03\xe8"},
		{"interesting16 too short", opInteresting16, "a", nil, "<nil>"},
		{"interesting32 LE 65536", opInteresting32, "aaaa", []int{0, 5, 0}, "\x00\x00\x01\x00"},
		{"interesting32 BE -32769", opInteresting32, "xaaaa", []int{1, 2, 1}, "x\xff\xff\x7f\xff"},
		{"arith8 +3", opArith8, "ab", []int{1, 2, 0}, "ae"},
		{"arith8 -1 wraps", opArith8, "\x00", []int{0, 0, 1}, "\xff"},
		{"arith16 LE +35 carries", opArith16, "\xf0\x00", []int{0, 34, 0, 0}, "\x13\x01"},
		{"arith16 BE -1 borrows", opArith16, "\x01\x00", []int{0, 0, 1, 1}, "\x00\xff"},
		{"arith32 BE +1 carries", opArith32, "\x00\x00\x00\xff", []int{0, 0, 0, 1}, "\x00\x00\x01\x00"},
		{"random byte xor 1", opRandomByte, "a", []int{0, 0}, "`"},
		{"delete 2 at 1", opDeleteBlock, "abcde", []int{0, 1, 1}, "ade"},
		{"delete from 1 byte", opDeleteBlock, "a", nil, "<nil>"},
		{"clone block bc before a", opInsertBlock, "abcd", []int{0, 1, 0, 1, 1}, "bcabcd"},
		{"clone block straddling insertion point", opInsertBlock, "abcd", []int{2, 1, 0, 1, 1}, "abbccd"},
		{"clone block after insertion point", opInsertBlock, "abcd", []int{1, 1, 0, 1, 2}, "acdbcd"},
		{"insert constant run", opInsertBlock, "ab", []int{1, 0, 0, 2, 'z', 1}, "azzzb"},
		{"insert run of input byte", opInsertBlock, "ab", []int{2, 0, 0, 1, 'z', 0, 0}, "abaa"},
		{"overwrite block copy", opOverwriteBlock, "abcdef", []int{0, 1, 0, 1, 4}, "efcdef"},
		{"overwrite block same place", opOverwriteBlock, "abcdef", []int{0, 1, 0, 1, 0}, "<nil>"},
		{"overwrite block set", opOverwriteBlock, "abcdef", []int{0, 2, 3, 0, 'Q', 1}, "abcQQQ"},
		{"insert token KEY at 1", opInsertToken, "ab", []int{0, 1}, "aKEYb"},
		{"overwrite token xy at end", opOverwriteToken, "abc", []int{1, 1}, "axy"},
		{"overwrite token too long", opOverwriteToken, "ab", []int{0}, "<nil>"},
		{"splice with donor at 3", opSplice, "01234567", []int{1, 2}, "012defgh"},
		{"splice with self", opSplice, "01234567", []int{0}, "<nil>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &script{t: t, ints: tc.ints}
			got := tc.op([]byte(tc.in), r, env, job)
			r.done()
			if tc.want == "<nil>" {
				if got != nil {
					t.Fatalf("expected nil (not applicable), got %q", got)
				}
				return
			}
			if string(got) != tc.want {
				t.Fatalf("expected %q, got %q", tc.want, got)
			}
		})
	}
}

func TestHavocInsertRespectsMaxLen(t *testing.T) {
	env := &MutatorEnv{Dict: [][]byte{[]byte("KEY")}, MaxLen: 4}
	r := &script{t: t, ints: []int{0}}
	if got := opInsertToken([]byte("ab"), r, env, &Job{}); got != nil {
		t.Fatalf("expected nil (token does not fit), got %q", got)
	}
	if got := opInsertBlock([]byte("abcd"), r, env, &Job{}); got != nil {
		t.Fatalf("expected nil (full), got %q", got)
	}
}

// TestRepeatLen: runs of one byte stay within the room left, mostly up to
// 128 bytes, and about 1 in 50 is a long one, up to blkXL: long enough,
// within the default 10,240-byte inputs, for a nesting thousands deep.
func TestRepeatLen(t *testing.T) {
	r := &pcgRand{}
	r.Seed(1, 2)
	for _, limit := range []int{1, 5, 128, 129, 10_000, 100_000} {
		long, longest := 0, 0
		const n = 100_000
		for range n {
			l := repeatLen(r, limit)
			if l < 1 || l > limit || l > blkXL {
				t.Fatalf("limit %d: length %d", limit, l)
			}
			if l > 128 {
				long++
			}
			longest = max(longest, l)
		}
		switch {
		case limit <= 128 && long != 0:
			t.Fatalf("limit %d: %d runs over 128 bytes", limit, long)
		case limit > 128 && (long < n/50*8/10 || long > n/50*12/10):
			t.Fatalf("limit %d: %d of %d runs over 128 bytes, want about 1 in 50", limit, long, n)
		case limit >= 10_000 && longest < min(limit, blkXL)*9/10:
			t.Fatalf("limit %d: longest run %d", limit, longest)
		}
	}
}

func TestHavocMutatorStacks(t *testing.T) {
	// Default depth 5, draw 1 → 2 stacked ops: op 0 (flip bit 0), op 7
	// (random byte at 1 xor 2).
	env := &MutatorEnv{MaxLen: 100}
	parent := &Entry{Choices: []byte{0, 0}}
	m := (&Havoc{}).NewMutator(0, env)
	r := &script{t: t, ints: []int{1, 0, 0, 7, 1, 1}}
	got := m.Mutate(nil, &Job{Parent: parent}, r)
	r.done()
	if want := []byte{1, 2}; !bytes.Equal(got, want) {
		t.Fatalf("expected %v, got %v", want, got)
	}
	// Draw 4 → 5 ops (the most): flip bits 0..4 of byte 0.
	r = &script{t: t, ints: []int{4, 0, 0, 0, 1, 0, 2, 0, 3, 0, 4}}
	if got, want := m.Mutate(got[:0], &Job{Parent: parent}, r), []byte{31, 0}; !bytes.Equal(got, want) {
		t.Fatalf("expected %v, got %v", want, got)
	}
	r.done()
	// StackPow2 4 (AFL++), draw 0 → 2 stacked ops, as above.
	m = (&Havoc{StackPow2: 4}).NewMutator(0, env)
	r = &script{t: t, ints: []int{0, 0, 0, 7, 1, 1}}
	if got, want := m.Mutate(nil, &Job{Parent: parent}, r), []byte{1, 2}; !bytes.Equal(got, want) {
		t.Fatalf("StackPow2: expected %v, got %v", want, got)
	}
	r.done()
	if !bytes.Equal(parent.Choices, []byte{0, 0}) {
		t.Fatalf("parent modified: %v", parent.Choices)
	}
}

func TestGeometric(t *testing.T) {
	r := &script{t: t, ints: []int{3, 1, 2, 0}}
	if got := geometric(r, 4); got != 4 {
		t.Fatalf("expected 4, got %d", got)
	}
	r.done()
}

func TestZestMutate(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ints []int
		u64s []uint64
		want string
	}{
		// m = 1 (IntN(4)=0); k = 2; l = 2 (IntN(4)=1, then 0): bytes 2..3
		// replaced by the low bytes of 0x4241.
		{"one run", "abcdef", []int{0, 2, 1, 0}, []uint64{0x4241}, "abABef"},
		// m = 2; first run k=5 l=3 (cut at the end), second k=0 l=1.
		{"two runs, cut at end", "abcdef", []int{1, 0, 5, 1, 1, 0, 0, 0}, []uint64{'X', 'Y'}, "Ybcdef" + ""},
		// empty sequence: l = 1 random byte appended.
		{"empty grows", "", []int{0}, []uint64{'Z'}, "Z"},
	}
	tests[1].want = "YbcdeX"
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &script{t: t, ints: tc.ints, u64s: tc.u64s}
			got := zestMutate([]byte(tc.in), r, 4, 4)
			r.done()
			if string(got) != tc.want {
				t.Fatalf("expected %q, got %q", tc.want, got)
			}
		})
	}
}

func TestZestMutatorCopiesParent(t *testing.T) {
	m := (&Zest{}).NewMutator(0, &MutatorEnv{FreshLen: 3})
	parent := &Entry{Choices: []byte("abc")}
	r := &script{t: t, ints: []int{0, 0, 0}, u64s: []uint64{'z'}}
	got := m.Mutate(make([]byte, 0, 8), &Job{Parent: parent}, r)
	r.done()
	if string(got) != "zbc" || string(parent.Choices) != "abc" {
		t.Fatalf("expected child zbc and parent abc, got %q and %q", got, parent.Choices)
	}
	// Fresh children (no parent): FreshLen random bytes.
	r = &script{t: t, u64s: []uint64{0x636261}}
	if got := m.Mutate(nil, &Job{}, r); string(got) != "abc" {
		t.Fatalf("expected fresh abc, got %q", got)
	}
	r.done()
}

func TestRandomMutatorRawLength(t *testing.T) {
	m := (&Random{}).NewMutator(0, &MutatorEnv{FreshLen: 10, Raw: true})
	r := &script{t: t, ints: []int{2}, u64s: []uint64{0x4847}}
	if got := m.Mutate(nil, &Job{}, r); string(got) != "GH" {
		t.Fatalf("expected GH, got %q", got)
	}
	r.done()
}

func TestNumCandidates(t *testing.T) {
	st := &State{Cov: &Coverage{Branches: 40}}
	c := &Cycle{}
	tests := []struct {
		e    *Entry
		want int
	}{
		{&Entry{Branches: 40}, 50},
		{&Entry{Branches: 20}, 25},
		{&Entry{Branches: 20, Favored: true}, 500},
		{&Entry{Branches: 0}, 1},
	}
	for _, tc := range tests {
		if got := c.NumCandidates(st, tc.e); got != tc.want {
			t.Errorf("cov %d favored %v: expected %d, got %d", tc.e.Branches, tc.e.Favored, tc.want, got)
		}
	}
}

// BenchmarkMutate measures one child of a 64-byte parent per op, with
// the workers' PRNG.
func BenchmarkMutate(b *testing.B) {
	parent := &Entry{Choices: bytes.Repeat([]byte("wafer!"), 11)[:64]}
	donor := &Entry{Choices: bytes.Repeat([]byte{7}, 64)}
	env := &MutatorEnv{Dict: [][]byte{[]byte("KEY"), []byte("token")}, MaxLen: 4096, FreshLen: 64}
	job := &Job{Parent: parent, Queue: []*Entry{parent, donor}}
	for _, s := range []Strategy{&Havoc{}, &Zest{}} {
		b.Run(strings.ToLower(strings.TrimPrefix(fmt.Sprintf("%T", s), "*engine.")), func(b *testing.B) {
			m := s.NewMutator(0, env)
			w := newTestWorker(nil, m)
			var buf []byte
			cpu0 := cpuTime()
			for b.Loop() {
				buf = m.Mutate(buf[:0], job, w.rng)
			}
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

// refInsertBlock is opInsertBlock written byte by byte (the
// specification of its copies and fills).
func refInsertBlock(b []byte, r Rand, env *MutatorEnv) []byte {
	space := room(b, env)
	if space <= 0 {
		return nil
	}
	to := r.IntN(len(b) + 1)
	if len(b) > 0 && r.IntN(4) != 0 {
		l := blockLen(r, min(len(b), space))
		from := r.IntN(len(b) - l + 1)
		old := bytes.Clone(b)
		out := append(append(bytes.Clone(old[:to]), old[from:from+l]...), old[to:]...)
		return out
	}
	l := repeatLen(r, space)
	v := byte(r.IntN(256))
	if len(b) > 0 && r.IntN(2) == 0 {
		v = b[r.IntN(len(b))]
	}
	return append(append(bytes.Clone(b[:to]), bytes.Repeat([]byte{v}, l)...), b[to:]...)
}

// TestInsertBlockMatchesReference: on random inputs (empty to 3,000
// bytes, block lengths up to 1,500, every position of the block relative
// to the insertion point) opInsertBlock gives the reference's child from
// the same stream.
func TestInsertBlockMatchesReference(t *testing.T) {
	env := &MutatorEnv{MaxLen: 4096}
	for seed := range uint64(5000) {
		n := int(seed*7919) % 3000
		if seed%3 == 0 {
			n %= 40
		}
		in := make([]byte, n)
		for i := range in {
			in[i] = byte(i*31 + int(seed))
		}
		r1, r2 := &pcgRand{}, &pcgRand{}
		r1.Seed(seed, 9)
		r2.Seed(seed, 9)
		got := opInsertBlock(bytes.Clone(in), r1, env, nil)
		want := refInsertBlock(bytes.Clone(in), r2, env)
		if !bytes.Equal(got, want) || r1.Uint64() != r2.Uint64() {
			t.Fatalf("seed %d, %d bytes: got %d bytes, expected %d (or the streams diverged)", seed, n, len(got), len(want))
		}
	}
}

func TestFill(t *testing.T) {
	for n := range 300 {
		b := make([]byte, n+2)
		fill(b[1:n+1], 0xab)
		if b[0] != 0 || b[n+1] != 0 || !bytes.Equal(b[1:n+1], bytes.Repeat([]byte{0xab}, n)) {
			t.Fatalf("fill of %d bytes: got %x", n, b)
		}
	}
}

// donorCheck is havoc whose mutators fail the test when a job's donors
// are not its queue's choices.
type donorCheck struct {
	Havoc
	t    *testing.T
	jobs *atomic.Int64
}

func (d *donorCheck) NewMutator(w int, env *MutatorEnv) Mutator {
	return &donorCheckMutator{Mutator: d.Havoc.NewMutator(w, env), d: d}
}

type donorCheckMutator struct {
	Mutator
	d *donorCheck
}

func (m *donorCheckMutator) Mutate(dst []byte, j *Job, r Rand) []byte {
	if len(j.donors) != len(j.Queue) {
		m.d.t.Errorf("job %d: %d donors for %d queue entries", j.Seq, len(j.donors), len(j.Queue))
	}
	for i, e := range j.Queue {
		if !bytes.Equal(j.donors[i], e.Choices) || (len(e.Choices) > 0 && &j.donors[i][0] != &e.Choices[0]) {
			m.d.t.Errorf("job %d: donor %d is not queue entry %d's choices", j.Seq, i, i)
			break
		}
	}
	m.d.jobs.Add(1)
	return m.Mutator.Mutate(dst, j, r)
}

// TestJobDonors: the coordinator hands every job its queue's choices
// side by side (the splice fast path), and splicing through them gives
// the same children as through the entries.
func TestJobDonors(t *testing.T) {
	d := &donorCheck{t: t, jobs: &atomic.Int64{}}
	sum, err := FuzzWith(context.Background(), Config{Search: Search{Seed: 2, Runs: 20_000, Workers: 2, KeepGoing: true, NoShrink: true}},
		Deps{NewExecutor: progTarget.executors(nil), Seeds: [][]byte{{3, 0, 0, 1, 0, 5, 0, 0xff}, {1, 5, 0, 0xff}}}, d)
	if err != nil {
		t.Fatal(err)
	}
	if d.jobs.Load() == 0 || len(sum.Queue) < 3 {
		t.Fatalf("expected jobs over a queue, got %d jobs, queue %d", d.jobs.Load(), len(sum.Queue))
	}
	env := &MutatorEnv{MaxLen: 64}
	var queue []*Entry
	var donors [][]byte
	for i := range 20 {
		c := bytes.Repeat([]byte{byte(i)}, i%7)
		queue = append(queue, &Entry{ID: i, Choices: c})
		donors = append(donors, c)
	}
	for seed := range uint64(500) {
		parent := queue[seed%20]
		plain := &Job{Parent: parent, Queue: queue}
		fast := &Job{Parent: parent, Queue: queue, donors: donors}
		r1, r2 := &pcgRand{}, &pcgRand{}
		r1.Seed(seed, 3)
		r2.Seed(seed, 3)
		in := []byte("0123456789")
		got := opSplice(bytes.Clone(in), r1, env, fast)
		want := opSplice(bytes.Clone(in), r2, env, plain)
		if !bytes.Equal(got, want) || (got == nil) != (want == nil) || r1.Uint64() != r2.Uint64() {
			t.Fatalf("seed %d: splice through donors gave %q, through entries %q", seed, got, want)
		}
	}
}

// recordingRand is a script that also records every IntN bound, so a test
// can check which geometric means a mutator drew with.
type recordingRand struct {
	script
	bounds []int
}

func (r *recordingRand) IntN(n int) int {
	r.bounds = append(r.bounds, n)
	return r.script.IntN(n)
}

// TestZestMeansFromOptions: the zest strategy made by name takes m's and
// l's means from GenerativeOptions (--mean-mutations, --mean-length): with
// means 7 and 3, the scripted draws are m's Bernoulli trials out of 7 and
// each run's out of 3, and the child differs from its parent in exactly
// the runs the script chose; the zero value keeps the paper's 4 and 4.
func TestZestMeansFromOptions(t *testing.T) {
	parent := &Entry{Choices: []byte("0123456789")}
	mutator := func(g GenerativeOptions) Mutator {
		s, err := NewStrategy("zest", StrategyOptions{Generative: g})
		if err != nil {
			t.Fatal(err)
		}
		return s.NewMutator(0, &MutatorEnv{FreshLen: 4})
	}
	// m: one "go on" then a stop (m = 2); run 1 at 2 with l: two "go
	// on" then a stop (l = 3); run 2 at 8 with l = 1.
	r := &recordingRand{script: script{t: t, ints: []int{5, 0, 2, 1, 2, 0, 8, 0}, u64s: []uint64{0x616161, 0x62}}}
	got := mutator(GenerativeOptions{MeanMutations: 7, MeanLength: 3}).Mutate(nil, &Job{Parent: parent}, r)
	r.done()
	if want := []int{7, 7, 10, 3, 3, 3, 10, 3}; !slices.Equal(r.bounds, want) {
		t.Fatalf("IntN bounds %v, want %v (m's trials out of 7, l's out of 3)", r.bounds, want)
	}
	if string(got) != "01aaa567b9" {
		t.Fatalf("child %q, want 01aaa567b9 (runs [2,5) and [8,9) replaced)", got)
	}
	// Defaults: the same shape of draws with 4 and 4.
	r = &recordingRand{script: script{t: t, ints: []int{0, 4, 0}, u64s: []uint64{'x'}}}
	if got := mutator(GenerativeOptions{}).Mutate(nil, &Job{Parent: parent}, r); string(got) != "0123x56789" {
		t.Fatalf("default child %q, want 0123x56789", got)
	}
	r.done()
	if want := []int{4, 10, 4}; !slices.Equal(r.bounds, want) {
		t.Fatalf("default IntN bounds %v, want %v", r.bounds, want)
	}
}

// TestZestMeansDistribution: over many children from a PCG, the number of
// bytes a child differs in from its parent follows the means: with m and
// l both of mean 1 exactly one run of one byte is rewritten (at most one
// byte differs), and its average grows with larger means.
func TestZestMeansDistribution(t *testing.T) {
	parent := &Entry{Choices: make([]byte, 4096)}
	diff := func(g GenerativeOptions) float64 {
		s, err := NewStrategy("zest", StrategyOptions{Generative: g})
		if err != nil {
			t.Fatal(err)
		}
		m := s.NewMutator(0, &MutatorEnv{FreshLen: 4})
		r := rand.New(rand.NewPCG(11, 12))
		total := 0
		for range 2000 {
			child := m.Mutate(nil, &Job{Parent: parent}, r)
			n := 0
			for i := range child {
				if child[i] != parent.Choices[i] {
					n++
				}
			}
			if g.MeanMutations == 1 && g.MeanLength == 1 && n > 1 {
				t.Fatalf("means 1 and 1: child differs in %d bytes", n)
			}
			total += n
		}
		return float64(total) / 2000
	}
	one, def, big := diff(GenerativeOptions{MeanMutations: 1, MeanLength: 1}), diff(GenerativeOptions{}), diff(GenerativeOptions{MeanMutations: 16, MeanLength: 16})
	t.Logf("mean bytes changed per child: means 1/1 %.2f, default 4/4 %.2f, 16/16 %.2f", one, def, big)
	// A random byte equals the zero it replaces 1 time in 256, so the
	// expectation is about m·l·255/256: ~1, ~16, ~256 (fewer at the end).
	if one < 0.9 || def < 10 || def > 22 || big < 150 {
		t.Fatalf("mean bytes changed %.2f, %.2f, %.2f: not ~1, ~16, ~256", one, def, big)
	}
}
