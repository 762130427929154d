package engine

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/runtime"
)

// NewRuntimeExecutor wraps a runtime.Worker (one target instance) as an
// Executor. The counters view is passed through without a copy, and its
// zeroing between runs is left to the engine, which zeroes what it reads
// (w.SetCallerClears(true): w must then be used through the Executor
// only); a Failure is converted (kind name, message, frame function
// names, and runtime.Report's full text) only for crashes and hangs.
func NewRuntimeExecutor(w *runtime.Worker) Executor {
	w.SetCallerClears(true)
	return &runtimeExec{w: w}
}

// RuntimeExecutors returns a Deps.NewExecutor that makes one runtime
// Worker of t per engine worker.
func RuntimeExecutors(t *runtime.Target) func(ctx context.Context, w int) (Executor, error) {
	return func(ctx context.Context, _ int) (Executor, error) {
		w, err := t.NewWorker(ctx)
		if err != nil {
			return nil, err
		}
		return NewRuntimeExecutor(w), nil
	}
}

type runtimeExec struct{ w *runtime.Worker }

func (e *runtimeExec) Run(ctx context.Context, input []byte) (Result, error) {
	return e.RunFuel(ctx, input, 0)
}

// Fuel implements FuelExecutor.
func (e *runtimeExec) Fuel() uint64 { return e.w.Fuel() }

// RunFuel implements FuelExecutor (0: the whole budget).
func (e *runtimeExec) RunFuel(ctx context.Context, input []byte, fuel uint64) (Result, error) {
	r, err := e.w.RunFuel(ctx, input, fuel)
	if err != nil {
		return Result{}, err
	}
	res := Result{Outcome: r.Outcome, Counters: r.Counters, Fuel: r.Fuel}
	if r.Failure != nil {
		res.Failure = FailureOf(r)
	}
	return res, nil
}

func (e *runtimeExec) Close(ctx context.Context) error { return e.w.Close(ctx) }

// FailureOf converts a runtime failure to the engine's (nil when r has
// none).
func FailureOf(r runtime.Result) *Failure {
	if r.Failure == nil {
		return nil
	}
	f := &Failure{Kind: r.Failure.Kind.String(), Message: r.Failure.Message, Text: runtime.Report(r)}
	for _, fr := range r.Failure.Stack {
		f.Frames = append(f.Frames, runtime.FrameKey(fr.Func))
	}
	f.Site = crashSite(f.Kind, f.Message, r.Failure.Stack, f.Frames)
	return f
}

// crashSite is Failure.Site: the class and the innermost target frame of
// stack (keys: its frames' canonical names) with its source line (not
// for Go frames).
func crashSite(kind, message string, stack []runtime.Frame, keys []string) string {
	site := corpus.FailureClass(kind, message) + " in "
	for i, k := range keys {
		if !corpus.IsTargetFrame(k) {
			continue
		}
		site += k
		// A Go frame's line is known from a panic's trace only (Go's
		// wasm has no DWARF for the Wasm stack's frames): without it
		// the site of one bug would depend on how it failed.
		if stack[i].File != "" && !strings.HasSuffix(stack[i].File, ".go") {
			site += " " + stack[i].File + ":" + strconv.Itoa(stack[i].Line)
		}
		return site
	}
	if len(keys) > 0 {
		return site + keys[0]
	}
	return site + "?"
}

// RuntimeComparers returns a Deps.NewComparer that makes one runtime
// Worker of t per engine worker; t must be instrumented with
// instrument.Options.Compares.
func RuntimeComparers(t *runtime.Target) func(ctx context.Context, w int) (Comparer, error) {
	return func(ctx context.Context, _ int) (Comparer, error) {
		w, err := t.NewWorker(ctx)
		if err != nil {
			return nil, err
		}
		return &runtimeComparer{w: w}, nil
	}
}

type runtimeComparer struct{ w *runtime.Worker }

