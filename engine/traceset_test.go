package engine

import (
	"math/rand/v2"
	"testing"
)

// TestTraceSet: the set agrees with a Go map on every has/add/len over
// random hashes with repeats, zero, and hashes that collide in their low
// bits (long probe runs across table growth).
func TestTraceSet(t *testing.T) {
	tests := []struct {
		name string
		draw func(r *rand.Rand) uint64
	}{
		{"uniform", func(r *rand.Rand) uint64 { return r.Uint64() }},
		{"few values with zero", func(r *rand.Rand) uint64 { return uint64(r.IntN(50)) }},
		{"same low 16 bits", func(r *rand.Rand) uint64 { return r.Uint64() << 16 }},
		{"clustered", func(r *rand.Rand) uint64 { return uint64(r.IntN(4096)) * 1024 }},
		// Same top bits: every hash maps to one slot of the recent cache.
		{"one cache slot", func(r *rand.Rand) uint64 { return r.Uint64() >> recentBits }},
		{"few in one cache slot", func(r *rand.Rand) uint64 { return uint64(r.IntN(40)) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			var s traceSet
			m := map[uint64]bool{}
			for i := range 20_000 {
				h := tc.draw(r)
				if got, want := s.has(h), m[h]; got != want {
					t.Fatalf("step %d: has(%#x) = %v, expected %v", i, h, got, want)
				}
				if got, want := s.add(h), !m[h]; got != want {
					t.Fatalf("step %d: add(%#x) = %v, expected %v", i, h, got, want)
				}
				m[h] = true
				if !s.has(h) {
					t.Fatalf("step %d: has(%#x) false after add", i, h)
				}
				if s.len() != len(m) {
					t.Fatalf("step %d: len %d, expected %d", i, s.len(), len(m))
				}
			}
			for h := range m {
				if !s.has(h) {
					t.Fatalf("lost %#x", h)
				}
			}
		})
	}
}

func TestTraceSetZeroAlloc(t *testing.T) {
	var s traceSet
	for i := range uint64(300) {
		s.add(i * 0x9e3779b97f4a7c15)
	}
	if a := testing.AllocsPerRun(1000, func() { s.has(12345); s.add(0x9e3779b97f4a7c15) }); a != 0 {
		t.Fatalf("expected 0 allocations per lookup, got %v", a)
	}
}

// TestTraceSetBounded: past maxExact hashes the table stops growing and a
// Bloom filter takes the rest. Nothing added is ever forgotten (no false
// "new"), a new hash reads as seen about as often as a filter of that size
// predicts, and len counts what add reported new.
func TestTraceSetBounded(t *testing.T) {
	s := traceSet{maxExact: 1000, bloomWords: 1 << 12} // 2^18 bits
	r := rand.New(rand.NewPCG(3, 4))
	var added []uint64
	newCount, falseSeen := 0, 0
	const n = 20_000
	for range n {
		h := r.Uint64()
		if s.add(h) {
			newCount++
		} else {
			falseSeen++ // every h is distinct: "seen" is a false positive
		}
		added = append(added, h)
	}
	if len(s.slots) > 2048 || len(s.bloom) != 1<<12 {
		t.Fatalf("memory: %d slots, %d filter words; expected at most 2,048 and 4,096", len(s.slots), len(s.bloom))
	}
	for _, h := range added {
		if !s.has(h) || s.add(h) {
			t.Fatalf("forgot %#x", h)
		}
	}
	if s.len() != newCount {
		t.Fatalf("len %d, expected %d", s.len(), newCount)
	}
	// 19,000 hashes in 2^18 bits with k = 4: the last ones see a false
	// positive rate of (1 - e^(-4*19000/2^18))^4, about 0.4 %; on average
	// over the fill, well under 1 %.
	if falseSeen == 0 || falseSeen > n/100 {
		t.Errorf("%d of %d new hashes read as seen; expected a few, under 1 %%", falseSeen, n)
	}
}

