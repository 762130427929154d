package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestLimitStartMemory checks that a campaign's start runs under the
// start-up limit and that lifting it puts back the limit it replaced,
// once, however often it is called.
func TestLimitStartMemory(t *testing.T) {
	const before = 3 << 30
	prev := debug.SetMemoryLimit(before)
	defer debug.SetMemoryLimit(prev)
	c := &cli{startMemoryLimit: startupMemoryLimit}
	lift := c.limitStartMemory()
	if got := debug.SetMemoryLimit(-1); got != startupMemoryLimit {
		t.Fatalf("limit during the start: got %d, expected %d", got, startupMemoryLimit)
	}
	lift()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Fatalf("limit after the start: got %d, expected %d", got, before)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	lift() // a second call changes nothing
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("a second lift set the limit to %d", got)
	}
}
