package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/runtime"
)

// ErrNoFailure is Minimize's error for an input that neither crashes nor
// hangs.
var ErrNoFailure = errors.New("does not crash or hang: nothing to minimise")

// MinimizeOptions bound a Minimize. The zero value has no bound but
// ctx's.
type MinimizeOptions struct {
	// Runs is the most executions; zero means no limit.
	Runs int64
	// Log receives the line that says what is being minimised, the input
	// named Name; nil discards it.
	Log  io.Writer
	Name string
}

// Minimized is what Minimize found.
type Minimized struct {
	// Input is the smallest input found with the failure's identity (the
	// original when nothing smaller kept it).
	Input []byte
	// Identity is the failure kept (runtime.Result.Identity).
	Identity string
	// Runs is the number of executions.
	Runs int
	// Done is true when Input is a local minimum, false when the budget
	// (Runs or ctx) ran out first.
	Done bool
}

// Minimize shrinks input, a crash or hang of t, while its identity stays
// the same, on the build with the campaign's checks (what a campaign found
// there keeps its identity). It returns ErrNoFailure (wrapped) for an input
// that passes. When ctx ends first, what was found so far is returned
// with Done false.
func (t *Target) Minimize(ctx context.Context, input []byte, opts MinimizeOptions) (Minimized, error) {
	tgt, _, err := t.compile(ctx, t.opts.checkedBuild(), len(input), ResetDefault, false)
	if err != nil {
		return Minimized{}, err
	}
	defer tgt.Close(context.WithoutCancel(ctx))
	w, err := tgt.NewWorker(ctx)
	if err != nil {
		return Minimized{}, fmt.Errorf("%s: %w", t.name, err)
	}
	defer w.Close(context.WithoutCancel(ctx))
	run := identityRunner(w)
	identity, err := run(ctx, input)
	if err != nil {
		return Minimized{}, err
	}
	if identity == "" {
		return Minimized{}, ErrNoFailure
	}
	if opts.Log != nil {
		fmt.Fprintf(opts.Log, "INFO: minimising %s (%d bytes): %s\n", opts.Name, len(input), identity)
	}
	budget := 0
	if opts.Runs > 0 {
		budget = int(min(opts.Runs, 1<<30))
	}
	sh, err := corpus.ShrinkBytes(ctx, input, identity, run, corpus.ShrinkOptions{Budget: budget})
	if err != nil && ctx.Err() == nil {
		return Minimized{}, fmt.Errorf("minimise: %w", err)
	}
	m := Minimized{Input: sh.Data, Identity: identity, Runs: sh.Runs, Done: sh.Done}
	if m.Input == nil {
		m.Input = input
	}
	return m, nil
}

// identityRunner runs candidates on w and returns the identity of their
// failure ("" when they pass).
func identityRunner(w *runtime.Worker) corpus.RunFunc {
	return func(ctx context.Context, cand []byte) (string, error) {
		r, err := w.Run(ctx, cand)
		if err != nil {
			return "", err
		}
		return r.Identity(), nil
	}
}
