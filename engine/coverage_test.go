package engine

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/cespare/xxhash/v2"
)

func TestBuckets(t *testing.T) {
	tests := []struct {
		count uint8
		want  uint8
	}{
		{0, 0}, {1, 1}, {2, 2}, {3, 4}, {4, 8}, {7, 8}, {8, 16}, {15, 16},
		{16, 32}, {31, 32}, {32, 64}, {127, 64}, {128, 128}, {255, 128},
	}
	for _, tc := range tests {
		if got := bucketBit[tc.count]; got != tc.want {
			t.Errorf("count %d: expected bucket bit %#x, got %#x", tc.count, tc.want, got)
		}
	}
}

func traceOf(t *testing.T, tr []byte) map[uint32]uint8 {
	t.Helper()
	m := map[uint32]uint8{}
	for i := 0; i < len(tr)/traceEntry; i++ {
		s, b := traceSite(tr, i)
		m[s] = b
	}
	return m
}

// scanCopy scans a copy of c (the scan zeroes what it reads) and checks
// that it left the copy all zero.
func scanCopy(t *testing.T, s *scanner, c []byte, o Outcome) (uint64, bool) {
	t.Helper()
	cp := bytes.Clone(c)
	h, fresh := s.scan(cp, o)
	for i, v := range cp {
		if v != 0 {
			t.Fatalf("counter %d of %d left at %d after the scan", i, len(cp), v)
		}
	}
	return h, fresh
}

func TestScan(t *testing.T) {
	s := newScanner()
	c := make([]byte, 21) // two words and a 5-byte tail
	c[0], c[9], c[15], c[20] = 1, 3, 200, 9
	h1, fresh := scanCopy(t, s, c, Invalid)
	if !fresh {
		t.Fatal("first run: expected fresh")
	}
	got := traceOf(t, s.trace)
	want := map[uint32]uint8{0: 1, 9: 4, 15: 128, 20: 16}
	if len(got) != len(want) {
		t.Fatalf("expected trace %v, got %v", want, got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("expected trace %v, got %v", want, got)
		}
	}
	// Same counts: not fresh; same bucket (3 → 4..7? no: 3 is its own
	// bucket), so change 200 → 150 (same bucket 128+): still not fresh.
	c[15] = 150
	if h2, fresh := scanCopy(t, s, c, Invalid); fresh || h2 != h1 {
		t.Fatalf("same buckets: expected not fresh and same hash, got %v %x/%x", fresh, h1, h2)
	}
	// The same run valid: fresh (valid coverage is new).
	if _, fresh := scanCopy(t, s, c, Valid); !fresh {
		t.Fatal("first valid run: expected fresh")
	}
	// A failing run with new coverage is fresh but does not mark coverage.
	c[1] = 1
	if _, fresh := scanCopy(t, s, c, Crash); !fresh {
		t.Fatal("crash with a new trace: expected fresh")
	}
	if _, fresh := scanCopy(t, s, c, Invalid); !fresh {
		t.Fatal("site 1 after crash: expected fresh (crash coverage not marked)")
	}
	sites, counts := s.flushHits()
	hits := map[uint32]uint32{}
	for i := range sites {
		hits[sites[i]] = counts[i]
	}
	if hits[0] != 5 || hits[1] != 2 || hits[20] != 5 {
		t.Fatalf("expected hits 0:5 1:2 20:5, got %v", hits)
	}
	if sites, _ := s.flushHits(); sites != nil {
		t.Fatalf("expected hits cleared, got %v", sites)
	}
}

func TestScanZeroAlloc(t *testing.T) {
	s := newScanner()
	c := make([]byte, 1<<16)
	for i := 0; i < len(c); i += 97 {
		c[i] = byte(i)
	}
	cp := make([]byte, len(c))
	copy(cp, c)
	s.scan(cp, Valid)
	allocs := testing.AllocsPerRun(1000, func() {
		copy(cp, c)
		s.scan(cp, Valid)
	})
	if allocs != 0 {
		t.Fatalf("expected 0 allocations per scan, got %v", allocs)
	}
	s.flushHits()
}

func sparse(pairs ...uint32) []byte {
	var b []byte
	for i := 0; i < len(pairs); i += 2 {
		b = binary.LittleEndian.AppendUint32(b, pairs[i]<<8|pairs[i+1])
	}
	return b
}

