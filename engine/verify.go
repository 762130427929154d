package engine

import (
	"context"
	"fmt"

	"github.com/wafer-fuzz/wafer/runtime"
)

// A crash is saved only when it reproduces (issue 30: no false alarms):
// before a new crash identity becomes a finding, the coordinator runs its
// input once more on an executor of its own, made like the shrinking one
// (Deps.NewExecutor with w == Workers: for SampledExecutors, the plain
// build then the checked one, so a crash either build found is looked
// for on both). Its instance is a new one, or the snapshot restored: the
// state the campaign's workers start every run from. An input that does
// not crash again is flaky: it is counted (Stats.Flaky), handed to a
// Store that keeps them (FlakyStore: corpus's flaky/ directory), and not
// saved among the crashes nor counted as one; the same identity met again
// is verified again, up to maxFlakyTries times, then only counted.
// Hangs are not rerun here: a fuel hang is deterministic and the worker
// confirmed it with the whole budget already (timeouts.go).

// maxFlakyTries bounds the reruns of one identity that never reproduced.
const maxFlakyTries = 8

// FlakyStore is a Store that keeps failures that did not reproduce.
type FlakyStore interface {
	AddFlaky(ctx context.Context, f *Finding) error
}

// verifier is the coordinator's rerun executor and its tallies.
type verifier struct {
	ex    Executor
	tries map[string]int // identity → reruns that did not crash
	flaky int            // crashes that did not reproduce
}

// reproduces reports whether the crash ch, of identity id, crashes again
// on a fresh executor; for any other outcome it is true. A heap overflow
// the heap guard found when the block was freed (the plain build: a
// report at free, Failure.Found says so) is run on the checked build too
// (checkedFailure) and, when that finds it at the write, ch.failure
// becomes the checked build's: one bug, one report, whichever build met
// it first.
func (c *coordinator) reproduces(ctx context.Context, ch *childResult, id string) bool {
	if ch.outcome != Crash || ctx.Err() != nil {
		return true
	}
	v := c.verify
	if v == nil {
		ex, err := c.deps.NewExecutor(ctx, c.cfg.Workers)
		if err != nil {
			c.setErr(fmt.Errorf("rerun executor: %w", err))
			return true
		}
		v = &verifier{ex: ex, tries: map[string]int{}}
		c.verify = v
	}
	if v.tries[id] >= maxFlakyTries {
		v.flaky++
		return false
	}
	if t, ok := v.ex.(ShrinkTarget); ok {
		t.Shrinking(id)
	}
	r, err := v.ex.Run(ctx, ch.input)
	if err != nil {
		if ctx.Err() == nil {
			c.setErr(fmt.Errorf("rerun a crash: %w", err))
		}
		return true
	}
	clear(r.Counters) // not scanned: zeroed as Result.Counters promises
	if r.Outcome == Crash {
		if cf := c.checkedFailure(ctx, ch); cf != nil {
			ch.failure = cf
		}
		return true
	}

	v.tries[id]++
	v.flaky++
	if c.store != nil && v.tries[id] == 1 {
		choices, input, _ := ownCopies(ch, false) // the store may write it after the batch's arena is reused
		fd := &Finding{Outcome: ch.outcome, Identity: id, Choices: choices, Input: input, Failure: ch.failure, Execs: c.execs, Count: 1, Op: Op(c.cfg.Strategy)}
		if err := c.store.AddFlaky(ctx, fd); err != nil {
			c.setErr(fmt.Errorf("save flaky failure: %w", err))
		}
	}
	return false
}

// closeVerifier closes the rerun executor (before the shrinking one is
// made: both are worker Workers').
func (c *coordinator) closeVerifier(ctx context.Context) {
	if c.verify != nil && c.verify.ex != nil {
		closeExecutor(ctx, c.verify.ex)
		c.verify.ex = nil
	}
}

// flakyCount is the number of crashes that did not reproduce.
func (c *coordinator) flakyCount() int {
	if c.verify == nil {
		return 0
	}
	return c.verify.flaky
}

// CheckedRunner is an executor that runs a plain build and a checked one
// (campaign's shrinking executor) and can run an input on the checked
// build alone.
type CheckedRunner interface {
	RunChecked(ctx context.Context, input []byte) (Result, error)
}

// checkedFailure returns the checked build's failure for a crash the
// heap guard found at a free or realloc, nil when there is none (another
// crash, no checked build, or the checked build does not crash as a heap
// error).
func (c *coordinator) checkedFailure(ctx context.Context, ch *childResult) *Failure {
	f := ch.failure
	if f == nil || f.Kind != runtime.KindHeapOverflow || f.Found == runtime.FoundAtAccess {
		return nil
	}
	cr, ok := c.verify.ex.(CheckedRunner)
	if !ok {
		return nil
	}
	r, err := cr.RunChecked(ctx, ch.input)
	if err != nil {
		return nil
	}
	clear(r.Counters)
	if r.Outcome != Crash || r.Failure == nil || (r.Failure.Kind != runtime.KindHeapOverflow && r.Failure.Kind != runtime.KindUseAfterFree) {
		return nil
	}
	return r.Failure.clone()
}
