package engine

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// bucketBit maps an 8-bit hit count to its AFL bucket as a one-bit mask:
// 1, 2, 3, 4–7, 8–15, 16–31, 32–127, 128+ (docs/ALGORITHMS.md §1). 0 is "not hit".
var bucketBit = func() (t [256]uint8) {
	for c := 1; c < 256; c++ {
		var b uint
		switch {
		case c == 1:
			b = 0
		case c == 2:
			b = 1
		case c == 3:
			b = 2
		case c <= 7:
			b = 3
		case c <= 15:
			b = 4
		case c <= 31:
			b = 5
		case c <= 127:
			b = 6
		default:
			b = 7
		}
		t[c] = 1 << b
	}
	return t
}()

// A trace is kept sparse: one little-endian uint32 per hit site,
// site<<8 | bucket bit, in site order. Its xxhash identifies unique traces.
const traceEntry = 4

// maxSites is the most sites a sparse trace entry can name.
const maxSites = 1 << 24

func traceSite(tr []byte, i int) (site uint32, bucket uint8) {
	v := binary.LittleEndian.Uint32(tr[i*traceEntry:])
	return v >> 8, uint8(v)
}

// scanner is one worker's view of coverage: a private filter of what this
// worker already reported (monotone in sites and buckets; its trace set
// forgets, traceSet), so it sends the coordinator only runs
// that may be new. A run that is not new in the filter cannot be new to the
// coordinator, which merges a worker's results after everything that worker
// sent before (see worker.loop). Not safe for concurrent use.
type scanner struct {
	sites   []siteState
	traces  traceSet
	touched []uint32 // sites with hits != 0
	// over holds, per site, the hits its 16-bit count overflowed with
	// since the last flush (made by the first overflow: a batch of more
	// than 65,535 runs that hit one site).
	over  map[uint32]uint32
	trace []byte // the last run's sparse trace (reused)
	zeros []byte // skipBlock zero bytes (maps of at least that size)
	hot   []bool // per skipBlock block: the last scan found hits in it
	// probe: scan reports fresh only for a site never hit before (or a
	// first valid hit) and marks nothing (input-to-state stage children:
	// the coordinator merges one only if it saves it, and leaving the
	// filter smaller than what was merged only sends a few more runs).
	probe bool
	// newCov: the last scan may have found coverage the coordinator lacks
	// (a (site, bucket) pair or valid site not in the filter, or any
	// probe). When false, the run is new at most in its trace: the filter
	// holds only coverage the coordinator merged before this run's
	// results, so it can skip its own look at the sites (classify).
	newCov bool
}

// skipBlock is the size of the zero blocks the scan skips with one
// bytes.Equal against s.zeros (assembly, vector loads) before it walks a
// block 64 bytes at a time: on the Go reactor's 87,587 counters, 29 hit,
// 4 KiB blocks take the zero test from 2.6 µs to 0.8 µs (256-byte blocks:
// 2.3 µs, the per-call cost dominates). Blocks the previous scan found
// hits in are walked without the test. The walk tests a line of eight
// words with one OR, in a loop per block (the block test is not made per
// line): on recorded maps of gopng and gojson (28,893 and 34,989
// counters, 188 and 311 hit a run, every block hot) 2.16 → 1.82 µs and
// 3.88 → 2.76 µs a scan against 32-byte lines (BenchmarkScanGoReactors,
// benchstat, 8 interleaved runs of each, p = 0.04).
const skipBlock = 4096

// siteState is what a worker keeps per site, together so one scan step
// touches one cache line.
//
// Four bytes, sixteen sites a cache line: the hits of one 64-byte line of
// counters touch four lines of site state, not eight as with a uint32
// count (a scan in the loop, after the target's run has evicted much of
// the state, is slower than in a benchmark that scans alone). A count
// that would pass 65,535 between flushes moves to scanner.over.
type siteState struct {
	hits  uint16 // runs that hit the site since the last flush, mod over
	total uint8  // bucket bits reported
	valid uint8  // non-zero: reported as covered by a valid run
}

func newScanner() *scanner {
	return &scanner{traces: traceSet{forgetAt: workerFilterSlots}}
}

