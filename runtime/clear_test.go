package runtime

import (
	"bytes"
	"testing"
)

// TestCallerClears: a worker whose caller zeroes the counters
// (SetCallerClears) reports, in every reset mode and across crashes,
// hangs and invalid runs (each one discards or keeps the instance), the
// same counters for every input as a worker that clears them itself:
// no run starts with stale counters, not even the first run of a new
// instance, whose initialisation hit counters too. Without the caller's
// zeroing the counters of two persistent runs add up: the contract is
// real.
func TestCallerClears(t *testing.T) {
	fixtures := []struct {
		name   string
		inputs []string
	}{
		{"clib/clib.wasm", []string{"V", "P hi", "D", "V", "X", "L", "K", "P hello", "U", "Q", "V"}},
		// 87k sites; its initialisation runs the Go runtime's.
		{"goreactor/goreactor.wasm", []string{"V", "Pboom", "V", "X", "I", "V"}},
	}
	for _, fx := range fixtures {
		for _, mode := range []Reset{Restore, Persistent, Fresh} {
			t.Run(fx.name+"/"+mode.String(), func(t *testing.T) {
				callerClears(t, fx.name, mode, fx.inputs)
			})
		}
	}
	t.Run("not cleared", func(t *testing.T) {
		tg := loadInstrumented(t, "clib/clib.wasm", fullOpts, Config{Reset: Persistent, MaxInputLen: 64})
		w := worker(t, tg)
		w.SetCallerClears(true)
		once := bytes.Clone(run(t, w, "V").Counters)
		twice := run(t, w, "V").Counters
		for i, c := range once {
			if c < 128 && twice[i] != 2*c { // 8-bit counts saturate
				t.Fatalf("site %d: expected %d after two uncleared runs, got %d", i, 2*c, twice[i])
			}
		}
	})
}

// callerClears runs inputs on two workers of fixture in mode, one
// clearing its counters, one whose caller clears them, and compares.
func callerClears(t *testing.T, fixture string, mode Reset, inputs []string) {
	t.Helper()
	tg := loadInstrumented(t, fixture, fullOpts, Config{Reset: mode, Fuel: 1 << 22, MaxInputLen: 64})
	ref, cc := worker(t, tg), worker(t, tg)
	cc.SetCallerClears(true)
	if n := nonzero(cc.counters()); n != 0 {
		t.Fatalf("new worker: expected zero counters, got %d non-zero", n)
	}
	for i, in := range inputs {
		want := run(t, ref, in)
		got := run(t, cc, in)
		if got.Outcome != want.Outcome {
			t.Fatalf("input %d %q: expected %v, got %v", i, in, want.Outcome, got.Outcome)
		}
		if nonzero(want.Counters) == 0 {
			t.Fatalf("input %d %q: no counter hit", i, in)
		}
		if !bytes.Equal(got.Counters, want.Counters) {
			t.Fatalf("input %d %q (%v): caller-cleared counters differ from the reference: %d vs %d non-zero",
				i, in, got.Outcome, nonzero(got.Counters), nonzero(want.Counters))
		}
		clear(got.Counters) // the caller's duty
	}
}
