package instrument

import (
	_ "embed"
	"math/bits"
	"strings"
	"testing"
)

//go:embed testdata/callpairs.wasm
var callPairsWasm []byte

// TestCallPairs: with Options.CallPairs each indirect call (call_indirect
// and return_call_indirect) sets the counter of the region its site and
// table index hash to, also when the call then traps, and the module
// behaves as before; without the option, or without indirect calls, there
// is no region.
func TestCallPairs(t *testing.T) {
	out, sm, err := Instrument(callPairsWasm, Options{CallPairs: true, Fuel: true, DirtyPages: true})
	if err != nil {
		t.Fatal(err)
	}
	l := sm.Layout
	if l.CallSites != 64 || l.CallSite+l.CallSites != l.Counters || sm.Sites[l.CallSite].Kind != CallPair {
		t.Fatalf("expected 64 call pair sites at the end, got layout %+v", l)
	}
	calls := []coreCall{call("a", 1), call("a", 1), call("b", 1), call("tail", 2), call("a", 7)}
	if orig, _ := coreRun(t, callPairsWasm, calls, nil); !strings.Contains(orig[4], "trap") {
		t.Fatalf("a(7): expected a trap (a table of 4), got %s", orig[4])
	}
	mod := sameResults(t, callPairsWasm, out, calls)
	// site: the indirect calls in code order (a, b, tail)
	bucket := func(site, idx uint32) uint32 {
		return ((idx ^ site*0x85ebca6b) * 0x9e3779b1) >> (32 - bits.TrailingZeros32(l.CallSites))
	}
	want := make([]byte, l.CallSites)
	for _, p := range [][2]uint32{{0, 1}, {0, 1}, {1, 1}, {2, 2}, {0, 7}} {
		want[bucket(p[0], p[1])] = 1
	}
	got := counters(t, mod, sm)[l.CallSite:]
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("call pair counter %d: expected %d, got %d (all: %v)", i, want[i], got[i], got)
		}
	}

	for _, tc := range []struct {
		name string
		wasm []byte
		opts Options
	}{{"without the option", callPairsWasm, Options{}}, {"without indirect calls", branchesWasm, Options{CallPairs: true}}} {
		_, sm, err := Instrument(tc.wasm, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if sm.Layout.CallSites != 0 || sm.Layout.CallSite != 0 {
			t.Errorf("%s: expected no call pair region, got %d sites from %d", tc.name, sm.Layout.CallSites, sm.Layout.CallSite)
		}
	}
}

// TestCallSiteCount: 16 counters per indirect call site, a power of two
// from 64 to 4,096.
func TestCallSiteCount(t *testing.T) {
	for _, tc := range []struct{ calls, want int }{{0, 0}, {1, 64}, {4, 64}, {5, 128}, {100, 2048}, {200, 4096}, {100000, 4096}} {
		if got := callSiteCount(tc.calls); got != tc.want {
			t.Errorf("callSiteCount(%d) = %d, expected %d", tc.calls, got, tc.want)
		}
	}
}
