package instrument

import (
	_ "embed"
	"strings"
	"testing"
)

// testdata/dw.c built by testdata/build.sh (clang-14 -g -O0).
//
//go:embed testdata/dw.wasm
var dwWasm []byte

func TestDWARFLines(t *testing.T) {
	_, sm, err := Instrument(dwWasm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sm.Lines) != len(sm.Sites) || len(sm.Files) == 0 {
		t.Fatalf("no DWARF lines: files %v, %d lines for %d sites", sm.Files, len(sm.Lines), len(sm.Sites))
	}
	var f *Func
	for i := range sm.Funcs {
		if sm.Funcs[i].Name == "classify" {
			f = &sm.Funcs[i]
		}
	}
	if f == nil || !strings.HasSuffix(f.File, "dw.c") || f.Line != 2 {
		t.Errorf("classify: %+v, want dw.c:2", f)
	}
	found := false
	for id, s := range sm.Sites {
		if s.Kind == BrIfTaken {
			found = true
			d := sm.Describe(id)
			if !strings.Contains(d, "dw.c:4 br_if-taken") {
				t.Errorf("Describe(%d) = %q, want dw.c:4 br_if-taken", id, d)
			}
		}
	}
	if !found {
		t.Errorf("no br_if site in %+v", sm.Sites)
	}
}
