package engine

import (
	"bytes"
	"context"

	"github.com/wafer-fuzz/wafer/runtime"
)

// The engine's tests on real modules run them through this minimal
// executor over runtime.Worker. wafer's own executors, which also choose a
// build per input, are the campaign package's.

// runtimeExecutors returns a Deps.NewExecutor that makes one Worker of t
// per engine worker.
func runtimeExecutors(t *runtime.Target) func(ctx context.Context, w int) (Executor, error) {
	return func(ctx context.Context, _ int) (Executor, error) {
		w, err := t.NewWorker(ctx)
		if err != nil {
			return nil, err
		}
		w.SetCallerClears(true) // the engine zeroes what it reads (Result.Counters)
		return &testExec{w: w}, nil
	}
}

type testExec struct{ w *runtime.Worker }

func (e *testExec) Run(ctx context.Context, input []byte) (Result, error) {
	return e.RunFuel(ctx, input, 0)
}

func (e *testExec) Fuel() uint64 { return e.w.Fuel() }

func (e *testExec) RunFuel(ctx context.Context, input []byte, fuel uint64) (Result, error) {
	r, err := e.w.RunFuel(ctx, input, fuel)
	if err != nil {
		return Result{}, err
	}
	return Result{Outcome: r.Outcome, Counters: r.Counters, Fuel: r.Fuel, Failure: testFailure(r)}, nil
}

func (e *testExec) Close(ctx context.Context) error { return e.w.Close(ctx) }

func testFailure(r runtime.Result) *Failure {
	if !r.Outcome.Failed() {
		return nil
	}
	f := &Failure{Identity: r.Identity()}
	if r.Failure != nil {
		f.Kind, f.Message, f.Found, f.Text = r.Failure.Kind, r.Failure.Message, r.Failure.Found, runtime.Report(r)
		for _, fr := range r.Failure.Stack {
			f.Frames = append(f.Frames, fr.Func)
		}
	}
	return f
}

// runtimeComparers returns a Deps.NewComparer over t, built with
// instrument.Options.Compares.
func runtimeComparers(t *runtime.Target) func(ctx context.Context, w int) (Comparer, error) {
	return func(ctx context.Context, _ int) (Comparer, error) {
		w, err := t.NewWorker(ctx)
		if err != nil {
			return nil, err
		}
		return testComparer{w}, nil
	}
}

type testComparer struct{ w *runtime.Worker }

func (c testComparer) Compare(ctx context.Context, input []byte) ([]Operands, *Failure, error) {
	r, err := c.w.Run(ctx, input)
	if err != nil {
		return nil, nil, err
	}
	var ops []Operands
	for x := range c.w.Comparisons() {
		ops = append(ops, Operands{Size: x.Size, A: x.A, B: x.B, MemA: bytes.Clone(x.MemA), MemB: bytes.Clone(x.MemB)})
	}
	if r.Outcome != runtime.Crash {
		return ops, nil, nil
	}
	return ops, testFailure(r), nil
}

func (c testComparer) Close(ctx context.Context) error { return c.w.Close(ctx) }
