package campaign

import (
	"context"
	"fmt"
	"time"

	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/runtime"
)

// Outcome is how one execution ended: Valid, Invalid, Crash or Hang.
type Outcome = runtime.Outcome

// The four outcomes.
const (
	Valid   = runtime.Valid
	Invalid = runtime.Invalid
	Crash   = runtime.Crash
	Hang    = runtime.Hang
)

// Kind is a failure's class (runtime's kinds: KindDivideByZero,
// KindGoPanic, KindOutOfMemory, KindFuel, ...).
type Kind = runtime.Kind

// The kinds a caller of this package branches on.
const (
	KindNone        = runtime.KindNone
	KindOutOfMemory = runtime.KindOutOfMemory
	KindMallocLimit = runtime.KindMallocLimit
)

// Failure describes a crash or hang: kind, message and Wasm stack
// (function, file:line when the module has DWARF).
type Failure = runtime.Failure

// Result is one input's outcome as Repro found it.
type Result struct {
	Outcome Outcome
	// Failure is set for Crash and Hang.
	Failure *Failure
	// Identity is the failure's deduplication key (runtime.Result.Identity),
	// "" for Valid and Invalid.
	Identity string
	// Site is its crash site (runtime.Result.CrashSite), "" when it passed.
	Site string
	// Report is the human-readable report: outcome, failure, stack with
	// source lines, exit code, fuel, and the tails of the target's
	// stderr and stdout (stdout only with ReproOptions.Output).
	Report string
	// Took is the run's wall time (on the first build that ran it).
	Took time.Duration
}

// ReproOptions configure a Reproducer. The zero value leaves the target's
// stdout out of reports.
type ReproOptions struct {
	// Output keeps the target's stdout tail in Result.Report.
	Output bool
	// MaxInputLen is the longest input Run accepts; zero means the
	// runtime's default (1 MiB).
	MaxInputLen int
}

// Reproducer runs inputs one at a time, each as if alone (a fresh
// instance unless TargetOptions.Reset says otherwise), on the module as
// it is, for exact file:line stacks; with TargetOptions.Fuel set, on the
// instrumented build, so a fuel hang reproduces exactly. An input that
// passes there runs again on the build with the campaign's checks (heap
// guard, heap check, stack check), whose crash then stands: what a
// campaign found, repro finds. Not safe for concurrent use.
type Reproducer struct {
	t       *Target
	opts    ReproOptions
	b       build
	reset   Reset
	closers []func()

	fast      *runtime.Worker // without source lines
	withLines *runtime.Worker // made for the first crash
	checked   *runtime.Worker // made for the first input that passes
	lookAgain bool            // the checked build has something to check
}

// NewReproducer compiles the build inputs run on first. Close it when
// done.
func (t *Target) NewReproducer(ctx context.Context, opts ReproOptions) (*Reproducer, error) {
	r := &Reproducer{t: t, opts: opts, b: buildPlain, reset: t.opts.Reset}
	if t.opts.Fuel != 0 {
		r.b = buildCounters
	}
	if r.reset == ResetDefault {
		r.reset = ResetFresh
	}
	// The plain module has no heap guard and no stack check: an input it
	// passes runs again on the instrumented one, which has them.
	r.lookAgain = r.b == buildPlain
	// Inputs run without wazero's DWARF source lines (milliseconds per
	// trap or exit on a large module: a command rejects inputs by
	// exiting); a crash runs again on a build with them, for its report.
	var err error
	if r.fast, _, err = r.worker(ctx, r.b, r.b == buildPlain); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Reproducer) worker(ctx context.Context, b build, noLines bool) (*runtime.Worker, *instrument.SiteMap, error) {
	tgt, sm, err := r.t.compile(ctx, b, r.opts.MaxInputLen, r.reset, noLines)
	if err != nil {
		return nil, nil, err
	}
	w, err := tgt.NewWorker(ctx)
	if err != nil {
		tgt.Close(context.WithoutCancel(ctx))
		return nil, nil, fmt.Errorf("%s: %w", r.t.name, err)
	}
	r.closers = append(r.closers, func() {
		w.Close(context.WithoutCancel(ctx))
		tgt.Close(context.WithoutCancel(ctx))
	})
	return w, sm, nil
}

// Run runs one input. An error means wafer itself failed.
func (r *Reproducer) Run(ctx context.Context, input []byte) (Result, error) {
	start := time.Now()
	var took time.Duration
	first := func() (runtime.Result, error) {
		res, err := r.fast.Run(ctx, input)
		took = time.Since(start)
		if err != nil || res.Outcome != runtime.Crash || len(res.Failure.Stack) == 0 || r.b != buildPlain {
			return res, err
		}
		if r.withLines == nil {
			if r.withLines, _, err = r.worker(ctx, r.b, false); err != nil {
				return res, err
			}
		}
		if again, err := r.withLines.Run(ctx, input); err == nil && again.Outcome == runtime.Crash {
			return again, nil
		}
		return res, nil
	}
	checked := func() (runtime.Result, error) {
		if r.checked == nil {
			w, sm, err := r.worker(ctx, r.t.opts.checkedBuild(), false)
			if err != nil {
				return runtime.Result{}, err
			}
			// nothing to check without a heap to guard or an LLVM stack
			r.checked, r.lookAgain = w, sm.Layout.HeapExport != "" || sm.Layout.StackPointerExport != ""
			if !r.lookAgain {
				return runtime.Result{}, nil
			}
		}
		res, err := r.checked.Run(ctx, input)
		if err != nil {
			return runtime.Result{}, nil // plain's result stands
		}
		return res, nil
	}
	res, err := checkedAgain(first, checked,
		func(res runtime.Result) bool { return r.lookAgain && !res.Outcome.Failed() },
		func(res runtime.Result) bool { return res.Outcome == runtime.Crash && foundByChecks(res.Failure.Kind) })
	if err != nil {
		return Result{}, err
	}
	if !r.opts.Output {
		res.Stdout = nil
	}
	out := Result{Outcome: res.Outcome, Failure: res.Failure, Identity: res.Identity(), Site: res.CrashSite(), Took: took}
	if res.Failure != nil || r.opts.Output {
		out.Report = runtime.Report(res)
	}
	return out, nil
}

// Close closes the instances and builds.
func (r *Reproducer) Close() {
	for _, c := range r.closers {
		c()
	}
	r.closers = nil
}

// checkedAgain is the one policy for the build with the campaign's
// checks: a run on the faster build (plain) that again says to look
// again at runs on checked too, whose result stands when keep says so;
// otherwise plain's stands. Repro and the campaign's shrinker both go
// through it.
func checkedAgain[R any](plain, checked func() (R, error), again, keep func(R) bool) (R, error) {
	r, err := plain()
	if err != nil || !again(r) {
		return r, err
	}
	rc, err := checked()
	if err != nil || keep(rc) {
		return rc, err
	}
	return r, nil
}

// foundByChecks reports whether a failure of kind k can come from the
// checks a campaign's build adds (the heap guard, the heap check, the
// stack check) where the plain module runs on.
func foundByChecks(k Kind) bool {
	return k == runtime.KindHeapOverflow || k == runtime.KindDoubleFree || k == runtime.KindUseAfterFree || k == runtime.KindNullDeref || k == runtime.KindStackExhausted
}
