package instrument

import (
	"reflect"
	"testing"
)

// commandModule is what wasm-ld makes of a libFuzzer-style target linked
// as a command: function 0 the constructors, 1 and 4 the harness and the
// allocator, 2 and 5 their wrappers, 3 the destructors. names, when not
// nil, become the name section.
func commandModule(names map[uint32]string) []byte {
	void, test, alloc := uint32(0), uint32(1), uint32(2)
	m := &Module{
		Types: []FuncType{{}, {Params: []ValType{TI32, TI32}, Results: []ValType{TI32}}, {Params: []ValType{TI32}, Results: []ValType{TI32}}},
		Funcs: []uint32{void, test, test, void, alloc, alloc},
		Code: []Code{
			{Body: Expr{Instrs: []Instr{{Op: OpEnd}}}},
			{Body: Expr{Instrs: []Instr{{Op: OpLocalGet, A: 1}, {Op: OpEnd}}}},
			{Body: Expr{Instrs: []Instr{{Op: OpCall, A: 0}, {Op: OpLocalGet, A: 0}, {Op: OpLocalGet, A: 1}, {Op: OpCall, A: 1}, {Op: OpCall, A: 3}, {Op: OpEnd}}}},
			{Body: Expr{Instrs: []Instr{{Op: OpEnd}}}},
			{Body: Expr{Instrs: []Instr{{Op: OpLocalGet, A: 0}, {Op: OpEnd}}}},
			{Body: Expr{Instrs: []Instr{{Op: OpCall, A: 0}, {Op: OpLocalGet, A: 0}, {Op: OpCall, A: 4}, {Op: OpCall, A: 3}, {Op: OpEnd}}}},
		},
		Exports: []Export{{Name: "LLVMFuzzerTestOneInput", Kind: ExternFunc, Index: 2}, {Name: "malloc", Kind: ExternFunc, Index: 5}},
	}
	if names != nil {
		var fn []byte
		fn = append(fn, byte(len(names)))
		for i := range uint32(6) {
			if n, ok := names[i]; ok {
				fn = append(fn, byte(i), byte(len(n)))
				fn = append(fn, n...)
			}
		}
		payload := append([]byte{4}, "name"...)
		payload = append(payload, 1, byte(len(fn)))
		payload = append(payload, fn...)
		m.Customs = []Custom{{Name: "name", Payload: payload, After: SectionData}}
	}
	return m.Encode()
}

func exportsOf(t *testing.T, wasm []byte) map[string]uint32 {
	t.Helper()
	m, err := Decode(wasm)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]uint32{}
	for _, e := range m.Exports {
		out[e.Name] = e.Index
	}
	return out
}

func TestUnwrapCommandExports(t *testing.T) {
	wrapped := map[string]uint32{"LLVMFuzzerTestOneInput": 2, "malloc": 5}
	unwrapped := map[string]uint32{"LLVMFuzzerTestOneInput": 1, "malloc": 4, "_initialize": 0}
	for _, tc := range []struct {
		name  string
		wasm  []byte
		want  map[string]uint32
		moved []string
	}{
		{"two wrappers, no names", commandModule(nil), unwrapped, []string{"LLVMFuzzerTestOneInput", "malloc"}},
		{"named constructors", commandModule(map[uint32]string{0: "__wasm_call_ctors"}), unwrapped, []string{"LLVMFuzzerTestOneInput", "malloc"}},
		{"named wrappers", commandModule(map[uint32]string{1: "f", 2: "f.command_export"}), unwrapped, []string{"LLVMFuzzerTestOneInput", "malloc"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, moved, err := UnwrapCommandExports(tc.wasm, "_initialize")
			if err != nil {
				t.Fatal(err)
			}
			if got := exportsOf(t, out); !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(moved, tc.moved) {
				t.Errorf("exports %v (moved %v), want %v (%v)", got, moved, tc.want, tc.moved)
			}
		})
	}
	// One unnamed wrapper is also the shape of a harness that resets its
	// state and calls its parser: left alone.
	m, _ := Decode(commandModule(nil))
	m.Exports = m.Exports[:1]
	one := m.Encode()
	out, moved, err := UnwrapCommandExports(one, "_initialize")
	if err != nil || moved != nil || !reflect.DeepEqual(exportsOf(t, out), map[string]uint32{"LLVMFuzzerTestOneInput": 2}) {
		t.Errorf("a lone unnamed wrapper: exports %v, moved %v, err %v", exportsOf(t, out), moved, err)
	}
	// Different constructors: not wasm-ld's.
	m, _ = Decode(commandModule(nil))
	m.Code[5].Body.Instrs[0].A = 3
	out, moved, _ = UnwrapCommandExports(m.Encode(), "_initialize")
	if moved != nil || !reflect.DeepEqual(exportsOf(t, out), wrapped) {
		t.Errorf("different constructors: exports %v, moved %v", exportsOf(t, out), moved)
	}
	// A module that already exports the init name keeps its own.
	m, _ = Decode(commandModule(nil))
	m.Exports = append(m.Exports, Export{Name: "_initialize", Kind: ExternFunc, Index: 3})
	out, _, _ = UnwrapCommandExports(m.Encode(), "_initialize")
	if got := exportsOf(t, out)["_initialize"]; got != 3 {
		t.Errorf("_initialize re-pointed to %d, want the module's own 3", got)
	}
	if _, _, err := UnwrapCommandExports([]byte("\x00asm\x01\x00\x00\x00\x01"), "_initialize"); err == nil {
		t.Error("a truncated module: no error")
	}
}

// FuzzUnwrapCommandExports: any bytes give an error or a module that
// decodes, and unwrapping twice changes nothing more.
func FuzzUnwrapCommandExports(f *testing.F) {
	f.Add(commandModule(nil))
	f.Add(commandModule(map[uint32]string{0: "__wasm_call_ctors"}))
	f.Add(memWasm)
	f.Fuzz(func(t *testing.T, wasm []byte) {
		out, moved, err := UnwrapCommandExports(wasm, "_initialize")
		if err != nil {
			return
		}
		if _, err := Decode(out); err != nil {
			t.Fatalf("output does not decode: %v", err)
		}
		if _, again, err := UnwrapCommandExports(out, "_initialize"); err != nil || len(moved) > 0 && len(again) > 0 {
			t.Fatalf("second pass moved %q (first %q), err %v", again, moved, err)
		}
	})
}
