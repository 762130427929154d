package engine

import (
	"math"

	"github.com/wafer-fuzz/wafer/generators"
)

// SpotOn is the type-based targeted mutation of Hussein, McCamant and Whalen
// (docs/ALGORITHMS.md §5, paper 004) on execution-indexed choice sequences.
//
// Sequences are the generator's structured ones (Entry.Seq), with
// execution indexes keyed by the draws' call sites in the generator
// (generators.Options.CallSites, which SpotOn turns on): a child's bytes
// are laid on its parent's choices (IndexedMutator), so a value is reused
// only at its own index and a mutation inside one object does not shift
// the choices after it.
//
// Targets are the uncovered arms of the conditionals of which some arm is
// covered (Config.Conditionals pairs the arms; function entries and other
// non-arms are never targets). While there are targets and the parent has
// typed choices, a child is targeted with probability Targeted (0.5),
// otherwise a plain Zest mutation. A targeted child picks a type T with
// P(T) ∝ 1/d_T; if the parent has a choice annotated with T, d_T ← ¾·d_T
// (not below its initial value) and the child rewrites T's choices only,
// whole choices at a time (a string's body is one choice, not many
// bytes): geometric(mean 4) runs, each from a random T-annotated choice
// over geometric(mean 4) consecutive T-annotated choices, random bytes
// or, in one run in ten, zeros. If not, d_T ← 4/3·d_T (at most 1000) and
// it draws again, ten times at most, then falls back to plain mutation.
// Types are those of the generator's named frames; untyped draws (a
// string, an int) carry the types of the frames around them, so the
// paper's exclusion of primitives and String has nothing to exclude here.
//
// The adaptation to Wasm (docs/ALGORITHMS.md §5, ours): the paper computes the
// types that influence each target by a static def-use analysis of the
// Java application, which knows the generator's classes. A Wasm target has
// no link to the Go types of the generator that feeds it bytes, so this
// influence is learned while fuzzing instead: when a child targeted at T
// newly covers a branch arm (which is how a site flips: its other arm was
// covered before), T earns a credit for that conditional. A type's initial
// distance is 1/(1 + its credits among the current targets), so with no
// credit every type starts at 1, and the ¾ and 4/3 updates scale it. The
// substitute learns only from successes, which the static analysis needs
// no run for: early in a campaign all types are equally likely.
//
// Children per parent: the paper bounds the time spent on a parent's
// children, so slow parents get fewer. Time would make the campaign depend
// on the machine's load; wafer bounds fuel instead (the executions' cost
// in the runtime's fuel, a function of the input): a parent gets Zest's
// numCandidates × mean fuel per queue entry / the parent's fuel children,
// at least one, i.e. about numCandidates average runs' worth of fuel.
// Without fuel counts (an executor that reports none) it is Zest's count.
//
// Distance updates are decided on the workers from a snapshot of the
// distances handed out with each job (updated within the job as it
// goes) and replayed on the coordinator when the job is merged, in order,
// so the campaign stays a function of the seed.
type SpotOn struct {
	Cycle
	Base
	// Conditionals is Config.Conditionals (nil: every site is an arm of a
	// conditional of its own, so no site ever has a covered sibling).
	Conditionals []int32
	// Targeted is the share of targeted children; zero means 0.5,
	// negative 0.
	Targeted float64
	// NoFuelBound gives parents Zest's count of children.
	NoFuelBound bool
	// MaxDistance caps d_T (zero: 1000); Draws is the most type draws
	// per targeted child before it falls back to plain mutation (zero: 10).
	MaxDistance float64
	Draws       int
	// MeanMutations and MeanLength are Zest's and the targeted runs'
	// means (zero: 4 and 4).
	MeanMutations, MeanLength int
	// Tree configures the tree mutations drawn beside the targeted and
	// plain ones (docs/ALGORITHMS.md §12); the zero value: all, in
	// DefaultTreeShare of the children. A tree child targets no type.
	Tree TreeOptions

	arms    map[int32][]int32 // conditional → its arms
	types   []string
	typeIdx map[string]int
	dist    distances
	credits []map[int32]int // per type: conditional → credits
	scanned int             // queue entries whose types and fuel were read
	fuelSum float64
	fuelN   int
	targets map[int32]bool // current target conditionals (half covered)
}

// Distance cap and type draws per child (docs/ALGORITHMS.md §5, impl.): the
// defaults of SpotOn.MaxDistance and SpotOn.Draws.
const (
	spotMaxDistance = 1000
	spotDraws       = 10
)

// distances are SpotOn's d_T, each the product of an initial distance
// (1/(1+credits)) and a factor moved by the ¾ and 4/3 updates, kept in
// [1, 1000/init] so that d_T stays in [init, 1000].
type distances struct {
	init, factor []float64
	max          float64 // the cap; zero means spotMaxDistance
}

func (d *distances) cap() float64 {
	if d.max > 0 {
		return d.max
	}
	return spotMaxDistance
}

func (d *distances) grow(n int) {
	for len(d.init) < n {
		d.init = append(d.init, 1)
		d.factor = append(d.factor, 1)
	}
}

