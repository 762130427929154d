// Package runexec puts one runtime.Worker (a target instance) under the
// engine as an engine.FuelExecutor: the adapter package campaign wires
// every campaign with, and the evaluation programs under docs/eval reuse
// so that they run targets exactly as campaigns do. It chooses no build
// and holds no policy (which build runs an input is campaign's decision).
package runexec

import (
	"context"

	"github.com/wafer-fuzz/wafer/engine"
	"github.com/wafer-fuzz/wafer/runtime"
)

// Exec is a runtime.Worker as an engine.FuelExecutor. The counters view
// is passed through without a copy, and its zeroing between runs is left
// to the engine, which zeroes what it reads (engine.Result.Counters), so
// the Worker must be used through its Exec only.
type Exec struct{ w *runtime.Worker }

// New makes w an executor (w.SetCallerClears(true)).
func New(w *runtime.Worker) *Exec {
	w.SetCallerClears(true)
	return &Exec{w: w}
}

// Executors returns an engine.Deps.NewExecutor that makes one Worker of t
// per engine worker.
func Executors(t *runtime.Target) func(ctx context.Context, w int) (engine.Executor, error) {
	return func(ctx context.Context, _ int) (engine.Executor, error) {
		w, err := t.NewWorker(ctx)
		if err != nil {
			return nil, err
		}
		return New(w), nil
	}
}

// Run implements engine.Executor.
func (e *Exec) Run(ctx context.Context, input []byte) (engine.Result, error) {
	return e.RunFuel(ctx, input, 0)
}

// Fuel implements engine.FuelExecutor.
func (e *Exec) Fuel() uint64 { return e.w.Fuel() }

// RunFuel implements engine.FuelExecutor (0: the whole budget).
func (e *Exec) RunFuel(ctx context.Context, input []byte, fuel uint64) (engine.Result, error) {
	r, err := e.w.RunFuel(ctx, input, fuel)
	if err != nil {
		return engine.Result{}, err
	}
	return engine.Result{Outcome: r.Outcome, Counters: r.Counters, Fuel: r.Fuel, Failure: FailureOf(r)}, nil
}

// Close closes the Worker.
func (e *Exec) Close(ctx context.Context) error { return e.w.Close(ctx) }

// FailureOf converts a crash or hang to the engine's failure: its
// identity (runtime.Result.Identity), crash site, kind, message, when it
// was found, frame function names and runtime.Report's full text; nil for
// valid and invalid runs.
func FailureOf(r runtime.Result) *engine.Failure {
	if !r.Outcome.Failed() {
		return nil
	}
	f := &engine.Failure{Identity: r.Identity(), Site: r.CrashSite()}
	if r.Failure != nil {
		f.Kind, f.Message, f.Found, f.Text = r.Failure.Kind, r.Failure.Message, r.Failure.Found, runtime.Report(r)
		for _, fr := range r.Failure.Stack {
			f.Frames = append(f.Frames, runtime.FrameKey(fr.Func))
		}
	}
	return f
}
