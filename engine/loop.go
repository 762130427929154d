package engine

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"sync"
	"time"
)

// Fuzz runs a campaign until a stop condition (Config.Runs,
// Config.MaxTotalTime, the first crash unless KeepGoing) or until ctx is
// canceled. Cancellation is a clean stop: in-flight jobs are cut short and
// merged, the final stats are written, and Fuzz returns a Summary with
// Stop "canceled" and a nil error. An error means wafer itself broke (an
// Executor, Generator or Store error); the Summary is still filled in,
// except when Fuzz fails before the loop starts (bad strategy name, Store
// Load or NewExecutor error): then it is nil.
//
// Shape: one coordinator (the calling goroutine) owns the queue, the
// coverage and the stats; Workers goroutines each own an Executor and a
// Mutator, make and run the children of the jobs they are handed, filter
// the results through a private coverage filter and send back only the
// children that may be new. No lock is taken in the search loop.
func Fuzz(ctx context.Context, cfg Config, deps Deps) (*Summary, error) {
	if deps.NewExecutor == nil {
		return nil, errors.New("engine: deps.NewExecutor is nil")
	}
	cfg = cfg.withDefaults(deps.Generator != nil)
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	strat, err := NewStrategy(cfg.Strategy, StrategyOptions{Raw: deps.Generator == nil, Workers: cfg.Workers,
		Conditionals: cfg.Conditionals, Generative: cfg.Generative,
		Havoc: cfg.Havoc, FairFuzz: cfg.FairFuzz, Levy: cfg.Levy})
	if err != nil {
		return nil, err
	}
	return run(ctx, cfg, deps, strat)
}

// FuzzWith is Fuzz with a strategy value instead of a name (for strategies
// outside the built-in table and for tests).
func FuzzWith(ctx context.Context, cfg Config, deps Deps, strat Strategy) (*Summary, error) {
	if deps.NewExecutor == nil {
		return nil, errors.New("engine: deps.NewExecutor is nil")
	}
	cfg = cfg.withDefaults(deps.Generator != nil)
	return run(ctx, cfg, deps, strat)
}

type childResult struct {
	choices, input []byte
	seq            any
	index          int
	outcome        Outcome
	hash           uint64
	trace          []byte
	failure        *Failure
	fuel           uint64
	// timeout: the child exhausted its first fuel budget; the sparse
	// trace of that run (timeouts.go). The rest is the rerun with the
	// whole budget, unless dropped: it ran and was neither new nor a
	// failure, or never ran.
	timeout []byte
	dropped bool
	// checked: a queue entry that crashed on the comparer (its build's
	// checks found what the executors' build does not look for); not a
	// run of the job, and no coverage.
	checked bool
	// covered: the worker's filter held all of the trace's coverage
	// (scanner.newCov false), so the coordinator need not look at its
	// sites. The zero value looks.
	covered bool
}

type jobResult struct {
	job      *Job
	children []childResult
	execs    int64
	valid    int64
	invalid  int64
	crashes  int64
	hangs    int64
	timeouts int64 // children stopped at their first fuel budget and not rerun
	note     any
	err      error
}

// batch is the unit of hand-off between the coordinator and the workers:
// consecutive jobs, in issue order, run by one worker (see nextBatch).
type batch struct {
	seq  uint64 // batch number in issue order, from 0
	jobs []*Job
	// known is the coordinator's set of known failure identities when the
	// batch was made (read-only: a sync that learns more makes a new set).
	known map[string]bool
}

// batchResult is what a worker sends back for a batch: one jobResult per
// job, in order, the hit counts of all its runs and the sampled time
// shares.
type batchResult struct {
	b        *batch
	jobs     []*jobResult
	hitSites []uint32
	hitCount []uint32
	times    [tSlots]time.Duration
	waited   time.Duration // how long the worker waited for the batch
	bufs     batchBuffers  // handed back after the merge
}

// batchBuffers are a batch's arena (worker.arena) and its children's
// array, which the coordinator hands back to the workers once it has
// merged the batch, for a next batch to reuse: nothing reads them after
// the merge (what the coordinator keeps, it copies: ownCopies). Made anew
// for every batch, they were 80 % of the bytes a campaign allocated
// (csqlite: 2.4 GB of 3.0 GB in 55 s, one worker), and the collector's
// pace followed.
type batchBuffers struct {
	arena []byte
	kids  []childResult
}

type worker struct {
	id    int
	exec  Executor
	cmp   Comparer // nil: no input-to-state mutation
	gen   Generator
	sgen  StructuredGenerator // gen, when structured
	reuse bool                // the mutator keeps execution indexes
	mut   Mutator
	sc    *scanner
	rng   *pcgRand
	buf   []byte
	// arena holds the choices, trace and input of the batch's children
	// sent to the coordinator, each a capped slice of it: one buffer per
	// batch, not one allocation per child. A batch's arena is not written
	// again until the coordinator has merged the batch and handed the
	// arena back (spares), so what the coordinator reads of it stays
	// valid; it copies what it keeps for long (queue entries, findings).
	// arenaHint is the last batch's use, and an eighth.
	arena     []byte
	arenaHint int
	spares    <-chan batchBuffers // merged batches' buffers; nil: none
	// kidsHint is the last batch's number of children sent (and an
	// eighth): the batch's jobs share one backing array of that size
	// for their children (runBatch).
	kidsHint  int
	seed      uint64
	maxLen    int
	keepGoing bool
	known     map[string]bool // Deps.KnownFailures (the coordinator's, read-only)
	onRun     func(uint64, int, []byte)
	yield     bool // Gosched after each result (no P to spare)

	// fx is exec when it counts fuel, full its whole budget (timeouts.go);
	// nil and 0 otherwise. tmo: the sites of the timeouts it sent.
	fx   FuelExecutor
	full uint64
	tmo  siteSet

	halted bool                  // a crash (without keepGoing) or an error: skip the rest of the batch
	tick   uint                  // children made, for time sampling
	t      [tSlots]time.Duration // sampled times since the last takeTimes
}

