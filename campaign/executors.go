package campaign

import (
	"bytes"
	"context"
	"errors"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/wafer-fuzz/wafer/engine"
	"github.com/wafer-fuzz/wafer/runtime"
)

// This file holds the executors that put a target's builds under the
// engine: which build runs an input is the wiring's decision, not the
// search's.

// workerExec is a runtime.Worker as an engine.FuelExecutor. The counters view
// is passed through without a copy, and its zeroing between runs is left
// to the engine, which zeroes what it reads (engine.Result.Counters), so
// the Worker must be used through its Exec only.
type workerExec struct{ w *runtime.Worker }

// newWorkerExec makes w an executor (w.SetCallerClears(true)).
func newWorkerExec(w *runtime.Worker) *workerExec {
	w.SetCallerClears(true)
	return &workerExec{w: w}
}

// Executors returns an engine.Deps.NewExecutor that makes one Worker of t
// per engine worker: the executor every campaign runs its search with,
// exported for the evaluation programs (eval/) that drive the engine
// directly and must run targets exactly as campaigns do.
func Executors(t *runtime.Target) func(ctx context.Context, w int) (engine.Executor, error) {
	return func(ctx context.Context, _ int) (engine.Executor, error) {
		w, err := t.NewWorker(ctx)
		if err != nil {
			return nil, err
		}
		return newWorkerExec(w), nil
	}
}

// Run implements engine.Executor.
func (e *workerExec) Run(ctx context.Context, input []byte) (engine.Result, error) {
	return e.RunFuel(ctx, input, 0)
}

// Fuel implements engine.FuelExecutor.
func (e *workerExec) Fuel() uint64 { return e.w.Fuel() }

// RunFuel implements engine.FuelExecutor (0: the whole budget).
func (e *workerExec) RunFuel(ctx context.Context, input []byte, fuel uint64) (engine.Result, error) {
	r, err := e.w.RunFuel(ctx, input, fuel)
	if err != nil {
		return engine.Result{}, err
	}
	return engine.Result{Outcome: r.Outcome, Counters: r.Counters, Fuel: r.Fuel, Failure: failureOf(r)}, nil
}

// Close closes the Worker.
func (e *workerExec) Close(ctx context.Context) error { return e.w.Close(ctx) }

// failureOf converts a crash or hang to the engine's failure: its
// identity (runtime.Result.Identity), crash site, kind, message, when it
// was found, frame function names and runtime.Report's full text; nil for
// valid and invalid runs.
func failureOf(r runtime.Result) *engine.Failure {
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

// comparers returns an engine.Deps.NewComparer whose Comparers share one
// runtime Worker of t, made by the first call and closed with the last
// Comparer; t must be instrumented with instrument.Options.Compares. The
// engine runs a comparer once per queue entry that reached a new branch,
// a small share of its runs: one instance for all workers saves an
// instance's memory and snapshot per further worker (a comparer's
// results depend on its input alone, so sharing changes no run).
func comparers(t *runtime.Target) func(ctx context.Context, w int) (engine.Comparer, error) {
	s := &sharedComparer{}
	return func(ctx context.Context, _ int) (engine.Comparer, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.w == nil {
			w, err := t.NewWorker(ctx)
			if err != nil {
				return nil, err
			}
			s.w = w
		}
		s.users++
		return &runtimeComparer{s: s}, nil
	}
}

// sharedComparer is the Worker comparers' Comparers take turns on.
type sharedComparer struct {
	mu    sync.Mutex
	w     *runtime.Worker
	users int // Comparers not yet closed
}

type runtimeComparer struct {
	s      *sharedComparer
	closed bool
}

// Compare runs input and copies out the log: whatever the outcome (a crash
// or hang still logged what it compared before it).
func (c *runtimeComparer) Compare(ctx context.Context, input []byte) ([]engine.Operands, *engine.Failure, error) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	w := c.s.w
	if w == nil {
		return nil, nil, errors.New("comparer: closed")
	}
	r, err := w.Run(ctx, input)
	if err != nil {
		return nil, nil, err
	}
	var f *engine.Failure
	if r.Outcome == runtime.Crash {
		f = failureOf(r)
	}
	var ops []engine.Operands
	for x := range w.Comparisons() {
		ops = append(ops, engine.Operands{Size: x.Size, A: x.A, B: x.B, MemA: bytes.Clone(x.MemA), MemB: bytes.Clone(x.MemB), Site: x.Entry})
	}
	return ops, f, nil
}

