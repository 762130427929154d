package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
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
		Havoc: cfg.Havoc, FairFuzz: cfg.FairFuzz, Levy: cfg.Levy, AutoArms: cfg.AutoArms})
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

// coordinator is the campaign's single owner of the queue, the coverage,
// the failures and the stats: it issues jobs in batches (next, nextBatch),
// merges what the workers send back (merge) and decides when to stop. It
// runs on the goroutine that called Fuzz.
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
	// reported counts the children the workers sent (Summary.Reported).
	reported int64
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
		cov:      newCoverage(cfg.ValueFrom),
		rng:      rand.New(rand.NewPCG(cfg.Seed, ^uint64(0))),
		failures: make(map[string]*Finding),
		rep:      reporter{w: deps.Status, tty: deps.StatusTTY},
	}
	c.cov.boundTraces(cfg.TraceMemory)
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
	if deps.Generator != nil {
		for _, q := range deps.SeedSequences {
			c.seeds = append(c.seeds, seedChoices(deps.Generator, q))
		}
	}
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
	sum := &Summary{Stop: Stop(c.stop), Stats: *stats, Queue: c.st.Queue, Failures: c.findings, Waited: c.waited, Reported: c.reported}
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
	c.reported += int64(len(r.children))
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
			c.enqueue(ctx, r.job, ch, fb)
		}
		c.cov.merge(fb)
	}
	c.fb = Feedback{} // nothing of the batch kept alive through it
	if !r.job.stage {
		c.strat.JobDone(&c.st, r.job, r.note)
	}
}

// enqueue appends a child the strategy saves to the queue and hands it to
// the Store: its own copies of the batch's bytes, its origin (Op, Parent)
// from the job that made it.
func (c *coordinator) enqueue(ctx context.Context, job *Job, ch *childResult, fb *Feedback) {
	choices, input, trace := ownCopies(ch, !c.keepTraces)
	e := &Entry{
		ID: len(c.st.Queue), Choices: choices, Input: input,
		Outcome: ch.outcome, Trace: trace, Branches: fb.Branches,
		Favored: fb.NewBranch || fb.NewValidBranch, NewCov: fb.NewBranch,
		Parent: -1, Op: c.opOf(job), Execs: c.execs, Seq: ch.seq, Fuel: ch.fuel,
	}
	if job.imported {
		e.Op, e.Imported = job.importOp, true
	} else if job.replay {
		e.Op = OpSeed
	} else if job.stage {
		e.Op, e.Parent = opInputToState, job.Parent.ID
	} else if job.Parent != nil {
		e.Parent = job.Parent.ID
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

// opOf names how job's children were made: the strategy's name, or
// what the strategy says (opNamer: auto's arms).
func (c *coordinator) opOf(job *Job) Op {
	if n, ok := c.strat.(opNamer); ok {
		if op, ok := n.jobOp(job); ok {
			return op
		}
	}
	return Op(c.cfg.Strategy)
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
		fd := &Finding{Outcome: ch.outcome, Identity: id, Choices: choices, Input: input, Failure: f, Execs: c.execs, Found: time.Since(c.start), Count: 1, Op: c.opOf(job)}
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
		if n, ok := c.strat.(findingNoter); ok {
			n.foundFailure(job, fd)
		}
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
		Features:      c.cov.Features,
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
	if a, ok := c.strat.(armStater); ok {
		s.Arms = a.armStats()
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