// knownFailure reports whether f, the failure of a run with outcome o, has
// the identity of one an earlier session saved (Deps.KnownFailures).
func knownFailure(known map[string]bool, o Outcome, f *Failure) bool {
	if len(known) == 0 {
		return false
	}
	return known[failureID(o, f)]
}

// timeEvery: the worker times one child in timeEvery (time shares are
// estimates; reading the clock costs ~20 ns, which on a 2 µs target is
// more than the bookkeeping it measures if done for every child).
const timeEvery = 64

// loop runs batches from the shared queue. Batches come off the channel in
// issue order and a batch holds consecutive jobs, so the jobs one worker
// runs have increasing Seq: everything its private filter holds was merged
// before the job it runs now (the argument that makes the filter exact,
// see doc.go).
func (w *worker) loop(ctx context.Context, batches <-chan *batch, results chan<- *batchResult) {
	for {
		t0 := time.Now()
		b, ok := <-batches
		if !ok {
			return
		}
		waited := time.Since(t0)
		br := w.runBatch(ctx, b)
		br.waited = waited
		results <- br
		// The send made the coordinator runnable on this P, behind this
		// goroutine. When every P runs a worker, yield so it merges and
		// hands out work now rather than at the next preemption (up to 10ms
		// later, and the queued jobs run out meanwhile); with a P to spare
		// it gets scheduled there without a switch here.
		if w.yield {
			goruntime.Gosched()
		}
	}
}

// runBatch runs the jobs of b in order. After a crash (without
// keepGoing) or an executor error the remaining jobs run no child (their
// Mutator.Done is still called).
func (w *worker) runBatch(ctx context.Context, b *batch) *batchResult {
	br := &batchResult{b: b, jobs: make([]*jobResult, len(b.jobs))}
	res := make([]jobResult, len(b.jobs)) // one allocation for the batch
	var spare batchBuffers
	select {
	case spare = <-w.spares:
	default:
	}
	if cap(spare.arena) >= w.arenaHint {
		w.arena = spare.arena[:0]
	} else {
		w.arena = make([]byte, 0, w.arenaHint)
	}
	w.halted = false
	w.known = b.known
	// The jobs' children share one array: each job appends after the
	// previous one's (a job that outgrows it gets its own), and is capped
	// at its length.
	kids := spare.kids[:cap(spare.kids)] // zero: cleared when handed back
	if len(kids) < w.kidsHint {
		kids = make([]childResult, w.kidsHint)
	}
	used, sent := 0, 0
	for i, j := range b.jobs {
		res[i].job = j
		res[i].children = kids[used:used]
		br.jobs[i] = &res[i]
		w.runJob(ctx, &res[i])
		ch := res[i].children
		if n := len(ch); n > 0 && n <= len(kids)-used && &ch[0] == &kids[used] {
			used += n
		}
		res[i].children = ch[:len(ch):len(ch)]
		sent += len(ch)
	}
	w.kidsHint = min(sent+sent/8, maxKidsHint)
	br.hitSites, br.hitCount = w.sc.flushHits()
	br.times = w.takeTimes()
	w.arenaHint = min(len(w.arena)+len(w.arena)/8, maxArenaHint)
	br.bufs = batchBuffers{arena: w.arena[:0], kids: kids}
	w.arena = nil // the coordinator's now
	return br
}

// run runs one job as a batch of one would, and returns its result with
// the hit counts and time shares folded in (tests).
func (w *worker) run(ctx context.Context, j *Job) *jobResult {
	w.halted = false
	res := &jobResult{job: j}
	w.runJob(ctx, res)
	w.sc.flushHits()
	w.takeTimes()
	return res
}

// takeTimes returns the sampled times since the last call, extrapolated
// to every child run, and resets the sample. Each sample stands for the
// timeEvery children its tick picked it from: scaling a batch's samples by
// that batch's own children instead underestimated batches of fewer than
// timeEvery children (one of 50 is sampled with probability 50/64, then
// counted as 50), by as much as 10x on slow targets.
func (w *worker) takeTimes() (t [tSlots]time.Duration) {
	for k := range t {
		t[k] = w.t[k] * timeEvery
	}
	w.t = [tSlots]time.Duration{}
	return t
}

// runJob runs one job's passes: the input-to-state stage's comparer run
// (stage jobs), then for each child making it (makeChild), generating its
// input (generate), executing it (exec1) and recording the result
// (record), and last the Mutator's note.
func (w *worker) runJob(ctx context.Context, res *jobResult) {
	j := res.job
	var rs []replacement
	if j.stage && !w.halted {
		rs = w.stagePass(ctx, j, res)
	}
	w.rng.Seed(w.seed, j.Seq)
	done := ctx.Done()
	for i := 0; i < j.N && !w.halted; i++ {
		select {
		case <-done:
			i = j.N
			continue
		default:
		}
		if j.chain && i > 0 && !w.more(j) {
			break
		}
		timed := w.tick%timeEvery == 0
		w.tick++
		var t0, t1, t2, t3 time.Time
		if timed {
			t0 = time.Now()
		}
		child, ok := w.makeChild(j, i, rs)
		if !ok {
			break
		}
		if timed {
			t1 = time.Now()
		}
		input, used, seq, err := w.generate(j, child)
		if err != nil {
			res.err = fmt.Errorf("generator: %w", err)
			w.halted = true
			break
		}
		if timed {
			t2 = time.Now()
		}
		if w.onRun != nil {
			w.onRun(j.Seq, i, input)
		}
		r, timeout, err := w.exec1(ctx, j, input)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			res.err = fmt.Errorf("executor: %w", err)
			w.halted = true
			break
		}
		if timed {
			t3 = time.Now()
		}
		res.execs++
		recorded := w.record(res, j, i, r, timeout, input, used, seq)
		if timed {
			w.t[tMutate] += t1.Sub(t0)
			w.t[tGenerate] += t2.Sub(t1)
			w.t[tExecute] += t3.Sub(t2)
			if recorded {
				w.t[tBook] += time.Since(t3)
			}
		}
		// A crash ends the campaign unless it keeps going or the crash is
		// one an earlier session saved (the coordinator goes on then, and
		// the batch's children are already counted against Config.Runs).
		if recorded && r.Outcome == Crash && !w.keepGoing && !knownFailure(w.known, r.Outcome, r.Failure) {
			w.halted = true
		}
	}
	if !j.stage {
		res.note = w.mut.Done(j)
	}
}

