package engine

// traceSet is a set of trace hashes: open addressing with linear probing
// over a power-of-two table of uint64, at most half full. A lookup costs
// one probe into one cache line in the common case, where a Go map of
// hundreds of thousands of keys costs two or three cache misses (its
// directory, control word and slot); the set is checked on every run.
// Hashes are xxhash values, so their low bits index the table as they
// are. Zero marks an empty slot; the hash 0 is kept in a flag.
//
// In front of the table, a direct-mapped cache of recently looked-up
// members (2,048 slots, 16 KiB, indexed by the hash's top bits) answers
// most lookups from L1/L2: a fuzzer's runs mostly repeat a few recent
// traces (in 500k-run havoc campaigns, 98% of the lookups hit it on the
// tlv example, 69% on cexpr; 8 times the slots gain cexpr 9 points). The
// cache only ever holds members, so a hit means "in the set".
//
// The zero value is an empty set. Not safe for concurrent use.
type traceSet struct {
	slots  []uint64
	n      int // hashes stored, zero included
	zero   bool
	recent [1 << recentBits]uint64
}

const recentBits = 11

// has reports whether h is in the set.
func (s *traceSet) has(h uint64) bool {
	if h == 0 {
		return s.zero
	}
	r := &s.recent[h>>(64-recentBits)]
	if *r == h {
		return true
	}
	if len(s.slots) == 0 {
		return false
	}
	if _, found := s.find(h); found {
		*r = h
		return true
	}
	return false
}

// add inserts h and reports whether it was new.
func (s *traceSet) add(h uint64) bool {
	if h == 0 {
		if s.zero {
			return false
		}
		s.zero = true
		s.n++
		return true
	}
	r := &s.recent[h>>(64-recentBits)]
	if *r == h {
		return false
	}
	*r = h
	if 2*(s.n+1) > len(s.slots) {
		s.rehash()
	}
	i, found := s.find(h)
	if found {
		return false
	}
	s.slots[i] = h
	s.n++
	return true
}

// find probes for h (non-zero) in a non-empty table: its slot, or the
// empty slot where it would go.
func (s *traceSet) find(h uint64) (i uint64, found bool) {
	mask := uint64(len(s.slots) - 1)
	for i = h & mask; s.slots[i] != 0; i = (i + 1) & mask {
		if s.slots[i] == h {
			return i, true
		}
	}
	return i, false
}

// len is the number of hashes in the set.
func (s *traceSet) len() int { return s.n }

// rehash doubles the table (1,024 slots at first).
func (s *traceSet) rehash() {
	old := s.slots
	s.slots = make([]uint64, max(1024, 2*len(old)))
	for _, h := range old {
		if h != 0 {
			i, _ := s.find(h)
			s.slots[i] = h
		}
	}
}
