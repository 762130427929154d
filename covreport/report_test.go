package covreport

import (
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// testMap is a hand-made site map: f (a.c) has an entry, an if on line 2
// and a br_if on line 3 whose not-taken arm is derived from the if's
// arms; g has no DWARF and is never entered.
func testMap() *instrument.SiteMap {
	return &instrument.SiteMap{
		Sites: []instrument.Site{
			{Func: 1, Offset: 5, Kind: instrument.FuncEntry},
			{Func: 1, Offset: 20, Kind: instrument.IfThen},
			{Func: 1, Offset: 20, Kind: instrument.IfElse},
			{Func: 1, Offset: 30, Kind: instrument.BrIfTaken},
			{Func: 1, Offset: 30, Kind: instrument.BrIfNotTaken, From: 1, Sum: 2},
			{Func: 2, Offset: 100, Kind: instrument.FuncEntry},
		},
		Funcs: []instrument.Func{{Name: "imported"}, {Name: "f", File: "a.c", Line: 1, Offset: 5}, {Name: "g", Offset: 100}},
		Files: []string{"a.c"},
		Lines: []instrument.Line{{Line: 1}, {Line: 2}, {Line: 2}, {Line: 3}, {Line: 3}, {}},
	}
}

func testReport(t *testing.T) *Report {
	c := NewCoverage(testMap())
	for _, r := range []struct {
		in  Input
		ctr []byte
	}{
		{Input{Path: "a", Outcome: Valid}, []byte{1, 1, 0, 0, 0, 0}},
		{Input{Path: "b", Outcome: Crash, Failure: "unreachable"}, []byte{1, 0, 1, 1, 0, 0}},
		{Input{Path: "c", Outcome: Invalid}, []byte{1, 0, 0, 1, 0, 0}},
	} {
		if err := c.Add(r.in, r.ctr); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Add(Input{Path: "x"}, make([]byte, 7)); err == nil {
		t.Error("Add of counters from another build: no error")
	}
	return Build(c, Options{Target: "t.wasm"})
}

func TestBuild(t *testing.T) {
	r := testReport(t)
	// Counted sites 0,1,2,3,5; covered by non-failing runs 0,1,3; by the
	// valid run 0,1 (the crash's else arm does not count).
	if r.Totals != (Totals{Sites: 5, Covered: 3, ValidCovered: 2}) {
		t.Errorf("Totals = %+v", r.Totals)
	}
	if r.Arms != 4 || r.ArmsHit != 3 || r.FuncsHit != 1 || len(r.Funcs) != 2 {
		t.Errorf("arms %d/%d, functions %d/%d; want 3/4, 1/2", r.ArmsHit, r.Arms, r.FuncsHit, len(r.Funcs))
	}
	if len(r.Files) != 1 || r.Files[0].Path != "a.c" {
		t.Fatalf("files %+v", r.Files)
	}
	want := map[uint32]LineState{1: Covered, 2: PartCovered, 3: Covered}
	for _, l := range r.Files[0].Lines {
		if want[l.Number] != l.State {
			t.Errorf("line %d: state %d, want %d", l.Number, l.State, want[l.Number])
		}
		if l.Number == 2 && strings.Join(l.Branches[0].Missed(), ",") != "else" {
			t.Errorf("line 2 missed %v, want else", l.Branches[0].Missed())
		}
		if l.Number == 3 && l.Branches[0].Arms[1].Inputs != 1 {
			t.Errorf("derived not-taken arm: %d inputs, want 1 (filled from the if's arms)", l.Branches[0].Arms[1].Inputs)
		}
	}
	if r.Funcs[0].Name != "f" || r.Funcs[1].Name != "g" || r.Funcs[1].Group != NoSource {
		t.Errorf("functions %s (%v), %s (%v)", r.Funcs[0].Name, r.Funcs[0].Group, r.Funcs[1].Name, r.Funcs[1].Group)
	}
	if got := r.Summary(); got != "t.wasm: 3 inputs (1 crash, 0 hang): branches 3/5 (60.0 %), 2 by valid inputs; arms 3/4; functions 1/2; lines 3/3" {
		t.Errorf("Summary = %q", got)
	}
}

func TestLCOV(t *testing.T) {
	got := string(testReport(t).LCOV())
	want := `TN:
SF:a.c
FN:1,f
FNDA:2,f
FNF:1
FNH:1
BRDA:2,0,0,1
BRDA:2,0,1,0
BRDA:3,1,0,1
BRDA:3,1,1,1
BRF:4
BRH:3
DA:1,2
DA:2,1
DA:3,1
LF:3
LH:3
end_of_record
`
	if got != want {
		t.Errorf("LCOV:\n%s\nwant:\n%s", got, want)
	}
}

func TestPages(t *testing.T) {
	pages, err := testReport(t).Pages()
	if err != nil {
		t.Fatal(err)
	}
	// a.c is not on disk: f and g get function pages.
	for _, name := range []string{"index.html", "func-1.html", "func-2.html"} {
		if _, ok := pages[name]; !ok {
			t.Errorf("no page %s (have %d pages)", name, len(pages))
		}
	}
	if !strings.Contains(string(pages["index.html"]), "<td>b</td><td>crash</td><td>unreachable</td>") {
		t.Error("index.html does not list the crashing input")
	}
	if !strings.Contains(string(pages["func-1.html"]), "<td>else</td><td class=\"n\">0</td>") {
		t.Error("f's page does not show the else arm never taken")
	}
}

// TestGroupOf: in a Go module a function's package decides its group:
// the main module's (and package main) the program, the other modules'
// the dependencies, the standard library's and names without a package
// (the runtime's assembly) apart; without module paths every package
// outside the standard library is the program.
func TestGroupOf(t *testing.T) {
	mods := []string{"example.com/m", "golang.org/x/net", "golang.org/x/net/sub"}
	for name, want := range map[string]Group{
		"runtime.mallocgc": GoStd, "encoding/json.(*decodeState).value": GoStd, "internal/abi.F": GoStd,
		"memcmp": GoStd, "gcWriteBarrier": GoStd, "wasm_pc_f_loop": GoStd, "go:buildid": GoStd, "_rt0_wasm_wasip1": GoStd,
		"type:.eq.runtime.Frame": GoStd, "type:.eq.[...]runtime.Frame": GoStd, "vendor/golang.org/x/net/dns.F": GoStd,
		"main.main": User, "main.init.0": User, "example.com/m.F": User, "example.com/m/tree.(*T).M": User,
		"example.com/mx.F": User, // another module's prefix but not its path: unknown, the program's
		"golang.org/x/net/html.(*parser).parse.func1": GoDeps, "golang.org/x/net/sub/p.F[...]": GoDeps,
		"type:.eq.golang.org/x/net/html.Attribute": GoDeps, "func[3]": User,
	} {
		if got := groupOf(&Func{Name: name}, true, mods); got != want {
			t.Errorf("groupOf(%q) = %v, expected %v", name, got, want)
		}
	}
	for name, want := range map[string]Group{"golang.org/x/net/html.Parse": User, "strings.Index": GoStd, "memcmp": GoStd} {
		if got := groupOf(&Func{Name: name}, true, nil); got != want {
			t.Errorf("without modules: groupOf(%q) = %v, expected %v", name, got, want)
		}
	}
	if groupOf(&Func{Name: "f"}, false, mods) != NoSource || groupOf(&Func{Name: "f", File: "a.c"}, false, nil) != User {
		t.Error("outside Go: a function without a file has no source, with one it is the program")
	}
}

// TestRegionLines: with regions, every line with code is marked by the
// regions of its code: line 4 (the if's then arm, hit) covered, line 5
// (the else arm, never hit) not covered, line 6 (a stretch in no region)
// unmarked, line 7 (the not-taken arm's code, derived and hit through the
// if's arms) covered, line 8 of g (never entered) not covered.
func TestRegionLines(t *testing.T) {
	sm := testMap()
	sm.LineTable = []instrument.LineEntry{
		{Offset: 5, Line: 1}, {Offset: 20, Line: 2}, {Offset: 22, Line: 4}, {Offset: 25, Line: 5},
		{Offset: 28, Line: 6}, {Offset: 30, Line: 3}, {Offset: 32, Line: 7}, {Offset: 100, Line: 8},
	}
	none := instrument.NoRegion
	sm.Regions = []instrument.Region{{Offset: 5, Site: 0}, {Offset: 22, Site: 1}, {Offset: 25, Site: 2}, {Offset: 28, Site: none},
		{Offset: 30, Site: 0}, {Offset: 32, Site: 4}, {Offset: 40, Site: none}, {Offset: 100, Site: 5}, {Offset: 110, Site: none}}
	c := NewCoverage(sm)
	if err := c.Add(Input{Path: "a", Outcome: Valid}, []byte{1, 1, 0, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	r := Build(c, Options{})
	got := map[uint32]LineState{}
	for _, l := range r.Files[0].Lines {
		got[l.Number] = l.State
	}
	want := map[uint32]LineState{1: Covered, 2: PartCovered, 3: PartCovered, 4: Covered, 5: NotCovered, 7: Covered, 8: NotCovered}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("line %d: state %v, want %v", n, got[n], w)
		}
	}
	if _, ok := got[6]; ok || len(got) != len(want) {
		t.Errorf("marked lines %v, want %v (line 6 in no region unmarked)", got, want)
	}
	// the same coverage twice gives the same lcov
	if a, b := string(Build(c, Options{}).LCOV()), string(r.LCOV()); a != b || !strings.Contains(a, "DA:5,0") || !strings.Contains(a, "DA:4,1") {
		t.Errorf("lcov differs or misses DA lines:\n%s", a)
	}
}
