package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/wafer-fuzz/wafer/corpus"
)

// workerGenerator gives worker w its own generator when g can make one.
func workerGenerator(g Generator, w int) Generator {
	if g == nil {
		return nil
	}
	if f, ok := g.(interface{ ForWorker(int) Generator }); ok {
		return f.ForWorker(w)
	}
	return g
}

func closeExecutor(ctx context.Context, e any) {
	if c, ok := e.(interface{ Close(context.Context) error }); ok {
		c.Close(context.WithoutCancel(ctx)) //nolint:errcheck // nothing to do about it at shutdown
	}
}

// failureID is the identity the coordinator deduplicates by: the
// executor's Failure.Identity, or the outcome when it gave none.
func failureID(o Outcome, f *Failure) string {
	if f == nil || f.Identity == "" {
		return o.String()
	}
	return f.Identity
}

// ShrinkTarget is implemented by an executor that runs more than one
// build and needs to know which failure is being shrunk to report it
// (campaign's executor that shrinks on a plain and a checked build): the
// shrinking executor's Shrinking is called with the identity of each
// failure before it is shrunk.
type ShrinkTarget interface{ Shrinking(identity string) }

// shrinkAll minimises every unique crash found (docs/ALGORITHMS.md §7), and
// those an earlier session saved unshrunk (Deps.Unshrunk), with an
// extra executor, after the workers stopped, and hands the smaller
// reproducers to the Store. Raw mode shrinks the input bytes, generator
// mode the choice sequence.
func (c *coordinator) shrinkAll(ctx context.Context) {
	c.closeVerifier(context.WithoutCancel(ctx))
	c.recordHits(ctx)
	if c.cfg.NoShrink || ctx.Err() != nil {
		return
	}
	var todo []*Finding
	for _, f := range c.findings {
		if f.Outcome == Crash && !f.Shrunk {
			todo = append(todo, f)
		}
	}
	for _, f := range c.deps.Unshrunk {
		// an earlier session's crash: known, so never one of c.findings,
		// even when met again
		if !f.Shrunk {
			f.Outcome = Crash
			todo = append(todo, f)
		}
	}
	if len(todo) == 0 {
		return
	}
	if d := c.cfg.MaxTotalTime; d > 0 {
		// --max-total-time bounds shrinking too: what is left of it, or a
		// tenth of it when less is left (a crash still unshrunk stays as
		// found)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, later(c.start.Add(d), time.Now().Add(d/10)))
		defer cancel()
	}
	if c.deps.Log != nil {
		what := "crashes"
		if len(todo) == 1 {
			what = "crash"
		}
		fmt.Fprintf(c.deps.Log, "INFO: shrinking %d %s, keeping each one's identity\n", len(todo), what)
	}
	ex, err := c.deps.NewExecutor(ctx, c.cfg.Workers)
	if err != nil {
		c.setErr(fmt.Errorf("shrink executor: %w", err))
		return
	}
	defer closeExecutor(ctx, ex)
	gen := workerGenerator(c.deps.Generator, c.cfg.Workers)
	// run executes a candidate; last keeps the last failing run's details.
	type last struct {
		input   []byte
		used    []byte
		failure *Failure
	}
	var l last
	run := func(ctx context.Context, cand []byte) (string, error) {
		input, used := cand, cand
		if gen != nil {
			var err error
			if input, used, err = gen.Generate(cand); err != nil {
				return "", fmt.Errorf("generator: %w", err)
			}
		}
		r, err := ex.Run(ctx, input)
		if err != nil {
			return "", err
		}
		clear(r.Counters) // not scanned: zeroed as Result.Counters promises
		if !r.Outcome.Failed() {
			return "", nil
		}
		l = last{input: append([]byte(nil), input...), used: append([]byte(nil), used...), failure: r.Failure.clone()}
		return failureID(r.Outcome, r.Failure), nil
	}
	opts := corpus.ShrinkOptions{Budget: c.cfg.ShrinkBudget}
	target, _ := ex.(ShrinkTarget)
	for _, f := range todo {
		if ctx.Err() != nil {
			return
		}
		if target != nil {
			target.Shrinking(f.Identity)
		}
		var sh corpus.Shrunk
		if gen == nil {
			sh, err = corpus.ShrinkBytes(ctx, f.Input, f.Identity, run, opts)
		} else {
			sh, err = corpus.ShrinkChoices(ctx, f.Choices, nil, f.Identity, run, opts)
		}
		if err != nil {
			if ctx.Err() == nil {
				c.setErr(fmt.Errorf("shrink %s: %w", f.Identity, err))
			}
			return
		}
		// Run the result once more to get its input and failure text.
		if id, err := run(ctx, sh.Data); err != nil || id != f.Identity {
			continue
		}
		f.Choices, f.Input, f.Failure, f.Shrunk = l.used, l.input, l.failure, true
		if gen == nil {
			f.Choices = f.Input
		}
		if c.store != nil {
			if err := c.store.AddFailure(ctx, f); err != nil {
				c.setErr(fmt.Errorf("save shrunk failure: %w", err))
				return
			}
		}
	}
}

// setErr records the first error and stops the campaign.
func (c *coordinator) setErr(err error) {
	if c.err == nil {
		c.err = err
	}
	c.halt("error")
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// HitStore is a Store that keeps how often each failure was met: the
// coordinator counts repeats without telling the store, and hands it the
// counts at the end (Finding.Count) of the findings met more than once.
type HitStore interface {
	RecordHits(ctx context.Context, f *Finding) error
}

// recordHits hands a HitStore the hit counts.
func (c *coordinator) recordHits(ctx context.Context) {
	if c.store == nil {
		return
	}
	for _, f := range c.findings {
		if f.Count > 1 {
			if err := c.store.RecordHits(ctx, f); err != nil {
				c.setErr(fmt.Errorf("save hit counts: %w", err))
				return
			}
		}
	}
}