func (s *scanner) grow(n int) {
	if n > maxSites {
		n = maxSites
	}
	if n <= len(s.sites) {
		return
	}
	s.sites = append(s.sites, make([]siteState, n-len(s.sites))...)
	if cap(s.trace) < n*traceEntry {
		s.trace = make([]byte, 0, n*traceEntry)
	}
	if n >= skipBlock {
		if s.zeros == nil {
			s.zeros = make([]byte, skipBlock)
		}
		s.hot = append(s.hot, make([]bool, n/skipBlock-len(s.hot))...)
	}
}

// scan buckets the counters of one run into s.trace, counts hits, hashes
// the trace, and reports whether the run may be new: a (site, bucket) pair
// or trace this worker never reported, or, for a valid run, a site never
// reported valid. Failing runs do not mark the coverage filter (their
// coverage is not merged, docs/ALGORITHMS.md §1 rule 3). It reads the counters
// 8 bytes at a time, skips zero words, jumps to the non-zero bytes of a
// word, and does not allocate once the buffers have grown to the number of
// sites. It leaves c all zero: each non-zero block is zeroed as it is read,
// so the executor need not clear the counters again before the next run
// (see Result.Counters).
func (s *scanner) scan(c []byte, o Outcome) (hash uint64, fresh bool) {
	if len(c) > len(s.sites) {
		s.grow(len(c))
	}
	if len(c) > maxSites {
		clear(c[maxSites:])
		c = c[:maxSites]
	}
	tr := s.trace[:cap(s.trace)]
	k := 0
	sites := s.sites[:len(c)]
	isValid := o == Valid
	mark := !o.Failed()
	cov := false
	// visit handles one hit site.
	visit := func(site int, v uint8) {
		bk := bucketBit[v]
		binary.LittleEndian.PutUint32(tr[k:], uint32(site)<<8|uint32(bk))
		k += traceEntry
		p := &sites[site]
		if p.hits++; p.hits <= 1 {
			s.firstHit(site) // once a site per flush, or an overflow
		}
		if mark && p.total&bk == 0 {
			if !s.probe {
				p.total |= bk
				cov = true
			} else if p.total == 0 {
				cov = true
			}
		}
		if isValid && p.valid == 0 {
			if !s.probe {
				p.valid = 1
			}
			cov = true
		}
	}
	// word visits the non-zero bytes of the word at site i.
	word := func(i int, w uint64) {
		for w != 0 {
			sh := bits.TrailingZeros64(w) &^ 7
			visit(i+sh>>3, uint8(w>>sh))
			w &^= 0xff << sh
		}
	}
	// 64 bytes at a time, block by block. Real targets' counters are
	// mostly zero, in long runs (a run touches a few functions of many):
	// a whole block of skipBlock bytes is skipped with one comparison if
	// it is zero, unless the previous scan found hits in it (hot: likely
	// hit again, the comparison would only add to its walk). Within a
	// block, a line of eight words is tested with one OR.
	n := len(c) &^ 63
	for base := 0; base < n; base += skipBlock {
		end := min(base+skipBlock, n)
		blk, whole := base/skipBlock, s.zeros != nil && base+skipBlock <= n
		if whole && !s.hot[blk] && bytes.Equal(c[base:end], s.zeros) {
			continue
		}
		k0 := k
		for i := base; i < end; i += 64 {
			b := c[i : i+64 : i+64]
			w0 := binary.LittleEndian.Uint64(b)
			w1 := binary.LittleEndian.Uint64(b[8:])
			w2 := binary.LittleEndian.Uint64(b[16:])
			w3 := binary.LittleEndian.Uint64(b[24:])
			w4 := binary.LittleEndian.Uint64(b[32:])
			w5 := binary.LittleEndian.Uint64(b[40:])
			w6 := binary.LittleEndian.Uint64(b[48:])
			w7 := binary.LittleEndian.Uint64(b[56:])
			if w0|w1|w2|w3|w4|w5|w6|w7 == 0 {
				continue
			}
			for j, w := range [8]uint64{w0, w1, w2, w3, w4, w5, w6, w7} {
				if w != 0 {
					word(i+8*j, w)
				}
			}
			clear(b)
		}
		if whole {
			s.hot[blk] = k > k0
		}
	}
	for ; n+8 <= len(c); n += 8 {
		if w := binary.LittleEndian.Uint64(c[n:]); w != 0 {
			word(n, w)
			binary.LittleEndian.PutUint64(c[n:], 0)
		}
	}
	for site := n; site < len(c); site++ {
		if v := c[site]; v != 0 {
			visit(site, v)
			c[site] = 0
		}
	}
	s.trace = tr[:k]
	hash = xxhash.Sum64(s.trace)
	s.newCov = cov || s.probe
	fresh = cov
	if !s.probe && s.traces.add(hash) {
		fresh = true
	}
	return hash, fresh
}