// more asks the Mutator of a dependent job whether the job makes another
// child (Ender); without the interface every child is made.
func (w *worker) more(j *Job) bool {
	e, ok := w.mut.(Ender)
	return !ok || e.More(j)
}

// stagePass is a stage job's first pass: the parent's run on the comparer
// and its replacements. A crash there (the comparer's build checks what
// the executors' does not) is recorded as a checked child.
func (w *worker) stagePass(ctx context.Context, j *Job, res *jobResult) []replacement {
	rs, crash, err := w.inputToState(ctx, j.Parent)
	if err != nil && ctx.Err() == nil {
		res.err = err
		w.halted = true
	}
	if crash != nil {
		// the comparer's build checks what the executors' does not
		// (queue entries never crashed there)
		res.children = append(res.children, childResult{choices: j.Parent.Choices, input: j.Parent.Input,
			outcome: Crash, failure: crash, checked: true})
		if !w.keepGoing && !knownFailure(w.known, Crash, crash) {
			w.halted = true
		}
	}
	return rs
}

// makeChild returns child i of j: the parent itself (replay), the
// parent with replacement i (stage; false when there is none left) or the
// Mutator's child, cut to maxLen.
func (w *worker) makeChild(j *Job, i int, rs []replacement) ([]byte, bool) {
	if j.replay {
		return j.Parent.Choices, true
	}
	var child []byte
	if j.stage {
		if i >= len(rs) {
			return nil, false
		}
		child = rs[i].apply(append(w.buf[:0], j.Parent.Choices...))
	} else {
		child = w.mut.Mutate(w.buf[:0], j, w.rng)
	}
	if len(child) > w.maxLen {
		child = child[:w.maxLen] // a replacement may grow it too
	}
	w.buf = child[:0]
	return child, true
}

// generate turns a child's choices into the input to run (raw mode: the
// choices themselves), the choices the generator used and its structured
// sequence.
func (w *worker) generate(j *Job, child []byte) (input, used []byte, seq any, err error) {
	if w.gen == nil {
		return child, child, nil, nil
	}
	if w.sgen != nil {
		var base any
		if w.reuse && !j.replay && j.Parent != nil {
			base = j.Parent.Seq
		}
		return w.sgen.GenerateFrom(base, child)
	}
	input, used, err = w.gen.Generate(child)
	return input, used, nil, err
}

// record counts child i's run, scans its counters through the worker's
// filter, keeps it in res when it may be new or failed, and shows it to
// the Mutator. It returns false for a timeout dropped unrun (see exec1).
func (w *worker) record(res *jobResult, j *Job, i int, r Result, timeout, input, used []byte, seq any) bool {
	if timeout != nil && r.Counters == nil {
		// a timeout whose sites earlier ones reached: dropped
		res.timeouts++
		if !j.stage {
			w.mut.Observe(j, Local{Outcome: Hang, Trace: timeout})
		}
		return false
	}
	switch r.Outcome {
	case Valid:
		res.valid++
	case Invalid:
		res.invalid++
	case Crash:
		res.crashes++
	case Hang:
		res.hangs++
	}
	// Input-to-state children, and reruns of timeouts, are queued only
	// for a new branch (mergeJob): probe mode, which reports only those.
	w.sc.probe = j.stage || timeout != nil
	hash, fresh := w.sc.scan(r.Counters, r.Outcome)
	w.sc.probe = false
	if timeout != nil && !fresh && !r.Outcome.Failed() {
		res.children = append(res.children, childResult{index: i, timeout: timeout, dropped: true})
	}
	if fresh || r.Outcome.Failed() {
		c := childResult{
			seq:     seq,
			index:   i,
			outcome: r.Outcome,
			hash:    hash,
			failure: r.Failure.clone(),
			fuel:    r.Fuel,
			timeout: timeout,
			covered: !w.sc.newCov,
		}
		// The choices, the trace and (generator mode) the input go into
		// the batch's arena, each capped at its length (never nil: the
		// choices and input of an empty child are empty, not nil).
		c.choices = w.keep(used)
		if w.sc.trace != nil {
			c.trace = w.keep(w.sc.trace)
		}
		if w.gen == nil {
			c.input = c.choices
		} else {
			c.input = w.keep(input)
		}
		res.children = append(res.children, c)
	}
	if !j.stage {
		l := Local{Outcome: r.Outcome, Fresh: fresh, Hash: hash, Trace: w.sc.trace}
		if timeout != nil {
			// what every worker sees: whether this one reran it depends
			// on which timeouts it sent before
			l = Local{Outcome: Hang, Trace: timeout}
		}
		w.mut.Observe(j, l)
	}
	return true
}

// maxKidsHint caps the children's array a batch starts with.
const maxKidsHint = 1024

// maxArenaHint caps the arena a batch starts with (a batch that needed
// more grows its own).
const maxArenaHint = 1 << 20

// keep copies b to the batch's arena and returns the copy, capped at its
// length.
func (w *worker) keep(b []byte) []byte {
	if w.arena == nil {
		w.arena = make([]byte, 0, max(w.arenaHint, 4096)) // run and record outside a batch (tests)
	}
	n := len(w.arena)
	w.arena = append(w.arena, b...)
	return w.arena[n:len(w.arena):len(w.arena)]
}

