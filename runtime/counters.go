package runtime

import (
	"iter"
	"math"

	"github.com/tetratelabs/wazero/api"

	"github.com/wafer-fuzz/wafer/instrument"
)

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
