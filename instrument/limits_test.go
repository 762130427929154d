package instrument

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// memModule builds a module with the given memories and memory imports
// through the Module API (exercising Encode on a hand-built module).
func memModule(mems []Limits, imported bool) []byte {
	m := &Module{
		Types:    []FuncType{{}},
		Funcs:    []uint32{0},
		Memories: mems,
		Code:     []Code{{Body: Expr{Instrs: []Instr{{Op: OpEnd}}}}},
	}
	if imported {
		m.Imports = []Import{{Module: "env", Name: "mem", Kind: ExternMemory, Memory: Limits{Min: 1}}}
	}
	return m.Encode()
}

func TestMemoryLimits(t *testing.T) {
	tests := []struct {
		name     string
		mems     []Limits
		imported bool
		opts     Options
		want     Limits
		err      string
	}{
		{"no memory gets reserved pages", nil, false, Options{}, Limits{Min: 1}, ""},
		{"min grows", []Limits{{Min: 2}}, false, Options{}, Limits{Min: 3}, ""},
		{"max grows", []Limits{{Flags: 1, Min: 2, Max: 10}}, false, Options{}, Limits{Flags: 1, Min: 3, Max: 11}, ""},
		{"max capped", []Limits{{Flags: 1, Min: 2, Max: 65536}}, false, Options{}, Limits{Flags: 1, Min: 3, Max: 65536}, ""},
		{"dirty map pages", []Limits{{Flags: 1, Min: 2, Max: 10}}, false, Options{DirtyPages: true}, Limits{Flags: 1, Min: 3 + dirtyMapBytes>>16, Max: 11 + dirtyMapBytes>>16}, ""},
		{"shared", []Limits{{Flags: 3, Min: 1, Max: 2}}, false, Options{}, Limits{Flags: 3, Min: 2, Max: 3}, ""},
		{"min too big", []Limits{{Min: 65536}}, false, Options{}, Limits{},
			"instrument: memory minimum of 65536 pages leaves no room for 1 reserved pages: unsupported"},
		{"imported memory", nil, true, Options{}, Limits{},
			"instrument: module imports its memory: unsupported (wafer must own the memory to reserve its low pages)"},
		{"two memories", []Limits{{Min: 1}, {Min: 1}}, false, Options{}, Limits{},
			"instrument: module has 2 memories: unsupported (multiple memories)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, sm, err := Instrument(memModule(tc.mems, tc.imported), tc.opts)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err || !errors.Is(err, ErrUnsupported) {
					t.Fatalf("err = %v, want %q wrapping ErrUnsupported", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m, err := Decode(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Memories) != 1 || m.Memories[0] != tc.want {
				t.Errorf("memories %+v, want %+v", m.Memories, tc.want)
			}
			var exported bool
			for _, e := range m.Exports {
				exported = exported || (e.Name == MemoryExport && e.Kind == ExternMemory && e.Index == 0)
			}
			if !exported {
				t.Errorf("memory not exported as %s: %+v", MemoryExport, m.Exports)
			}
			if sm.Layout.Counters != 1 || sm.Sites[0].Kind != FuncEntry {
				t.Errorf("sites %+v", sm.Sites)
			}
		})
	}
}

