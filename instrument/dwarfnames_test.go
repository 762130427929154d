package instrument

import (
	"errors"
	"os"
	"testing"
)

// withoutCustom returns wasm without its custom sections called name, the
// other sections' bytes unchanged (what wasm-opt's linking leaves of a
// module built with -g: DWARF, no name section).
func withoutCustom(wasm []byte, name string) []byte {
	out := append([]byte(nil), wasm[:8]...)
	for r := range rawSections(wasm) {
		if r.name(wasm) != name {
			out = append(out, wasm[r.start:r.end]...)
		}
	}
	return out
}

// TestDWARFNames: without a name section, functions get the names of
// their DWARF subprograms (for stacks, Skip patterns and the memcmp
// hooks), and the same names as with it wherever DWARF has one.
func TestDWARFNames(t *testing.T) {
	wasm, err := os.ReadFile("../testdata/clib/clib.wasm")
	if err != nil {
		t.Fatal(err)
	}
	_, with, err := Instrument(wasm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	stripped := withoutCustom(wasm, "name")
	if len(stripped) == len(wasm) {
		t.Fatal("clib.wasm has no name section to strip")
	}
	_, without, err := Instrument(stripped, Options{})
	if err != nil {
		t.Fatal(err)
	}
	same := 0
	for i, f := range without.Funcs {
		if f.Name == with.Funcs[i].Name {
			same++
		}
	}
	named := func(sm *SiteMap, name string) bool {
		for _, f := range sm.Funcs {
			if f.Name == name {
				return true
			}
		}
		return false
	}
	for _, name := range []string{"divide_by_zero", "LLVMFuzzerTestOneInput", "abort"} {
		if !named(without, name) {
			t.Errorf("expected a function named %s from DWARF", name)
		}
	}
	t.Logf("%d of %d functions named as with the name section", same, len(with.Funcs))
	if 2*same < len(with.Funcs) {
		t.Errorf("expected most functions named as with the name section, got %d of %d", same, len(with.Funcs))
	}
}

// TestInstrumentTwice: a module Instrument wrote is refused, with an
// error that says so, not instrumented again.
func TestInstrumentTwice(t *testing.T) {
	out, _, err := Instrument(branchesWasm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !IsInstrumented(out) || IsInstrumented(branchesWasm) {
		t.Fatal("IsInstrumented: expected true for the output only")
	}
	if _, _, err := Instrument(out, Options{Fuel: true}); !errors.Is(err, ErrInstrumented) {
		t.Fatalf("expected ErrInstrumented, got %v", err)
	}
}
