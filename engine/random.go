package engine

// Random is the QuickCheck baseline (docs/ALGORITHMS.md §1): every child is a
// fresh random choice sequence, with no coverage or validity feedback in
// the search. Children that add coverage still enter the queue (ZestSave)
// so the output directory holds what was found, but the queue is never
// used to pick parents.
type Random struct {
	Base
}

// freshJob is how many fresh children one Next asks for; the coordinator
// cuts it into jobs.
const freshJob = 1 << 10

// Next implements Strategy: always fresh children.
func (*Random) Next(*State) (*Entry, int, any) { return nil, freshJob, nil }

// NewMutator implements Strategy.
func (*Random) NewMutator(_ int, env *MutatorEnv) Mutator { return &randomMutator{env: env} }

type randomMutator struct {
	BaseMutator
	env *MutatorEnv
}

func (m *randomMutator) Mutate(dst []byte, _ *Job, r Rand) []byte {
	return freshChoices(dst, m.env, r)
}