// Compare runs input and copies out the log: whatever the outcome (a crash
// or hang still logged what it compared before it).
func (c *runtimeComparer) Compare(ctx context.Context, input []byte) ([]Operands, *Failure, error) {
	r, err := c.w.Run(ctx, input)
	if err != nil {
		return nil, nil, err
	}
	var f *Failure
	if r.Outcome == runtime.Crash {
		f = FailureOf(r)
	}
	var ops []Operands
	for x := range c.w.Comparisons() {
		ops = append(ops, Operands{Size: x.Size, A: x.A, B: x.B, MemA: bytes.Clone(x.MemA), MemB: bytes.Clone(x.MemB)})
	}
	return ops, f, nil
}

func (c *runtimeComparer) Close(ctx context.Context) error { return c.w.Close(ctx) }

// SampledExecutors returns a Deps.NewExecutor for a campaign that runs
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
func SampledExecutors(plain, checked *runtime.Target, every, workers int) func(ctx context.Context, w int) (Executor, error) {
	return func(ctx context.Context, w int) (Executor, error) {
		cw, err := checked.NewWorker(ctx)
		if err != nil {
			return nil, err
		}
		ce := NewRuntimeExecutor(cw).(*runtimeExec)
		if every <= 1 {
			return ce, nil
		}
		pw, err := plain.NewWorker(ctx)
		if err != nil {
			cw.Close(context.WithoutCancel(ctx)) //nolint:errcheck // the error at hand is pw's
			return nil, err
		}
		pe := NewRuntimeExecutor(pw).(*runtimeExec)
		if w >= workers {
			return &lookAgainExec{builds: builds{pe, ce}}, nil
		}
		return &sampledExec{builds: builds{pe, ce}, every: uint64(every)}, nil
	}
}

// builds are a runtime executor of each build of SampledExecutors.
type builds struct{ plain, checked *runtimeExec }

// Fuel implements FuelExecutor: both builds count fuel alike.
func (b *builds) Fuel() uint64 { return b.plain.Fuel() }

func (b *builds) Close(ctx context.Context) error {
	return errors.Join(b.plain.Close(ctx), b.checked.Close(ctx))
}

// lookAgainExec runs an input on plain and, unless it failed there as the
// crash being shrunk (shrinking), on checked too, which fails wherever
// plain does and where the checks do: a write past a block that plain's
// heap guard finds at the free, checked finds at the write, two crashes
// (two identities) of one input that both shrink.
type lookAgainExec struct {
	builds
	want string // the identity being shrunk, "" for none
}

// shrinking implements shrinkTarget.
func (e *lookAgainExec) shrinking(identity string) { e.want = identity }

func (e *lookAgainExec) Run(ctx context.Context, input []byte) (Result, error) {
	return e.RunFuel(ctx, input, 0)
}

// RunFuel implements FuelExecutor.
func (e *lookAgainExec) RunFuel(ctx context.Context, input []byte, fuel uint64) (Result, error) {
	r, err := e.plain.RunFuel(ctx, input, fuel)
	if err != nil || (r.Outcome.Failed() && (e.want == "" || failureID(r.Outcome, r.Failure) == e.want)) {
		return r, err
	}
	clear(r.Counters) // the caller clears only the counters it gets
	rc, err := e.checked.RunFuel(ctx, input, fuel)
	if err != nil || rc.Outcome.Failed() || !r.Outcome.Failed() {
		return rc, err
	}
	clear(rc.Counters)
	return r, nil // plain's other failure
}

// sampledExec runs the inputs whose hash is 0 modulo every on checked,
// the others on plain.
type sampledExec struct {
	builds
	every uint64
}

func (e *sampledExec) Run(ctx context.Context, input []byte) (Result, error) {
	return e.RunFuel(ctx, input, 0)
}

// RunFuel implements FuelExecutor.
func (e *sampledExec) RunFuel(ctx context.Context, input []byte, fuel uint64) (Result, error) {
	x := e.plain
	if xxhash.Sum64(input)%e.every == 0 {
		x = e.checked
	}
	return x.RunFuel(ctx, input, fuel)
}
