package runtime

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// instrumented memoises the instrumented build per fixture and
// preparation (options are mostly fullOpts in these tests): instrumenting
// the Go fixtures takes seconds on a loaded machine.
var instrumented = struct {
	sync.Mutex
	m map[string]instrumentedModule
}{m: map[string]instrumentedModule{}}

type instrumentedModule struct{ p *instrument.Prepared }

// loadInstrumented makes a fixture's instrumented build as a campaign
// does (prepare) and loads it.
func loadInstrumented(t testing.TB, rel string, opts instrument.Options, cfg Config) *Target {
	t.Helper()
	wasm := fixture(t, rel)
	b := Preparation(summary(t, wasm), cfg)
	key := fmt.Sprint(rel, b.Initialize, b.Export)
	instrumented.Lock()
	im, ok := instrumented.m[key]
	memo := opts.Fuel == fullOpts.Fuel && opts.DirtyPages == fullOpts.DirtyPages && opts.HeapGuard == fullOpts.HeapGuard && opts.StackDepth == fullOpts.StackDepth && opts.StackCheck == fullOpts.StackCheck && opts.CallPairs == fullOpts.CallPairs && opts.HeapCheck == fullOpts.HeapCheck && len(opts.Skip) == 0 && !opts.Compares
	if !ok || !memo {
		b.Instrument = &opts
		p, err := instrument.Prepare(wasm, b)
		if err != nil {
			instrumented.Unlock()
			t.Fatalf("instrument %s: %v", rel, err)
		}
		im = instrumentedModule{p}
		if memo {
			instrumented.m[key] = im
		}
	}
	instrumented.Unlock()
	ctx := context.Background()
	tg, err := New(ctx, im.p, testConfig(t, cfg))
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	t.Cleanup(func() { tg.Close(ctx) })
	return tg
}

// fullOpts is what a campaign instruments with.
var fullOpts = instrument.Options{Fuel: true, DirtyPages: true, HeapGuard: true, StackCheck: true, StackDepth: true, CallPairs: true}

func TestInstrumentedCrashKinds(t *testing.T) {
	tests := []struct {
		fixture, in string
		out         Outcome
		kind        Kind
		top         string
	}{
		{"clib/clib.wasm", "V", Valid, KindNone, ""},
		{"clib/clib.wasm", "X", Invalid, KindNone, ""},
		{"clib/clib.wasm", "O", Crash, KindOutOfBoundsMemory, "read_bad_pointer"},
		{"clib/clib.wasm", "D", Crash, KindDivideByZero, "divide_by_zero"},
		{"clib/clib.wasm", "F", Crash, KindIntegerOverflow, "overflow_divide"},
		{"clib/clib.wasm", "N", Crash, KindInvalidConversion, "bad_conversion"},
		{"clib/clib.wasm", "M", Crash, KindIndirectCallMismatch, "call_mismatch"},
		{"clib/clib.wasm", "T", Crash, KindTableOutOfBounds, "call_bad_index"},
		{"clib/clib.wasm", "U", Crash, KindUnreachable, "hit_trap"},
		{"clib/clib.wasm", "A", Crash, KindAbort, "abort"},
		{"clib/clib.wasm", "S", Crash, KindStackExhausted, ""},
		{"clib/clib.wasm", "R", Crash, KindStackExhausted, "recurse_frames"},
		{"clib/clib.wasm", "L", Hang, KindFuel, "spin"},
		{"goreactor/goreactor.wasm", "V", Valid, KindNone, ""},
		{"goreactor/goreactor.wasm", "X", Invalid, KindNone, ""},
		{"goreactor/goreactor.wasm", "Pboom", Crash, KindGoPanic, "main.panicWithMessage"},
		{"goreactor/goreactor.wasm", "I", Crash, KindGoPanic, "main.indexOutOfRange"},
		{"goreactor/goreactor.wasm", "M", Crash, KindGoPanic, "main.nilMapWrite"},
		{"goreactor/goreactor.wasm", "L", Hang, KindFuel, "main.loopForever"},
	}
	workers := map[string]*Worker{}
	for _, tc := range tests {
		if workers[tc.fixture] == nil {
			tg := loadInstrumented(t, tc.fixture, fullOpts, Config{Fuel: 1 << 24})
			if tg.backstop != 0 {
				t.Fatal("an instrumented module with fuel must not enable the backstop")
			}
			workers[tc.fixture] = worker(t, tg)
		}
	}
	for _, tc := range tests {
		t.Run(tc.fixture+"/"+tc.in, func(t *testing.T) {
			r := run(t, workers[tc.fixture], tc.in)
			if r.Outcome != tc.out {
				t.Fatalf("outcome: expected %v, got %v (%v)", tc.out, r.Outcome, r.Failure)
			}
			if nonzero(r.Counters) == 0 {
				t.Fatal("no counter was hit")
			}
			if tc.kind == KindNone {
				return
			}
			if r.Failure.Kind != tc.kind || r.Failure.Top() != tc.top {
				t.Fatalf("failure: expected %v at %q, got %v at %v", tc.kind, tc.top, r.Failure, r.Failure.Stack)
			}
		})
	}
}

func nonzero(b []byte) int {
	n := 0
	for _, c := range b {
		if c != 0 {
			n++
		}
	}
	return n
}

// TestRunFuel: a budget of its own per run, exact to the unit: the fuel a
// run used is enough for it again, one unit less is a fuel hang; zero or
// more than the target's budget is the target's.
func TestRunFuel(t *testing.T) {
	ctx := context.Background()
	const budget = 1 << 20
	w := worker(t, loadInstrumented(t, "clib/clib.wasm", fullOpts, Config{Fuel: budget}))
	if w.Fuel() != budget {
		t.Fatalf("Fuel: expected %d, got %d", budget, w.Fuel())
	}
	const in = "Pfuel"
	used := run(t, w, in).Fuel
	if used < 2 {
		t.Fatalf("%q used %d fuel, want a run that needs some", in, used)
	}
	for _, c := range []struct {
		fuel uint64
		in   string
		out  Outcome
		used uint64
	}{
		{used, in, Valid, used},
		{used - 1, in, Hang, used - 1},
		{0, in, Valid, used},
		{0, "L", Hang, budget},
		{budget / 2, "L", Hang, budget / 2},
		{budget * 2, "L", Hang, budget},
	} {
		r, err := w.RunFuel(ctx, []byte(c.in), c.fuel)
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != c.out || r.Fuel != c.used {
			t.Fatalf("RunFuel(%q, %d): expected %v using %d, got %v using %d (%v)", c.in, c.fuel, c.out, c.used, r.Outcome, r.Fuel, r.Failure)
		}
		if want := fmt.Sprintf("(budget %d)", c.used); r.Outcome == Hang && (r.Failure.Kind != KindFuel || !strings.Contains(r.Failure.Message, want)) {
			t.Fatalf("RunFuel(%q, %d): expected a fuel hang saying %s, got %v", c.in, c.fuel, want, r.Failure)
		}
	}
}
