package runtime

import (
	"errors"
	"slices"
	"testing"
)

// TestMallocLimit: with Config.MallocLimit, one allocation larger than it
// ends the run at its memory.grow as KindMallocLimit, with the stack of
// the call that asked: a C target's malloc (testdata/heap's "B" asks 4
// MiB) and a Go reactor's make (testdata/goalloc's seed makes buffers of
// about 1 MiB). Smaller allocations pass, and without the limit the same
// inputs pass.
func TestMallocLimit(t *testing.T) {
	cases := []struct {
		fixture, in string
		limit       uint64
		caller      string // a frame the stack must have
	}{
		{"heap/heap.wasm", "B", 2 << 20, "LLVMFuzzerTestOneInput"},
		{"goalloc/goalloc.wasm", string(fixture(t, "goalloc/seeds/false-overflow")), 512 << 10, "main.decode"},
	}
	for _, tc := range cases {
		w := worker(t, loadInstrumented(t, tc.fixture, fullOpts, Config{MallocLimit: tc.limit}))
		r := run(t, w, tc.in)
		if r.Outcome != Crash || r.Failure.Kind != KindMallocLimit || !errors.Is(r.Failure, ErrMallocLimit) {
			t.Fatalf("%s: expected a malloc-limit crash, got %v %v", tc.fixture, r.Outcome, r.Failure)
		}
		if !slices.ContainsFunc(r.Failure.Stack, func(f Frame) bool { return f.Func == tc.caller }) {
			t.Fatalf("%s: expected %s on the stack, got %v", tc.fixture, tc.caller, r.Failure.Stack)
		}
		t.Logf("%s: %v", tc.fixture, r.Failure)
		unlimited := worker(t, loadInstrumented(t, tc.fixture, fullOpts, Config{}))
		if r := run(t, unlimited, tc.in); r.Outcome == Crash {
			t.Fatalf("%s without the limit: %v", tc.fixture, r.Failure)
		}
	}
	// below the limit: 256 KiB of 2 MiB
	w := worker(t, loadInstrumented(t, "heap/heap.wasm", fullOpts, Config{MallocLimit: 2 << 20}))
	if r := run(t, w, "s"); r.Outcome == Crash {
		t.Fatalf("an allocation below the limit: %v", r.Failure)
	}
}
