package runtime

import (
	"context"
	"os"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// testdataTarget loads a module of runtime/testdata, instrumented (fuel,
// dirty pages) or not.
func testdataTarget(t *testing.T, file string, instrumented bool, cfg Config) *Target {
	t.Helper()
	wasm, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var sm *instrument.SiteMap
	if instrumented {
		if wasm, sm, err = instrument.Instrument(wasm, fullOpts); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	tg, err := New(ctx, &instrument.Prepared{Wasm: wasm, SiteMap: sm}, testConfig(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close(ctx) })
	return tg
}

// TestEmptyRunKeepsFirstCallState: the empty input runs once per instance
// before the snapshot, so a harness that grows memory on its first call
// (testdata/lazy.wat) does it there, and restore mode then runs every
// input on the same instance. Without the empty run (NoEmptyRun), each run
// grows memory again and costs a new instance.
func TestEmptyRunKeepsFirstCallState(t *testing.T) {
	for _, instrumented := range []bool{false, true} {
		for _, noEmpty := range []bool{false, true} {
			tg := testdataTarget(t, "lazy.wasm", instrumented, Config{NoEmptyRun: noEmpty, MaxInputLen: 1024})
			w := worker(t, tg)
			first := w.mod
			for i := range 4 {
				if r := run(t, w, "abc"); r.Outcome != Valid {
					t.Fatalf("run %d: expected valid, got %v %v", i, r.Outcome, r.Failure)
				}
			}
			if same := w.mod == first; same == noEmpty {
				t.Errorf("instrumented %v, NoEmptyRun %v: expected the instance kept: %v, got %v", instrumented, noEmpty, !noEmpty, same)
			}
		}
	}
}

// TestEmptyRunFailure: a harness that traps on the empty input still
// starts (instances are made without the empty run), runs other inputs,
// and the empty input is a crash the campaign can find.
func TestEmptyRunFailure(t *testing.T) {
	for _, instrumented := range []bool{false, true} {
		for _, mode := range []Reset{Restore, Persistent, Fresh} {
			w := worker(t, testdataTarget(t, "emptytrap.wasm", instrumented, Config{Reset: mode, MaxInputLen: 1024}))
			for i, tc := range []struct {
				in  string
				out Outcome
			}{{"a", Valid}, {"", Crash}, {"b", Valid}, {"", Crash}} {
				r := run(t, w, tc.in)
				if r.Outcome != tc.out || (tc.out == Crash && r.Failure.Kind != KindUnreachable) {
					t.Fatalf("instrumented %v, %v, run %d %q: expected %v, got %v %v", instrumented, mode, i, tc.in, tc.out, r.Outcome, r.Failure)
				}
			}
		}
	}
}
