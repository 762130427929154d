package instrument

import (
	"bytes"
	"os"
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
	// Without the new export, the output encodes to the input.
	after.Exports = after.Exports[:len(after.Exports)-1]
	if !bytes.Equal(after.Encode(), before.Encode()) {
		t.Fatal("the output differs from the input beyond the export")
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
