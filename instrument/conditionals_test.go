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
