package runtime

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// TestHeapReserve: testdata/heap sets nothing up on the empty input and
// allocates 256 KiB on every other run ("B": 4 MiB). With the default heap
// reserve a restore-mode worker keeps its instance across runs; without
// it every run grows memory, so the next one needs a new instance. A run
// that allocates more than the reserve still grows memory. Outcomes are
// the same with and without the reserve; counters are the same in restore
// and fresh mode (both make the reserve; without it malloc's growth path
// runs too).
func TestHeapReserve(t *testing.T) {
	inputs := []string{"A1", "xyz", "B", "A1", "q"}
	type runs struct {
		outs     []Outcome
		counters [][]byte
		renewed  []bool // the run had a new instance (the previous one grew)
	}
	do := func(cfg Config) runs {
		w := worker(t, loadInstrumented(t, "heap/heap.wasm", fullOpts, cfg))
		var r runs
		for _, in := range inputs {
			mod := w.mod
			res := run(t, w, in)
			r.outs = append(r.outs, res.Outcome)
			r.counters = append(r.counters, bytes.Clone(res.Counters))
			r.renewed = append(r.renewed, w.mod != mod)
		}
		return r
	}
	with := do(Config{})
	without := do(Config{HeapReserve: -1})
	fresh := do(Config{Reset: Fresh})
	if want := []bool{false, false, false, true, false}; !equalBools(with.renewed, want) {
		t.Errorf("with the reserve: expected new instances %v, got %v", want, with.renewed)
	}
	if want := []bool{false, true, true, true, true}; !equalBools(without.renewed, want) {
		t.Errorf("without the reserve: expected new instances %v, got %v", want, without.renewed)
	}
	for i, in := range inputs {
		if without.outs[i] != with.outs[i] || fresh.outs[i] != with.outs[i] {
			t.Errorf("input %q: outcome %v with the reserve, %v without, %v in fresh mode", in, with.outs[i], without.outs[i], fresh.outs[i])
		}
		if !bytes.Equal(fresh.counters[i], with.counters[i]) {
			t.Errorf("input %q: counters differ between restore and fresh mode:\n%x\n%x", in, with.counters[i], fresh.counters[i])
		}
	}
}

// TestHeapReserveFallback: testdata/heap/badfree.wasm's free traps, so the
// reserve fails at start-up; the worker starts without it and the target
// behaves as built (its free traps in runs too: a crash in free, whose
// body the heap guard moved to free.unguarded).
func TestHeapReserveFallback(t *testing.T) {
	w := worker(t, loadInstrumented(t, "heap/badfree.wasm", fullOpts, Config{}))
	if !w.reserveFailed {
		t.Fatal("expected the heap reserve to fail and be dropped")
	}
	res := run(t, w, "A1")
	if res.Outcome != Crash || res.Failure == nil || res.Failure.Kind != KindUnreachable || len(res.Failure.Stack) < 2 || res.Failure.Stack[0].Func != "free.unguarded" || res.Failure.Stack[1].Func != "free" {
		t.Fatalf("expected a crash in free (unreachable), got %v %+v", res.Outcome, res.Failure)
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestReproLinesAfterExport: badfree.wasm exports malloc but not free,
// which wafer exports for the heap reserve; the plain module's stack still
// gets its lines from the module's own DWARF, so the export must leave
// the code section's bytes (and DWARF's offsets into it) as they were.
func TestReproLinesAfterExport(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(in, []byte("A1"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Repro(context.Background(), filepath.Join("..", "testdata", "heap", "badfree.wasm"), in, testConfig(t, Config{}))
	if err != nil {
		t.Fatal(err)
	}
	want := []Frame{{Func: "free", File: "testdata/heap/heap.c", Line: 30}, {Func: "LLVMFuzzerTestOneInput", File: "testdata/heap/heap.c", Line: 45}}
	if res.Failure == nil || len(res.Failure.Stack) < 2 || res.Failure.Stack[0] != want[0] || res.Failure.Stack[1] != want[1] {
		t.Fatalf("expected the stack to start %v, got %+v", want, res.Failure)
	}
	// The same for the memory wafer defines in place of an imported one
	// (instrument.OwnMemory): clib/importmem.wasm is clib.wasm linked with
	// --import-memory.
	var stacks [2][]Frame
	for i, fx := range []string{"clib/clib.wasm", "clib/importmem.wasm"} {
		wasm, _, err := instrument.OwnMemory(fixture(t, fx))
		if err != nil {
			t.Fatal(err)
		}
		tg, err := New(context.Background(), &instrument.Prepared{Wasm: wasm}, testConfig(t, Config{Reset: Fresh}))
		if err != nil {
			t.Fatal(err)
		}
		defer tg.Close(context.Background())
		res := run(t, worker(t, tg), "D")
		if res.Failure == nil {
			t.Fatalf("%s: expected a crash, got %v", fx, res.Outcome)
		}
		stacks[i] = res.Failure.Stack
	}
	if !slices.Equal(stacks[0], stacks[1]) || len(stacks[0]) < 2 || stacks[0][1].Line == 0 {
		t.Fatalf("expected the same stack with lines, got %v and %v", stacks[0], stacks[1])
	}
}

// TestOutOfMemoryStack: a memory.grow past the cap ends the run where it
// is, so the out-of-memory crash has the stack of the allocation (malloc,
// called from the harness); the next run gets a new instance and works.
func TestOutOfMemoryStack(t *testing.T) {
	for _, interp := range []bool{false, true} {
		w := worker(t, loadInstrumented(t, "heap/heap.wasm", fullOpts, Config{MaxMemoryPages: 48, Interpreter: interp}))
		res := run(t, w, "B")
		f := res.Failure
		if res.Outcome != Crash || f == nil || f.Kind != KindOutOfMemory {
			t.Fatalf("interpreter %v: expected an out-of-memory crash, got %v %+v", interp, res.Outcome, f)
		}
		at := slices.IndexFunc(f.Stack, func(fr Frame) bool { return fr.Func == "malloc" })
		if at < 0 || at+1 >= len(f.Stack) || f.Stack[at+1].Func != "LLVMFuzzerTestOneInput" {
			t.Fatalf("interpreter %v: expected a stack through malloc from LLVMFuzzerTestOneInput, got %v", interp, f.Stack)
		}
		if res := run(t, w, "A1"); res.Outcome != Valid {
			t.Fatalf("interpreter %v: the run after: expected valid, got %v %v", interp, res.Outcome, res.Failure)
		}
	}
}

// TestInputBufferPastCap: an input buffer that does not fit the memory cap
// is a start-up error that says so.
func TestInputBufferPastCap(t *testing.T) {
	tg := loadInstrumented(t, "heap/heap.wasm", fullOpts, Config{MaxMemoryPages: 4, MaxInputLen: 1 << 20})
	_, err := tg.NewWorker(context.Background())
	if err == nil || !strings.Contains(err.Error(), "malloc(1048576) for wafer's buffers needs more memory than the cap of 4 pages allows") {
		t.Fatalf("expected a start-up error about the cap, got %v", err)
	}
}
