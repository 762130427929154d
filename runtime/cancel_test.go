package runtime

import (
	"context"
	"errors"
	goruntime "runtime"
	"testing"
)

// TestCancelInFlight: a run whose ctx ends while it is in the target
// stops at the next fuel check and returns ctx's error, although the
// module runs without wazero's context checks: hostile's 'A' allocates 1
// MiB at a time until memory reaches the cap (a crash, which a run not
// stopped ends with, its fuel being far from spent). The call starts once
// the watcher has set the fuel to 0, not after some time: how soon a
// goroutine is scheduled is up to the machine (under -race on a loaded
// CI machine the run reached 515 pages first). The worker runs the
// next input as usual, and a run under a ctx that is not canceled is not
// stopped by the old ctx's watcher.
func TestCancelInFlight(t *testing.T) {
	tg := loadInstrumented(t, "hostile/hostile.wasm", fullOpts, Config{Fuel: 1 << 50, MaxMemoryPages: 1024})
	w := worker(t, tg)
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	w.beforeCall = func() {
		calls++
		cancel() // in flight: marked, past every check before the call
		for w.calls.pokes.Load() == 0 {
			goruntime.Gosched()
		}
	}
	r, err := w.RunFuel(ctx, []byte("A"), 0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled in flight: expected context.Canceled, got %v, outcome %v (%v)", err, r.Outcome, r.Failure)
	}
	if calls != 1 {
		t.Fatalf("expected the call entered once, got %d", calls)
	}
	// stopped, not run to its end: the run's memory is far from the cap
	if w.dead == nil || w.dead.Memory().Size() >= 512*pageSize {
		t.Fatalf("the canceled run went on: its memory reached %d of 1,024 pages", w.dead.Memory().Size()/pageSize)
	}
	w.beforeCall = nil
	if r := run(t, w, "A"); r.Outcome != Crash || r.Failure.Kind != KindOutOfMemory {
		t.Fatalf("uncanceled, hostile's 'A' runs until memory reaches the cap: expected out-of-memory, got %v (%v)", r.Outcome, r.Failure)
	}
	if r := run(t, w, ""); r.Outcome != Valid {
		t.Fatalf("the empty input after: %v (%v)", r.Outcome, r.Failure)
	}
}

// BenchmarkCallMark is what marking a call costs a run (enterCall and
// leaveCall under a campaign's cancelable ctx, watched once).
func BenchmarkCallMark(b *testing.B) {
	w := worker(b, loadInstrumented(b, "clib/clib.wasm", fullOpts, Config{}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		if !w.enterCall(ctx) {
			b.Fatal("ctx done")
		}
		w.leaveCall()
	}
	report(b, cpu0)
}
