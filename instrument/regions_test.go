package instrument

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/tetratelabs/wazero"
)

//go:embed testdata/regions.wasm
var regionsWasm []byte

// regionMarker is a `(call $mark (i32.const N))` of testdata/regions.wat:
// its function's export index and the code offset of the i32.const.
type regionMarker struct {
	fn     int
	offset uint32
}

// regionMarkers finds the markers of a decoded module, and per function
// the offsets of its conditional instructions in order.
func regionMarkers(t *testing.T, m *Module) (map[int32]regionMarker, [][]uint32) {
	t.Helper()
	marks := map[int32]regionMarker{}
	conds := make([][]uint32, len(m.Code))
	for fi := range m.Code {
		body := m.Code[fi].Body.Instrs
		for k, in := range body {
			switch in.Op {
			case OpIf, OpBrIf, OpBrTable:
				conds[fi] = append(conds[fi], in.Off-m.CodeOffset)
			case OpI32Const:
				if k+1 < len(body) && body[k+1].Op == OpCall && body[k+1].A == 0 {
					marks[int32(in.A)] = regionMarker{fi, in.Off - m.CodeOffset}
				}
			}
		}
	}
	return marks, conds
}

// regionAt returns the site of the region holding code offset off.
func regionAt(sm *SiteMap, off uint32) uint32 {
	i := sort.Search(len(sm.Regions), func(i int) bool { return sm.Regions[i].Offset > off }) - 1
	if i < 0 {
		return NoRegion
	}
	return sm.Regions[i].Site
}