// exec1 runs one child. A mutated child of a fuel-counting executor gets
// a first budget (childFuel); if it exhausts it, timeout is the trace of
// that run and, when the sites it reached are new to this worker's
// timeouts, r is the rerun with the whole budget, else a Result with nil
// Counters (dropped).
func (w *worker) exec1(ctx context.Context, j *Job, input []byte) (r Result, timeout []byte, err error) {
	if w.fx == nil || j.replay {
		r, err = w.exec.Run(ctx, input)
		return r, nil, err
	}
	var parent uint64
	if j.Parent != nil {
		parent = j.Parent.Fuel
	}
	first := childFuel(parent, w.full)
	if first >= w.full {
		r, err = w.exec.Run(ctx, input)
		return r, nil, err
	}
	if r, err = w.fx.RunFuel(ctx, input, first); err != nil || r.Outcome != Hang {
		return r, nil, err
	}
	// The scan of a failed run marks no coverage: it only reads the trace
	// (counting its hits) and clears the counters.
	w.sc.scan(r.Counters, Hang)
	if w.tmo.covers(w.sc.trace) {
		return Result{}, w.sc.trace, nil
	}
	timeout = slices.Clone(w.sc.trace)
	w.tmo.add(timeout)
	r, err = w.exec.Run(ctx, input)
	return r, timeout, err
}

// inputToState runs e on the comparer and returns its replacements
// (compares.go), and the comparer's crash if the run crashed.
func (w *worker) inputToState(ctx context.Context, e *Entry) ([]replacement, *Failure, error) {
	if w.cmp == nil {
		return nil, nil, nil // a NewComparer that returned none
	}
	ops, crash, err := w.cmp.Compare(ctx, e.Input)
	if err != nil {
		return nil, nil, fmt.Errorf("comparer: %w", err)
	}
	return inputToState(e.Input, ops), crash, nil
}

type coordinator struct {
	cfg   Config
	deps  Deps
	store *asyncStore // deps.Store behind a writer goroutine; nil without
	strat Strategy
	st    State
	cov   *Coverage
	rng   *rand.Rand
	// fb is the Feedback of the child being merged, reused (Save and
	// Learn get a pointer to it, valid during the call): one allocation
	// less per merged child.
	fb Feedback

	seeds [][]byte // to replay, in order
	// staged[id]: entry id had its input-to-state stage (stageJobs: there
	// is a comparer, in raw mode).
	staged    []bool
	stageJobs bool
	cur       *Entry // current parent
	param     any
	left      int  // children of cur still to issue
	chain     bool // cur's children go out as one dependent job (Dependent)
	// waiting: the strategy's last Next returned Wait.
	waiting bool
	seq     uint64
	// batches counts batches issued.
	batches uint64
	// donors[i] is st.Queue[i].Choices (see Job.donors).
	donors [][]byte
	// waited is the workers' total time waiting for a batch.
	waited time.Duration
	// stopWorkers cancels the workers' context (see run).
	stopWorkers func()

	issued int64 // children issued (Runs bound)
	execs  int64
	valid  int64
	inval  int64
	crashR int64
	hangR  int64
	tmoR   int64
	times  [tSlots]time.Duration
	// tmo: the sites the timeouts merged so far reached (timeouts.go).
	tmo siteSet

	failures map[string]*Finding
	verify   *verifier       // reruns new crashes before they are saved (verify.go)
	known    map[string]bool // Deps.KnownFailures and the peers' (sync); replaced, never written, once workers run
	findings []*Finding
	crashes  int
	hangs    int

	stop    string
	err     error
	start   time.Time
	end     time.Time // when the search ended (before the final shrinking)
	rep     reporter
	lastT   time.Time
	lastX   int64
	cycleOf func() int
	// sync is live sync's state (sync.go); nil without Deps.Importer.
	sync *syncState
	// spares takes merged batches' buffers back to the workers (run).
	spares chan<- batchBuffers
	// keepTraces: queue entries keep their traces (the strategy is not
	// traceFree).
	keepTraces bool
}

// run is a campaign's passes: set up the coordinator and its seeds
// (newCoordinator), start one worker per Config.Workers (newWorkers), hand
// out and merge batches until nothing more may be issued (serve), then
// shrink the crashes and write the final stats (finish).
func run(ctx context.Context, cfg Config, deps Deps, strat Strategy) (*Summary, error) {
	if gw, ok := strat.(generatorWrapper); ok && deps.Generator != nil {
		deps.Generator = gw.wrapGenerator(deps.Generator)
	}
	c, err := newCoordinator(ctx, cfg, deps, strat)
	if err != nil {
		return nil, err
	}
	workers, err := c.newWorkers(ctx)
	if err != nil {
		return nil, err
	}

	// The workers' context is also canceled when the campaign stops on
	// time or, if its course need not be reproducible, on a crash or an
	// error (see halt): batches in flight then end at the next child
	// instead of running to their end (seconds on a slow target).
	wctx, stopWorkers := context.WithCancel(ctx)
	defer stopWorkers()
	c.stopWorkers = stopWorkers
	// One batch queue shared by the workers, and at most lag batches in
	// flight (see serve). Neither channel can fill, so the coordinator
	// never blocks handing out work and a worker never blocks returning
	// it.
	lag := max(4, 2*cfg.Workers)
	batches := make(chan *batch, lag)
	results := make(chan *batchResult, lag)
	spares := make(chan batchBuffers, cfg.Workers)
	c.spares = spares
	var wg sync.WaitGroup
	for _, w := range workers {
		w.spares = spares
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.loop(wctx, batches, results)
		}()
	}

	// Store writes use sctx: results merged after a cancel are still saved.
	sctx := context.WithoutCancel(ctx)
	if deps.Store != nil {
		c.store = newAsyncStore(sctx, deps.Store)
	}
	c.serve(ctx, sctx, lag, batches, results)
	close(batches)
	wg.Wait()
	for _, w := range workers {
		closeExecutor(ctx, w.exec)
		closeExecutor(ctx, w.cmp)
	}
	return c.finish(ctx, sctx)
}

