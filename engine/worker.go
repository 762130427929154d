package engine

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"sync"
	"time"
)

// worker is one search goroutine: it owns an Executor (and a Comparer for
// stage jobs), a Mutator and a private coverage filter, runs the children
// of the batches it takes off the shared queue (loop) and sends back what
// the coordinator must see. It shares with the coordinator only the
// channels (batches, results, spare buffers) and the batches' read-only
// known sets.
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

	// closest: how near the comparer's runs have come to passing each
	// comparison, for the order of stage replacements (compares.go)
	closest closest

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
// see the package doc).
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
		if tc, ok := w.mut.(treeChilder); ok && !j.replay && !j.stage {
			if q := tc.treeChild(); q != nil {
				base = treeBase{q}
			}
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
	return inputToState(e.Input, ops, &w.closest), crash, nil
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
