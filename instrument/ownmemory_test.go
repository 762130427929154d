package instrument

import (
	"bytes"
	"context"
	"os"
	"slices"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// TestOwnMemory: a module that imports its memory gets one of its own,
// with the same limits and sharing, that its code and data segments use
// as before; modules that define their memory are left alone.
func TestOwnMemory(t *testing.T) {
	void := uint32(0)
	m := &Module{
		Types:   []FuncType{{Results: []ValType{TI32}}},
		Imports: []Import{{Module: "env", Name: "f", Kind: ExternFunc, Index: void}, {Module: "env", Name: "memory", Kind: ExternMemory, Memory: Limits{Flags: 3, Min: 2, Max: 5}}},
		Funcs:   []uint32{void},
		Code: []Code{{Body: Expr{Instrs: []Instr{
			{Op: OpI32Const, A: 100}, {Op: OpI32Load, B: 2}, {Op: OpMemorySize}, {Op: OpI32Add}, {Op: OpEnd},
		}}}},
		Exports: []Export{{Name: "get", Kind: ExternFunc, Index: 1}, {Name: "memory", Kind: ExternMemory, Index: 0}},
		Data:    []Data{activeData(100, "\x07\x00\x00\x00")},
	}
	out, changed, err := OwnMemory(m.Encode())
	if err != nil || !changed {
		t.Fatalf("changed %v, err %v", changed, err)
	}
	got, err := Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Memories) != 1 || got.Memories[0] != (Limits{Flags: 3, Min: 2, Max: 5}) || got.NumImported(ExternMemory) != 0 || len(got.Imports) != 1 {
		t.Fatalf("memories %+v, imports %+v", got.Memories, got.Imports)
	}
	// A real module: every section but import and memory keeps its bytes
	// (the code section's DWARF offsets stay valid).
	wasm, err := os.ReadFile("../testdata/clib/importmem.wasm")
	if err != nil {
		t.Fatal(err)
	}
	owned, changed, err := OwnMemory(wasm)
	if err != nil || !changed {
		t.Fatalf("importmem.wasm: changed %v, err %v", changed, err)
	}
	if a, b := sectionsBut(t, wasm, SectionImport, SectionMemory), sectionsBut(t, owned, SectionImport, SectionMemory); !slices.EqualFunc(a, b, bytes.Equal) {
		t.Fatal("importmem.wasm: sections other than import and memory changed")
	}
	// It runs: the function import is the only one left.
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter().WithCoreFeatures(api.CoreFeaturesV2|experimental.CoreFeaturesThreads))
	defer r.Close(ctx)
	if _, err := r.NewHostModuleBuilder("env").NewFunctionBuilder().WithFunc(func() int32 { return 0 }).Export("f").Instantiate(ctx); err != nil {
		t.Fatal(err)
	}
	mod, err := r.Instantiate(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := mod.ExportedFunction("get").Call(ctx); err != nil || res[0] != 7+2 {
		t.Fatalf("get() = %v, %v; want the data segment's 7 plus 2 pages", res, err)
	}
	if again, changed, _ := OwnMemory(out); changed || len(again) != len(out) {
		t.Error("a module that defines its memory was changed")
	}
}

// FuzzOwnMemory: any bytes give an error or a module that decodes and
// defines every memory it has.
func FuzzOwnMemory(f *testing.F) {
	f.Add(memWasm)
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x02\x0f\x01\x03env\x06memory\x02\x00\x01"))
	f.Fuzz(func(t *testing.T, wasm []byte) {
		out, changed, err := OwnMemory(wasm)
		if err != nil || !changed {
			return
		}
		m, err := Decode(out)
		if err != nil {
			t.Fatalf("output does not decode: %v", err)
		}
		if m.NumImported(ExternMemory) != 0 || len(m.Memories) != 1 {
			t.Fatalf("memories: %d imported, %d defined", m.NumImported(ExternMemory), len(m.Memories))
		}
	})
}

// FuzzExports: ExportFunction and ExportStackPointer (withSections) never
// panic, and what they add decodes, with the export, and leaves every
// other section's bytes as they were.
func FuzzExports(f *testing.F) {
	for _, p := range []string{"../testdata/clib/nomalloc.wasm", "../testdata/stack/first.wasm"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add(memWasm)
	f.Fuzz(func(t *testing.T, wasm []byte) {
		check := func(what string, out []byte, name string) {
			m, err := Decode(out)
			if err != nil {
				t.Fatalf("%s: output does not decode: %v", what, err)
			}
			if !slices.ContainsFunc(m.Exports, func(e Export) bool { return e.Name == name }) {
				t.Fatalf("%s: no export %q", what, name)
			}
			if a, b := sectionsBut(t, wasm, SectionExport), sectionsBut(t, out, SectionExport); !slices.EqualFunc(a, b, bytes.Equal) {
				t.Fatalf("%s: sections other than export changed", what)
			}
		}
		if out, added, err := ExportFunction(wasm, "malloc"); err == nil && added {
			check("ExportFunction", out, "malloc")
		}
		if out, l, err := ExportStackPointer(wasm); err == nil && l.StackPointerExport != "" {
			check("ExportStackPointer", out, l.StackPointerExport)
		}
	})
}