// newCoordinator sets up the coordinator: its state, the known failures,
// and the seeds to replay (the Store's previous queue, then Deps.Seeds,
// else the empty input or one random sequence).
func newCoordinator(ctx context.Context, cfg Config, deps Deps, strat Strategy) (*coordinator, error) {
	c := &coordinator{
		cfg:      cfg,
		deps:     deps,
		strat:    strat,
		cov:      newCoverage(),
		rng:      rand.New(rand.NewPCG(cfg.Seed, ^uint64(0))),
		failures: make(map[string]*Finding),
		rep:      reporter{w: deps.Status, tty: deps.StatusTTY},
	}
	_, free := strat.(traceFree)
	c.keepTraces = !free
	if len(deps.KnownFailures) > 0 {
		c.known = make(map[string]bool, len(deps.KnownFailures))
		for _, id := range deps.KnownFailures {
			c.known[id] = true
		}
	}
	c.st.Cov = c.cov
	c.st.Conditionals = cfg.Conditionals
	c.stageJobs = deps.NewComparer != nil && deps.Generator == nil
	if cy, ok := strat.(interface{ cycles() int }); ok {
		c.cycleOf = cy.cycles
	}
	if deps.Store != nil {
		prev, err := deps.Store.Load(ctx)
		if err != nil {
			return nil, fmt.Errorf("load previous queue: %w", err)
		}
		c.seeds = append(c.seeds, prev...)
		if r, ok := deps.Store.(Resumer); ok {
			c.seq = r.ResumeJobs()
		}
	}
	c.seeds = append(c.seeds, deps.Seeds...)
	if deps.Importer != nil {
		c.sync = &syncState{imp: deps.Importer, every: cfg.SyncInterval, done: make(chan syncResult, 1)}
		if err := c.firstPoll(ctx); err != nil {
			return nil, err
		}
	}
	if len(c.seeds) == 0 && !c.importing() {
		if deps.Generator == nil {
			c.seeds = [][]byte{{}}
		} else {
			s := make([]byte, cfg.FreshLen)
			fillRandom(s, c.rng)
			c.seeds = [][]byte{s}
		}
	}
	return c, nil
}

// newWorkers makes the workers, each with its Executor, Comparer (stage
// jobs), Generator and Mutator. The executors and comparers are made
// concurrently, one goroutine per worker (an instance and its snapshot
// take tens of milliseconds on a Go reactor: made one after another they
// were a fifth of a two-worker campaign of 20,000 runs on gopng); the
// rest in worker order. On an error it closes what it opened and returns
// the error of the lowest worker that failed.
func (c *coordinator) newWorkers(ctx context.Context) ([]*worker, error) {
	cfg, deps := c.cfg, c.deps
	env := &MutatorEnv{
		Dict:     append(slices.Clone(cfg.Dict), deps.TargetDict...),
		MaxLen:   cfg.MaxLen,
		FreshLen: cfg.FreshLen,
		Raw:      deps.Generator == nil,
	}
	exs := make([]Executor, cfg.Workers)
	cmps := make([]Comparer, cfg.Workers)
	errs := make([]error, cfg.Workers)
	var wg sync.WaitGroup
	for i := range exs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ex, err := deps.NewExecutor(ctx, i)
			if err != nil {
				errs[i] = err
				return
			}
			if c.stageJobs {
				cmp, err := deps.NewComparer(ctx, i)
				if err != nil {
					closeExecutor(ctx, ex)
					errs[i] = fmt.Errorf("comparer: %w", err)
					return
				}
				cmps[i] = cmp
			}
			exs[i] = ex
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil {
			continue
		}
		for k := range exs {
			if exs[k] != nil {
				closeExecutor(ctx, exs[k])
			}
			if cmps[k] != nil {
				closeExecutor(ctx, cmps[k])
			}
		}
		return nil, fmt.Errorf("worker %d: %w", i, err)
	}
	workers := make([]*worker, cfg.Workers)
	for i := range workers {
		ex, cmp := exs[i], cmps[i]
		w := &worker{
			id: i, exec: ex, cmp: cmp, gen: workerGenerator(deps.Generator, i), mut: c.strat.NewMutator(i, env),
			sc: newScanner(), rng: &pcgRand{}, seed: cfg.Seed,
			maxLen: cfg.MaxLen, keepGoing: cfg.KeepGoing, known: c.known, onRun: deps.OnRun,
			yield: cfg.Workers >= goruntime.GOMAXPROCS(0),
		}
		w.sgen, _ = w.gen.(StructuredGenerator)
		if fx, ok := ex.(FuelExecutor); ok && fx.Fuel() > 0 {
			w.fx, w.full = fx, fx.Fuel()
		}
		if im, ok := w.mut.(IndexedMutator); ok {
			w.reuse = im.ReuseIndexes()
		}
		workers[i] = w
	}
	return workers, nil
}

// serve is the search loop: it keeps up to lag batches in flight, merges
// results (in issue order when Config.Deterministic), reports stats and
// notes stops, until no batch is in flight and none may be issued.
//
// After every merge (and at the start) it issues batches until lag are
// in flight or none can be made: the budget is spent, the campaign is
// stopping, or the strategy waits for a job in flight (Wait, dependent
// runs). When the strategy never waits this is one batch per merge, batch
// m+lag made right after batch m is merged. When it waits, fewer are in
// flight for a while and later merges issue more than one. In a
// reproducible campaign the count in flight after each merge, like the
// merged state, is a function of the seed (merges follow issue order), so
// which batches are made after which merge is too.
func (c *coordinator) serve(ctx, sctx context.Context, lag int, batches chan<- *batch, results <-chan *batchResult) {
	var storeErr <-chan error
	if c.store != nil {
		storeErr = c.store.errc
	}
	c.start = time.Now()
	c.lastT = c.start
	tick := time.NewTicker(c.cfg.StatsInterval)
	defer tick.Stop()
	var syncTick, syncDone = (<-chan time.Time)(nil), (<-chan syncResult)(nil)
	if c.sync != nil {
		t := time.NewTicker(c.sync.every)
		defer t.Stop()
		syncTick, syncDone = t.C, c.sync.done
	}
	var deadline <-chan time.Time
	if c.cfg.MaxTotalTime > 0 {
		tm := time.NewTimer(c.cfg.MaxTotalTime)
		defer tm.Stop()
		deadline = tm.C
	}
	done := ctx.Done()

	inflight := 0
	fill := func() {
		for inflight < lag {
			b := c.nextBatch()
			if b == nil {
				break
			}
			batches <- b
			inflight++
		}
		if inflight == 0 && c.waiting && c.stop == "" {
			// nothing in flight can end the wait
			c.setErr(fmt.Errorf("strategy %s waits with no job in flight", c.cfg.Strategy))
		}
	}
	fill()
	// Deterministic mode merges in issue order: results that arrive early
	// wait in pending until every batch before them is merged.
	pending := make(map[uint64]*batchResult)
	var nextSeq uint64
	for inflight > 0 {
		select {
		case r := <-results:
			if !c.cfg.Deterministic {
				inflight--
				c.merge(sctx, r)
				fill()
				continue
			}
			pending[r.b.seq] = r
			for {
				r, ok := pending[nextSeq]
				if !ok {
					break
				}
				delete(pending, nextSeq)
				nextSeq++
				inflight--
				c.merge(sctx, r)
				fill()
			}
		case <-tick.C:
			c.report(sctx, false)
		case <-syncTick:
			c.startPoll(ctx, sctx)
		case r := <-syncDone:
			c.pollDone(ctx, r)
			fill()
		case <-done:
			c.halt("canceled")
			done = nil
		case <-deadline:
			c.halt("time")
			deadline = nil
		case err := <-storeErr:
			c.setErr(fmt.Errorf("store: %w", err))
			storeErr = nil
		}
	}
}

