package cputime

import "testing"

// TestProcessAdvances: burning CPU makes Process grow (where supported).
func TestProcessAdvances(t *testing.T) {
	before, ok := Process()
	if !ok {
		t.Skip("CPU time not reported on this platform")
	}
	x := uint64(1)
	for i := 0; i < 50_000_000; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	after, _ := Process()
	if after <= before {
		t.Fatalf("expected CPU time to grow, got %v then %v (x=%d)", before, after, x)
	}
}