// d returns d_T.
func (d *distances) d(t int) float64 { return d.init[t] * d.factor[t] }

// found applies d_T ← ¾·d_T, not below its initial value.
func (d *distances) found(t int) { d.factor[t] = math.Max(1, d.factor[t]*3/4) }

// missed applies d_T ← 4/3·d_T, at most 1000.
func (d *distances) missed(t int) {
	d.factor[t] = math.Min(d.cap()/d.init[t], d.factor[t]*4/3)
}

// clone returns an independent copy.
func (d *distances) clone() distances {
	return distances{init: append([]float64(nil), d.init...), factor: append([]float64(nil), d.factor...), max: d.max}
}

// pick draws a type with P(T) ∝ 1/d_T.
func (d *distances) pick(r Rand) int {
	var sum float64
	for t := range d.init {
		sum += 1 / d.d(t)
	}
	x := float64(r.Uint64()>>11) / (1 << 53) * sum
	for t := range d.init {
		x -= 1 / d.d(t)
		if x < 0 {
			return t
		}
	}
	return len(d.init) - 1
}

// spotEvent is one type draw: whether the parent had the type.
type spotEvent struct {
	t     int
	found bool
}

// spotParam is what a job's mutator gets.
type spotParam struct {
	targeted float64
	types    []string
	dist     distances
}

// spotNote is what a job's mutator hands back: every type draw in order,
// and the type each child targeted (-1: plain).
type spotNote struct {
	events []spotEvent
	child  []int
}

func newSpotOn(o StrategyOptions) *SpotOn {
	g := o.Generative
	return &SpotOn{Conditionals: o.Conditionals, Targeted: g.Targeted, NoFuelBound: g.NoFuelBound,
		MaxDistance: g.MaxDistance, Draws: g.TypeDraws, MeanMutations: g.MeanMutations, MeanLength: g.MeanLength,
		Tree: g.Tree}
}

func (so *SpotOn) wrapGenerator(g Generator) Generator { return withCallSites(g) }

func (so *SpotOn) targetedShare() float64 { return probability(so.Targeted, 0.5) }

// group returns the conditional site is an arm of, or -1.
func (so *SpotOn) group(site int) int32 {
	if so.Conditionals == nil {
		return int32(site)
	}
	if site < len(so.Conditionals) {
		return so.Conditionals[site]
	}
	return -1
}

// Targets returns the current targets: the uncovered arms of the
// conditionals with a covered arm, in site order.
func (so *SpotOn) Targets(cov *Coverage) []int {
	so.updateTargets(cov)
	var out []int
	for i, g := range so.Conditionals {
		if g >= 0 && so.targets[g] && !cov.Covered(i) {
			out = append(out, i)
		}
	}
	return out
}

func (so *SpotOn) updateTargets(cov *Coverage) {
	if so.arms == nil {
		so.arms = make(map[int32][]int32)
		for i, g := range so.Conditionals {
			if g >= 0 {
				so.arms[g] = append(so.arms[g], int32(i))
			}
		}
	}
	clear(so.targets)
	if so.targets == nil {
		so.targets = make(map[int32]bool)
	}
	for g, arms := range so.arms {
		covered := 0
		for _, a := range arms {
			if cov.Covered(int(a)) {
				covered++
			}
		}
		if covered > 0 && covered < len(arms) {
			so.targets[g] = true
		}
	}
}

// scan reads the types and fuel of queue entries not seen yet.
func (so *SpotOn) scan(s *State) {
	if so.typeIdx == nil {
		so.typeIdx = make(map[string]int)
	}
	for ; so.scanned < len(s.Queue); so.scanned++ {
		e := s.Queue[so.scanned]
		if e.Fuel > 0 {
			so.fuelSum += float64(e.Fuel)
			so.fuelN++
		}
		q, ok := e.Seq.(*generators.Sequence)
		if !ok || q == nil {
			continue
		}
		for _, t := range q.Types() {
			if _, ok := so.typeIdx[t]; !ok {
				so.typeIdx[t] = len(so.types)
				so.types = append(so.types, t)
				so.credits = append(so.credits, nil)
			}
		}
	}
	so.dist.grow(len(so.types))
}

// initial sets each type's initial distance from its credits among the
// current targets, keeping its factor.
func (so *SpotOn) initial() {
	for t := range so.types {
		n := 0
		for g, c := range so.credits[t] {
			if so.targets[g] {
				n += c
			}
		}
		so.dist.init[t] = 1 / (1 + float64(n))
		so.dist.factor[t] = math.Min(so.dist.factor[t], so.dist.cap()/so.dist.init[t])
	}
}

// Next implements Strategy.
func (so *SpotOn) Next(s *State) (*Entry, int, any) {
	so.dist.max = so.MaxDistance
	e, n, _ := so.Cycle.Next(s)
	so.scan(s)
	so.updateTargets(s.Cov)
	so.initial()
	if e == nil {
		return nil, n, nil
	}
	if !so.NoFuelBound && e.Fuel > 0 && so.fuelN > 0 {
		mean := so.fuelSum / float64(so.fuelN)
		n = max(1, int(float64(n)*mean/float64(e.Fuel)+0.5))
	}
	p := &spotParam{types: so.types, dist: so.dist.clone()}
	if len(so.targets) > 0 && len(so.types) > 0 {
		p.targeted = so.targetedShare()
	}
	return e, n, p
}