// finish ends the campaign once the workers are done: the stop reason,
// the crashes shrunk, the final stats, the Store closed.
func (c *coordinator) finish(ctx, sctx context.Context) (*Summary, error) {
	if c.stop == "" {
		c.stop = "runs"
	}
	c.end = time.Now()
	if c.sync != nil {
		if err := c.endSync(sctx); err != nil && c.err == nil {
			c.err, c.stop = err, "error"
		}
	}
	c.shrinkAll(ctx)
	stats := c.report(sctx, true)
	if c.store != nil {
		if err := c.store.close(); err != nil && c.err == nil {
			c.err = fmt.Errorf("store: %w", err)
			c.stop = "error"
		}
	}
	sum := &Summary{Stop: Stop(c.stop), Stats: *stats, Queue: c.st.Queue, Failures: c.findings, Waited: c.waited}
	return sum, c.err
}

// halt records the first stop reason.
func (c *coordinator) halt(reason string) {
	if c.stop == "" {
		c.stop = reason
	}
	// A reproducible campaign (Config.Deterministic, or one worker) runs
	// every issued batch to its end after a crash or error, so what ran is
	// still a function of the seed; time and cancellation are not
	// reproducible anyway.
	if c.stopWorkers != nil && (reason == "time" || reason == "canceled" || !c.reproducible()) {
		c.stopWorkers()
	}
}

// reproducible reports whether the campaign's course must be a function
// of the seed: Config.Deterministic, or one worker (results then arrive
// in issue order).
func (c *coordinator) reproducible() bool { return c.cfg.Deterministic || c.cfg.Workers == 1 }

// next returns the next job, or nil when nothing more may be issued.
func (c *coordinator) next() *Job {
	c.waiting = false
	if c.stop != "" {
		return nil
	}
	budget := int64(-1)
	if c.cfg.Runs > 0 {
		budget = c.cfg.Runs - c.issued
		if budget <= 0 {
			return nil
		}
	}
	n := len(c.st.Queue)
	j := &Job{Seq: c.seq, Queue: c.st.Queue[:n:n], donors: c.donors[:n:n]}
	if len(c.seeds) > 0 {
		j.Parent = &Entry{ID: -1, Choices: c.seeds[0], Input: c.seeds[0]}
		j.N = 1
		j.replay = true
		c.seeds = c.seeds[1:]
	} else if c.importing() {
		c.takeImport(j)
	} else {
		if c.left <= 0 {
			c.cur, c.left, c.param = c.strat.Next(&c.st)
			if c.left == Wait {
				c.cur, c.left, c.param, c.waiting = nil, 0, nil, true
				return nil
			}
			c.left = max(c.left, 1)
			c.chain = false
			if d, ok := c.param.(Dependent); ok {
				c.param, c.chain = d.Param, true
			}
			if e := c.cur; c.stageJobs && e != nil && e.stageable() {
				for len(c.staged) <= e.ID {
					c.staged = append(c.staged, false)
				}
				if !c.staged[e.ID] {
					// Input-to-state first, once per stageable entry (the
					// unused budget is given back when the job is
					// merged).
					c.staged[e.ID] = true
					j.Parent, j.stage = e, true
					j.N = maxStage
					if budget >= 0 && int64(j.N) > budget {
						j.N = int(budget)
					}
					c.seq++
					c.issued += int64(j.N)
					return j
				}
			}
		}
		j.Parent, j.Param, j.chain = c.cur, c.param, c.chain
		j.N = c.left
		if !c.chain {
			j.N = min(j.N, c.cfg.JobSize)
		}
		if budget >= 0 && int64(j.N) > budget {
			j.N = int(budget)
		}
		c.left -= j.N
	}
	c.seq++
	c.issued += int64(j.N)
	return j
}

// Batch sizes: a batch holds consecutive jobs until it has at least
// execs/batchDiv children (at least one job, at most batchMax children
// targeted). One hand-off per batch instead of per job keeps the
// channel operations, wake-ups and merges off the per-child path (jobs are
// often a few children: numCandidates of an average parent); growing with
// the campaign keeps the first parents' feedback as prompt as with one job
// per hand-off, and bounds the work in flight (lag batches) to a few
// percent of the executions so far.
//
// When the campaign need not be reproducible (several workers, not
// Config.Deterministic), a batch is also cut to about batchTime of work at
// the measured cost per child, so a slow target (milliseconds a run) still
// reports progress and gets new parents every few tens of milliseconds. A
// reproducible campaign cannot use the clock: on a slow target its
// batches take up to batchMax runs each.
const (
	batchDiv  = 64
	batchMax  = 256
	batchTime = 20 * time.Millisecond
)

