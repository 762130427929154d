package runtime

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestDWARFNames: clib/nonames.wasm is clib.wasm without its name section
// (DWARF kept, as wasm-opt leaves a -g build). Its functions are named
// from DWARF, instrumented and plain, so stacks read as with the name
// section and an abort is still told apart by its frame.
func TestDWARFNames(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		in   string
		kind Kind
		top  string
	}{{"A", KindAbort, "abort"}, {"D", KindDivideByZero, "divide_by_zero"}}
	w := worker(t, loadInstrumented(t, "clib/nonames.wasm", fullOpts, Config{}))
	for _, tc := range tests {
		p := filepath.Join(dir, tc.in)
		if err := os.WriteFile(p, []byte(tc.in), 0o644); err != nil {
			t.Fatal(err)
		}
		plain, err := Repro(context.Background(), filepath.Join("..", "testdata", "clib", "nonames.wasm"), p, testConfig(t, Config{}))
		if err != nil {
			t.Fatal(err)
		}
		for how, res := range map[string]Result{"instrumented": run(t, w, tc.in), "plain": plain} {
			f := res.Failure
			if f == nil || f.Kind != tc.kind || len(f.Stack) < 2 || f.Stack[0].Func != tc.top || f.Stack[1].Func != "LLVMFuzzerTestOneInput" {
				t.Errorf("%s %q: expected %v in %s from LLVMFuzzerTestOneInput, got %+v", how, tc.in, tc.kind, tc.top, f)
			}
		}
	}
}

// TestNoSourceLines: an uninstrumented module run without wazero's DWARF
// lines keeps its frames' names; with them, frames have file:line, also
// when the same module was compiled without them into the same
// compilation cache first (wazero's cache key does not tell the two
// apart: wafer repro lost its file:line once any earlier run had cached
// the module).
func TestNoSourceLines(t *testing.T) {
	cache := t.TempDir()
	for _, noLines := range []bool{true, false, true, false} {
		tg := load(t, "clib/clib.wasm", meta{}, Config{Reset: Fresh, NoSourceLines: noLines, CacheDir: cache})
		f := run(t, worker(t, tg), "D").Failure
		if f == nil || len(f.Stack) == 0 || f.Stack[0].Func != "divide_by_zero" || (f.Stack[0].File == "") != noLines {
			t.Errorf("NoSourceLines %v: expected divide_by_zero with a file:line %v, got %+v", noLines, !noLines, f)
		}
	}
}
