package instrument

import (
	"fmt"
	"slices"
	"testing"
)

// TestDerivedSites pins which sites of testdata/branches.wat are derived
// and from which sources (derive.go).
func TestDerivedSites(t *testing.T) {
	_, sm, err := Instrument(branchesWasm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// site -> its sources, both as "function kind arm"
	desc := func(id int) string {
		s := sm.Sites[id]
		return fmt.Sprintf("%s %s %d", sm.Funcs[s.Func].Name, s.Kind, s.Arm)
	}
	got := map[string][]string{}
	for id, s := range sm.Sites {
		if s.Sum == 0 {
			continue
		}
		var from []string
		for src := s.From; src < s.From+s.Sum; src++ {
			from = append(from, desc(int(src)))
		}
		slices.Sort(from)
		got[desc(id)] = from
	}
	want := map[string][]string{
		// entry, then straight to the first if
		"classify entry 0": {"classify if-else 0", "classify if-then 0"},
		// entry, block, then straight to the br_if
		"valued entry 0": {"valued br_if-not-taken 0", "valued br_if-taken 0"},
		// calls starts with a loop: nothing derived
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("derived sites:\n got %v\nwant %v", got, want)
	}
	if n := sm.Counted(); n != len(sm.Sites)-len(want) {
		t.Errorf("Counted() = %d, expected %d", n, len(sm.Sites)-len(want))
	}
}

// TestBranchAhead: what straight-line code may contain before the branch
// a site is derived from.
func TestBranchAhead(t *testing.T) {
	for _, tc := range []struct {
		name string
		body []Instr
		want int
	}{
		{"straight to br_if", []Instr{{Op: OpLocalGet}, {Op: OpI32Eqz}, {Op: OpBrIf}}, 2},
		{"into a block", []Instr{{Op: OpBlock, C: 0x40}, {Op: OpNop}, {Op: OpLocalGet}, {Op: OpIf, C: 0x40}}, 3},
		{"loads may trap, still straight", []Instr{{Op: OpLocalGet}, {Op: OpI32Load}, {Op: OpBrIf}}, 2},
		{"a br_table is no source", []Instr{{Op: OpLocalGet}, {Op: OpBrTable}}, -1},
		{"a call leaves", []Instr{{Op: OpCall}, {Op: OpLocalGet}, {Op: OpBrIf}}, -1},
		{"a loop header", []Instr{{Op: OpLoop, C: 0x40}, {Op: OpLocalGet}, {Op: OpBrIf}}, -1},
		{"end of the arm", []Instr{{Op: OpLocalGet}, {Op: OpDrop}, {Op: OpEnd}, {Op: OpBrIf}}, -1},
		{"else", []Instr{{Op: OpElse}, {Op: OpBrIf}}, -1},
		{"br", []Instr{{Op: OpBr}, {Op: OpBrIf}}, -1},
		{"return", []Instr{{Op: OpReturn}, {Op: OpBrIf}}, -1},
		{"br_on_null", []Instr{{Op: OpBrOnNull}, {Op: OpBrIf}}, -1},
		{"try_table", []Instr{{Op: OpTryTable}, {Op: OpBrIf}}, -1},
		{"nothing after", []Instr{{Op: OpLocalGet}, {Op: OpDrop}}, -1},
	} {
		if got := branchAhead(tc.body, 0); got != tc.want {
			t.Errorf("%s: branchAhead = %d, expected %d", tc.name, got, tc.want)
		}
	}
}

// TestFillDerived: sums saturate, and chains (a derived source) resolve in
// one pass because sources have lower ids.
func TestFillDerived(t *testing.T) {
	sm := &SiteMap{Sites: []Site{
		{}, {}, // 0, 1 counted
		{From: 0, Sum: 2}, // 2 = 0 + 1
		{},                // 3 counted
		{From: 2, Sum: 2}, // 4 = 2 + 3
	}}
	for _, tc := range []struct{ in, want []byte }{
		{[]byte{1, 2, 0, 4, 0}, []byte{1, 2, 3, 4, 7}},
		{[]byte{200, 100, 0, 1, 0}, []byte{200, 100, 255, 1, 255}},
		{[]byte{0, 0, 0, 0, 0}, []byte{0, 0, 0, 0, 0}},
		{[]byte{0, 0, 0, 9}, []byte{0, 0, 0, 9}}, // short: site 4 out of range
	} {
		got := slices.Clone(tc.in)
		sm.FillDerived(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("FillDerived(%v) = %v, expected %v", tc.in, got, tc.want)
		}
	}
}
