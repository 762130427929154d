package runtime

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/wafer-fuzz/wafer/instrument"
)

const pageSize = 1 << 16

// Worker runs inputs on its own module instance. It is not safe for
// concurrent use: one Worker per goroutine.
type Worker struct {
	t     *Target
	io    wasiIO
	alloc cappedAllocator

	mod     api.Module
	mem     api.Memory
	test    api.Function
	stack   [2]uint64
	fuel    api.Global
	sp      api.Global // the stack pointer (Layout.StackPointerExport), or nil
	heap    api.Global // the heap guard's error (Layout.HeapExport), or nil
	heapAt  api.Global // the heap check's access (Layout.HeapAtExport), or nil
	hangAt  api.Global // the fuel check that ran out (Layout.HangAtExport), or nil
	minSP   api.Global // the lowest stack pointer (Layout.StackMinExport), or nil
	globals []api.MutableGlobal
	inPtr   uint32     // target address of the input buffer
	prevLen int        // length of the previous input written there
	used    bool       // the instance ran an input since it was made or restored
	dead    api.Module // a failed instance, closed when replaced
	args    []string   // argv with "@@" replaced (commands)
	atFile  bool       // an argument was "@@": input goes to a file, not stdin
	files   map[string][]byte
	outTail []byte // stdout tail of the last run
	errTail []byte // stderr tail of the last run
	errMark []byte // stderr from its last panic or fatal error line (wasip1.TailBuffer.Mark)

	callerClears bool // the caller zeroes the counters between runs (SetCallerClears)
	cmpUnread    bool // nothing reads the comparison log (SetComparesUnread)
	emptyFailed  bool // the empty run failed: instances are made without it
	// warmFailed by Config.WarmUp index: the input failed at
	// initialisation, instances are made without it
	warmFailed []bool
	// reserveFailed: the heap reserve failed: instances are made without it
	reserveFailed bool

	// Views of the instance's memory, valid while the allocator has not
	// been called since they were taken (gen == alloc.gen): memory moves
	// or grows only through it.
	gen   uint64
	view  []byte // all of memory
	ctrs  []byte // the counters (Layout.CountersOffset, Layout.Counters)
	inBuf []byte // the input buffer: MaxInputLen bytes at inPtr (reactors)
	// inShadow is the heap check's shadow of the input buffer
	// (Layout.ShadowOffset), nil without one; its first inShadowLen
	// bytes' worth may be accessible, the rest is a redzone (shadowInput).
	inShadow    []byte
	inShadowLen int

	// snapMem is the snapshot's memory, snapRegion's bytes; snapZero
	// its zero pages (zeroPages).
	snapMem     []byte
	snapZero    []bool
	snapRegion  region
	snapGlobals []uint64
	// dataFix: where the data segments differ from the snapshot (dataFixes).
	dataFix [][2]uint64
	// memSeq is the allocator's number of the instance's memory.
	memSeq uint64
}

// NewWorker instantiates and initialises one instance. A trap or exit during
// initialisation is an error (not a finding), as is a target that does not
// fit the memory cap.
func (t *Target) NewWorker(ctx context.Context) (*Worker, error) {
	w := &Worker{t: t}
	w.io.init(t.meta.layout, append([]string{"target"}, t.cfg.Args...), t.cfg.Env, t.cfg.Seed, t.cfg.outputTail())
	w.io.st.Files = t.cfg.Files
	w.alloc.limit = (uint64(t.cfg.maxPages()) + uint64(t.meta.layout.ReservedPages)) * pageSize
	w.alloc.fixed = t.sharedMemory
	if t.harness == HarnessCommand {
		return w, nil // an instance per run
	}
	if err := w.initInstance(ctx); err != nil {
		return nil, err
	}
	if t.cfg.Reset == Restore {
		w.takeSnapshot()
	}
	return w, nil
}

// Close releases the worker's instance, its memory and its snapshot: no
// Result of w may be read after.
func (w *Worker) Close(ctx context.Context) error {
	var err error
	if w.dead != nil {
		err = w.dead.Close(ctx)
		w.dead = nil
	}
	if w.mod != nil {
		err = errors.Join(err, w.mod.Close(ctx))
		w.mod = nil
	}
	w.alloc.close()
	w.snapRegion.release()
	w.snapMem, w.snapZero = nil, nil
	w.view, w.ctrs, w.inBuf, w.inShadow = nil, nil, nil, nil
	return err
}