func TestCoverageClassifyMerge(t *testing.T) {
	c := newCoverage(0)
	steps := []struct {
		name    string
		o       Outcome
		hash    uint64
		tr      []byte
		want    Feedback
		br, vbr int
	}{
		{"invalid new", Invalid, 1, sparse(0, 1, 3, 1), Feedback{NewBranch: true, NewBucket: true, NewTrace: true}, 2, 0},
		{"valid same sites", Valid, 2, sparse(0, 1, 3, 1), Feedback{NewValidBranch: true, NewTrace: true, NewValidTrace: true}, 2, 2},
		{"new bucket", Valid, 3, sparse(0, 2), Feedback{NewBucket: true, NewTrace: true, NewValidTrace: true}, 2, 2},
		{"seen trace", Valid, 3, sparse(0, 2), Feedback{}, 2, 2},
		{"crash coverage not merged", Crash, 4, sparse(7, 1), Feedback{NewTrace: true}, 2, 2},
		{"after crash still new", Invalid, 5, sparse(7, 1), Feedback{NewBranch: true, NewBucket: true, NewTrace: true}, 3, 2},
	}
	for _, s := range steps {
		fb := c.classify(s.o, s.hash, s.tr, false)
		got := Feedback{NewBranch: fb.NewBranch, NewValidBranch: fb.NewValidBranch, NewBucket: fb.NewBucket, NewTrace: fb.NewTrace, NewValidTrace: fb.NewValidTrace}
		if got.NewBranch != s.want.NewBranch || got.NewValidBranch != s.want.NewValidBranch || got.NewBucket != s.want.NewBucket || got.NewTrace != s.want.NewTrace || got.NewValidTrace != s.want.NewValidTrace {
			t.Fatalf("%s: expected %+v, got %+v", s.name, s.want, got)
		}
		c.merge(&fb)
		if c.Branches != s.br || c.ValidBranches != s.vbr {
			t.Fatalf("%s: expected %d/%d branches, got %d/%d", s.name, s.br, s.vbr, c.Branches, c.ValidBranches)
		}
	}
	if c.UniqueTraces() != 5 {
		t.Fatalf("expected 5 unique traces, got %d", c.UniqueTraces())
	}
	// Abundance: site 0 in traces 1,2,3; site 3 in 1,2; site 7 in 4,5.
	if a := c.Abundance; a[0] != 3 || a[3] != 2 || a[7] != 2 {
		t.Fatalf("expected abundance 0:3 3:2 7:2, got %v", a)
	}
}

func TestHill(t *testing.T) {
	c := &Coverage{Abundance: []uint64{1, 1, 0, 2}}
	b0, b1, b2 := c.Hill()
	p := []float64{0.25, 0.25, 0.5}
	var h, sq float64
	for _, x := range p {
		h -= x * math.Log(x)
		sq += x * x
	}
	if b0 != 3 || math.Abs(b1-math.Exp(h)) > 1e-12 || math.Abs(b2-1/sq) > 1e-12 {
		t.Fatalf("expected 3, %v, %v; got %v, %v, %v", math.Exp(h), 1/sq, b0, b1, b2)
	}
	// Even abundance: all three equal the number of species.
	c = &Coverage{Abundance: []uint64{5, 5, 5, 5}}
	if b0, b1, b2 := c.Hill(); b0 != 4 || math.Abs(b1-4) > 1e-9 || math.Abs(b2-4) > 1e-9 {
		t.Fatalf("expected 4,4,4, got %v,%v,%v", b0, b1, b2)
	}
}

