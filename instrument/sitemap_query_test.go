package instrument

import (
	"os"
	"testing"
)

// TestConditionals: on real modules every arm is grouped with the other
// arms of its instruction (an if has two, a br_if two, a br_table as many
// as its arms) and nothing else is an arm.
func TestConditionals(t *testing.T) {
	for _, path := range []string{"../examples/tlv/tlv.wasm", "../examples/czstd/czstd.wasm", "../examples/gojson/gojson.wasm"} {
		wasm, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, sm, err := Instrument(wasm, Options{})
		if err != nil {
			t.Fatal(err)
		}
		cond := sm.Conditionals()
		size := map[int32]int{}
		for i, c := range cond {
			k := sm.Sites[i].Kind
			isArm := k == IfThen || k == IfElse || k == BrIfTaken || k == BrIfNotTaken || k == BrTableArm
			if isArm != (c >= 0) {
				t.Fatalf("%s: site %d (%v) has group %d", path, i, k, c)
			}
			if c >= 0 {
				size[c]++
				if sm.Sites[c].Offset != sm.Sites[i].Offset || sm.Sites[c].Func != sm.Sites[i].Func {
					t.Fatalf("%s: site %d grouped with site %d at another instruction", path, i, c)
				}
			}
		}
		tables := 0
		for first, n := range size {
			switch sm.Sites[first].Kind {
			case IfThen, IfElse, BrIfTaken, BrIfNotTaken:
				if n != 2 {
					t.Fatalf("%s: %v at site %d has %d arms, expected 2", path, sm.Sites[first].Kind, first, n)
				}
			case BrTableArm:
				if n < 1 {
					t.Fatalf("%s: empty br_table group", path)
				}
				tables++
			default:
				t.Fatalf("%s: group %d starts with %v", path, first, sm.Sites[first].Kind)
			}
		}
		if len(size) == 0 {
			t.Fatalf("%s: no conditionals", path)
		}
	}
}

// TestStatementAt: the first row with a line at or after the offset, rows
// of line 0 skipped, never a row of the next function.
func TestStatementAt(t *testing.T) {
	sm := &SiteMap{
		Files:     []string{"a.c"},
		Funcs:     []Func{{Offset: 0x10}, {Offset: 0x40}},
		LineTable: []LineEntry{{0x10, 0, 5}, {0x18, 0, 7}, {0x20, 0, 0}, {0x28, 0, 9}, {0x40, 0, 20}},
	}
	for _, tc := range []struct {
		off  uint32
		line uint32
		ok   bool
	}{
		{0x10, 5, true}, {0x11, 7, true}, {0x18, 7, true}, {0x19, 9, true}, {0x21, 9, true},
		{0x29, 0, false}, // the next row is the next function's
		{0x40, 20, true}, {0x41, 0, false},
	} {
		_, line, ok := sm.StatementAt(tc.off)
		if line != tc.line || ok != tc.ok {
			t.Errorf("StatementAt(%#x) = %d, %v; expected %d, %v", tc.off, line, ok, tc.line, tc.ok)
		}
	}
}