// firstHit notes a site whose count the scan took from 0 to 1 (touched)
// or from 65,535 to 0: those hits move to s.over, and the hit at hand is
// the count's first again.
//
//go:noinline
func (s *scanner) firstHit(site int) {
	p := &s.sites[site]
	if p.hits == 1 {
		s.touched = append(s.touched, uint32(site))
		return
	}
	if s.over == nil {
		s.over = make(map[uint32]uint32)
	}
	s.over[uint32(site)] += 1<<16 - 1
	p.hits = 1
}

// flushHits moves the hit counts gathered since the last flush into a
// sparse delta (sites in first-hit order) and clears them.
func (s *scanner) flushHits() (sites, counts []uint32) {
	if len(s.touched) == 0 {
		return nil, nil
	}
	sites = make([]uint32, len(s.touched))
	counts = make([]uint32, len(s.touched))
	for i, site := range s.touched {
		sites[i] = site
		counts[i] = uint32(s.sites[site].hits)
		s.sites[site].hits = 0
		if s.over != nil {
			counts[i] += s.over[site]
		}
	}
	clear(s.over)
	s.touched = s.touched[:0]
	return sites, counts
}

// Feedback is what the coordinator learned from one non-filtered child, in
// issue order. Strategies read it in Save and Learn.
type Feedback struct {
	Outcome Outcome
	// NewBranch: the child covers a site not in total coverage.
	NewBranch bool
	// NewValidBranch: the child is valid and covers a site not in valid coverage.
	NewValidBranch bool
	// NewBucket: a (site, bucket) pair not in total coverage (implies nothing
	// about NewBranch).
	NewBucket bool
	// NewTrace / NewValidTrace: the bucketed trace hash was never seen (among
	// all runs / among valid runs).
	NewTrace, NewValidTrace bool
	// Branches is the number of sites the child hit.
	Branches int
	// Hash is the trace hash; Trace the sparse trace (site<<8|bucket bit,
	// little-endian uint32s). Read-only.
	Hash  uint64
	Trace []byte
	// Index is the child's position in its job (0-based); Note is the
	// job's Mutator note (what Done returned), so a strategy can tell how
	// each child was made.
	Index int
	Note  any
	// Choices and Seq are the child's choice sequence and structured
	// sequence (see Entry), e.g. for BeDivFuzz's structural signature.
	// Read-only.
	Choices []byte
	Seq     any
}

// Coverage is the coordinator's coverage state (docs/ALGORITHMS.md §1, §2, §3).
// Owned by the coordinator goroutine; not safe for concurrent use.
type Coverage struct {
	total []uint8 // bucket bits per site, over non-failing runs
	valid []uint8 // 1 per site covered by a valid run
	// Branches and ValidBranches are |totalCoverage| and |validCoverage|.
	Branches, ValidBranches int
	// Hits is numHits(b): the number of executed inputs (all of them, failing
	// ones included) that hit site b at least once (FairFuzz, §3).
	Hits []uint64
	// Abundance c(b): the number of unique traces that executed b (§2).
	Abundance []uint64
	// ValidAbundance is c(b) over unique valid traces only.
	ValidAbundance []uint64
	traces         traceSet
	validTraces    traceSet
	// Features counts the value-profile features seen (sites from
	// valueFrom on; Config.ValueFrom), not in Branches.
	Features  int
	valueFrom int // 0: no features
}

func newCoverage(valueFrom int) *Coverage { return &Coverage{valueFrom: valueFrom} }

// feature reports whether site is a value-profile feature.
func (c *Coverage) feature(site uint32) bool { return c.valueFrom > 0 && int(site) >= c.valueFrom }

func (c *Coverage) grow(n int) {
	if n <= len(c.total) {
		return
	}
	c.total = append(c.total, make([]uint8, n-len(c.total))...)
	c.valid = append(c.valid, make([]uint8, n-len(c.valid))...)
	c.Hits = append(c.Hits, make([]uint64, n-len(c.Hits))...)
	c.Abundance = append(c.Abundance, make([]uint64, n-len(c.Abundance))...)
	c.ValidAbundance = append(c.ValidAbundance, make([]uint64, n-len(c.ValidAbundance))...)
}