// TestTraceSetForgetful: a forgetful set never outgrows forgetAt slots
// and has no filter; past that it forgets, so a hash added long ago may
// read as new again, but a hash it says it has was added (no false
// "seen"), and the last hashes added are all still there.
func TestTraceSetForgetful(t *testing.T) {
	s := traceSet{forgetAt: 1024}
	r := rand.New(rand.NewPCG(5, 6))
	added := map[uint64]bool{}
	var order []uint64
	renewed := 0
	for range 20_000 {
		h := r.Uint64() % 50_000 // repeats, as a campaign's traces do
		isNew := s.add(h)
		if !isNew && !added[h] {
			t.Fatalf("%#x read as seen but was never added", h)
		}
		if isNew && added[h] {
			renewed++
		}
		added[h] = true
		order = append(order, h)
		if len(s.slots) > 1024 || s.bloom != nil {
			t.Fatalf("memory: %d slots, filter %v; expected at most 1,024 and none", len(s.slots), s.bloom != nil)
		}
	}
	if renewed == 0 {
		t.Error("expected forgotten hashes to read as new again")
	}
	for _, h := range order[len(order)-s.len():] {
		if !s.has(h) {
			t.Fatalf("forgot %#x, added since the last forgetting", h)
		}
	}
}

// TestTraceLimits: a budget is split into a power-of-two filter of at most
// 4/5 of it and a power-of-two table of what is left, half of whose
// slots hold hashes; the default budget gives the default constants, and
// no budget gives less than the first table.
func TestTraceLimits(t *testing.T) {
	tests := []struct {
		mem                  int64
		maxExact, bloomWords int
	}{
		{0, defaultMaxExact, defaultBloomBits / 64},
		{DefaultTraceMemory, defaultMaxExact, defaultBloomBits / 64},
		{320 << 10, 4096, 32 << 10},       // 256 KiB filter, 64 KiB table
		{1 << 30, 1 << 25, 512 << 20 / 8}, // 512 MiB table: exact for 33 million
		{1, 512, 1},
	}
	for _, tc := range tests {
		e, w := traceLimits(tc.mem)
		if e != tc.maxExact || w != tc.bloomWords {
			t.Errorf("traceLimits(%d) = %d hashes, %d words; expected %d, %d", tc.mem, e, w, tc.maxExact, tc.bloomWords)
		}
		if tc.mem >= 16<<10 && int64(2*e*8+w*8) > tc.mem {
			t.Errorf("traceLimits(%d): table %d + filter %d bytes exceed the budget", tc.mem, 2*e*8, w*8)
		}
	}
}

// TestCoverageTraceMemory: with a budget, the coordinator's trace sets
// stop growing at it however many distinct traces arrive, and every trace
// merged reads as seen afterwards.
func TestCoverageTraceMemory(t *testing.T) {
	const budget = 64 << 10
	c := newCoverage(0)
	c.boundTraces(budget)
	r := rand.New(rand.NewPCG(7, 8))
	var hashes []uint64
	for range 50_000 {
		h := r.Uint64()
		hashes = append(hashes, h)
		c.traces.add(h)
		c.validTraces.add(h)
	}
	for _, s := range []*traceSet{&c.traces, &c.validTraces} {
		if bytes := 8 * (len(s.slots) + len(s.bloom)); bytes > budget {
			t.Fatalf("set holds %d bytes, budget %d", bytes, budget)
		}
		if s.bloom == nil {
			t.Fatal("expected the filter to be in use past the table")
		}
	}
	for _, h := range hashes {
		if !c.traces.has(h) || !c.validTraces.has(h) {
			t.Fatalf("forgot %#x", h)
		}
	}
	if n := c.UniqueTraces(); n > len(hashes) || n < len(hashes)*9/10 {
		t.Fatalf("UniqueTraces %d of %d distinct: expected a small undercount at most", n, len(hashes))
	}
}
