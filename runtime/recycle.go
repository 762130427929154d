package runtime

import (
	"bytes"

	"github.com/wafer-fuzz/wafer/instrument"
)

// Recycling a discarded instance's memory.
//
// An instance that grew its memory or failed cannot be restored in place
// (memory never shrinks; a trapped instance is closed), so restore mode
// makes a new one and brings it to the snapshot. Zeroing the new memory
// and copying the whole snapshot into it (reserved pages included, 1 MiB
// and more) cost about 100 µs. But the old instance's memory is the
// snapshot plus the blocks its last run marked dirty: handed to the new
// instance unzeroed, it needs only those blocks copied back, and the data
// segments wazero writes at instantiation undone where the snapshot
// differs from them. The allocator hands a spare over unzeroed only to
// the instantiation that asks for that exact buffer (cappedAllocator.keep).

// dataSegment is an active data segment: its bytes and where wazero
// writes them at instantiation.
type dataSegment struct {
	off  uint64
	data []byte
}

// activeData returns the active data segments of memory 0 with constant
// offsets (i32.const), and false when a segment has another kind of
// offset or memory.
func activeData(s *instrument.Summary) ([]dataSegment, bool) {
	var segs []dataSegment
	for i := range s.Data {
		d := &s.Data[i]
		if d.Flags == 1 {
			continue // passive
		}
		off, ok := d.ConstOffset()
		if !ok {
			return nil, false
		}
		segs = append(segs, dataSegment{off: off, data: bytes.Clone(d.Init)}) // not the module: the Target would keep all of its bytes alive
	}
	return segs, true
}

// dataFixes lists the ranges of the data segments whose bytes differ from
// the snapshot (initialisation changed them), in pieces of at most a dirty
// block: what a recycled instance must copy back after wazero rewrote the
// segments.
func dataFixes(segs []dataSegment, snap []byte, block uint64) [][2]uint64 {
	var fixes [][2]uint64
	for _, s := range segs {
		for i := uint64(0); i < uint64(len(s.data)); i += block {
			lo, hi := s.off+i, s.off+min(i+block, uint64(len(s.data)))
			if hi > uint64(len(snap)) {
				hi = uint64(len(snap))
			}
			if lo < hi && !bytes.Equal(snap[lo:hi], s.data[i:i+(hi-lo)]) {
				fixes = append(fixes, [2]uint64{lo, hi})
			}
		}
	}
	return fixes
}