func TestRegions(t *testing.T) {
	m, err := Decode(regionsWasm)
	if err != nil {
		t.Fatal(err)
	}
	marks, conds := regionMarkers(t, m)
	_, sm, err := Instrument(regionsWasm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// describe names a region's site by kind and the index of its
	// conditional among its function's, in instruction order.
	describe := func(site uint32) string {
		if site == NoRegion {
			return "none"
		}
		s := sm.Sites[site]
		if s.Kind == FuncEntry {
			return "entry"
		}
		fi := int(s.Func) - 1 // one import
		for k, off := range conds[fi] {
			if off == s.Offset {
				if s.Kind == BrTableArm {
					return fmt.Sprintf("%s %d arm %d", s.Kind, k, s.Arm)
				}
				return fmt.Sprintf("%s %d", s.Kind, k)
			}
		}
		return fmt.Sprintf("%s at unknown offset %#x", s.Kind, s.Offset)
	}
	want := map[int32]string{
		1: "entry", 2: "if-then 0", 3: "if-else 0", 4: "entry",
		10: "entry", 11: "if-then 0", 12: "entry",
		20: "entry", 21: "br_if-not-taken 0", 22: "br_if-not-taken 1", 23: "entry",
		30: "entry", 31: "entry", 32: "br_if-not-taken 0", 33: "br_if-not-taken 0",
		40: "entry", 41: "if-then 0", 42: "if-then 1", 43: "if-else 1", 44: "if-then 0", 45: "if-else 0", 46: "entry",
		// after br: unreachable; after an if whose then arm branches
		// away, its else arm's; after a join of two paths, the entry's
		50: "entry", 51: "if-then 0", 52: "none", 53: "if-else 0", 54: "if-else 1", 55: "entry",
		// a block's end reached by one branch only: that branch's arm
		60: "entry", 61: "br_if-not-taken 0", 62: "br_if-taken 0", 63: "br_table 1 arm 0", 64: "br_if-taken 0",
	}
	if len(marks) != len(want) {
		t.Fatalf("found %d markers, want %d", len(marks), len(want))
	}
	for n, w := range want {
		mk, ok := marks[n]
		if !ok {
			t.Errorf("marker %d not found", n)
			continue
		}
		site := regionAt(sm, mk.offset)
		if got := describe(site); got != w {
			t.Errorf("marker %d: region %s, want %s", n, got, w)
		}
		if site != NoRegion && int(sm.Sites[site].Func) != mk.fn+1 {
			t.Errorf("marker %d in function %d has a region of function %d", n, mk.fn+1, sm.Sites[site].Func)
		}
	}
	// sorted, and the bytes between functions (locals) are in no region
	for i := 1; i < len(sm.Regions); i++ {
		if sm.Regions[i].Offset <= sm.Regions[i-1].Offset || sm.Regions[i].Site == sm.Regions[i-1].Site {
			t.Errorf("regions %d and %d: %+v %+v, expected increasing offsets and a change of site", i-1, i, sm.Regions[i-1], sm.Regions[i])
		}
	}
	for fi := 1; fi < len(sm.Funcs); fi++ {
		if s := regionAt(sm, sm.Funcs[fi].Offset-1); s != NoRegion {
			t.Errorf("the byte before function %d's body is in region %s", fi, describe(s))
		}
	}
}

// TestRegionsDifferential runs every function of the fixture on inputs
// 0..7 and checks each marker against its region: a marker that ran has
// its region's site hit (so a line marked not covered never ran), and a
// marker in no region never runs.
func TestRegionsDifferential(t *testing.T) {
	m, err := Decode(regionsWasm)
	if err != nil {
		t.Fatal(err)
	}
	marks, _ := regionMarkers(t, m)
	out, sm, err := Instrument(regionsWasm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	var ran map[int32]bool
	if _, err := rt.NewHostModuleBuilder("env").NewFunctionBuilder().
		WithFunc(func(n int32) { ran[n] = true }).Export("mark").Instantiate(ctx); err != nil {
		t.Fatal(err)
	}
	cm, err := rt.CompileModule(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	hitSomewhere := map[int32]bool{}
	for _, fn := range []string{"ifelse", "ifnoelse", "brifblock", "brifloop", "nested", "afterbr", "onebranch"} {
		for x := range uint64(8) {
			ran = map[int32]bool{}
			mod, err := rt.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithName(""))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := mod.ExportedFunction(fn).Call(ctx, x); err != nil {
				t.Fatalf("%s(%d): %v", fn, x, err)
			}
			c := counters(t, mod, sm)
			for n, mk := range marks {
				site := regionAt(sm, mk.offset)
				switch {
				case site == NoRegion && ran[n]:
					t.Errorf("%s(%d): marker %d ran in no region", fn, x, n)
				case site != NoRegion && ran[n] && c[site] == 0:
					t.Errorf("%s(%d): marker %d ran, its region's site %s was not hit", fn, x, n, sm.Describe(int(site)))
				}
				if ran[n] {
					hitSomewhere[n] = true
				}
			}
			mod.Close(ctx)
		}
	}
	if len(hitSomewhere) != len(marks)-1 { // all but the unreachable marker 52
		t.Errorf("%d of %d markers ran, want all but one", len(hitSomewhere), len(marks))
	}
}

// TestRegionsMarshal: regions survive MarshalBinary/UnmarshalBinary, a v7
// map (no regions) still reads, and regions naming a site past the map
// or out of order are refused.
func TestRegionsMarshal(t *testing.T) {
	_, sm, err := Instrument(regionsWasm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := sm.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got SiteMap
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Regions, sm.Regions) || len(got.Regions) < 20 {
		t.Errorf("regions after a round trip: %v, want %v", got.Regions, sm.Regions)
	}
	noRegions := *sm
	noRegions.Regions = nil
	noRegions.Layout.HangAtExport, noRegions.Layout.MallocLimitExport = "", ""
	b7, _ := noRegions.MarshalBinary()
	if !bytes.HasSuffix(b7, []byte{0, 0, 0, 0}) {
		t.Fatalf("expected the empty regions', wasm names', Go modules' and joins' counts last")
	}
	// v7 had neither v8's two layout strings (empty here: two zero
	// lengths, found where a marked copy differs) nor its regions
	marked := noRegions
	marked.Layout.HangAtExport = "x"
	bm, _ := marked.MarshalBinary()
	at := 0
	for b7[at] == bm[at] {
		at++
	}
	b7 = slices.Concat([]byte(siteMapMagicV7), b7[len(siteMapMagic):at], b7[at+2:len(b7)-4])
	var old SiteMap
	if err := old.UnmarshalBinary(b7); err != nil {
		t.Fatalf("v7 map: %v", err)
	}
	if !reflect.DeepEqual(&old, &noRegions) {
		t.Errorf("v7 map reads differently")
	}
	for name, rs := range map[string][]Region{
		"site past the map": {{Offset: 1, Site: uint32(len(sm.Sites))}},
		"same offset twice": {{Offset: 1, Site: 0}, {Offset: 1, Site: 1}},
	} {
		bad := *sm
		bad.Regions = rs
		data, _ := bad.MarshalBinary()
		if err := got.UnmarshalBinary(data); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
