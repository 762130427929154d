package runtime

import "encoding/binary"

// Regions hold instance memories and snapshots outside Go's heap where the
// operating system allows (region_linux.go): address space reserved up
// front and committed as memory grows, so a memory never moves or doubles
// its capacity when it grows, pages no one wrote take no resident memory
// (a heap check's 16 MiB shadow, a 4 MiB dirty map sized for 4 GiB of
// memory, a snapshot's zero pages), and the garbage collector neither
// scans nor paces itself on them (on Go's heap, a campaign's memories and
// snapshots let the heap reach twice their size before a collection).
// Elsewhere a region is a Go slice, grown by copying.

// osPage is the granularity regions commit and zero at.
const osPage = 4096

// region is one memory or snapshot buffer: b[:cap(b)] is reserved, the
// first committed bytes are usable (committed >= len(b) after grow).
type region struct {
	b         []byte
	mapped    bool   // b is mapped from the OS (release unmaps it)
	committed uint64 // bytes readable and writable from b's start
}

// newRegion reserves a region of capacity bytes for a memory that may
// grow to reserve bytes; its length is 0.
func newRegion(capacity, reserve uint64) region {
	if b, ok := osReserve(reserve); ok {
		r := region{b: b[:0], mapped: true}
		if r.commit(capacity) {
			return r
		}
		osRelease(b)
	}
	return region{b: make([]byte, 0, capacity), committed: capacity}
}

// commit makes the first size bytes usable; false if the OS refused.
func (r *region) commit(size uint64) bool {
	if !r.mapped || size <= r.committed {
		return size <= uint64(cap(r.b))
	}
	end := min((size+osPage-1)&^(osPage-1), uint64(cap(r.b)))
	if end < size || !osCommit(r.b[r.committed:end:end]) {
		return false
	}
	r.committed = end
	return true
}

// zero clears b[lo:hi] (within the committed bytes); a mapped region
// hands whole pages back to the OS, which reads them as zero again and
// stops counting them as resident.
func (r *region) zero(lo, hi uint64) {
	full := r.b[:r.committed]
	if r.mapped && hi-lo >= 16*osPage {
		a, e := (lo+osPage-1)&^(osPage-1), hi&^(osPage-1)
		if osDiscard(full[a:e:e]) {
			clear(full[lo:a])
			clear(full[e:hi])
			return
		}
	}
	clear(full[lo:hi])
}

// release returns a mapped region to the OS: no slice of it may be used
// after. A Go slice is left to the garbage collector.
func (r *region) release() {
	if r.mapped && cap(r.b) > 0 {
		osRelease(r.b[:cap(r.b)])
	}
	*r = region{}
}

// snapshotOf copies src into a new region, writing only its non-zero
// pages: the others stay untouched, zero and not resident when the region
// is mapped (a fresh Go slice is zero too). Pages of src the OS reports
// never written are not read either (osTouched).
func snapshotOf(src []byte) region {
	n := uint64(len(src))
	r := newRegion(n, n)
	r.b = r.b[:n]
	touched, known := osTouched(src, nil)
	for i, off := 0, uint64(0); off < n; i, off = i+1, off+osPage {
		end := min(off+osPage, n)
		if (!known || touched[i]) && !isZero(src[off:end]) {
			copy(r.b[off:end], src[off:end])
		}
	}
	return r
}

// zeroPages reports, for each 4 KiB page of a snapshot snapshotOf made,
// whether it is all zero: a page snapshotOf did not write (the OS says
// which, osTouched, without reading them; elsewhere the bytes are read).
// A restore clears a dirty block of such a page instead of copying it:
// it writes the block without reading the snapshot, whose zero pages stay
// unread and, in a region, not resident.
func zeroPages(snap []byte) []bool {
	n := (len(snap) + osPage - 1) / osPage
	zero := make([]bool, n)
	touched, known := osTouched(snap, nil)
	for i := range n {
		if known {
			zero[i] = !touched[i]
		} else {
			zero[i] = isZero(snap[i*osPage : min((i+1)*osPage, len(snap))])
		}
	}
	return zero
}

// zeroSpan reports whether every page of [lo, hi) is a zero page of
// zero (zeroPages).
func zeroSpan(zero []bool, lo, hi uint64) bool {
	for p := lo / osPage; p <= (hi-1)/osPage; p++ {
		if p >= uint64(len(zero)) || !zero[p] {
			return false
		}
	}
	return true
}

// copyPages makes dst equal to src (same length), writing only the pages
// where they differ from zero: a page zero in src is cleared in dst only
// if dst has a non-zero byte there, so zero pages of a fresh memory are
// neither written nor, where the OS tells them apart (osTouched), read.
func copyPages(dst, src []byte) {
	n := len(src)
	dt, dk := osTouched(dst, nil)
	st, sk := osTouched(src, nil)
	for i, off := 0, 0; off < n; i, off = i+1, off+osPage {
		end := min(off+osPage, n)
		srcZero := sk && !st[i] || isZero(src[off:end])
		switch {
		case !srcZero:
			copy(dst[off:end], src[off:end])
		case dk && !dt[i]:
		case !isZero(dst[off:end]):
			clear(dst[off:end])
		}
	}
}

// clearPages zeroes p, writing only the pages that are not zero already:
// pages never written stay untouched (and, in a region, not resident).
func clearPages(p []byte) {
	touched, known := osTouched(p, nil)
	for i, off := 0, 0; off < len(p); i, off = i+1, off+osPage {
		if known && !touched[i] {
			continue
		}
		if q := p[off:min(off+osPage, len(p))]; !isZero(q) {
			clear(q)
		}
	}
}

// isZero reports whether every byte of p is zero, 32 bytes at a time.
func isZero(p []byte) bool {
	le := binary.LittleEndian
	for len(p) >= 32 {
		if le.Uint64(p)|le.Uint64(p[8:])|le.Uint64(p[16:])|le.Uint64(p[24:]) != 0 {
			return false
		}
		p = p[32:]
	}
	for _, c := range p {
		if c != 0 {
			return false
		}
	}
	return true
}
