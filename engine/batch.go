package engine

import "time"

// childResult is one child a worker sends back: its choices, input and
// trace (slices of the batch's arena), its outcome and failure.
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

// jobResult is one job's children and run counts, as a worker sends them.
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
