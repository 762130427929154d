package engine

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Auto is the portfolio strategy ("auto", docs/ALGORITHMS.md §13): one
// Strategy per arm (raw mode: fairfuzz, havoc, levy; generator mode:
// zest, bedivfuzz) over the campaign's one queue and coverage map (the
// State is shared), and a discounted-UCB bandit that gives each arm turns
// by what its children found per execution.
//
// Routing: Next asks the scheduled arm and wraps its param as
// armParam{arm, param} (a Dependent stays outermost, so the coordinator
// still runs it as one job); the Mutator hands the job to that arm's
// Mutator with its own param, and its note comes back as armNote, so
// Save (which sees the note, Feedback.Note), Learn and JobDone reach the
// arm that made the child. When the scheduled arm waits, the others are
// asked by their bandit index, highest first; Auto waits only when every
// arm does. Each arm is a separate object, so what it keeps between its
// turns (FairFuzz's rounds and bans, Lévy's walks, BeDivFuzz's scores)
// survives the switches. Queue entries and findings carry the arm's name
// as Op.
//
// Every decision is made from merged results (Learn, JobDone) and the
// executions each job reports in its note, never from the clock, so a
// reproducible campaign stays a function of the seed.
//
// What it does not do: give an arm a queue of its own, or combine arms
// that lay choice sequences out differently (BeDivFuzz's two streams,
// SpotOn's call-site indexes): NewAuto refuses such a set.
type Auto struct {
	arms []*autoArm
	// turn is the scheduled arm (-1 before the first); turnLeft the
	// children it may still issue in this turn.
	turn     int
	turnLeft int64
	// order is the arms in the order Next asks them (see schedule), idx
	// their indexes.
	order []int
	idx   []float64
	// execs is the executions merged from the arms' jobs.
	execs int64
	// Turns counts the turns scheduled (tests, stats); Sched is the arm
	// of each turn, in order, when Record is set (tests).
	Turns  int
	Record bool
	Sched  []int
	// cache: the inner view (the arm's own param) of the job merged
	// last, for its Learn calls and JobDone.
	cacheOuter, cacheInner *Job
}

// autoArm is one arm: its strategy and the bandit's statistics.
type autoArm struct {
	name string
	s    Strategy
	// n and r are the discounted executions and reward (see discount).
	n, r float64
	// execs, branches, entries and crashes are the arm's totals: the
	// executions of its jobs, the new branches its children covered, the
	// queue entries it saved, the unique crashes it found.
	execs, branches, entries, crashes int64
}

// The bandit's constants (docs/ALGORITHMS.md §13).
const (
	// autoMinPeriod and autoPeriodDiv give the period P = max(1000,
	// execs/20): the unit of the counts and of the discount.
	autoMinPeriod = 1000
	autoPeriodDiv = 20
	// autoGamma is the discount per period: what an arm did P
	// executions ago weighs 0.8 of what it does now, so the statistics
	// cover about the last 5P executions (a quarter of the campaign).
	autoGamma = 0.8
	// autoTurnDiv: a turn is P/4 children of the scheduled arm, 5 % of
	// the statistics' window (5P), the floor share: an arm lifted off
	// the floor by one turn is still near it. (Turns of P/2 let an arm
	// that found nothing swing between 5 and 16 % of the schedule on
	// cexpr, 9.6 % on average after the first minute.)
	autoTurnDiv = 4
	// autoC is the weight of the exploration bonus.
	autoC = 0.5
	// autoFloor is the least share of the discounted executions an arm
	// keeps: below it, it gets the next turn whatever it found.
	autoFloor = 0.05
	// Rewards: a new branch, a new valid branch, a new (branch, bucket)
	// pair, a new unique crash (by identity, verified).
	rewardBranch      = 1.0
	rewardValidBranch = 1.0
	rewardBucket      = 0.1
	rewardCrash       = 10.0
)

// armParam is an arm's job's Job.Param: the arm and its own param.
type armParam struct {
	arm   int
	inner any
}

// armNote is an arm's job's note: the arm, the children the job ran and
// the arm's Mutator's own note.
type armNote struct {
	arm   int
	runs  int64
	inner any
}

// AutoArms returns the arm names of auto in raw or generator mode.
func AutoArms(raw bool) []string {
	if raw {
		// fairfuzz first: the arm run first collects the seeds' near
		// neighbourhood in its first job, and the bandit's credit for it
		// keeps that arm ahead (docs/ALGORITHMS.md §13)
		return []string{"fairfuzz", "havoc", "levy"}
	}
	return []string{"zest", "bedivfuzz"}
}