// Close closes the shared Worker when c is the last Comparer open.
func (c *runtimeComparer) Close(ctx context.Context) error {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if c.s.users--; c.s.users > 0 || c.s.w == nil {
		return nil
	}
	err := c.s.w.Close(ctx)
	c.s.w = nil
	return err
}

// sampledExecutors returns an engine.Deps.NewExecutor for a campaign that runs
// one input in every on checked, a build of the same module with checks
// that make some silent errors crash (instrument.Options.HeapCheck) and
// the same sites, and the others on plain, the faster build without them.
// Each engine worker gets a Worker of each; an input goes to the checked
// one when the hash of its bytes is 0 modulo every, so which inputs are
// checked depends on nothing but the inputs (not on which worker runs
// them: deterministic campaigns stay so). The executor made beyond the
// workers (w >= workers: the one that shrinks crashes) runs an input on
// plain, then on checked if it passed (lookAgainExec). every 1 checks
// every input, on checked alone.
func sampledExecutors(plain, checked *runtime.Target, every, workers int) func(ctx context.Context, w int) (engine.Executor, error) {
	return func(ctx context.Context, w int) (engine.Executor, error) {
		cw, err := checked.NewWorker(ctx)
		if err != nil {
			return nil, err
		}
		cw.SetComparesUnread(true) // checked may be the compare build: its log is the comparers'
		ce := newWorkerExec(cw)
		if every <= 1 {
			return ce, nil
		}
		pw, err := plain.NewWorker(ctx)
		if err != nil {
			cw.Close(context.WithoutCancel(ctx)) //nolint:errcheck // the error at hand is pw's
			return nil, err
		}
		pe := newWorkerExec(pw)
		if w >= workers {
			return &lookAgainExec{builds: builds{pe, ce}}, nil
		}
		return &sampledExec{builds: builds{pe, ce}, every: uint64(every)}, nil
	}
}

// builds are a runtime executor of each build of sampledExecutors.
type builds struct{ plain, checked *workerExec }

// Fuel implements engine.FuelExecutor: both builds count fuel alike.
func (b *builds) Fuel() uint64 { return b.plain.Fuel() }

func (b *builds) Close(ctx context.Context) error {
	return errors.Join(b.plain.Close(ctx), b.checked.Close(ctx))
}

// lookAgainExec runs an input on plain and, unless it failed there as the
// crash being shrunk (shrinking), on checked too (checkedAgain), which
// fails wherever plain does and where the checks do: a write past a block
// that plain's heap guard finds at the free, checked finds at the write,
// two crashes (two identities) of one input that both shrink.
type lookAgainExec struct {
	builds
	want string // the identity being shrunk, "" for none
}

// Shrinking implements engine.ShrinkTarget.
func (e *lookAgainExec) Shrinking(identity string) { e.want = identity }

// RunChecked implements engine.CheckedRunner: input on the checked build
// alone.
func (e *lookAgainExec) RunChecked(ctx context.Context, input []byte) (engine.Result, error) {
	return e.checked.RunFuel(ctx, input, 0)
}

func (e *lookAgainExec) Run(ctx context.Context, input []byte) (engine.Result, error) {
	return e.RunFuel(ctx, input, 0)
}

// RunFuel implements engine.FuelExecutor.
func (e *lookAgainExec) RunFuel(ctx context.Context, input []byte, fuel uint64) (engine.Result, error) {
	var plain engine.Result
	return checkedAgain(
		func() (engine.Result, error) {
			r, err := e.plain.RunFuel(ctx, input, fuel)
			plain = r
			return r, err
		},
		func() (engine.Result, error) {
			clear(plain.Counters) // the caller clears only the counters it gets
			return e.checked.RunFuel(ctx, input, fuel)
		},
		func(r engine.Result) bool {
			return !r.Outcome.Failed() || (e.want != "" && r.Failure.Identity != e.want)
		},
		func(rc engine.Result) bool {
			if rc.Outcome.Failed() || !plain.Outcome.Failed() {
				return true
			}
			clear(rc.Counters)
			return false // plain's other failure
		})
}

// sampledExec runs the inputs whose hash is 0 modulo every on checked,
// the others on plain.
type sampledExec struct {
	builds
	every uint64
}

func (e *sampledExec) Run(ctx context.Context, input []byte) (engine.Result, error) {
	return e.RunFuel(ctx, input, 0)
}

// RunFuel implements engine.FuelExecutor.
func (e *sampledExec) RunFuel(ctx context.Context, input []byte, fuel uint64) (engine.Result, error) {
	x := e.plain
	if xxhash.Sum64(input)%e.every == 0 {
		x = e.checked
	}
	return x.RunFuel(ctx, input, fuel)
}
