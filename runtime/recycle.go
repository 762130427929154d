package runtime

import "bytes"

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
// offset or the section is malformed.
func activeData(wasm []byte) ([]dataSegment, bool) {
	var segs []dataSegment
	n, p, ok := vecSection(wasm, 11)
	if !ok {
		return nil, true // no data section (or a malformed one compilation reports)
	}
	for range n {
		flags, k := uleb(p)
		if k == 0 {
			return nil, false
		}
		p = p[k:]
		active := flags == 0 || flags == 2
		switch flags {
		case 0, 1:
		case 2:
			mem, k := uleb(p)
			if k == 0 || mem != 0 {
				return nil, false
			}
			p = p[k:]
		default:
			return nil, false
		}
		var off uint64
		if active {
			// i32.const N end
			if len(p) < 1 || p[0] != 0x41 {
				return nil, false
			}
			v, k := sleb32(p[1:])
			if k == 0 || len(p) < 2+k || p[1+k] != 0x0b {
				return nil, false
			}
			off, p = uint64(uint32(v)), p[2+k:]
		}
		size, k := uleb(p)
		if k == 0 || uint64(len(p)-k) < size {
			return nil, false
		}
		if active {
			segs = append(segs, dataSegment{off: off, data: bytes.Clone(p[k : k+int(size)])}) // not the module: the Target would keep all of its bytes alive
		}
		p = p[k+int(size):]
	}
	return segs, true
}

// sleb32 decodes a signed LEB128 of at most 5 bytes; n is 0 when p does
// not hold one.
func sleb32(p []byte) (v int32, n int) {
	var x int64
	var shift uint
	for i := 0; i < len(p) && i < 5; i++ {
		b := p[i]
		x |= int64(b&0x7f) << shift
		shift += 7
		if b&0x80 == 0 {
			if shift < 64 && b&0x40 != 0 {
				x |= -1 << shift
			}
			return int32(x), i + 1
		}
	}
	return 0, 0
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