// NewAuto returns the portfolio of the named strategies, made by the
// built-in table with o. At most one arm may adapt the generator (see
// Auto).
func NewAuto(o StrategyOptions, names ...string) (Strategy, error) {
	var arms []*autoArm
	for _, name := range names {
		if name == "auto" {
			return nil, fmt.Errorf("auto: an arm cannot be auto")
		}
		s, err := NewStrategy(name, armOptions(o, name, names))
		if err != nil {
			return nil, fmt.Errorf("auto: %w", err)
		}
		arms = append(arms, &autoArm{name: name, s: s})
	}
	return checkArms(arms)
}

// NewAutoOf is NewAuto over given strategies (tests, FuzzWith): arm i is
// called names[i].
func NewAutoOf(names []string, strats []Strategy) (Strategy, error) {
	if len(names) != len(strats) {
		return nil, fmt.Errorf("auto: %d names for %d strategies", len(names), len(strats))
	}
	var arms []*autoArm
	for i, s := range strats {
		arms = append(arms, &autoArm{name: names[i], s: s})
	}
	return checkArms(arms)
}

// checkArms returns the portfolio of arms, or why they cannot share a
// queue.
func checkArms(arms []*autoArm) (Strategy, error) {
	if len(arms) == 0 {
		return nil, fmt.Errorf("auto: no arms")
	}
	var wrappers []string
	for _, a := range arms {
		if _, ok := a.s.(generatorWrapper); ok {
			wrappers = append(wrappers, a.name)
		}
	}
	if len(wrappers) > 1 {
		return nil, fmt.Errorf("auto: arms %s lay out choice sequences differently; expected at most one of them", strings.Join(wrappers, " and "))
	}
	return newAutoOf(arms), nil
}

// newAuto is the built-in "auto": AutoArms' arms, which can share a
// queue (TestAutoArmsCompatible).
func newAuto(o StrategyOptions) Strategy {
	var arms []*autoArm
	names := AutoArms(o.Raw)
	for _, name := range names {
		arms = append(arms, &autoArm{name: name, s: strategies[name](armOptions(o, name, names))})
	}
	return newAutoOf(arms)
}

// armOptions returns the options of arm name of a portfolio of names:
// when the tree arm is among them it owns the tree mutations, and the
// other arms (zest, bedivfuzz, spoton) draw none, so that the bandit
// credits tree children to the tree arm alone.
func armOptions(o StrategyOptions, name string, names []string) StrategyOptions {
	if name != "tree" && slices.Contains(names, "tree") {
		o.Generative.Tree.Share = -1
	}
	return o
}

func newAutoOf(arms []*autoArm) Strategy {
	free := true
	for _, a := range arms {
		if _, ok := a.s.(traceFree); !ok {
			free = false
		}
	}
	a := &Auto{arms: arms, turn: -1}
	if free {
		// no arm reads a queued entry's trace: neither does the portfolio
		return &autoTraceFree{a}
	}
	return a
}

// autoTraceFree is an Auto whose arms are all traceFree.
type autoTraceFree struct{ *Auto }

func (*autoTraceFree) entryTracesUnread() {}

// AsAuto returns the portfolio behind s (nil when s is not one).
func AsAuto(s Strategy) *Auto {
	switch a := s.(type) {
	case *Auto:
		return a
	case *autoTraceFree:
		return a.Auto
	}
	return nil
}

// period is P (see autoMinPeriod).
func (a *Auto) period() float64 {
	return float64(max(autoMinPeriod, a.execs/autoPeriodDiv))
}

// Next implements Strategy: the scheduled arm's next job, or, when it
// waits, the next arm's in schedule order that does not; Wait when every
// arm waits.
func (a *Auto) Next(s *State) (*Entry, int, any) {
	if a.turn < 0 || a.turnLeft <= 0 {
		a.schedule()
		a.turn = a.order[0]
		a.turnLeft = int64(a.period()) / autoTurnDiv
		a.Turns++
		if a.Record {
			a.Sched = append(a.Sched, a.turn)
		}
	}
	for _, i := range a.order {
		e, n, p := a.arms[i].s.Next(s)
		if n == Wait {
			continue
		}
		n = max(n, 1)
		if i == a.turn {
			a.turnLeft -= int64(n)
		}
		if d, ok := p.(Dependent); ok {
			return e, n, Dependent{Param: &armParam{arm: i, inner: d.Param}}
		}
		return e, n, &armParam{arm: i, inner: p}
	}
	return nil, Wait, nil
}

