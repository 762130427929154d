package runtime

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"sync"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"

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
	call := func(name string, args ...uint64) (uint64, error) {
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
	n := w.t.maxIn
	p, buf, err := w.guestMalloc(call, uint32(n))
	if err != nil {
		_ = w.Close(ctx)
		return err
	}
	w.inPtr = p
	w.view = nil // inBuf moved
	clear(buf)
	w.views()
	w.inShadowLen = n // the allocator's shadow: all n bytes accessible
	w.shadowInput(0)
	if !w.t.cfg.NoEmptyRun && !w.emptyFailed {
		if !w.initRun(ctx, buf, nil) {
			// Deterministic: every instance of the target fails it.
			w.emptyFailed = true
			return w.initInstance(ctx)
		}
	}
	// Warm-up inputs: part of initialisation, so every instance (and the
	// snapshot) has run them; one that fails is left out as the empty
	// run is.
	for i, in := range w.t.cfg.WarmUp {
		if len(in) > n {
			_ = w.Close(ctx)
			return fmt.Errorf("start-up: warm-up input %d: %d bytes exceeds MaxInputLen %d", i, len(in), n)
		}
		if w.warmFailed != nil && w.warmFailed[i] {
			continue
		}
		if !w.initRun(ctx, buf, in) {
			if err := ctx.Err(); err != nil {
				return err
			}
			if w.warmFailed == nil {
				w.warmFailed = make([]bool, len(w.t.cfg.WarmUp))
			}
			w.warmFailed[i] = true // deterministic, as the empty run's failure
			return w.initInstance(ctx)
		}
	}
	if w.t.reserve > 0 && !w.reserveFailed {
		if !w.heapReserve(ctx) {
			// Deterministic: every instance fails it the same way.
			w.reserveFailed = true
			return w.initInstance(ctx)
		}
	}
	w.prevLen = 0
	w.used = false
	// Initialisation hit counters; a run starts from zero whoever clears
	// between runs (SetCallerClears).
	clear(w.counters())
	return nil
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

// takeSnapshot records memory and globals of the initialised instance.
func (w *Worker) takeSnapshot() {
	// Counters and the dirty map are wafer's, cleared in the snapshot too.
	clear(w.counters())
	w.clearDirty()
	view, _ := w.mem.Read(0, w.mem.Size())
	w.snapRegion.release()
	w.snapRegion = snapshotOf(view)
	w.snapMem = w.snapRegion.b
	w.snapZero = zeroPages(w.snapMem)
	w.snapGlobals = w.snapGlobals[:0]
	for _, g := range w.globals {
		w.snapGlobals = append(w.snapGlobals, g.Get())
	}
	if w.t.recycle {
		w.dataFix = dataFixes(w.t.data, w.snapMem, uint64(1)<<w.t.dirtyShift)
	}
}

// restore brings a used instance back to the snapshot.
func (w *Worker) restore(ctx context.Context) error {
	if w.mod != nil {
		// Same instance: views are refreshed only if the allocator ran.
		if w.views(); len(w.view) == len(w.snapMem) {
			if w.t.meta.layout.DirtyPages > 0 {
				w.restoreDirty(w.view)
			} else {
				copy(w.view, w.snapMem)
			}
			w.restoreGlobals()
			return nil
		}
	}
	// Memory grew (it cannot shrink) or the instance was discarded.
	if !w.t.restoreGlobals {
		return w.initInstance(ctx)
	}
	if w.t.recycle {
		// Ask for the last instance's memory unzeroed (recycle.go).
		w.alloc.keep, w.alloc.keepSeq = uint64(len(w.snapMem)), w.memSeq
	}
	if err := w.instantiate(ctx); err != nil {
		return err
	}
	if cur := w.mem.Size(); cur < uint32(len(w.snapMem)) {
		if _, ok := w.mem.Grow((uint32(len(w.snapMem)) - cur) / pageSize); !ok {
			return errors.New("restore: cannot grow a new instance to the snapshot's size")
		}
	}
	view, _ := w.mem.Read(0, w.mem.Size())
	if w.alloc.reused {
		// The input buffer still holds the last input (prevLen: Run's
		// writes are not marked, it clears them itself).
		w.restoreRecycled(view)
	} else {
		copyPages(view, w.snapMem) // the zero pages of a new memory stay untouched
		w.prevLen = 0
	}
	w.restoreGlobals()
	return nil
}

// restoreRecycled brings a new instance whose memory is the last
// instance's, unzeroed, to the snapshot: the data segments wazero wrote
// where they differ from it, the blocks the last run marked dirty, and
// wafer's counters and the dirty marks beyond the snapshot's size.
func (w *Worker) restoreRecycled(view []byte) {
	for _, r := range w.dataFix {
		copy(view[r[0]:r[1]], w.snapMem[r[0]:r[1]])
	}
	w.restoreDirty(view)
	lay := &w.t.meta.layout
	base := lay.ReservedBytes()
	if old := w.alloc.reusedLen; old > uint64(len(view)) {
		lo := (uint64(len(view)) - base) >> w.t.dirtyShift
		hi := min((old-base)>>w.t.dirtyShift+1, uint64(lay.DirtyPages))
		if lo < hi {
			clear(view[uint64(lay.DirtyOffset)+lo : uint64(lay.DirtyOffset)+hi])
		}
	}
	clear(view[lay.CountersOffset : lay.CountersOffset+lay.Counters])
}

func (w *Worker) restoreGlobals() {
	for i, g := range w.globals {
		g.Set(w.snapGlobals[i])
	}
	w.used = false
}

// restoreDirty copies back the target blocks marked in the dirty map
// (1<<Layout.DirtyShift() bytes each: 1 KiB), each with the
// instrument.DirtySpill bytes after it (a store marks only the block of
// its first byte), and clears their marks. Only the map entries of the
// current memory size are scanned (forMarked): a mark beyond memory comes
// only from a store that trapped, whose instance is never restored in
// place; when restoreRecycled takes over its memory, the marks it does not
// clear lie past the snapshot's size, and are not read before a growth
// past them sends a restore through restoreRecycled again.
func (w *Worker) restoreDirty(view []byte) {
	lay := &w.t.meta.layout
	shift := w.t.dirtyShift
	base := lay.ReservedBytes()
	blocks := (uint64(len(view)) - base) >> shift
	if blocks > uint64(lay.DirtyPages) {
		blocks = uint64(lay.DirtyPages)
	}
	snap := w.snapMem
	size := uint64(1)<<shift + instrument.DirtySpill
	// With the heap check, each block's shadow bytes too (shn > 0).
	sh, shn := uint64(lay.ShadowOffset), uint64(lay.ShadowBytes)
	zero := w.snapZero
	forMarked(view[lay.DirtyOffset:uint64(lay.DirtyOffset)+blocks], func(j int) {
		t := uint64(j) << shift
		off := base + t
		end := min(off+size, uint64(len(view)))
		if zeroSpan(zero, off, end) {
			// a heap the run allocated from fresh: writing zeros reads
			// nothing (a Go reactor's run can dirty a MiB of them)
			clear(view[off:end])
		} else {
			copy(view[off:end], snap[off:end])
		}
		if lo := t >> 3; lo < shn {
			hi := sh + min((t+size+7)>>3, shn)
			copy(view[sh+lo:hi], snap[sh+lo:hi])
		}
	})
}

// forMarked calls f with the index of every non-zero byte of dirty, in
// order, and zeroes dirty. It reads 32 bytes at a time and skips them when
// all are zero: a map is mostly zero, and for 16 MiB of target memory
// (4,096 entries) this takes 150 ns where 8 bytes at a time took 520
// (BenchmarkForMarked, medians of 6).
func forMarked(dirty []byte, f func(int)) {
	le := binary.LittleEndian
	i := 0
	for ; i+32 <= len(dirty); i += 32 {
		d := dirty[i : i+32 : i+32]
		if le.Uint64(d)|le.Uint64(d[8:])|le.Uint64(d[16:])|le.Uint64(d[24:]) == 0 {
			continue
		}
		for j, m := range d {
			if m != 0 {
				f(i + j)
			}
		}
		clear(d)
	}
	for ; i < len(dirty); i++ {
		if dirty[i] != 0 {
			f(i)
			dirty[i] = 0
		}
	}
}

func (w *Worker) clearDirty() {
	lay := w.t.meta.layout
	if lay.DirtyPages == 0 || w.mem == nil {
		return
	}
	if d, ok := w.mem.Read(lay.DirtyOffset, lay.DirtyPages); ok {
		clearPages(d) // most of the 4 MiB map was never written: leave it so
	}
}

// clearCompares zeroes the comparison log (instrument.Options.Compares)
// before a run; views must be fresh.
func (w *Worker) clearCompares() {
	lay := &w.t.meta.layout
	if lay.Compares+lay.CompareMems == 0 || w.cmpUnread {
		return
	}
	if end := uint64(lay.CompareOffset) + lay.CompareLogBytes(); end <= uint64(len(w.view)) {
		clear(w.view[lay.CompareOffset:end])
	}
}

// Comparisons yields the operand pairs the last run logged, for a target
// instrumented with instrument.Options.Compares (nothing otherwise). The
// pairs' byte slices alias the instance's memory: valid until the next
// Run on w.
func (w *Worker) Comparisons() iter.Seq[instrument.Comparison] {
	w.views()
	return w.t.meta.layout.Comparisons(w.view)
}

// counters is the zero-copy view of the counters.
func (w *Worker) counters() []byte {
	w.views()
	return w.ctrs
}

// views refreshes view, ctrs and inBuf if the memory may have moved or
// grown since they were taken (inlined: the check is on every run).
func (w *Worker) views() {
	if w.gen != w.alloc.gen || w.view == nil {
		w.refreshViews()
	}
}

func (w *Worker) refreshViews() {
	w.gen = w.alloc.gen
	w.view, w.ctrs, w.inBuf, w.inShadow = nil, nil, nil, nil
	if w.mem == nil {
		return
	}
	w.view, _ = w.mem.Read(0, w.mem.Size())
	if len(w.view) == 0 {
		w.view, _ = w.mem.Read(0, math.MaxUint32) // a 4 GiB memory reports Size 0
	}
	if lay := w.t.meta.layout; lay.Counters > 0 && uint64(lay.CountersOffset)+uint64(lay.Counters) <= uint64(len(w.view)) {
		w.ctrs = w.view[lay.CountersOffset : lay.CountersOffset+lay.Counters : lay.CountersOffset+lay.Counters]
	}
	if w.t.harness != HarnessCommand {
		if a, n := uint64(w.inPtr)+w.io.st.Base, uint64(w.t.maxIn); a+n <= uint64(len(w.view)) {
			w.inBuf = w.view[a : a+n : a+n]
		}
		lay := &w.t.meta.layout
		t, n := uint64(w.inPtr), uint64(w.t.maxIn)
		if lay.ShadowBytes > 0 && t&7 == 0 && t+n <= uint64(lay.ShadowBytes)<<3 {
			lo := uint64(lay.ShadowOffset) + t>>3
			w.inShadow = w.view[lo : lo+(n+7)>>3 : lo+(n+7)>>3]
		}
	}
}

// shadowInput makes the heap check's shadow of the input buffer describe
// an input of n bytes, as if the buffer were a heap block of n bytes:
// the bytes after the input are a redzone, so a read past the input's
// end is a heap-buffer-overflow, as under libFuzzer with
// AddressSanitizer. It rewrites the shadow of the first max(n, the
// previous n) bytes, past which the buffer's shadow is always a redzone
// (initInstance made it so, and the snapshot has it).
func (w *Worker) shadowInput(n int) {
	sh := w.inShadow
	if sh == nil {
		return
	}
	full := n >> 3
	clear(sh[:full])
	if n&7 != 0 {
		sh[full] = byte(n & 7)
		full++
	}
	end := min((max(w.inShadowLen, n)+7)>>3, len(sh))
	for i := full; i < end; i++ {
		sh[i] = instrument.ShadowRedzone
	}
	w.inShadowLen = n
}

// SetCallerClears hands the zeroing of the counters to the caller (on) or
// gives it back to Run (off, the default). Off, Run zeroes the counters
// before each run. On, it does not: the caller must leave every byte of
// the Result.Counters it got zero before its next Run, e.g. by zeroing
// each non-zero block as its coverage scan reads it (package engine does),
// which saves a second pass over the whole map per run. Either way every
// run starts with all counters zero: an instance Run makes (the first, a
// Fresh one, or the replacement of one that crashed, hung or grew) starts
// with zero counters, as does the Restore snapshot. Results of a run that
// returned an error need no clearing.
func (w *Worker) SetCallerClears(on bool) { w.callerClears = on }

// SetComparesUnread says whether the caller reads Comparisons. Off (the
// default), each run starts from an empty comparison log. On, the caller
// runs a build with comparison logging for its other checks and never
// reads the log, so runs do not clear it first: the log of a large module
// is hundreds of KiB (72 bytes per comparison in its code), zeroed per run
// for no reader. Targets without comparison logging ignore it.
func (w *Worker) SetComparesUnread(on bool) { w.cmpUnread = on }

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
	w.alloc.single = w.t.cfg.MallocLimit // during the target's call only
	err := w.test.CallWithStack(cctx, w.stack[:])
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

// resetDepth sets the lowest stack pointer to the top of the stack before
// a run (instrument.Options.StackDepth).
func (w *Worker) resetDepth() {
	if w.minSP != nil {
		w.minSP.(api.MutableGlobal).Set(uint64(w.t.meta.layout.StackHigh))
	}
}

// markDepth counts a hit of every stack depth step up to the one the run
// reached (instrument.Layout.DepthSite), if it went below the top of the
// stack: only a depth deeper than any before is new coverage. (Marking
// the reached step alone, as libFuzzer's feature does, made every
// shallower step an input had not hit exactly new too: csqlite's 120 s
// campaigns kept 3-6 % fewer branch features on two of three seeds.)
func (w *Worker) markDepth(ctrs []byte) {
	if w.minSP == nil {
		return
	}
	lay := &w.t.meta.layout
	low := uint32(w.minSP.Get())
	if low >= lay.StackHigh {
		return
	}
	first := min(int(lay.DepthSite), len(ctrs))
	last := min(first+instrument.DepthStep(lay.StackHigh-low)+1, len(ctrs))
	for i, c := range ctrs[first:last] {
		if c < 255 {
			ctrs[first+i] = c + 1 // a hit, as the module's counters count them
		}
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
			w.files = map[string][]byte{}
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
	_, err := w.mod.ExportedFunction(exportStart).Call(cctx)
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

// errMemoryCap ends a run whose memory.grow would pass the cap.
var errMemoryCap = errors.New("memory.grow past the memory cap")

// errMallocLimit ends a run whose memory.grow asks more than
// Config.MallocLimit at once.
var errMallocLimit = errors.New("memory.grow past the malloc limit")

// cappedAllocator backs instance memories and enforces the memory cap
// itself: wazero's WithMemoryLimitPages makes memory.grow fail silently,
// while this allocator records that the target asked for more than the
// cap and ends the run there (a panic wazero recovers, with the stack of
// the grow), so the run is a KindOutOfMemory crash with a stack.
//
// Memories are regions (region.go): on Linux, address space for the cap
// reserved outside Go's heap, committed as the memory grows, so growing
// never copies and pages never written take no resident memory.
//
// It also recycles: the buffer of a closed instance (Free) backs the next
// one, zeroed, so a worker that instantiates per run (Fresh, commands,
// re-instantiation after a crash) does not allocate megabytes per run
// for the garbage collector to sweep. Memory views of a closed instance
// (a Result's Counters) stay readable until the next instantiation.
type cappedAllocator struct {
	limit uint64 // bytes, reserved pages included
	fixed bool   // allocate min(max, limit) up front: the buffer never moves (shared memory)
	hit   bool   // a grow past limit was refused since the flag was cleared
	// single is Config.MallocLimit (0: none); singleHit the size of a
	// grow refused since the flag was cleared for asking more than it.
	single, singleHit uint64
	gen               uint64 // calls of Allocate and Reallocate: memory views older than this are stale
	// seq numbers the memories Allocate makes: the newest has seq.
	seq uint64
	// keep asks the next Allocate to hand over the spare unzeroed if it is
	// the memory numbered keepSeq, at least keep bytes long: its first
	// keep bytes are the caller's to restore (see recycle.go). reused
	// reports whether it did, with the spare's length.
	keep, keepSeq uint64
	reused        bool
	reusedLen     uint64
	// spare is the region freed last (its length the memory's), numbered
	// spareSeq: its bytes from spareStale on are zero (spareStale >= len:
	// a recycled buffer's instance may not have exposed all its stale
	// bytes). Guarded by mu: wazero's backstop closes (and frees) a module
	// from its own goroutine. closed: the worker is closed, a memory freed
	// now is released at once.
	mu         sync.Mutex
	spare      region
	spareSeq   uint64
	spareStale uint64
	closed     bool
}

func (a *cappedAllocator) Allocate(capacity, maximum uint64) experimental.LinearMemory {
	a.gen++
	a.seq++
	reserve := min(maximum, a.limit)
	if a.fixed {
		capacity = maximum
	}
	capacity = min(capacity, a.limit)
	reserve = max(reserve, capacity)
	a.mu.Lock()
	sp, spSeq, spStale := a.spare, a.spareSeq, a.spareStale
	a.spare = region{}
	a.closed = false
	a.mu.Unlock()
	keep := a.keep
	a.keep, a.reused = 0, false
	m := &cappedMemory{a: a, seq: a.seq}
	switch {
	case sp.b == nil || uint64(cap(sp.b)) < capacity || (sp.mapped && uint64(cap(sp.b)) < reserve) || a.fixed:
		sp.release()
		m.reg = newRegion(capacity, reserve)
		m.buf = m.reg.b
	case keep > 0 && spSeq == a.keepSeq && uint64(len(sp.b)) >= keep:
		a.reused, a.reusedLen = true, uint64(len(sp.b))
		if sp.mapped && spStale > keep {
			// What the last instance grew past the snapshot goes back to
			// the OS (zero again), not kept resident until a run grows
			// as far.
			sp.zero(keep, min(spStale, sp.committed))
			spStale = keep
		}
		m.reg = sp
		m.buf, m.stale, m.keep = sp.b[:0], spStale, keep
	default:
		sp.zero(0, min(spStale, sp.committed))
		m.reg = sp
		m.buf = sp.b[:0]
	}
	return m
}

// close releases the spare: the worker is closing, no view of its
// memories is read again.
func (a *cappedAllocator) close() {
	a.mu.Lock()
	sp := a.spare
	a.spare, a.closed = region{}, true
	a.mu.Unlock()
	sp.release()
}

type cappedMemory struct {
	a       *cappedAllocator
	seq     uint64
	reg     region // buf's region: buf is reg.b[:len(buf)]
	buf     []byte
	started bool
	// Bytes of buf[:cap] from stale on are zero; below keep they are the
	// worker's to restore, so growing does not zero them.
	stale, keep uint64
}

func (m *cappedMemory) Reallocate(size uint64) []byte {
	m.a.gen++
	if m.started && m.a.single > 0 && size > uint64(len(m.buf)) && size-uint64(len(m.buf)) > m.a.single {
		// one allocation larger than the malloc limit (libFuzzer's
		// -malloc_limit_mb): a finding where it was asked for, before
		// the cap is reached
		m.a.singleHit = size - uint64(len(m.buf))
		panic(errMallocLimit)
	}
	if m.started && size > m.a.limit {
		// The run is an out-of-memory crash whatever the target would
		// do with a failed grow: end it here, where wazero's stack trace
		// (it recovers the panic) shows who asked for the memory.
		m.a.hit = true
		panic(errMemoryCap)
	}
	if size <= uint64(cap(m.buf)) {
		if !m.reg.commit(size) {
			return nil // the OS refused the pages: a failed grow
		}
		// Bytes between the old length and cap were never exposed by this
		// memory: zero, but for a recycled buffer's stale bytes.
		m.started = true
		if lo, hi := max(uint64(len(m.buf)), m.keep), min(size, m.stale); lo < hi {
			m.reg.zero(lo, hi)
		}
		m.buf = m.buf[:size]
		m.reg.b = m.buf
		return m.buf
	}
	if (m.a.fixed || m.reg.mapped) && m.started {
		return nil // cannot move: refuse (wazero reports the failed grow)
	}
	m.started = true
	c := max(size, min(2*uint64(cap(m.buf)), m.a.limit))
	nb := make([]byte, size, c)
	copy(nb, m.buf)
	if uint64(len(m.buf)) < m.keep {
		m.a.reused = false // the recycled bytes not yet exposed are lost
	}
	m.reg.release()
	m.reg = region{b: nb, committed: c}
	m.buf, m.stale, m.keep = nb, 0, 0
	return nb
}

func (m *cappedMemory) Free() {
	if m.buf == nil {
		return
	}
	reg := m.reg
	reg.b = m.buf
	m.buf, m.reg = nil, region{}
	m.a.mu.Lock()
	var old region
	if m.a.closed {
		old = reg
	} else {
		old = m.a.spare
		m.a.spare, m.a.spareSeq, m.a.spareStale = reg, m.seq, max(uint64(len(reg.b)), m.stale)
	}
	m.a.mu.Unlock()
	old.release()
}

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
