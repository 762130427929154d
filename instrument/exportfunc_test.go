package instrument

import (
	"bytes"
	"os"
	"slices"
	"testing"
)

// TestExportFunction: the allocator of a C target built without
// --export=malloc gets an export to the function its name section calls
// malloc, and nothing else changes; a name already exported or not in the
// name section leaves the module as it is.
func TestExportFunction(t *testing.T) {
	wasm, err := os.ReadFile("../testdata/clib/nomalloc.wasm")
	if err != nil {
		t.Fatal(err)
	}
	out, added, err := ExportFunction(wasm, "malloc")
	if err != nil || !added {
		t.Fatalf("expected an added export, got %v, %v", added, err)
	}
	before, err := Decode(wasm)
	if err != nil {
		t.Fatal(err)
	}
	after, err := Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Exports) != len(before.Exports)+1 {
		t.Fatalf("expected %d exports, got %d", len(before.Exports)+1, len(after.Exports))
	}
	e := after.Exports[len(after.Exports)-1]
	if names := funcNames(after); e.Name != "malloc" || e.Kind != ExternFunc || names[e.Index] != "malloc" {
		t.Fatalf("expected export malloc of function malloc, got %+v (function %q)", e, names[e.Index])
	}
	// Every other section keeps its bytes (the code section's DWARF
	// offsets stay valid).
	if a, b := sectionsBut(t, wasm, SectionExport), sectionsBut(t, out, SectionExport); !slices.EqualFunc(a, b, bytes.Equal) {
		t.Fatal("the output differs from the input beyond the export section")
	}
	// A module without an export section gets one, in its place.
	before.Exports = nil
	bare := before.Encode()
	out, added, err = ExportFunction(bare, "malloc")
	if err != nil || !added {
		t.Fatalf("no export section: expected an added export, got %v, %v", added, err)
	}
	if m, err := Decode(out); err != nil || len(m.Exports) != 1 || m.Exports[0].Name != "malloc" {
		t.Fatalf("no export section: expected one export, malloc, got %v", err)
	}
	if a, b := sectionsBut(t, bare, SectionExport), sectionsBut(t, out, SectionExport); !slices.EqualFunc(a, b, bytes.Equal) {
		t.Fatal("no export section: the output differs from the input beyond the export section")
	}
	for _, name := range []string{"LLVMFuzzerTestOneInput", "no_such_function"} {
		got, added, err := ExportFunction(wasm, name)
		if err != nil || added || !bytes.Equal(got, wasm) {
			t.Fatalf("%s: expected the module unchanged, got added=%v, %v", name, added, err)
		}
	}
	if _, _, err := ExportFunction(wasm[:20], "malloc"); err == nil {
		t.Fatal("truncated module: expected an error")
	}
}

// sectionsBut returns wasm's sections (id, size and payload bytes), in
// order, without those whose id is in skip.
func sectionsBut(t *testing.T, wasm []byte, skip ...byte) [][]byte {
	t.Helper()
	var out [][]byte
	end := 8
	for r := range rawSections(wasm) {
		if !slices.Contains(skip, r.id) {
			out = append(out, wasm[r.start:r.end])
		}
		end = r.end
	}
	if end != len(wasm) {
		t.Fatalf("malformed section at %d", end)
	}
	return out
}
