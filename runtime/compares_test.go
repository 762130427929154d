package runtime

import (
	"fmt"
	"slices"
	"testing"
)

// TestComparisons runs clib built with comparison logging: heap_check's
// memcmp(before, data, n) logs the input against its copy, and each run
// starts with an empty log.
func TestComparisons(t *testing.T) {
	opts := fullOpts
	opts.Compares = true
	for _, reset := range []Reset{Restore, Fresh} {
		t.Run(reset.String(), func(t *testing.T) {
			tg := loadInstrumented(t, "clib/clib.wasm", opts, Config{Reset: reset})
			w := worker(t, tg)
			mems := func() []string {
				var out []string
				for c := range w.Comparisons() {
					if c.Size == 0 {
						out = append(out, fmt.Sprintf("%q=%q", c.MemA, c.MemB))
					}
				}
				return out
			}
			for range 2 {
				if r := run(t, w, "Habc"); r.Outcome != Valid {
					t.Fatalf("Habc: %v", r.Outcome)
				}
				if got := mems(); len(got) != 1 || got[0] != `"Habc"="Habc"` {
					t.Errorf("after Habc: memory comparisons %q, want one of Habc with its copy", got)
				}
				run(t, w, "V")
				if got := mems(); len(got) != 0 {
					t.Errorf("after V: memory comparisons %q, want none (the log is cleared before a run)", got)
				}
			}
		})
	}
	// Without the option, nothing.
	w := worker(t, loadInstrumented(t, "clib/clib.wasm", fullOpts, Config{}))
	run(t, w, "Habc")
	for c := range w.Comparisons() {
		t.Fatalf("comparison %+v logged without instrument.Options.Compares", c)
	}
}

// TestComparisonsCommand: a command target's log is read after its
// instance is closed, and is a function of the input.
func TestComparisonsCommand(t *testing.T) {
	opts := fullOpts
	opts.Compares = true
	opts.DirtyPages = false
	w := worker(t, loadInstrumented(t, "gocmd/gocmd.wasm", opts, Config{}))
	logs := make([][]string, 2)
	for i := range logs {
		run(t, w, "hello")
		last, entries := -1, 0
		for c := range w.Comparisons() {
			logs[i] = append(logs[i], fmt.Sprintf("%d %d %x %x %q %q", c.Entry, c.Size, c.A, c.B, c.MemA, c.MemB))
			if c.Entry < last {
				t.Fatalf("entry %d yielded after entry %d: entries come in log order", c.Entry, last)
			}
			if c.Entry > last {
				entries++
			}
			last = c.Entry
		}
		if entries < 2 {
			t.Errorf("every pair has entry %d: each comparison has its own", last)
		}
	}
	if len(logs[0]) == 0 {
		t.Fatal("nothing logged")
	}
	if !slices.Equal(logs[0], logs[1]) {
		t.Errorf("two runs of one input logged %d and %d comparisons, not the same", len(logs[0]), len(logs[1]))
	}
}
