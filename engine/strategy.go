package engine

import (
	"sort"

	"github.com/wafer-fuzz/wafer/internal/enumname"
)

// Rand is the randomness a mutator uses. *math/rand/v2.Rand satisfies it;
// tests pass a scripted one and assert exact children.
type Rand interface {
	// IntN returns a uniform int in [0, n); n > 0.
	IntN(n int) int
	// Uint64 returns 64 uniform random bits.
	Uint64() uint64
}

// Entry is one saved choice sequence of the queue. Its fields never change
// after the coordinator adds it, so workers may read any entry of a job's
// queue snapshot without locks.
type Entry struct {
	// ID is the entry's index in the queue.
	ID int
	// Choices is the choice sequence (raw mode: the input itself).
	Choices []byte
	// Input is the generated input (raw mode: same bytes as Choices).
	Input []byte
	// Seq is the structured choice sequence (kinds, execution indexes,
	// types) when the generator is a StructuredGenerator (a
	// *generators.Sequence with FromGenerator); nil otherwise.
	Seq any
	// Outcome is the entry's result (Valid or Invalid).
	Outcome Outcome
	// Trace is its sparse bucketed trace (see Feedback.Trace); nil in the
	// queue of a strategy that reads no entry's trace (havoc, zest,
	// random, bedivfuzz, spoton: traceFree), while the Store still gets
	// it.
	Trace []byte
	// Branches is the number of sites it covers: cov(parent).
	Branches int
	// Favored: it was the first to cover some site, overall or among valid
	// inputs (docs/ALGORITHMS.md §1).
	Favored bool
	// NewCov: it covered a site never covered before (AFL's "+cov"), not
	// only a new bucket or a new valid site.
	NewCov bool
	// Parent is the ID of the entry it was made from, -1 for seeds and
	// fresh sequences; Op names how (OpSeed, or the strategy's name).
	Parent int
	Op     Op
	// Imported: another campaign's input (Deps.Importer), kept because it
	// added coverage here.
	Imported bool
	// Execs is the campaign's execution count when it was merged.
	Execs int64
	// Fuel is the fuel its run used (FuelExecutor; 0 otherwise): its
	// children's first budget follows from it (timeouts.go).
	Fuel uint64
}

// stageable reports whether the entry gets an input-to-state stage
// (compares.go): whether it covered a new branch when it was merged (a
// seed too: a resumed queue replays as seeds, and staging all of it again
// at every resume would cost a compare run and up to maxStage runs per
// entry). Entries that only changed hit counts are most of a queue and
// variations of one that did: staging them too cost csqlite 11-15 % of
// its executions in 30-second campaigns.
func (e *Entry) stageable() bool { return e.ID >= 0 && e.NewCov }

// Job is one unit of work the coordinator hands a worker: N children of
// Parent. Immutable once issued.
type Job struct {
	// Seq numbers jobs in issue order from 0; the worker's PRNG for the job
	// is derived from (Config.Seed, Seq), so the children do not depend on
	// which worker runs the job.
	Seq uint64
	// Parent is the entry to mutate; nil makes fresh children.
	Parent *Entry
	// N is the number of children to make and run.
	N int
	// Queue is a snapshot of the queue at issue time (for splicing); its
	// entries are immutable.
	Queue []*Entry
	// Param is strategy-specific data for the mutator (nil for the built-ins).
	Param any
	// replay runs Parent's own choices unchanged (seeds, resume, imports).
	replay bool
	// imported: a replay of another campaign's input (Importer), kept
	// only when it adds coverage; importOp is the queue entry's Op.
	imported bool
	importOp Op
	// chain: a dependent job (Dependent), never cut by Config.JobSize;
	// its Mutator may end it early (Ender).
	chain bool
	// stage runs Parent's input-to-state replacements, child i applying
	// replacement i (compares.go), up to N; the job ends early when there
	// are fewer. The strategy's Mutator takes no part.
	stage bool
	// donors, when len(donors) == len(Queue), holds Queue[i].Choices: the
	// slice headers side by side, so splicing reads a random donor's
	// choices without a cache miss on its Entry first (Entries lie
	// scattered over the heap; with a queue of a thousand, that miss was
	// the costliest step of havoc).
	donors [][]byte
}

