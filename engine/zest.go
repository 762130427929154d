package engine

import "github.com/wafer-fuzz/wafer/generators"

// Zest is the semantic fuzzing strategy of Padhye et al. (docs/ALGORITHMS.md §1,
// paper 001): it cycles through the queue (Cycle), mutates choice
// sequences by replacing geometric-length runs with random bytes, and saves
// by ZestSave, which keeps valid inputs that add valid coverage.
type Zest struct {
	Cycle
	Base
	// MeanMutations is the mean of m, the number of runs replaced per child
	// (geometric on {1, 2, …}); MeanLength the mean run length. Zero means 4
	// for both (paper; JQF's code uses 8 for m).
	MeanMutations, MeanLength int
	// Tree configures the tree mutations drawn beside Zest's
	// (docs/ALGORITHMS.md §12); the zero value: all, in DefaultTreeShare
	// of the children.
	Tree TreeOptions
}

// NewMutator implements Strategy.
func (z *Zest) NewMutator(_ int, env *MutatorEnv) Mutator {
	m := &zestMutator{env: env, meanM: z.MeanMutations, meanL: z.MeanLength, tree: newTreeMutator(z.Tree)}
	m.meanM, m.meanL = zestMeans(m.meanM, m.meanL)
	return m
}

// zestMeans returns the means of Zest's mutation (docs/ALGORITHMS.md §1: m
// runs per child, each of length l, both geometric) with 4, the
// contract's default, for a zero.
func zestMeans(m, l int) (int, int) {
	if m == 0 {
		m = 4
	}
	if l == 0 {
		l = 4
	}
	return m, l
}

type zestMutator struct {
	BaseMutator
	env          *MutatorEnv
	meanM, meanL int
	tree         treeMutator
}

func (m *zestMutator) treeChild() *generators.Sequence { return m.tree.child }

func (m *zestMutator) Mutate(dst []byte, j *Job, r Rand) []byte {
	if b, ok := m.tree.mutate(dst, j, r); ok {
		return b
	}
	if j.Parent == nil {
		return freshChoices(dst, m.env, r)
	}
	return zestMutate(append(dst[:0], j.Parent.Choices...), r, m.meanM, m.meanL)
}

// maxGeometric bounds a geometric draw (a scripted Rand that never returns
// 0 must not loop forever).
const maxGeometric = 1 << 12

// geometric draws from the geometric distribution on {1, 2, …} with the
// given integer mean (success probability 1/mean per trial).
func geometric(r Rand, mean int) int {
	n := 1
	if mean <= 1 {
		return n
	}
	for n < maxGeometric && r.IntN(mean) != 0 {
		n++
	}
	return n
}

// zestMutate applies Zest's mutation in place (docs/ALGORITHMS.md §1): m ~
// Geometric(mean meanM) times, pick an offset k uniform in [0, len) and a
// length l ~ Geometric(mean meanL), and replace [k, min(k+l, len)) with
// random bytes. An empty sequence gets l random bytes instead (ours:
// otherwise it could never change).
func zestMutate(b []byte, r Rand, meanM, meanL int) []byte {
	if len(b) == 0 {
		l := geometric(r, meanL)
		b = append(b, make([]byte, l)...)
		fillRandom(b, r)
		return b
	}
	m := geometric(r, meanM)
	for range m {
		k := r.IntN(len(b))
		l := geometric(r, meanL)
		fillRandom(b[k:min(k+l, len(b))], r)
	}
	return b
}

// fillRandom fills b with random bytes, 8 per Uint64, little-endian.
func fillRandom(b []byte, r Rand) {
	for len(b) > 0 {
		v := r.Uint64()
		n := min(8, len(b))
		for i := range n {
			b[i] = byte(v >> (8 * i))
		}
		b = b[n:]
	}
}

// freshChoices returns a fresh random sequence: env.FreshLen random bytes
// in generator mode (the generator extends it as needed), a random length
// in [0, FreshLen] in raw mode.
func freshChoices(dst []byte, env *MutatorEnv, r Rand) []byte {
	n := env.FreshLen
	if env.Raw {
		n = r.IntN(n + 1)
	}
	if env.MaxLen > 0 {
		n = min(n, env.MaxLen)
	}
	b := append(dst[:0], make([]byte, n)...)
	fillRandom(b, r)
	return b
}