// instantiate makes a new instance without running any start function.
func (w *Worker) instantiate(ctx context.Context) error {
	if w.mod != nil {
		_ = w.mod.Close(ctx)
		w.mod = nil
	}
	if w.dead != nil {
		_ = w.dead.Close(ctx)
		w.dead = nil
	}
	w.alloc.hit, w.alloc.singleHit = false, 0
	ictx := experimental.WithMemoryAllocator(w.io.context(ctx), &w.alloc)
	mod, err := w.t.r.InstantiateModule(ictx, w.t.cm, w.io.moduleConfig())
	if err != nil {
		return fmt.Errorf("instantiate: %w", err)
	}
	w.mod = mod
	w.memSeq = w.alloc.seq
	w.mem = mod.Memory()
	w.view = nil
	if w.t.harness != HarnessCommand && w.mem == nil {
		return errors.New("instantiate: module has no memory for the input")
	}
	if w.mem != nil && uint64(w.mem.Size()) > w.alloc.limit {
		return fmt.Errorf("instantiate: initial memory of %d pages exceeds the cap of %d pages", w.mem.Size()/pageSize, w.alloc.limit/pageSize)
	}
	if w.t.fuelName != "" {
		w.fuel = mod.ExportedGlobal(w.t.fuelName)
		if w.fuel == nil {
			return fmt.Errorf("instantiate: fuel global %q not exported", w.t.fuelName)
		}
	}
	if lay := &w.t.meta.layout; lay.NullEnd > 0 && w.mem != nil {
		// the heap check's null page (instrument.Layout.NullEnd)
		if sh, ok := w.mem.Read(lay.ShadowOffset, lay.NullEnd>>3); ok {
			for i := range sh {
				sh[i] = instrument.ShadowNull
			}
		}
	}
	w.sp, w.heap, w.heapAt, w.hangAt, w.minSP = nil, nil, nil, nil, nil
	if name := w.t.meta.layout.StackMinExport; name != "" {
		w.minSP = mod.ExportedGlobal(name)
	}
	if name := w.t.meta.layout.StackPointerExport; name != "" {
		w.sp = mod.ExportedGlobal(name)
	}
	if name := w.t.meta.layout.HeapExport; name != "" {
		w.heap = mod.ExportedGlobal(name)
	}
	if name := w.t.meta.layout.HeapAtExport; name != "" {
		w.heapAt = mod.ExportedGlobal(name)
	}
	if name := w.t.meta.layout.HangAtExport; name != "" {
		w.hangAt = mod.ExportedGlobal(name)
	}
	if name := w.t.meta.layout.MallocLimitExport; name != "" && w.t.cfg.MallocLimit > 0 {
		// the wrapped allocator refuses larger requests at the call
		if g, ok := mod.ExportedGlobal(name).(api.MutableGlobal); ok {
			g.Set(min(w.t.cfg.MallocLimit, math.MaxUint32))
		}
	}
	w.globals = w.globals[:0]
	for _, name := range w.t.globals {
		if g, ok := mod.ExportedGlobal(name).(api.MutableGlobal); ok {
			w.globals = append(w.globals, g)
		}
	}
	w.test = mod.ExportedFunction(exportTest)
	w.used = false
	return nil
}

// initInstance instantiates and runs the reactor's initialisation:
// _initialize, LLVMFuzzerInitialize(&argc, &argv), then the input buffer
// of MaxInputLen bytes (guestMalloc).
func (w *Worker) initInstance(ctx context.Context) error {
	if err := w.instantiate(ctx); err != nil {
		return err
	}
	w.io.reset()
	if w.fuel != nil {
		// Initialisation is not a run: it gets all the fuel there is.
		w.fuel.(api.MutableGlobal).Set(math.MaxInt64)
	}
	call := w.startupCall(ctx)
	if err := w.initExports(ctx, call); err != nil {
		return err
	}
	buf, err := w.inputBuffer(ctx, call)
	if err != nil {
		return err
	}
	retry, err := w.initRuns(ctx, buf)
	if err != nil {
		return err
	}
	if retry {
		return w.initInstance(ctx)
	}
	if w.t.hasStarted {
		if _, err := call(exportStarted); err != nil {
			return err
		}
	}
	w.prevLen = 0
	w.used = false
	// Initialisation hit counters; a run starts from zero whoever clears
	// between runs (SetCallerClears).
	clear(w.counters())
	return nil
}