// nextBatch returns the next batch of jobs, or nil when nothing more may be
// issued. In a reproducible campaign its size depends only on the merged
// state, so the batches (and the campaign) are a function of the seed.
func (c *coordinator) nextBatch() *batch {
	target := min(batchMax, max(1, c.execs/batchDiv))
	if !c.reproducible() && c.execs > 0 {
		var spent time.Duration
		for _, d := range c.times {
			spent += d
		}
		if per := spent / time.Duration(c.execs); per > 0 {
			target = min(target, max(1, int64(batchTime/per)))
		}
	}
	var b *batch
	for n := int64(0); n < target; {
		j := c.next()
		if j == nil {
			break
		}
		if b == nil {
			b = &batch{seq: c.batches, known: c.known}
			c.batches++
		}
		b.jobs = append(b.jobs, j)
		n += int64(j.N)
	}
	return b
}

// merge folds one batch's results into the coordinator's state, jobs and
// children in order.
func (c *coordinator) merge(ctx context.Context, br *batchResult) {
	t0 := time.Now()
	c.waited += br.waited
	for k, d := range br.times {
		c.times[k] += d
	}
	c.cov.addHits(br.hitSites, br.hitCount)
	for _, r := range br.jobs {
		c.mergeJob(ctx, r)
	}
	if c.spares != nil {
		// merged: the batch's buffers go back to the workers, the
		// children's references to failures and sequences dropped
		clear(br.bufs.kids)
		select {
		case c.spares <- br.bufs:
		default: // one spare per worker is enough
		}
	}
	c.times[tBook] += time.Since(t0)
}

// mergeJob folds one job's results into the coordinator's state, children
// in order.
func (c *coordinator) mergeJob(ctx context.Context, r *jobResult) {
	if r.job.stage || r.job.chain {
		// children the job did not make are given back
		c.issued -= int64(r.job.N) - r.execs
	}
	c.execs += r.execs
	c.st.Execs = c.execs
	c.valid += r.valid
	c.inval += r.invalid
	c.crashR += r.crashes
	c.hangR += r.hangs
	c.tmoR += r.timeouts
	if r.job.imported {
		c.importMerged(r)
	}
	if r.err != nil {
		c.setErr(r.err)
	}
	for i := range r.children {
		ch := &r.children[i]
		if ch.checked {
			c.failure(ctx, r.job, ch)
			continue
		}
		// A timeout counts, rerun or not, when it reached a site no
		// earlier one did: the same rule for every worker, whichever
		// timeouts it had sent (see timeouts.go).
		if ch.timeout != nil && (!c.tmo.add(ch.timeout) || ch.dropped) {
			continue
		}
		fb := &c.fb
		*fb = c.cov.classify(ch.outcome, ch.hash, ch.trace, ch.covered)
		fb.Index, fb.Note, fb.Choices, fb.Seq = ch.index, r.note, ch.choices, ch.seq
		// Which not-new children a worker's filter lets through depends on
		// scheduling; Learn sees only those new in something (and
		// failures), so its calls are a function of the seed.
		learn := fb.NewBranch || fb.NewValidBranch || fb.NewBucket || fb.NewTrace || fb.NewValidTrace
		if ch.outcome.Failed() {
			c.strat.Learn(&c.st, r.job, fb)
			c.cov.merge(fb)
			c.failure(ctx, r.job, ch)
			continue
		}
		save := c.strat.Save(&c.st, fb)
		if r.job.stage || ch.timeout != nil {
			// An input-to-state child joins the queue only for a branch
			// never covered before: one that only changes hit counts
			// (typically a size field set to the limit it is checked
			// against) is slower than its parent, and 85 % of czstd's
			// stage entries were such, a slow lineage havoc then spent
			// its time on (the worker scans stage children in probe
			// mode, which reports only new branches).
			save = fb.NewBranch || fb.NewValidBranch
			if !save {
				// nor is its coverage merged: what it alone reached
				// stays new for a havoc child that can be queued
				continue
			}
		}
		if r.job.imported {
			// AFL++'s sync keeps a peer's entry only if it adds coverage
			// here (has_new_bits: a new branch or hit-count bucket),
			// whatever the strategy's own rule.
			save = fb.NewBranch || fb.NewValidBranch || fb.NewBucket
		}
		if r.job.replay && len(c.st.Queue) == 0 {
			save = true
		}
		if learn {
			c.strat.Learn(&c.st, r.job, fb)
		}
		if save {
			choices, input, trace := ownCopies(ch, !c.keepTraces)
			e := &Entry{
				ID: len(c.st.Queue), Choices: choices, Input: input,
				Outcome: ch.outcome, Trace: trace, Branches: fb.Branches,
				Favored: fb.NewBranch || fb.NewValidBranch, NewCov: fb.NewBranch,
				Parent: -1, Op: Op(c.cfg.Strategy), Execs: c.execs, Seq: ch.seq, Fuel: ch.fuel,
			}
			if r.job.imported {
				e.Op, e.Imported = r.job.importOp, true
			} else if r.job.replay {
				e.Op = OpSeed
			} else if r.job.stage {
				e.Op, e.Parent = opInputToState, r.job.Parent.ID
			} else if r.job.Parent != nil {
				e.Parent = r.job.Parent.ID
			}
			stored := e // the Store gets the trace (the coverage index)
			if !c.keepTraces {
				// and the queue does not: see traceFree
				q := *e
				q.Trace = nil
				e = &q
			}
			c.st.Queue = append(c.st.Queue, e)
			c.donors = append(c.donors, e.Choices)
			if c.store != nil {
				if err := c.store.AddEntry(ctx, stored); err != nil {
					c.setErr(fmt.Errorf("save queue entry: %w", err))
				}
			}
		}
		c.cov.merge(fb)
	}
	c.fb = Feedback{} // nothing of the batch kept alive through it
	if !r.job.stage {
		c.strat.JobDone(&c.st, r.job, r.note)
	}
}

