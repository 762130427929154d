package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/campaign"
)

// TestReproCommand: a finding's repro command carries the flags that
// change how the target runs (fuel, the memory cap, warm-up inputs, no
// heap guard), and
// leaves defaults out.
func TestReproCommand(t *testing.T) {
	def := targetFlags{rssLimitMB: defaultRSSLimitMB, heapMB: campaign.DefaultHeapReserveMB, heapGuard: true, heapCheck: defaultHeapCheck, stackDepth: true, callPairs: true}
	if got := reproCommand("t.wasm", &def, false); got != "wafer repro t.wasm {input}" {
		t.Errorf("defaults: got %q", got)
	}
	// A hang reproduces as one only with the campaign's fuel.
	if got, want := reproCommand("t.wasm", &def, true), fmt.Sprintf("wafer repro --fuel %d t.wasm {input}", campaign.DefaultFuel); got != want {
		t.Errorf("defaults, hang: expected %q, got %q", want, got)
	}
	set := def
	set.fuel, set.rssLimitMB, set.warmUp, set.heapGuard = 2000, 4, []string{"seeds dir"}, false
	if got := reproCommand("t.wasm", &set, true); !strings.Contains(got, "--fuel 2000 ") || strings.Count(got, "--fuel") != 1 {
		t.Errorf("--fuel 2000, hang: got %q", got)
	}
	got := reproCommand("t.wasm", &set, false)
	for _, want := range []string{"--fuel 2000", "--rss-limit-mb 4", "--warm-up 'seeds dir'", "--heap-guard=false"} {
		if !strings.Contains(got, want) {
			t.Errorf("expected %q in %q", want, got)
		}
	}
}
