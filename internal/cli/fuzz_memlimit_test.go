package cli

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestCampaignSettings checks that a campaign's start runs under the
// start-up limit, that its search runs under the limit the start replaced
// and at the search's GOGC, and that done puts the GOGC back: each once,
// however often called.
func TestCampaignSettings(t *testing.T) {
	const before, gcBefore = 3 << 30, 77
	prev := debug.SetMemoryLimit(before)
	defer debug.SetMemoryLimit(prev)
	defer debug.SetGCPercent(debug.SetGCPercent(gcBefore))
	c := &cli{startMemoryLimit: startupMemoryLimit, searchGCPercent: searchGCPercent}
	search, done := c.campaignSettings()
	if got := debug.SetMemoryLimit(-1); got != startupMemoryLimit {
		t.Fatalf("limit during the start: got %d, expected %d", got, startupMemoryLimit)
	}
	if got := debug.SetGCPercent(-1); got != gcBefore {
		t.Fatalf("GOGC during the start: got %d, expected %d", got, gcBefore)
	}
	debug.SetGCPercent(gcBefore)
	search()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Fatalf("limit during the search: got %d, expected %d", got, before)
	}
	if got := debug.SetGCPercent(searchGCPercent); got != searchGCPercent {
		t.Fatalf("GOGC during the search: got %d, expected %d", got, searchGCPercent)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	search() // a second call changes nothing
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("a second search set the limit to %d", got)
	}
	done()
	if got := debug.SetGCPercent(-1); got != gcBefore {
		t.Fatalf("GOGC after done: got %d, expected %d", got, gcBefore)
	}
	debug.SetGCPercent(50)
	done() // a second call changes nothing
	if got := debug.SetGCPercent(-1); got != 50 {
		t.Fatalf("a second done set GOGC to %d", got)
	}

	// A campaign that never started: done lifts the start's limit.
	debug.SetMemoryLimit(before)
	_, done = c.campaignSettings()
	done()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Fatalf("limit after a campaign that never started: got %d, expected %d", got, before)
	}
}
