package runtime

import (
	"context"
	"encoding/binary"
	"errors"

	"github.com/wafer-fuzz/wafer/instrument"
)

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

// restoreGlobals sets the mutable globals back to the snapshot's values;
// the instance counts as unused again.
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

// clearDirty zeroes the dirty map (instrument.Options.DirtyPages), if the
// build has one.
func (w *Worker) clearDirty() {
	lay := w.t.meta.layout
	if lay.DirtyPages == 0 || w.mem == nil {
		return
	}
	if d, ok := w.mem.Read(lay.DirtyOffset, lay.DirtyPages); ok {
		clearPages(d) // most of the 4 MiB map was never written: leave it so
	}
}