// donor returns the choices of j.Queue[i].
func (j *Job) donor(i int) []byte {
	if len(j.donors) == len(j.Queue) {
		return j.donors[i]
	}
	return j.Queue[i].Choices
}

// Local is what a worker knows about the child it just ran before the
// coordinator merges it: the outcome and whether the worker's private filter
// found anything new (a superset of what is new globally).
type Local struct {
	Outcome Outcome
	Fresh   bool
	Hash    uint64
	// Trace is the child's sparse bucketed trace (see Feedback.Trace), a
	// view valid only during Observe: FairFuzz's mask probes ask whether
	// the target branch is still hit, Lévy flights score a child against
	// their own history.
	Trace []byte
}

// Hits reports whether a sparse trace hits site (binary search; traces are
// in site order).
func Hits(trace []byte, site uint32) bool {
	lo, hi := 0, len(trace)/traceEntry
	for lo < hi {
		m := (lo + hi) / 2
		s, _ := traceSite(trace, m)
		switch {
		case s == site:
			return true
		case s < site:
			lo = m + 1
		default:
			hi = m
		}
	}
	return false
}

// Mutator makes children on one worker's goroutine. A strategy's
// NewMutator is called once per worker; a Mutator is never shared. Any
// worker may run any job, so for the campaign to stay a function of the
// seed a Mutator must not carry state from one job to the next: state
// within a job lives between its Mutate/Observe calls, state across jobs
// in the Strategy, handed out through Job.Param and back through Done's
// note.
type Mutator interface {
	// Mutate returns a child of j.Parent (or a fresh sequence when
	// j.Parent is nil). It may build the child in dst's storage and must
	// not modify j.Parent or any queue entry.
	Mutate(dst []byte, j *Job, r Rand) []byte
	// Observe is called after each child of j ran, in order.
	Observe(j *Job, l Local)
	// Done is called at the end of j; its result is handed to
	// Strategy.JobDone on the coordinator.
	Done(j *Job) any
}

// Dependent runs. A strategy whose next children depend on the results
// of earlier ones (FairFuzz's trimming and mask probes, every Lévy
// batch) asks for them in two steps, the same for every technique:
//
//   - Next returns n children with param Dependent{Param: p}: they go out
//     as one job (never cut by Config.JobSize), so one Mutator makes them
//     in order and sees each child's outcome and trace (Observe) before
//     it makes the next; it may end the job early (Ender). The job's note
//     (Done) carries what the strategy needs to know, and Strategy.JobDone
//     gets it once the job is merged.
//   - Until then Next may return n == Wait: nothing to issue for now.
//     The coordinator asks again after every merge; meanwhile the jobs
//     already issued (other parents, other flights) keep the workers busy.
//     A strategy must not return Wait with none of its jobs in flight
//     (the campaign then ends with an error).
//
// Everything the strategy decides still happens on the coordinator from
// merged results, so a reproducible campaign stays a function of the seed
// (see serve in coordinator.go).

// Wait is the n Strategy.Next returns to issue nothing until one of its
// jobs in flight is merged (see Dependent).
const Wait = -1

// Dependent is the param Strategy.Next returns for a dependent job: the n
// children go out as one job whose Mutator sees Job.Param = Param.
type Dependent struct{ Param any }

// Ender is an optional Mutator interface for dependent jobs: More is asked
// before every child after the first; false ends the job there, and the
// children it did not make are given back to the Config.Runs budget.
type Ender interface {
	More(j *Job) bool
}