// startupCall returns the function initialisation calls exports with:
// a trap or exit closes the instance and is a start-up error.
func (w *Worker) startupCall(ctx context.Context) func(string, ...uint64) (uint64, error) {
	return func(name string, args ...uint64) (uint64, error) {
		res, err := w.mod.ExportedFunction(name).Call(w.io.context(ctx), args...)
		if err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			out, f, _ := classify(w.end(err, 0, math.MaxInt64))
			_ = w.Close(ctx)
			if f == nil {
				return 0, fmt.Errorf("start-up: %s: %s", name, out)
			}
			return 0, fmt.Errorf("start-up: %s failed: %w%s%s", name, f, stackText(f), startupHint(f))
		}
		if len(res) > 0 {
			return res[0], nil
		}
		return 0, nil
	}
}

// initExports calls the target's initialisation exports: _initialize,
// then LLVMFuzzerInitialize(&argc, &argv).
func (w *Worker) initExports(ctx context.Context, call func(string, ...uint64) (uint64, error)) error {
	if w.t.hasInit {
		if _, err := call(exportInitialize); err != nil {
			return err
		}
	}
	if w.t.hasLLVMInit {
		// libFuzzer passes &argc and &argv: build argc = 1, argv =
		// {"target", NULL} in guest memory (guestMalloc).
		argc, argv, err := w.guestArgv(call)
		if err != nil {
			_ = w.Close(ctx)
			return err
		}
		if _, err := call(exportInit, uint64(argc), uint64(argv)); err != nil {
			return err
		}
	}
	return nil
}

// inputBuffer allocates the input buffer of MaxInputLen bytes in the
// guest (guestMalloc), zeroed, and returns its view.
func (w *Worker) inputBuffer(ctx context.Context, call func(string, ...uint64) (uint64, error)) ([]byte, error) {
	n := w.t.maxIn
	p, buf, err := w.guestMalloc(call, uint32(n))
	if err != nil {
		_ = w.Close(ctx)
		return nil, err
	}
	w.inPtr = p
	w.view = nil // inBuf moved
	clear(buf)
	w.views()
	w.inShadowLen = n // the allocator's shadow: all n bytes accessible
	w.shadowInput(0)
	return buf, nil
}

// initRuns runs what initialisation runs through buf, the input buffer:
// the empty input, the warm-up inputs and the heap reserve. retry: one
// failed, is now left out, and the instance must be made again.
func (w *Worker) initRuns(ctx context.Context, buf []byte) (retry bool, err error) {
	n := w.t.maxIn
	if !w.t.cfg.NoEmptyRun && !w.emptyFailed {
		if !w.initRun(ctx, buf, nil) {
			// Deterministic: every instance of the target fails it.
			w.emptyFailed = true
			return true, nil
		}
	}
	// Warm-up inputs: part of initialisation, so every instance (and the
	// snapshot) has run them; one that fails is left out as the empty
	// run is.
	for i, in := range w.t.cfg.WarmUp {
		if len(in) > n {
			_ = w.Close(ctx)
			return false, fmt.Errorf("start-up: warm-up input %d: %d bytes exceeds MaxInputLen %d", i, len(in), n)
		}
		if w.warmFailed != nil && w.warmFailed[i] {
			continue
		}
		if !w.initRun(ctx, buf, in) {
			if err := ctx.Err(); err != nil {
				return false, err
			}
			if w.warmFailed == nil {
				w.warmFailed = make([]bool, len(w.t.cfg.WarmUp))
			}
			w.warmFailed[i] = true // deterministic, as the empty run's failure
			return true, nil
		}
	}
	if w.t.reserve > 0 && !w.reserveFailed {
		if !w.heapReserve(ctx) {
			// Deterministic: every instance fails it the same way.
			w.reserveFailed = true
			return true, nil
		}
	}
	return false, nil
}