// Sites is the number of sites seen so far.
func (c *Coverage) Sites() int { return len(c.total) }

// Covered reports whether site is in total coverage.
func (c *Coverage) Covered(site int) bool { return site < len(c.total) && c.total[site] != 0 }

// UniqueTraces is the number of distinct bucketed traces of all runs.
func (c *Coverage) UniqueTraces() int { return c.traces.len() }

// classify computes the feedback of a trace against the current state
// without changing it. When covered, the trace is known to hold no site
// or bucket the coverage lacks (the worker's filter said so, see
// scanner.newCov), and its sites are not looked at.
func (c *Coverage) classify(o Outcome, hash uint64, tr []byte, covered bool) Feedback {
	fb := Feedback{Outcome: o, Hash: hash, Trace: tr, Branches: len(tr) / traceEntry}
	if n := len(tr); n > 0 {
		last, _ := traceSite(tr, n/traceEntry-1)
		c.grow(int(last) + 1)
	}
	for i := 0; !covered && i < len(tr)/traceEntry; i++ {
		site, bk := traceSite(tr, i)
		t := c.total[site]
		if c.feature(site) {
			fb.NewBucket = fb.NewBucket || t == 0
			continue
		}
		if t == 0 {
			fb.NewBranch = true
		}
		if t&bk == 0 {
			fb.NewBucket = true
		}
		if o == Valid && c.valid[site] == 0 {
			fb.NewValidBranch = true
		}
	}
	fb.NewTrace = !c.traces.has(hash)
	fb.NewValidTrace = o == Valid && !c.validTraces.has(hash)
	if o.Failed() {
		fb.NewBranch, fb.NewBucket, fb.NewValidBranch = false, false, false
	}
	return fb
}

// merge adds a classified trace: coverage (non-failing runs only), unique
// traces and abundance.
func (c *Coverage) merge(fb *Feedback) {
	tr := fb.Trace
	if !fb.Outcome.Failed() && (fb.NewBucket || fb.NewValidBranch) {
		// (without either, every site has its bucket and, for a valid
		// run, its valid mark already)
		for i := 0; i < len(tr)/traceEntry; i++ {
			site, bk := traceSite(tr, i)
			if c.feature(site) {
				if c.total[site] == 0 {
					c.Features++
				}
				c.total[site] |= bk
				continue
			}
			if c.total[site] == 0 {
				c.Branches++
			}
			c.total[site] |= bk
			if fb.Outcome == Valid && c.valid[site] == 0 {
				c.ValidBranches++
				c.valid[site] = 1
			}
		}
	}
	if fb.NewTrace {
		c.traces.add(fb.Hash)
		for i := 0; i < len(tr)/traceEntry; i++ {
			site, _ := traceSite(tr, i)
			if !c.feature(site) {
				c.Abundance[site]++
			}
		}
	}
	if fb.NewValidTrace {
		c.validTraces.add(fb.Hash)
		for i := 0; i < len(tr)/traceEntry; i++ {
			site, _ := traceSite(tr, i)
			if !c.feature(site) {
				c.ValidAbundance[site]++
			}
		}
	}
}

func (c *Coverage) addHits(sites, counts []uint32) {
	for i, s := range sites {
		if c.feature(s) {
			continue
		}
		if int(s) >= len(c.Hits) {
			c.grow(int(s) + 1)
		}
		c.Hits[s] += uint64(counts[i])
	}
}

// Hill returns the Hill numbers B(0), B(1), B(2) of the abundance
// distribution (docs/ALGORITHMS.md §2). O(sites).
func (c *Coverage) Hill() (b0, b1, b2 float64) { return hill(c.Abundance) }

// HillValid is Hill over the unique valid traces (ValidAbundance).
func (c *Coverage) HillValid() (b0, b1, b2 float64) { return hill(c.ValidAbundance) }

func hill(abundance []uint64) (b0, b1, b2 float64) {
	var sum float64
	for _, a := range abundance {
		if a > 0 {
			b0++
			sum += float64(a)
		}
	}
	if sum == 0 {
		return 0, 0, 0
	}
	var h, sq float64
	for _, a := range abundance {
		if a > 0 {
			p := float64(a) / sum
			h -= p * math.Log(p)
			sq += p * p
		}
	}
	return b0, math.Exp(h), 1 / sq
}
