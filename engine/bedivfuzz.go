package engine

import (
	"github.com/wafer-fuzz/wafer/generators"
)

// BeDivFuzz is the behavioural-diversity strategy of Nguyen and Grunske
// (docs/ALGORITHMS.md §2, paper 000). Each choice sequence is two streams, the
// structural s and the value v (generators.FromStreams: structural draws
// read only s, value draws only v, each extended and cut on its own), laid
// out as one byte string by joinStreams. A child mutates one of them with
// Zest's mutation and copies the other: with probability Epsilon a fair
// coin picks which, otherwise the stream with the higher score r_x = u_x/n_x
// (n_x: children of the current parent made by mutating x; u_x: those whose
// trace was new among valid inputs), a tie by a coin, s when v is empty.
// The counters are reset when the cycle moves to the next parent.
//
// Saving ("structure", the default): a child enters the queue only when it
// is valid, covers something new (a branch, a bucket, or a valid branch)
// and its structural signature (generators.Sequence.StructuralSignature:
// the hash of the generator's decisions, not of the bytes behind them) is
// not one of a saved input's; "simple" (Simple) drops the signature
// condition. Invalid children are never saved.
//
// Scores change as the parent's children are merged, so Next hands out a
// parent's children a job at a time (at most JobSize), each job with the
// scores as they stand; children of one job use the same scores. Jobs go
// out a few batches ahead of the merge, so the scores lag by those.
type BeDivFuzz struct {
	Cycle
	// Simple selects the "simple" config: no signature condition.
	Simple bool
	// Epsilon is the probability of a random stream choice; zero means
	// 0.2, negative means 0 (always by score).
	Epsilon float64
	// MeanMutations and MeanLength are Zest's (zero: 4 and 4).
	MeanMutations, MeanLength int
	// JobSize is the most children handed out with one set of scores;
	// zero means 64.
	JobSize int
	// Tree configures the tree mutations drawn beside the stream
	// mutations (docs/ALGORITHMS.md §12); the zero value: all, in
	// DefaultTreeShare of the children. A tree child changes both
	// streams (a subtree's structural and value draws) and counts in
	// neither score.
	Tree TreeOptions

	sigs map[uint64]struct{}
	cur  *Entry
	left int
	n, u [3]int // per stream (streamS, streamV) and streamTree, for cur
}

// The two streams, as indexes of BeDivFuzz.n and .u and mutation notes;
// streamTree notes a tree mutation's child.
const (
	streamS    = 0
	streamV    = 1
	streamTree = 2
)

// bedivParam is a job's scores.
type bedivParam struct {
	rs, rv, eps float64
}

func (b *BeDivFuzz) wrapGenerator(g Generator) Generator { return withSplit(g) }

func (b *BeDivFuzz) epsilon() float64 { return probability(b.Epsilon, 0.2) }

// probability reads a probability option: 0 means the default def, a
// negative value 0 (off).
func probability(v, def float64) float64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// Scores returns r_s and r_v for the current parent.
func (b *BeDivFuzz) Scores() (rs, rv float64) {
	r := func(x int) float64 {
		if b.n[x] == 0 {
			return 0
		}
		return float64(b.u[x]) / float64(b.n[x])
	}
	return r(streamS), r(streamV)
}

// Next implements Strategy.
func (b *BeDivFuzz) Next(s *State) (*Entry, int, any) {
	if b.left <= 0 || b.cur == nil {
		e, n, _ := b.Cycle.Next(s)
		b.cur, b.left = e, n
		b.n, b.u = [3]int{}, [3]int{}
		if e == nil {
			return nil, n, nil
		}
	}
	size := b.JobSize
	if size <= 0 {
		size = 64
	}
	n := min(b.left, size)
	b.left -= n
	rs, rv := b.Scores()
	return b.cur, n, &bedivParam{rs: rs, rv: rv, eps: b.epsilon()}
}