// schedule orders the arms for the next turn: first the turn's arm (an
// arm never run, else the arm furthest below the floor share, else the
// highest discounted-UCB index), then the others by index, highest first,
// for when the turn's arm waits (ties: the lower arm first).
func (a *Auto) schedule() {
	var total, reward float64
	for _, arm := range a.arms {
		total += arm.n
		reward += arm.r
	}
	a.idx = a.idx[:0]
	a.order = a.order[:0]
	for i, arm := range a.arms {
		x := math.Inf(1) // never run: first
		if arm.n > 0 {
			x = a.index(i, total, reward)
		}
		a.idx = append(a.idx, x)
		a.order = append(a.order, i)
	}
	slices.SortStableFunc(a.order, func(i, j int) int { return cmp.Compare(a.idx[j], a.idx[i]) })
	if math.IsInf(a.idx[a.order[0]], 1) {
		return
	}
	low, lowShare := -1, autoFloor
	for i, arm := range a.arms {
		if sh := arm.n / total; sh < lowShare {
			low, lowShare = i, sh
		}
	}
	if low >= 0 {
		k := slices.Index(a.order, low)
		copy(a.order[1:k+1], a.order[:k])
		a.order[0] = low
	}
}

// index is arm i's discounted-UCB index: its reward per execution
// relative to the portfolio's, plus autoC·sqrt(ln(N/P)/(n_i/P)) with N
// the discounted executions of all arms, n_i arm i's.
func (a *Auto) index(i int, total, reward float64) float64 {
	arm := a.arms[i]
	p := a.period()
	mean := 0.0
	if reward > 0 {
		mean = (arm.r / arm.n) / (reward / total)
	}
	return mean + autoC*math.Sqrt(math.Log(max(total/p, math.E))/(arm.n/p))
}

// discount ages every arm's statistics by gamma^(execs/P).
func (a *Auto) discount(execs int64) {
	f := math.Pow(autoGamma, float64(execs)/a.period())
	for _, arm := range a.arms {
		arm.n *= f
		arm.r *= f
	}
}

// inner returns the arm and the arm's own view of j (its own param), or
// -1 for a job no arm issued (seeds, imports).
func (a *Auto) inner(j *Job) (int, *Job) {
	p, ok := j.Param.(*armParam)
	if !ok {
		return -1, j
	}
	if a.cacheOuter != j {
		c := *j
		c.Param = p.inner
		a.cacheOuter, a.cacheInner = j, &c
	}
	return p.arm, a.cacheInner
}

// Save implements Strategy: the rule of the arm that made the child (the
// job's note names it); ZestSave for a child no arm made (a seed).
func (a *Auto) Save(s *State, fb *Feedback) bool {
	n, ok := fb.Note.(*armNote)
	if !ok {
		return ZestSave(fb)
	}
	arm := a.arms[n.arm]
	fb.Note = n.inner
	save := arm.s.Save(s, fb)
	fb.Note = n
	if save {
		arm.entries++
	}
	return save
}

// Learn implements Strategy: the arm's reward, and the arm's own Learn.
func (a *Auto) Learn(s *State, j *Job, fb *Feedback) {
	i, in := a.inner(j)
	if i < 0 {
		return
	}
	arm := a.arms[i]
	r := 0.0
	if !fb.Outcome.Failed() {
		if fb.NewBranch {
			r += rewardBranch
			arm.branches++
		}
		if fb.NewValidBranch {
			r += rewardValidBranch
		}
		if fb.NewBucket {
			r += rewardBucket
		}
	}
	arm.r += r
	n, _ := fb.Note.(*armNote)
	if n != nil {
		fb.Note = n.inner
	}
	arm.s.Learn(s, in, fb)
	if n != nil {
		fb.Note = n
	}
}

// foundFailure implements findingNoter: a new unique crash is the arm's
// reward (a crash met again, or a hang, is not).
func (a *Auto) foundFailure(j *Job, f *Finding) {
	p, ok := j.Param.(*armParam)
	if !ok || f.Outcome != Crash {
		return
	}
	arm := a.arms[p.arm]
	arm.r += rewardCrash
	arm.crashes++
}

// JobDone implements Strategy: the job's executions enter the bandit's
// statistics (all arms discounted by them), then the arm's own JobDone.
func (a *Auto) JobDone(s *State, j *Job, note any) {
	i, in := a.inner(j)
	a.cacheOuter, a.cacheInner = nil, nil
	if i < 0 {
		return
	}
	arm := a.arms[i]
	n, _ := note.(*armNote)
	var inner any
	if n != nil {
		inner = n.inner
		a.execs += n.runs
		arm.execs += n.runs
		a.discount(n.runs)
		arm.n += float64(n.runs)
		if i == a.turn && int64(j.N) > n.runs {
			// a dependent job that ended early (FairFuzz's probes): the
			// turn gets back the children it did not make
			a.turnLeft += int64(j.N) - n.runs
		}
	}
	arm.s.JobDone(s, in, inner)
}

// NewMutator implements Strategy: one Mutator per arm, behind a router.
func (a *Auto) NewMutator(w int, env *MutatorEnv) Mutator {
	m := &autoMutator{arm: -1}
	for _, arm := range a.arms {
		mu := arm.s.NewMutator(w, env)
		m.muts = append(m.muts, mu)
		if im, ok := mu.(IndexedMutator); ok && im.ReuseIndexes() {
			m.reuse = true
		}
	}
	return m
}

