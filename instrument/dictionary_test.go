package instrument

import (
	"reflect"
	"testing"
)

func activeData(offset uint32, init string) Data {
	return Data{Offset: Expr{Instrs: []Instr{{Op: OpI32Const, A: uint64(offset)}, {Op: OpEnd}}}, Init: []byte(init)}
}

// TestDictionaryCutsAtReferences: literals laid end to end (Rust, Go) are
// separate tokens where code refers to them; a C string (NUL-ended) is also
// kept whole and from each reference into it; unreferenced strings come
// last.
func TestDictionaryCutsAtReferences(t *testing.T) {
	data := []Data{
		// Rust-like: "r.rs", "no key" and "div" end to end, then binary
		// data.
		activeData(1000, "r.rsno keydiv\x01\x02"),
		// C-like: "foobar" and its tail "bar" share bytes; "lonely" is
		// never referenced.
		activeData(2000, "foobar\x00lonely\x00if\x00of\x00"),
		// C++ copies "while" as 4 bytes and then its last through a
		// pointer to it; the segment's end is its NUL.
		activeData(3000, "while"),
		// A passive segment has no address: read whole.
		{Flags: 1, Init: []byte("passive!")},
		// A segment past 4 GiB - 1 (it traps at instantiation): no
		// reference can point into it.
		activeData(0xfffffffe, "\x00\x00highest"),
	}
	// Unsorted, duplicated, one outside; "if" is referenced, "of" is not.
	refs := []uint32{2003, 1010, 1004, 2000, 1004, 5, 2014, 3000, 3004}
	got := dictionary(data, [][]byte{{1, 2, 3, 4}}, refs, nil, false)
	want := []string{
		"\x01\x02\x03\x04",
		"no key", "div", // "r.rs" is unreferenced: last
		"foo", "foobar", "bar", "if", // a referenced string may be 2 bytes
		"whil", "while",
		"r.rs", "lonely", "passive!", "highest",
	}
	var gotS []string
	for _, g := range got {
		gotS = append(gotS, string(g))
	}
	if !reflect.DeepEqual(gotS, want) {
		t.Errorf("dictionary %q,\nwant %q", gotS, want)
	}
}

// TestDictionaryGoRuntime: in a Go module, where the Go runtime refers
// cuts the literals laid end to end but starts no token, and strings
// nothing refers to (the runtime's type and function names) are left out.
func TestDictionaryGoRuntime(t *testing.T) {
	data := []Data{
		activeData(1000, "keyword:runtime: bad pointerslice\x01"),
		activeData(2000, "*atomic.Pointer[runtime.mspan]\x00"),
	}
	user, runtime := []uint32{1000, 1028}, []uint32{1008}
	for _, tc := range []struct {
		goModule bool
		want     []string
	}{
		{true, []string{"keyword:", "slice"}},
		{false, []string{"keyword:", "slice", "*atomic.Pointer[runtime.mspan]"}},
	} {
		var got []string
		for _, g := range dictionary(data, nil, user, runtime, tc.goModule) {
			got = append(got, string(g))
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Go module %v: dictionary %q, want %q", tc.goModule, got, tc.want)
		}
	}
}

// TestDictionaryReadsTargetAddresses: Instrument moves data segments up by
// the reserved bytes; the dictionary must match code's references against
// the addresses the target sees.
func TestDictionaryReadsTargetAddresses(t *testing.T) {
	m := &Module{
		Types:    []FuncType{{}},
		Funcs:    []uint32{0},
		Memories: []Limits{{Min: 1}},
		Code: []Code{{Body: Expr{Instrs: []Instr{
			{Op: OpI32Const, A: 64 + 3}, {Op: OpDrop}, {Op: OpEnd},
		}}}},
		Data: []Data{activeData(64, "abcxyz")},
	}
	_, sm, err := Instrument(m.Encode(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]byte{[]byte("xyz"), []byte("abcxyz")} // the segment's end is a NUL: a C string
	if !reflect.DeepEqual(sm.Dictionary, want) {
		t.Errorf("dictionary %q, want %q", sm.Dictionary, want)
	}
}

// TestSwitchConsts: a br_table on a value minus a constant yields the
// values of the arms that do not go where the default does.
func TestSwitchConsts(t *testing.T) {
	e := Expr{
		Instrs: []Instr{
			{Op: OpLocalGet, A: 0}, {Op: OpI32Const, A: uint64(0xffffffff_ffffffdf)}, {Op: OpI32Add}, // c - 33 ('!')
			{Op: OpBrTable, A: 0, B: 5},
			{Op: OpLocalGet, A: 0}, {Op: OpI32Const, A: 300}, {Op: OpI32Sub},
			{Op: OpBrTable, A: 5, B: 3},
			{Op: OpLocalGet, A: 0}, {Op: OpBrTable, A: 8, B: 3}, // no base: not a switch on a value
			{Op: OpEnd},
		},
		// arms of the first table: '!' -> 1, '"' -> default 2, '#' -> 0,
		// '$' -> 1; default 2. Second: 300 -> 0, 301 -> 1, default 0.
		Pool: []uint64{1, 2, 0, 1, 2, 0, 1, 0, 0, 1, 2},
	}
	got := switchConsts(&e, nil)
	want := [][]byte{{'!'}, {'#'}, {'$'}, {0x2d, 0x01}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("switchConsts: %q, want %q", got, want)
	}
}

// TestGoRuntime: the Go runtime's functions as Go's name section spells
// them ("/" written "_"), and not the target's.
func TestGoRuntime(t *testing.T) {
	for name, want := range map[string]bool{
		"runtime.main": true, "runtime_debug.SetGCPercent": true, "internal_abi.Kind.String": true,
		"internal/bytealg.IndexByte": true, "encoding_json.Unmarshal": false, "main.fuzz": false,
		"github.com/x/internal/y.F": false, "parse_runtime_config": false,
	} {
		if got := goRuntime(name); got != want {
			t.Errorf("goRuntime(%q) = %v, expected %v", name, got, want)
		}
	}
}
