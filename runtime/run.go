package runtime

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// Run executes one input. A target failure is a Result (Crash, Hang); an
// error means wafer could not run the input (ctx ended, input too long,
// re-initialisation failed).
func (w *Worker) Run(ctx context.Context, input []byte) (Result, error) {
	return w.RunFuel(ctx, input, w.t.budget)
}

// Fuel is the fuel budget of a run (Target.Fuel).
func (w *Worker) Fuel() uint64 { return w.t.Fuel() }

// RunFuel runs input as Run does with a fuel budget of its own: a run that
// needs more than fuel units is a hang. Zero, or more than the target's
// budget (Target.Fuel), means the target's budget. A caller gives a first
// try a smaller budget and runs an input that exhausts it again with the
// whole one to tell a slow input from a hang (the engine does).
func (w *Worker) RunFuel(ctx context.Context, input []byte, fuel uint64) (Result, error) {
	if fuel == 0 || fuel > w.t.budget {
		fuel = w.t.budget
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if w.t.harness == HarnessCommand {
		return w.runCommand(ctx, input, fuel)
	}
	if len(input) > w.t.maxIn {
		return Result{}, fmt.Errorf("input of %d bytes exceeds MaxInputLen %d", len(input), w.t.maxIn)
	}
	if err := w.prepare(ctx); err != nil {
		return Result{}, err
	}
	w.used = true
	if w.t.cfg.Reset == Persistent {
		// The instance keeps its state, so WASI's must go on too (a clock
		// that jumps back under a Go runtime misleads its scheduler).
		w.io.resetOutput()
	} else {
		w.io.reset()
	}
	w.views()
	if !w.callerClears {
		clear(w.ctrs)
	}
	w.clearCompares()
	budget := fuel
	if w.fuel != nil {
		w.fuel.(api.MutableGlobal).Set(budget)
	}
	w.resetDepth()
	buf := w.inBuf[:max(len(input), w.prevLen)]
	copy(buf, input)
	clear(buf[len(input):])
	w.prevLen = len(input)
	w.shadowInput(len(input))
	w.alloc.hit, w.alloc.singleHit = false, 0

	w.stack[0], w.stack[1] = uint64(w.inPtr), uint64(len(input))
	cctx, cancel := w.runContext(ctx)
	if !w.enterCall(ctx) {
		cancel()
		return Result{}, ctx.Err()
	}
	if w.beforeCall != nil {
		w.beforeCall()
	}
	w.alloc.single = w.t.cfg.MallocLimit // during the target's call only
	err := w.test.CallWithStack(cctx, w.stack[:])
	w.leaveCall()
	w.alloc.single = 0
	timedOut := w.backstopFired(ctx, cctx, err)
	// A deadline that passed as the call returned may still have wazero
	// close the instance (its watcher races the return): not reused.
	late := err == nil && w.t.backstop > 0 && cctx.Err() != nil
	cancel()
	if err != nil && !timedOut && ctx.Err() != nil {
		w.discard(ctx)
		return Result{}, ctx.Err()
	}
	res := Result{Fuel: w.fuelUsed(budget)}
	if err == nil && !w.alloc.hit {
		// Returned normally: what classify would say, without its inputs.
		w.tails()
		res.Outcome = Valid
		if uint32(w.stack[0]) != 0 {
			res.Outcome = Invalid
		}
	} else {
		end := w.end(err, uint32(w.stack[0]), budget)
		end.timedOut = timedOut
		res.Outcome, res.Failure, res.ExitCode = classify(end)
	}
	res.Counters = w.counters()
	w.placeHang(res.Failure) // hangline.go
	w.markDepth(res.Counters)
	res.Stdout, res.Stderr = w.outTail, w.errTail
	if res.Outcome == Crash || res.Outcome == Hang || err != nil || late {
		// A failed instance is never reused. Counters stay readable: the
		// closed instance's memory is not freed until the next instantiate.
		w.discard(ctx)
	}
	return res, nil
}

// prepare gets an instance ready for a run according to the reset mode.
func (w *Worker) prepare(ctx context.Context) error {
	switch {
	case w.mod == nil && w.t.cfg.Reset == Restore:
		return w.restore(ctx)
	case w.mod == nil:
		return w.initInstance(ctx)
	case !w.used:
		return nil
	case w.t.cfg.Reset == Restore:
		return w.restore(ctx)
	case w.t.cfg.Reset == Fresh:
		return w.initInstance(ctx)
	}
	return nil // Persistent
}

// discard drops the instance after a failure. Closing it would free nothing
// we need and the counters view must survive until the next Run, so the
// instance is only forgotten here and closed when replaced.
func (w *Worker) discard(context.Context) {
	w.used = true
	w.dead = w.mod
	w.mod = nil
}

// tails copies the run's stdout and stderr tails into the worker's buffers.
func (w *Worker) tails() {
	w.outTail = w.io.st.Stdout.AppendTo(w.outTail[:0])
	w.errTail = w.io.st.Stderr.AppendTo(w.errTail[:0])
	w.errMark = append(w.errMark[:0], w.io.st.Stderr.Mark()...)
}

// end collects what classify needs after a call.
func (w *Worker) end(err error, ret uint32, budget uint64) runEnd {
	w.tails()
	fuelOut := false
	if err != nil && w.fuel != nil {
		fuelOut = int64(w.fuel.Get()) < 0
	}
	stackOverflow := ""
	if err != nil && w.sp != nil {
		lay := &w.t.meta.layout
		if sp := uint32(w.sp.Get()); lay.StackOverflow(sp) {
			stackOverflow = fmt.Sprintf("stack overflow: the stack pointer 0x%x left the stack [0x%x, 0x%x]", sp, lay.StackLow, lay.StackHigh)
		}
	}
	var heap uint64
	var heapFile string
	var heapLine uint32
	if err != nil && w.heap != nil {
		heap = w.heap.Get()
		if w.heapAt != nil && heap != 0 && w.t.meta.line != nil {
			heapFile, heapLine, _ = w.t.meta.line(uint32(w.heapAt.Get()))
		}
	}
	return runEnd{
		heap:          heap,
		heapFile:      heapFile,
		heapLine:      heapLine,
		stackOverflow: stackOverflow,
		err:           err,
		fuelOut:       fuelOut,
		fuel:          budget,
		ret:           ret,
		stderr:        w.errTail,
		stderrMark:    w.errMark,
		goTarget:      w.t.harness == HarnessGo,
		command:       w.t.harness == HarnessCommand,
		invalid:       w.t.cfg.InvalidExitCodes,
		oom:           w.alloc.hit,
		mallocLimit:   w.alloc.singleHit,
		mallocMax:     w.t.cfg.MallocLimit,
		oomPages:      w.t.cfg.maxPages(),
		funcs:         w.t.meta.funcs,
	}
}

// fuelUsed is the fuel consumed since the global was set to budget.
func (w *Worker) fuelUsed(budget uint64) uint64 {
	if w.fuel == nil {
		return 0
	}
	left := int64(w.fuel.Get())
	if left < 0 {
		return budget
	}
	return budget - uint64(left)
}

// runContext is the context of one call: the WASI state and, when the
// backstop is on, the per-run deadline.
func (w *Worker) runContext(ctx context.Context) (context.Context, context.CancelFunc) {
	c := w.io.context(ctx)
	if w.t.backstop > 0 {
		return context.WithTimeout(c, w.t.backstop)
	}
	return c, func() {}
}

// runCommand runs a WASI command on a new instance: _start with the input on
// stdin or in the "@@" file.
func (w *Worker) runCommand(ctx context.Context, input []byte, budget uint64) (Result, error) {
	if w.args == nil {
		w.args = make([]string, 0, len(w.t.cfg.Args)+1)
		w.args = append(w.args, "target")
		for _, a := range w.t.cfg.Args {
			if a == "@@" {
				a = "/" + inputFile
				w.atFile = true
			}
			w.args = append(w.args, a)
		}
		w.io.st.Args = w.args
		if w.atFile {
			w.files = maps.Clone(w.t.cfg.Files)
			if w.files == nil {
				w.files = map[string][]byte{}
			}
			w.io.st.Files = w.files
		}
	}
	if w.atFile {
		w.files[inputFile] = input
	} else {
		w.io.st.Stdin = input
	}
	w.io.reset()
	if err := w.instantiate(ctx); err != nil {
		return Result{}, err
	}
	w.used = true
	w.views()
	w.clearCompares()
	if w.fuel != nil {
		w.fuel.(api.MutableGlobal).Set(budget)
	}
	cctx, cancel := w.runContext(ctx)
	if !w.enterCall(ctx) {
		cancel()
		w.discard(ctx)
		return Result{}, ctx.Err()
	}
	if w.beforeCall != nil {
		w.beforeCall()
	}
	_, err := w.mod.ExportedFunction(exportStart).Call(cctx)
	w.leaveCall()
	timedOut := w.backstopFired(ctx, cctx, err)
	cancel()
	if err != nil && !timedOut && ctx.Err() != nil {
		w.discard(ctx)
		return Result{}, ctx.Err()
	}
	end := w.end(err, 0, budget)
	end.timedOut = timedOut
	res := Result{Fuel: w.fuelUsed(budget)}
	res.Outcome, res.Failure, res.ExitCode = classify(end)
	res.Counters = w.counters()
	w.placeHang(res.Failure) // hangline.go
	w.markDepth(res.Counters)
	res.Stdout, res.Stderr = w.outTail, w.errTail
	w.discard(ctx)
	return res, nil
}

// inputFile is the name of the in-memory file holding the input of a
// command target run with "@@".
const inputFile = "input"

// backstopFired reports whether err is the per-run deadline closing the
// module (and not the caller's ctx ending, nor a trap that merely happened
// after the deadline).
func (w *Worker) backstopFired(ctx, cctx context.Context, err error) bool {
	if w.t.backstop == 0 || err == nil || ctx.Err() != nil || cctx.Err() == nil {
		return false
	}
	code, ok := exitCode(err)
	return ok && code == sys.ExitCodeDeadlineExceeded
}

// exitCode unwraps a *sys.ExitError without errors.As (whose target
// pointer escapes: an allocation per run on the hot path).
func exitCode(err error) (uint32, bool) {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if x, ok := e.(*sys.ExitError); ok {
			return x.ExitCode(), true
		}
	}
	return 0, false
}