func TestDataSegmentShift(t *testing.T) {
	m := &Module{
		Imports:  []Import{{Module: "env", Name: "base", Kind: ExternGlobal, Global: GlobalType{Type: TI32}}},
		Memories: []Limits{{Min: 1}},
		Data: []Data{
			{Offset: Expr{Instrs: []Instr{{Op: OpI32Const, A: 16}, {Op: OpEnd}}}, Init: []byte("abc")},
			{Offset: Expr{Instrs: []Instr{{Op: OpI32Const, A: 0xfffffffffffffffe}, {Op: OpEnd}}}, Init: []byte("x")},
			{Offset: Expr{Instrs: []Instr{{Op: OpGlobalGet, A: 0}, {Op: OpEnd}}}, Init: []byte("y")},
			{Flags: 1, Init: []byte("passive")},
		},
	}
	out, sm, err := Instrument(m.Encode(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	rb := int64(sm.Layout.ReservedBytes())
	d, err := Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	got := func(i int) []Instr {
		ins := d.Data[i].Offset.Instrs
		for j := range ins {
			ins[j].Off = 0
		}
		return ins
	}
	if g := got(0); len(g) != 2 || int32(g[0].A) != int32(16+rb) {
		t.Errorf("segment 0 offset %+v, want i32.const %d", g, 16+rb)
	}
	// 0xfffffffe + rb does not fit: saturates (stays out of bounds)
	if g := got(1); len(g) != 2 || uint32(g[0].A) != 0xffffffff {
		t.Errorf("segment 1 offset %+v, want i32.const 0xffffffff", g)
	}
	if g := got(2); len(g) != 4 || g[0].Op != OpGlobalGet || g[1].Op != OpI32Const || int32(g[1].A) != int32(rb) || g[2].Op != OpI32Add {
		t.Errorf("segment 2 offset %+v, want global.get 0; i32.const %d; i32.add", g, rb)
	}
	if len(d.Data[3].Offset.Instrs) != 0 {
		t.Errorf("passive segment got an offset")
	}
}

// TestHugeLocals: a function may declare 2^32-1 locals in a few bytes;
// Instrument refuses it (ErrUnsupported) instead of sizing its analyses
// by it, which ended the process out of memory.
func TestHugeLocals(t *testing.T) {
	wasm := []byte{0, 'a', 's', 'm', 1, 0, 0, 0,
		1, 4, 1, 0x60, 0, 0, // type () -> ()
		3, 2, 1, 0, // one function
		10, 10, 1, 8, 1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x7f, 0x0b} // 2^32-1 i32 locals, end
	if _, err := Decode(wasm); err != nil {
		t.Fatalf("decode: %v", err)
	}
	_, _, err := Instrument(wasm, Options{DirtyPages: true, Fuel: true})
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "4294967295 locals") {
		t.Fatalf("expected ErrUnsupported naming the locals, got %v", err)
	}
}

// TestDataOffsetSaturates: an active data segment whose offset is an
// extended-const expression moves up by the reserved bytes like an
// i32.const one: in bounds it lands at its target address, out of bounds
// near 2^32 it stays out of bounds (a wrapped sum wrote it into the
// reserved pages and the instantiation trap was lost).
func TestDataOffsetSaturates(t *testing.T) {
	module := func(a, b int64) []byte {
		m := &Module{
			Types:    []FuncType{{}},
			Funcs:    []uint32{0},
			Memories: []Limits{{Min: 1}},
			Exports:  []Export{{Name: "mem", Kind: ExternMemory}},
			Code:     []Code{{Body: Expr{Instrs: []Instr{{Op: OpEnd}}}}},
			Data: []Data{{Offset: Expr{Instrs: []Instr{
				{Op: OpI32Const, A: uint64(a)}, {Op: OpI32Const, A: uint64(b)}, {Op: OpI32Add}, {Op: OpEnd},
			}}, Init: []byte{0xab}}},
		}
		return m.Encode()
	}
	ctx := context.Background()
	instantiate := func(wasm []byte) (api.Module, error) {
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCoreFeatures(api.CoreFeaturesV2|experimental.CoreFeaturesExtendedConst))
		t.Cleanup(func() { rt.Close(ctx) })
		return rt.Instantiate(ctx, wasm)
	}
	for _, tc := range []struct {
		name string
		a, b int64
		at   uint32 // target address of the byte; 0: out of bounds
	}{
		{"in bounds", 16, 4, 20},
		{"wraps to in bounds before the shift", -16, 36, 20},
		{"out of bounds near 2^32", -16, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig := module(tc.a, tc.b)
			om, oerr := instantiate(orig)
			out, sm, err := Instrument(orig, Options{})
			if err != nil {
				t.Fatal(err)
			}
			im, ierr := instantiate(out)
			if (oerr == nil) != (ierr == nil) {
				t.Fatalf("original instantiation: %v, instrumented: %v", oerr, ierr)
			}
			if tc.at == 0 {
				if oerr == nil {
					t.Fatal("expected the original to fail to instantiate")
				}
				return
			}
			want, _ := om.ExportedMemory("mem").ReadByte(tc.at)
			got, _ := im.ExportedMemory(MemoryExport).ReadByte(uint32(sm.Layout.ReservedBytes()) + tc.at)
			if want != 0xab || got != 0xab {
				t.Fatalf("byte at target address %d: original %#x, instrumented %#x", tc.at, want, got)
			}
		})
	}
}
