package main

import (
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/runtime"
)

// TestReproCommand: a finding's repro command carries the flags that
// change how the target runs (fuel, the memory cap, warm-up inputs), and
// leaves defaults out.
func TestReproCommand(t *testing.T) {
	def := targetFlags{rssLimitMB: defaultRSSLimitMB, heapMB: runtime.DefaultHeapReserve >> 20}
	if got := reproCommand("t.wasm", &def); got != "wafer repro t.wasm {input}" {
		t.Errorf("defaults: got %q", got)
	}
	set := def
	set.fuel, set.rssLimitMB, set.warmUp = 2000, 4, []string{"seeds dir"}
	got := reproCommand("t.wasm", &set)
	for _, want := range []string{"--fuel 2000", "--rss-limit-mb 4", "--warm-up 'seeds dir'"} {
		if !strings.Contains(got, want) {
			t.Errorf("expected %q in %q", want, got)
		}
	}
}
