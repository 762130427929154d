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
// Memory is bounded: a campaign can meet tens of thousands of new traces a
// second (havoc on examples/cexpr: 1.85 million in its first minute), and
// an exact set would grow by gigabytes an hour. A set's budget (Search.
// TraceMemory, default 20 MiB; traceLimits) is split between the table and
// a Bloom filter: once the table holds maxExact hashes (2^18 by default,
// a table of 4 MiB), further ones go into the filter of bloomWords words
// (16 MiB by default, k = 4), allocated then. There is still no false
// "new", but a new trace may read as seen, with a probability that rises
// as the filter fills (for the default filter: about 10^-6 after a million
// more, 0.4 % after 10 million, 12 % after 30 million), so unique traces
// are undercounted from then on. Memory then stays flat for the rest of a
// campaign, however long (docs/PERFORMANCE.md, "Unique traces and the
// workers' filters").
//
// A worker's filter (scanner) is a forgetful set instead (forgetAt):
// when its table is full it empties it rather than growing or turning to
// a filter, keeping the recent cache. Forgetting errs one way only: a
// trace the worker sent before reads as new again and is sent once more,
// and the coordinator, whose set decides, finds it seen. (Before, each
// worker's set held what the coordinator's did: on cexpr, 3.8 million
// hashes in 150 s, a 64 MiB table per set, and a peak of 235 MiB.)
//
// The zero value is an empty set. Not safe for concurrent use.
type traceSet struct {
	slots  []uint64
	n      int // hashes stored, zero included
	zero   bool
	recent [1 << recentBits]uint64
	bloom  []uint64 // allocated when the table is full
	// maxExact overrides defaultMaxExact; bloomWords is the filter's size
	// in words, a power of two (zero: defaultBloomBits/64). traceLimits
	// sets both from a budget in bytes.
	maxExact, bloomWords int
	// forgetAt, when not zero, makes a forgetful set of at most that
	// many slots (a power of two): see above.
	forgetAt int
}

const (
	recentBits       = 11
	defaultMaxExact  = 1 << 18 // hashes: a table of 2^19 slots, 4 MiB
	defaultBloomBits = 1 << 27 // 16 MiB
	bloomK           = 4
	// workerFilterSlots is a worker's forgetful set: 2^18 slots, 2 MiB,
	// 131,072 hashes between two forgettings. It only spares the
	// coordinator messages, and each worker has one, so its memory grows
	// with -j: at 2^20 slots (8 MiB) csqlite's two workers' filters were
	// 16 MiB of a one-hour campaign's 51 MiB growth. Forgetting four
	// times as often sent 1.5 times the children on cexpr, the target
	// that meets the most traces, at no CPU cost measurable (execs per
	// CPU-second 625k against 616k, ±13 %; docs/PERFORMANCE.md, "Unique
	// traces and the workers' filters").
	workerFilterSlots = 1 << 18
)

// DefaultTraceMemory is Search.TraceMemory's default: the bytes of each
// of the coordinator's two trace sets, a 4 MiB table and a 16 MiB filter.
const DefaultTraceMemory = 20 << 20

// traceLimits splits a set's budget of mem bytes (zero or less:
// DefaultTraceMemory): the Bloom filter gets the largest power of two of
// at most 4/5 of it, the table the largest power of two of what is left
// (at least 1,024 slots, the first table), half of whose slots can hold
// hashes. DefaultTraceMemory gives the default constants.
func traceLimits(mem int64) (maxExact, bloomWords int) {
	if mem <= 0 {
		mem = DefaultTraceMemory
	}
	floor2 := func(x int64) int64 {
		p := int64(1)
		for p*2 <= x {
			p *= 2
		}
		return p
	}
	bloomBytes := floor2(max(mem*4/5, 8))
	tableBytes := max(floor2(max(mem-bloomBytes, 1)), 1024*8)
	return int(tableBytes / 8 / 2), int(bloomBytes / 8)
}

// boundTraces sets the limits of c's trace sets from a budget of mem
// bytes each (traceLimits). Call it before the first trace.
func (c *Coverage) boundTraces(mem int64) {
	e, w := traceLimits(mem)
	c.traces.maxExact, c.traces.bloomWords = e, w
	c.validTraces.maxExact, c.validTraces.bloomWords = e, w
}

// has reports whether h is in the set.
func (s *traceSet) has(h uint64) bool {
	if h == 0 {
		return s.zero
	}
	r := &s.recent[h>>(64-recentBits)]
	if *r == h {
		return true
	}
	if len(s.slots) > 0 {
		if _, found := s.find(h); found {
			*r = h
			return true
		}
	}
	return s.bloom != nil && s.inBloom(h)
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
	if s.bloom == nil && 2*(s.n+1) > len(s.slots) {
		switch {
		case s.forgetAt > 0 && len(s.slots) >= s.forgetAt: // a full forgetful set
			clear(s.slots)
			s.n, s.zero = 0, false
		case s.forgetAt == 0 && s.n >= s.exactCap(): // a full exact table
			words := s.bloomWords
			if words == 0 {
				words = defaultBloomBits / 64
			}
			s.bloom = make([]uint64, words)
		default:
			s.rehash()
		}
	}
	if len(s.slots) > 0 {
		if _, found := s.find(h); found {
			return false
		}
	}
	if s.bloom != nil {
		if !s.addBloom(h) {
			return false
		}
		s.n++
		return true
	}
	i, _ := s.find(h)
	s.slots[i] = h
	s.n++
	return true
}

func (s *traceSet) exactCap() int {
	if s.maxExact > 0 {
		return s.maxExact
	}
	return defaultMaxExact
}

// bloomPos is the i-th bit of h in the filter (double hashing; the filter
// has a power-of-two size).
func (s *traceSet) bloomPos(h uint64, i int) uint64 {
	step := (h>>32 | h<<32) | 1
	return (h + uint64(i)*step) & uint64(len(s.bloom)*64-1)
}

func (s *traceSet) inBloom(h uint64) bool {
	for i := range bloomK {
		p := s.bloomPos(h, i)
		if s.bloom[p>>6]&(1<<(p&63)) == 0 {
			return false
		}
	}
	return true
}

// addBloom sets h's bits and reports whether any was clear (h was new, as
// far as the filter can tell).
func (s *traceSet) addBloom(h uint64) bool {
	added := false
	for i := range bloomK {
		p := s.bloomPos(h, i)
		if w := &s.bloom[p>>6]; *w&(1<<(p&63)) == 0 {
			*w |= 1 << (p & 63)
			added = true
		}
	}
	return added
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