// Save implements Strategy: the "structure" rule, or "simple".
func (b *BeDivFuzz) Save(_ *State, fb *Feedback) bool {
	if fb.Outcome != Valid || !(fb.NewBranch || fb.NewBucket || fb.NewValidBranch) {
		return false
	}
	if b.Simple {
		return true
	}
	sig, ok := signature(fb.Seq)
	if !ok {
		return true // no structure known: as simple
	}
	if b.sigs == nil {
		b.sigs = make(map[uint64]struct{})
	}
	if _, seen := b.sigs[sig]; seen {
		return false
	}
	b.sigs[sig] = struct{}{}
	return true
}

// signature returns the structural signature of a child's sequence.
func signature(seq any) (uint64, bool) {
	q, ok := seq.(*generators.Sequence)
	if !ok || q == nil {
		return 0, false
	}
	return q.StructuralSignature(), true
}

// Learn implements Strategy: u_x counts the current parent's children
// with a new valid trace.
func (b *BeDivFuzz) Learn(_ *State, j *Job, fb *Feedback) {
	if j.Parent == nil || j.Parent != b.cur || !fb.NewValidTrace {
		return
	}
	if kinds, ok := fb.Note.([]uint8); ok && fb.Index < len(kinds) {
		b.u[kinds[fb.Index]]++
	}
}

// JobDone implements Strategy: n_x counts the current parent's children
// made by mutating x.
func (b *BeDivFuzz) JobDone(_ *State, j *Job, note any) {
	if j.Parent == nil || j.Parent != b.cur {
		return
	}
	if kinds, ok := note.([]uint8); ok {
		for _, k := range kinds {
			b.n[k]++
		}
	}
}

// NewMutator implements Strategy.
func (b *BeDivFuzz) NewMutator(_ int, env *MutatorEnv) Mutator {
	m := &bedivMutator{env: env, meanM: b.MeanMutations, meanL: b.MeanLength, tree: newTreeMutator(b.Tree)}
	m.meanM, m.meanL = zestMeans(m.meanM, m.meanL)
	return m
}

type bedivMutator struct {
	BaseMutator
	env          *MutatorEnv
	meanM, meanL int
	kinds        []uint8 // stream mutated by each child of the job
	s, v         []byte
	tree         treeMutator
}

func (m *bedivMutator) treeChild() *generators.Sequence { return m.tree.child }

// chooseStream is BeDivFuzz's choice of the stream to mutate
// (docs/ALGORITHMS.md §2): s when v is empty; with probability eps a fair coin;
// else the higher score, a tie by a coin.
func chooseStream(r Rand, rs, rv, eps float64, vEmpty bool) uint8 {
	if vEmpty {
		return streamS
	}
	if eps > 0 && float64(r.Uint64()>>11)/(1<<53) < eps {
		return uint8(r.IntN(2))
	}
	switch {
	case rs > rv:
		return streamS
	case rv > rs:
		return streamV
	}
	return uint8(r.IntN(2))
}

func (m *bedivMutator) Mutate(dst []byte, j *Job, r Rand) []byte {
	if j.Parent == nil {
		// a fresh (s, v): half the fresh length each
		half := max(m.env.FreshLen/2, 1)
		m.s = append(m.s[:0], make([]byte, half)...)
		m.v = append(m.v[:0], make([]byte, half)...)
		fillRandom(m.s, r)
		fillRandom(m.v, r)
		return joinStreams(dst, m.s, m.v)
	}
	if b, ok := m.tree.mutate(dst, j, r); ok {
		m.kinds = append(m.kinds, streamTree)
		return b
	}
	s, v := splitStreams(j.Parent.Choices)
	p, _ := j.Param.(*bedivParam)
	if p == nil {
		p = &bedivParam{eps: 0.2}
	}
	k := chooseStream(r, p.rs, p.rv, p.eps, len(v) == 0)
	m.kinds = append(m.kinds, k)
	m.s = append(m.s[:0], s...)
	m.v = append(m.v[:0], v...)
	if k == streamS {
		m.s = zestMutate(m.s, r, m.meanM, m.meanL)
	} else {
		m.v = zestMutate(m.v, r, m.meanM, m.meanL)
	}
	return joinStreams(dst, m.s, m.v)
}

// Done implements Mutator: the stream each child mutated.
func (m *bedivMutator) Done(*Job) any {
	out := m.kinds
	m.kinds = nil
	return out
}