// initRun runs in (nil: the empty input) as part of initialisation, with
// a run's fuel and backstop, through buf, the input buffer's view. The
// empty run (Config.NoEmptyRun) is libFuzzer's: what a harness sets up on
// its first call (a decoder context, tables) becomes part of every
// instance and of the snapshot, so runs do not redo it, or grow memory for
// it, which costs restore mode a new instance per run; the Config.WarmUp
// inputs do the same for what first use of a path sets up. It reports
// whether the run returned; if not, the instance is closed.
func (w *Worker) initRun(ctx context.Context, buf, in []byte) bool {
	copy(buf, in)
	w.views()
	w.shadowInput(len(in))
	if w.fuel != nil {
		w.fuel.(api.MutableGlobal).Set(w.t.budget)
	}
	w.stack[0], w.stack[1] = uint64(w.inPtr), uint64(len(in))
	cctx, cancel := w.runContext(ctx)
	err := w.test.CallWithStack(cctx, w.stack[:])
	cancel()
	if err != nil || w.alloc.hit {
		_ = w.Close(ctx)
		return false
	}
	if w.fuel != nil {
		w.fuel.(api.MutableGlobal).Set(math.MaxInt64)
	}
	clear(buf[:len(in)])
	w.views()
	w.shadowInput(0)
	return true
}

// WarmUpFailed reports, by Config.WarmUp index, the inputs left out of
// initialisation because they failed (crashed, exited, ran out of a run's
// fuel or backstop); nil when none did. The slice is the caller's.
func (w *Worker) WarmUpFailed() []bool { return slices.Clone(w.warmFailed) }

// heapReserve calls free(malloc(t.reserve)) (Config.HeapReserve) and
// reports whether both returned without trapping and memory stayed within
// the cap; if not, the instance is closed.
func (w *Worker) heapReserve(ctx context.Context) bool {
	cctx := w.io.context(ctx)
	res, err := w.mod.ExportedFunction(w.t.cfg.malloc()).Call(cctx, uint64(w.t.reserve))
	if err == nil && len(res) == 1 && uint32(res[0]) != 0 {
		_, err = w.mod.ExportedFunction(exportFree).Call(cctx, res[0])
	}
	if err != nil || w.alloc.hit {
		_ = w.Close(ctx)
		return false
	}
	w.view = nil
	return true
}

// guestMalloc allocates n bytes of guest memory for wafer (argv, the input
// buffer) with the target's allocator and returns their guest address and
// a view of them.
func (w *Worker) guestMalloc(call func(string, ...uint64) (uint64, error), n uint32) (uint32, []byte, error) {
	p, err := call(w.t.cfg.malloc(), uint64(n))
	if err != nil && w.alloc.hit {
		return 0, nil, fmt.Errorf("start-up: %s(%d) for wafer's buffers needs more memory than the cap of %d pages allows", w.t.cfg.malloc(), n, w.t.cfg.maxPages())
	}
	if err != nil {
		return 0, nil, err
	}
	if p == 0 {
		return 0, nil, fmt.Errorf("start-up: %s(%d) returned NULL", w.t.cfg.malloc(), n)
	}
	at := p + w.io.st.Base
	buf, ok := w.mem.Read(uint32(at), n)
	if !ok || at > math.MaxUint32 {
		return 0, nil, fmt.Errorf("start-up: %s(%d) returned 0x%x, outside memory", w.t.cfg.malloc(), n, p)
	}
	return uint32(p), buf, nil
}

// guestArgv allocates int argc = 1 and char **argv = {"target", NULL} in the
// guest (pointers are 32-bit), returning &argc and &argv.
func (w *Worker) guestArgv(call func(string, ...uint64) (uint64, error)) (uint32, uint32, error) {
	const name = "target\x00"
	// Layout at p: argc (4) | &list (4) | list[0] (4) | list[1] = NULL (4) | "target\0".
	base, buf, err := w.guestMalloc(call, 16+uint32(len(name)))
	if err != nil {
		return 0, 0, err
	}
	binary.LittleEndian.PutUint32(buf[0:], 1)
	binary.LittleEndian.PutUint32(buf[4:], base+8)
	binary.LittleEndian.PutUint32(buf[8:], base+16)
	binary.LittleEndian.PutUint32(buf[12:], 0)
	copy(buf[16:], name)
	return base, base + 4, nil
}