// Learn implements Strategy: credit the targeted type of a child that
// newly covered arms of conditionals.
func (so *SpotOn) Learn(s *State, _ *Job, fb *Feedback) {
	note, ok := fb.Note.(*spotNote)
	if !ok || note == nil || !fb.NewBranch || fb.Index >= len(note.child) || fb.Outcome.Failed() {
		return
	}
	t := note.child[fb.Index]
	if t < 0 || t >= len(so.credits) {
		return
	}
	for i := 0; i < len(fb.Trace)/traceEntry; i++ {
		site, _ := traceSite(fb.Trace, i)
		if s.Cov.Covered(int(site)) {
			continue
		}
		if g := so.group(int(site)); g >= 0 {
			if so.credits[t] == nil {
				so.credits[t] = make(map[int32]int)
			}
			so.credits[t][g]++
		}
	}
}

// JobDone implements Strategy: replay the job's type draws on the
// distances.
func (so *SpotOn) JobDone(_ *State, _ *Job, note any) {
	n, ok := note.(*spotNote)
	if !ok || n == nil {
		return
	}
	so.dist.apply(n.events)
}

// apply replays type draws.
func (d *distances) apply(events []spotEvent) {
	for _, ev := range events {
		if ev.t >= len(d.init) {
			continue
		}
		if ev.found {
			d.found(ev.t)
		} else {
			d.missed(ev.t)
		}
	}
}

// NewMutator implements Strategy.
func (so *SpotOn) NewMutator(_ int, env *MutatorEnv) Mutator {
	m := &spotMutator{env: env, meanM: so.MeanMutations, meanL: so.MeanLength, draws: so.Draws, tree: newTreeMutator(so.Tree)}
	if m.draws <= 0 {
		m.draws = spotDraws
	}
	m.meanM, m.meanL = zestMeans(m.meanM, m.meanL)
	return m
}

type spotMutator struct {
	BaseMutator
	env          *MutatorEnv
	meanM, meanL int
	draws        int
	note         *spotNote
	dist         distances // the job's copy
	job          *Job
	tree         treeMutator
}

func (m *spotMutator) treeChild() *generators.Sequence { return m.tree.child }

// ReuseIndexes implements IndexedMutator.
func (m *spotMutator) ReuseIndexes() bool { return true }

func (m *spotMutator) Mutate(dst []byte, j *Job, r Rand) []byte {
	if m.job != j {
		m.job = j
		m.note = &spotNote{}
		if p, ok := j.Param.(*spotParam); ok {
			m.dist = p.dist.clone()
		}
	}
	if b, ok := m.tree.mutate(dst, j, r); ok {
		m.note.child = append(m.note.child, -1)
		return b
	}
	if j.Parent == nil {
		m.note.child = append(m.note.child, -1)
		return freshChoices(dst, m.env, r)
	}
	b := append(dst[:0], j.Parent.Choices...)
	p, _ := j.Param.(*spotParam)
	q, _ := j.Parent.Seq.(*generators.Sequence)
	if p != nil && q != nil && q.Len() == len(b) && p.targeted > 0 && len(m.dist.init) > 0 &&
		float64(r.Uint64()>>11)/(1<<53) < p.targeted {
		for range m.draws {
			t := m.dist.pick(r)
			idx := q.TypeChoices(p.types[t])
			if len(idx) == 0 {
				m.dist.missed(t)
				m.note.events = append(m.note.events, spotEvent{t, false})
				continue
			}
			m.dist.found(t)
			m.note.events = append(m.note.events, spotEvent{t, true})
			m.note.child = append(m.note.child, t)
			return targetedMutate(b, q, idx, r, m.meanM, m.meanL)
		}
	}
	m.note.child = append(m.note.child, -1)
	return zestMutate(b, r, m.meanM, m.meanL)
}

// Done implements Mutator.
func (m *spotMutator) Done(*Job) any {
	n := m.note
	m.note, m.job = nil, nil
	if n == nil {
		return nil
	}
	return n
}

// targetedMutate rewrites, in b (q's bytes), only the choices of q listed
// in idx (those annotated with the target type, in order): geometric(meanM)
// runs, each from a random listed choice over geometric(meanL) consecutive
// listed choices, whole choices with random bytes or, in one run in ten,
// zeros.
func targetedMutate(b []byte, q *generators.Sequence, idx []int, r Rand, meanM, meanL int) []byte {
	runs := geometric(r, meanM)
	for range runs {
		start := r.IntN(len(idx))
		l := geometric(r, meanL)
		zero := r.IntN(10) == 0
		for _, ci := range idx[start:min(start+l, len(idx))] {
			off, n := q.Span(ci)
			if zero {
				clear(b[off : off+n])
			} else {
				fillRandom(b[off:off+n], r)
			}
		}
	}
	return b
}