// Strategy is one search technique (docs/ALGORITHMS.md §1–§5). The coordinator
// calls its methods from a single goroutine; only the Mutators run on the
// workers. Adding a technique means one file: a type embedding Cycle (or
// not), a Mutator, and an entry in the strategies table.
type Strategy interface {
	// Next returns the next job's parent (nil: fresh children), the number
	// of children to make of it and a strategy parameter for the mutator.
	// The coordinator may cut n into several jobs, unless param is a
	// Dependent; n == Wait issues nothing for now (see Dependent).
	Next(s *State) (parent *Entry, n int, param any)
	// Save decides whether a non-failing child enters the queue. fb (and
	// the slices it holds) is valid during the call only: the coordinator
	// reuses it, so a strategy copies what it keeps (as for Learn).
	Save(s *State, fb *Feedback) bool
	// Learn sees the feedback of every failing child and of every child
	// new in something (branch, valid branch, bucket, trace, valid trace),
	// in merge order, after Save and before the child's coverage is
	// merged. A strategy that must see every child does so in its Mutator
	// (Observe, Done → JobDone).
	Learn(s *State, j *Job, fb *Feedback)
	// JobDone is called when j is merged, with its Mutator's note.
	JobDone(s *State, j *Job, note any)
	// NewMutator returns the mutator for worker w.
	NewMutator(w int, env *MutatorEnv) Mutator
}

// traceFree is a Strategy that never reads a queue entry's trace
// (Entry.Trace) once the entry is queued, nor lets its mutators: the
// coordinator then hands the trace to the Store and keeps it out of the
// queue. A queue entry's trace is 4 bytes per site its run hit (about 12
// KB on csqlite) and is kept for the whole campaign: 18 MB of a
// one-minute csqlite campaign's 58 MB heap. A Strategy without the method
// (FairFuzz and Lévy flights read them, and so may one given to
// FuzzWith) keeps them.
type traceFree interface{ entryTracesUnread() }

func (*Havoc) entryTracesUnread()     {}
func (*Zest) entryTracesUnread()      {}
func (*Random) entryTracesUnread()    {}
func (*BeDivFuzz) entryTracesUnread() {}
func (*SpotOn) entryTracesUnread()    {}

// MutatorEnv is read-only data every mutator may use.
type MutatorEnv struct {
	// Dict holds dictionary tokens: -dict files, then the target's
	// constant dictionary.
	Dict [][]byte
	// MaxLen caps the length of a child (0: no cap).
	MaxLen int
	// FreshLen is the length of a fresh random choice sequence.
	FreshLen int
	// Raw is true when there is no generator (choices are the input).
	Raw bool
}

// State is what the coordinator shares with its strategy. Strategies may
// read everything and must not modify Queue entries or Cov.
type State struct {
	Queue []*Entry
	Cov   *Coverage
	// Execs is the number of executions merged so far.
	Execs int64
	// Conditionals is Config.Conditionals: the first arm of the
	// conditional each site is an arm of, -1 for no arm; nil when unknown.
	Conditionals []int32
}

// ZestSave is the saving rule of docs/ALGORITHMS.md §1: new branch, or valid
// and new valid branch, or (ours, = JQF's "+count") a new (branch, bucket)
// pair.
func ZestSave(fb *Feedback) bool {
	return fb.NewBranch || fb.NewValidBranch || fb.NewBucket
}

// Cycle is the queue schedule of docs/ALGORITHMS.md §1: it cycles through the
// queue in order and gives each parent numCandidates children,
// ⌊50·cov(parent)/|totalCoverage|⌋, ×20 when favored (impl., JQF), at
// least 1 (ours). Strategies embed it for Next.
type Cycle struct {
	// Baseline (50) and FavoredFactor (20): zero means the default.
	Baseline, FavoredFactor int
	next                    int
	// Cycles counts completed passes over the queue.
	Cycles int
}

// NumCandidates is numCandidates(parent).
func (c *Cycle) NumCandidates(s *State, e *Entry) int {
	base, fav := c.Baseline, c.FavoredFactor
	if base == 0 {
		base = 50
	}
	if fav == 0 {
		fav = 20
	}
	n := base
	if s.Cov.Branches > 0 {
		n = base * e.Branches / s.Cov.Branches
	}
	if e.Favored {
		n *= fav
	}
	return max(n, 1)
}