// wrapGenerator applies the one arm's generator adaptation, if any.
func (a *Auto) wrapGenerator(g Generator) Generator {
	for _, arm := range a.arms {
		if gw, ok := arm.s.(generatorWrapper); ok {
			return gw.wrapGenerator(g)
		}
	}
	return g
}

// opNamer is a Strategy that names its jobs' children itself (Entry.Op,
// Finding.Op); the coordinator names the others' after Config.Strategy.
type opNamer interface {
	jobOp(j *Job) (Op, bool)
}

// findingNoter is a Strategy told of each new unique failure (after
// verification, before it is saved) and the job whose child it was.
type findingNoter interface {
	foundFailure(j *Job, f *Finding)
}

// armStater is a Strategy with arms whose stats go into Stats.Arms.
type armStater interface {
	armStats() []ArmStats
}

// jobOp implements opNamer: an arm's child is named after the arm.
func (a *Auto) jobOp(j *Job) (Op, bool) {
	if p, ok := j.Param.(*armParam); ok {
		return Op(a.arms[p.arm].name), true
	}
	return "", false
}

// cycles is the most passes over the queue any arm completed.
func (a *Auto) cycles() int {
	n := 0
	for _, arm := range a.arms {
		if c, ok := arm.s.(interface{ cycles() int }); ok {
			n = max(n, c.cycles())
		}
	}
	return n
}

// ArmStats is one arm's line of the campaign's stats.
type ArmStats struct {
	Name string `json:"name"`
	// Execs is the executions of its jobs; Share its share of the
	// bandit's discounted executions (0..1): what the schedule gives it
	// now.
	Execs int64   `json:"execs"`
	Share float64 `json:"share"`
	// Branches counts the new branches its children covered, Entries
	// the queue entries it saved, Crashes the unique crashes it found.
	Branches int64 `json:"branches"`
	Entries  int64 `json:"entries"`
	Crashes  int64 `json:"crashes"`
}

// armStats implements armStater.
func (a *Auto) armStats() []ArmStats {
	var total float64
	for _, arm := range a.arms {
		total += arm.n
	}
	out := make([]ArmStats, len(a.arms))
	for i, arm := range a.arms {
		out[i] = ArmStats{Name: arm.name, Execs: arm.execs, Branches: arm.branches, Entries: arm.entries, Crashes: arm.crashes}
		if total > 0 {
			out[i].Share = arm.n / total
		}
	}
	return out
}

// Arms returns the arms' stats now (tests).
func (a *Auto) Arms() []ArmStats { return a.armStats() }

// autoMutator routes each job to the Mutator of the arm that issued it,
// with the arm's own param, and counts the children it ran.
type autoMutator struct {
	muts  []Mutator
	reuse bool
	// the job in progress: the coordinator's, the arm's view of it, its
	// arm (-1: a job no arm issued) and the children observed
	outer, inner *Job
	arm          int
	runs         int64
}

// job returns the arm's view of j and the arm (-1 for none).
func (m *autoMutator) job(j *Job) (*Job, int) {
	if m.outer != j {
		m.outer, m.inner, m.arm, m.runs = j, j, -1, 0
		if p, ok := j.Param.(*armParam); ok {
			c := *j
			c.Param = p.inner
			m.inner, m.arm = &c, p.arm
		}
	}
	return m.inner, m.arm
}

// Mutate implements Mutator.
func (m *autoMutator) Mutate(dst []byte, j *Job, r Rand) []byte {
	in, arm := m.job(j)
	if arm < 0 {
		// not an arm's job (Mutate is not called for replays): the first arm's child
		arm = 0
	}
	return m.muts[arm].Mutate(dst, in, r)
}

// Observe implements Mutator.
func (m *autoMutator) Observe(j *Job, l Local) {
	in, arm := m.job(j)
	if arm < 0 {
		return
	}
	m.runs++
	m.muts[arm].Observe(in, l)
}

// More implements Ender for the arm's Mutator.
func (m *autoMutator) More(j *Job) bool {
	in, arm := m.job(j)
	if arm < 0 {
		return true
	}
	e, ok := m.muts[arm].(Ender)
	return !ok || e.More(in)
}

// Done implements Mutator: the arm's note inside an armNote.
func (m *autoMutator) Done(j *Job) any {
	in, arm := m.job(j)
	m.outer, m.inner = nil, nil
	if arm < 0 {
		return nil
	}
	return &armNote{arm: arm, runs: m.runs, inner: m.muts[arm].Done(in)}
}

// ReuseIndexes implements IndexedMutator: true when an arm's Mutator
// keeps execution indexes (then every arm's children are laid on their
// parent's sequence).
func (m *autoMutator) ReuseIndexes() bool { return m.reuse }
