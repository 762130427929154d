package instrument

import (
	"errors"
	"testing"
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
		{"dirty map pages", []Limits{{Flags: 1, Min: 2, Max: 10}}, false, Options{DirtyPages: true}, Limits{Flags: 1, Min: 19, Max: 27}, ""},
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