// Next returns the next parent in the cycle.
func (c *Cycle) Next(s *State) (*Entry, int, any) {
	if len(s.Queue) == 0 {
		return nil, 1, nil
	}
	if c.next >= len(s.Queue) {
		c.next = 0
		c.Cycles++
	}
	e := s.Queue[c.next]
	c.next++
	return e, c.NumCandidates(s, e), nil
}

// Base gives a strategy the default Save (ZestSave), Learn and JobDone.
type Base struct{}

// Save implements Strategy with ZestSave.
func (Base) Save(_ *State, fb *Feedback) bool { return ZestSave(fb) }

// Learn implements Strategy: nothing to learn.
func (Base) Learn(*State, *Job, *Feedback) {}

// JobDone implements Strategy: nothing to do.
func (Base) JobDone(*State, *Job, any) {}

// BaseMutator gives a mutator no-op Observe and Done.
type BaseMutator struct{}

// Observe implements Mutator: nothing to observe.
func (BaseMutator) Observe(*Job, Local) {}

// Done implements Mutator: no note.
func (BaseMutator) Done(*Job) any { return nil }

// StrategyOptions are the knobs the built-in strategies read.
type StrategyOptions struct {
	// Raw is true in raw mode (no generator).
	Raw bool
	// Conditionals is Config.Conditionals; Generative is
	// Config.Generative (zest's mutation means, bedivfuzz, spoton).
	Conditionals []int32
	Generative   GenerativeOptions
	// Workers is Config.Workers (Lévy flights: one per worker).
	Workers int
	// AutoArms is Config.AutoArms (auto's arms; nil: AutoArms(Raw)).
	AutoArms []string
	// Havoc, FairFuzz and Levy are Config's knobs of those strategies
	// (zero values: the defaults).
	Havoc    HavocConfig
	FairFuzz FairFuzzConfig
	Levy     LevyConfig
}

// strategies is the table of built-in techniques by name.
var strategies = map[string]func(StrategyOptions) Strategy{
	"zest": func(o StrategyOptions) Strategy {
		return &Zest{MeanMutations: o.Generative.MeanMutations, MeanLength: o.Generative.MeanLength, Tree: o.Generative.Tree}
	},
	"tree": func(o StrategyOptions) Strategy {
		// Zest whose children are all tree mutations where one applies
		t := o.Generative.Tree
		t.Share = 1
		return &Zest{MeanMutations: o.Generative.MeanMutations, MeanLength: o.Generative.MeanLength, Tree: t}
	},
	"havoc": func(o StrategyOptions) Strategy {
		return &Havoc{Depth: o.Havoc.Depth, StackPow2: o.Havoc.StackPow2}
	},
	"random":    func(StrategyOptions) Strategy { return &Random{} },
	"fairfuzz":  func(o StrategyOptions) Strategy { return NewFairFuzz(o) },
	"levy":      func(o StrategyOptions) Strategy { return NewLevy(o) },
	"bedivfuzz": func(o StrategyOptions) Strategy { return newBeDivFuzz(o) },
	"spoton":    func(o StrategyOptions) Strategy { return newSpotOn(o) },
}

// Strategies lists the built-in strategy names, sorted: the table's and
// "auto" (portfolio.go), whose arms the table makes.
func Strategies() []string {
	names := make([]string, 0, len(strategies)+1)
	for n := range strategies {
		names = append(names, n)
	}
	names = append(names, "auto")
	sort.Strings(names)
	return names
}

// NewStrategy returns the built-in strategy called name; an unknown name
// is an error listing the strategies.
func NewStrategy(name string, o StrategyOptions) (Strategy, error) {
	if name == "auto" {
		if len(o.AutoArms) > 0 {
			return NewAuto(o, o.AutoArms...)
		}
		return newAuto(o), nil
	}
	f, ok := strategies[name]
	if !ok {
		return nil, &enumname.Error{What: "strategy", Name: name, Valid: Strategies()}
	}
	return f(o), nil
}

func (c *Cycle) cycles() int { return c.Cycles }