// ownCopies copies a child's choices, input and trace out of its batch's
// arena (worker.keep) into one buffer of their own, for what is kept
// beyond the merge: the input is the choices in raw mode, as in ch. With
// traceApart the trace gets a buffer of its own, which the collector may
// take while the choices live on.
func ownCopies(ch *childResult, traceApart bool) (choices, input, trace []byte) {
	nc, ni, nt := len(ch.choices), len(ch.input), len(ch.trace)
	raw := len(ch.choices) == len(ch.input) && (nc == 0 || &ch.choices[0] == &ch.input[0])
	if raw {
		ni = 0
	}
	if traceApart && ch.trace != nil {
		trace = slices.Clone(ch.trace)
		ch = &childResult{choices: ch.choices, input: ch.input}
		nt = 0
	}
	buf := make([]byte, nc+ni+nt)
	choices = buf[:nc:nc]
	copy(choices, ch.choices)
	if raw {
		input = choices
	} else {
		input = buf[nc : nc+ni : nc+ni]
		copy(input, ch.input)
	}
	if ch.trace != nil {
		trace = buf[nc+ni:]
		copy(trace, ch.trace)
	}
	return choices, input, trace
}

func (c *coordinator) failure(ctx context.Context, job *Job, ch *childResult) {
	f := ch.failure
	if f == nil {
		f = &Failure{}
	}
	id := failureID(ch.outcome, ch.failure)
	if old, ok := c.failures[id]; ok {
		old.Count++
	} else if knownFailure(c.known, ch.outcome, f) {
		// saved by an earlier session: met again, not found
		c.failures[id] = &Finding{Outcome: ch.outcome, Identity: id, Failure: f, Count: 1}
	} else if !c.reproduces(ctx, ch, id) {
		// did not crash again: flaky, not a finding (verify.go)
	} else if rid := failureID(ch.outcome, ch.failure); rid != id && c.failures[rid] != nil {
		// the checked build's report of a crash it saved (verify.go)
		c.failures[rid].Count++
		c.failures[id] = c.failures[rid]
	} else {
		met := id // the identity met; verify.go may have refined it
		if rid != id {
			f, id = ch.failure, rid
		}
		choices, input, _ := ownCopies(ch, false)
		fd := &Finding{Outcome: ch.outcome, Identity: id, Choices: choices, Input: input, Failure: f, Execs: c.execs, Found: time.Since(c.start), Count: 1, Op: Op(c.cfg.Strategy)}
		switch {
		case ch.checked:
			fd.Op = opChecked
		case job.imported:
			fd.Op = job.importOp
		case job.replay:
			fd.Op = OpSeed
		case job.stage:
			fd.Op = opInputToState
		}
		c.failures[id], c.failures[met] = fd, fd
		c.findings = append(c.findings, fd)
		if ch.outcome == Crash {
			c.crashes++
		} else {
			c.hangs++
		}
		if c.store != nil {
			if err := c.store.AddFailure(ctx, fd); err != nil {
				c.setErr(fmt.Errorf("save failure: %w", err))
			}
		}
		if ch.outcome == Crash && !c.cfg.KeepGoing {
			c.halt("crash")
		}
	}
}

// stats computes the current metrics.
func (c *coordinator) stats(final bool) *Stats {
	now := time.Now()
	s := &Stats{
		Elapsed:       now.Sub(c.start),
		Execs:         c.execs,
		Queue:         len(c.st.Queue),
		Coverage:      c.cov.Branches,
		ValidCoverage: c.cov.ValidBranches,
		UniqueTraces:  c.cov.UniqueTraces(),
		Valid:         c.valid,
		Invalid:       c.inval,
		Crashes:       c.crashes,
		Hangs:         c.hangs,
		Flaky:         c.flakyCount(),
		CrashRuns:     c.crashR,
		HangRuns:      c.hangR,
		Timeouts:      c.tmoR,
		Strategy:      c.cfg.Strategy,
		Jobs:          c.seq,
	}
	if c.execs > 0 {
		s.ValidPct = 100 * float64(c.valid) / float64(c.execs)
	}
	if final {
		if !c.end.IsZero() {
			s.Elapsed, s.ShrinkTime = c.end.Sub(c.start), now.Sub(c.end)
		}
		if sec := s.Elapsed.Seconds(); sec > 0 {
			s.ExecsPerSec = float64(c.execs) / sec
		}
	} else if dt := now.Sub(c.lastT).Seconds(); dt > 0 {
		s.ExecsPerSec = float64(c.execs-c.lastX) / dt
	}
	c.lastT, c.lastX = now, c.execs
	s.B0, s.B1, s.B2 = c.cov.Hill()
	if s.ValidB0, s.ValidB1, s.ValidB2 = c.cov.HillValid(); c.cfg.ValidHill {
		s.B0, s.B1, s.B2 = s.ValidB0, s.ValidB1, s.ValidB2
	}
	s.setShares(c.times)
	if c.cycleOf != nil {
		s.Cycles = c.cycleOf()
	}
	return s
}

func (c *coordinator) report(ctx context.Context, final bool) *Stats {
	s := c.stats(final)
	s.Final = final
	c.rep.report(s, final)
	if c.store != nil {
		if err := c.store.WriteStats(ctx, s); err != nil {
			c.setErr(fmt.Errorf("write stats: %w", err))
		}
	}
	return s
}

// pcgRand is the workers' Rand: math/rand/v2's PCG with IntN done here
// (Lemire's multiply-shift with rejection, no modulo bias), one indirect
// call fewer per draw than *rand.Rand: mutators draw tens of times per
// child.
type pcgRand struct{ pcg rand.PCG }

// Seed resets the stream (rand.PCG.Seed).
func (r *pcgRand) Seed(a, b uint64) { r.pcg.Seed(a, b) }

// Uint64 implements Rand.
func (r *pcgRand) Uint64() uint64 { return r.pcg.Uint64() }

// IntN implements Rand; n must be > 0.
func (r *pcgRand) IntN(n int) int {
	un := uint64(n)
	hi, lo := bits.Mul64(r.pcg.Uint64(), un)
	if lo < un {
		thresh := -un % un
		for lo < thresh {
			hi, lo = bits.Mul64(r.pcg.Uint64(), un)
		}
	}
	return int(hi)
}