func BenchmarkScan(b *testing.B) {
	for _, tc := range []struct {
		name         string
		sites, every int
	}{
		{"16K-sparse", 1 << 14, 61},   // 269 sites hit
		{"2K-dense", 2048, 7},         // 293 sites hit
		{"64K-clustered", 1 << 16, 0}, // 320 sites hit in 20 runs of 16
		{"87K-go", 87587, -1},         // the Go reactor on "V": 29 sites hit in 3 runs
		{"410-tlv", 410, 29},          // examples/tlv's size, 15 sites hit
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := newScanner()
			c := make([]byte, tc.sites)
			if tc.every == -1 {
				for i := range 29 {
					c[[]int{1000, 5000, 40000}[i%3]+i] = 1
				}
			}
			if tc.every == 0 {
				for r := range 20 {
					for i := range 16 {
						c[r*3203+i] = byte(1 + i)
					}
				}
			}
			for i := 0; tc.every > 0 && i < len(c); i += tc.every {
				c[i] = byte(i)
			}
			// The scan zeroes what it reads: each iteration sets the hits
			// again (a few hundred stores).
			var hits []int
			for i, v := range c {
				if v != 0 {
					hits = append(hits, i)
				}
			}
			b.SetBytes(int64(len(c)))
			cpu0 := cpuTime()
			for b.Loop() {
				for _, i := range hits {
					c[i] = byte(i) | 1
				}
				s.scan(c, Valid)
				if len(s.touched) > 1<<12 {
					s.flushHits()
				}
			}
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

// refScanner is the scanner's specification, written the slow way: byte
// by byte, with maps.
type refScanner struct {
	total  map[int]uint8
	valid  map[int]bool
	traces map[uint64]bool
	hits   map[uint32]uint32
}

func (r *refScanner) scan(c []byte, o Outcome) (trace []byte, hash uint64, fresh bool) {
	for site, v := range c {
		if v == 0 {
			continue
		}
		bk := bucketBit[v]
		trace = binary.LittleEndian.AppendUint32(trace, uint32(site)<<8|uint32(bk))
		r.hits[uint32(site)]++
		if !o.Failed() && r.total[site]&bk == 0 {
			r.total[site] |= bk
			fresh = true
		}
		if o == Valid && !r.valid[site] {
			r.valid[site] = true
			fresh = true
		}
	}
	hash = xxhash.Sum64(trace)
	if !r.traces[hash] {
		r.traces[hash] = true
		fresh = true
	}
	return trace, hash, fresh
}

// TestScanMatchesReference: on random counter maps (lengths around the
// 8- and 32-byte steps and the zero blocks skipped whole, sparse, dense and clustered hits, runs that repeat
// or slightly change the previous one, every outcome) the scanner reports
// exactly the reference's trace, hash and fresh decision for every run,
// and the same hit counts.
func TestScanMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 65 {
		n := []int{1, 7, 8, 31, 32, 33, 63, 64, 100, 731, 4096, 3 * skipBlock, 5*skipBlock + 40}[round%13] + r.IntN(3)
		s := newScanner()
		ref := &refScanner{total: map[int]uint8{}, valid: map[int]bool{}, traces: map[uint64]bool{}, hits: map[uint32]uint32{}}
		c := make([]byte, n)
		for run := range 300 {
			switch r.IntN(4) {
			case 0: // fresh map
				clear(c)
				density := 1 + r.IntN(20)
				for i := range c {
					if r.IntN(density) == 0 {
						c[i] = byte(r.IntN(256))
					}
				}
			case 1: // clustered
				clear(c)
				at := r.IntN(n)
				for i := at; i < min(n, at+1+r.IntN(40)); i++ {
					c[i] = byte(1 + r.IntN(255))
				}
			case 2: // change one counter
				c[r.IntN(n)] = byte(r.IntN(256))
			case 3: // repeat
			}
			o := []Outcome{Valid, Invalid, Crash, Hang}[r.IntN(4)]
			wantTr, wantH, wantF := ref.scan(c, o)
			gotH, gotF := scanCopy(t, s, c, o)
			if !bytes.Equal(s.trace, wantTr) || gotH != wantH || gotF != wantF {
				t.Fatalf("round %d run %d (%d counters, %v): got trace %x hash %x fresh %v, expected %x %x %v",
					round, run, n, o, s.trace, gotH, gotF, wantTr, wantH, wantF)
			}
		}
		checkHits(t, "round "+strconv.Itoa(round), s, ref.hits)
	}
}

// checkHits flushes s's hit counts and checks them against want (site →
// hits), the reference scanner's.
func checkHits(t *testing.T, label string, s *scanner, want map[uint32]uint32) {
	t.Helper()
	sites, counts := s.flushHits()
	if len(sites) != len(want) {
		t.Fatalf("%s: %d sites with hits, expected %d", label, len(sites), len(want))
	}
	for i, site := range sites {
		if counts[i] != want[site] {
			t.Fatalf("%s: site %d has %d hits, expected %d", label, site, counts[i], want[site])
		}
	}
}

// TestNewCovShortcut: the coordinator skips a trace's sites when the
// worker's filter found nothing new in them (scanner.newCov false). On
// random runs scanned by one worker and merged in order, the feedback and
// the coverage it leaves are exactly those of always looking.
func TestNewCovShortcut(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	s := newScanner()
	fast, full := newCoverage(0), newCoverage(0)
	c := make([]byte, 300)
	skipped := 0
	for run := range 3000 {
		if r.IntN(3) == 0 {
			clear(c)
		}
		for range 1 + r.IntN(4) {
			c[r.IntN(len(c))] = byte(r.IntN(256))
		}
		o := []Outcome{Valid, Invalid, Crash, Hang}[r.IntN(4)]
		s.probe = r.IntN(10) == 0
		hash, fresh := scanCopy(t, s, c, o)
		if !fresh && !o.Failed() {
			continue // the worker sends only fresh runs and failures
		}
		if !s.newCov {
			skipped++
		}
		tr := bytes.Clone(s.trace)
		a := fast.classify(o, hash, tr, !s.newCov)
		b := full.classify(o, hash, tr, false)
		if a.NewBranch != b.NewBranch || a.NewBucket != b.NewBucket || a.NewValidBranch != b.NewValidBranch ||
			a.NewTrace != b.NewTrace || a.NewValidTrace != b.NewValidTrace || a.Branches != b.Branches {
			t.Fatalf("run %d (%v, probe %v, newCov %v): feedback %+v, expected %+v", run, o, s.probe, s.newCov, a, b)
		}
		if s.probe && !(a.NewBranch || a.NewValidBranch) {
			continue // an input-to-state child that is not saved is not merged
		}
		fast.merge(&a)
		full.merge(&b)
		if fast.Branches != full.Branches || fast.ValidBranches != full.ValidBranches ||
			!bytes.Equal(fast.total, full.total) || !bytes.Equal(fast.valid, full.valid) {
			t.Fatalf("run %d: coverage differs: %d/%d branches against %d/%d", run, fast.Branches, fast.ValidBranches, full.Branches, full.ValidBranches)
		}
	}
	if skipped == 0 {
		t.Fatal("no run took the shortcut")
	}
	t.Logf("%d runs merged without looking at their sites", skipped)
}
