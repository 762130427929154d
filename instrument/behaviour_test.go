package instrument

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// Fixtures: testdata/*.wat, rebuilt by testdata/build.sh (wat2wasm).
var (
	//go:embed testdata/mem.wasm
	memWasm []byte
	//go:embed testdata/branches.wasm
	branchesWasm []byte
)

type coreCall struct {
	fn   string
	args []uint64
}

func call(fn string, args ...uint64) coreCall { return coreCall{fn, args} }

// coreRun instantiates wasm (core 2.0 and tail calls) and performs calls
// in order, returning one line per call: the results or the trap's first
// line.
func coreRun(t *testing.T, wasm []byte, calls []coreCall, setup func(api.Module)) ([]string, api.Module) {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCoreFeatures(api.CoreFeaturesV2|experimental.CoreFeaturesTailCall))
	t.Cleanup(func() { rt.Close(ctx) })
	mod, err := rt.Instantiate(ctx, wasm)
	if err != nil {
		t.Fatalf("instantiate: %v", err)
	}
	if setup != nil {
		setup(mod)
	}
	var out []string
	for _, c := range calls {
		res, err := mod.ExportedFunction(c.fn).Call(ctx, c.args...)
		line := fmt.Sprintf("%s%v -> ", c.fn, c.args)
		if err != nil {
			line += "trap: " + strings.SplitN(err.Error(), "\n", 2)[0]
		} else {
			line += fmt.Sprint(res)
		}
		out = append(out, line)
	}
	return out, mod
}

// sameResults runs calls on the original and the instrumented module,
// reports any difference in results or traps, and returns the
// instrumented instance.
func sameResults(t *testing.T, orig, out []byte, calls []coreCall) api.Module {
	t.Helper()
	want, _ := coreRun(t, orig, calls, nil)
	got, mod := coreRun(t, out, calls, nil)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("results differ: %v vs %v", got, want)
	}
	return mod
}

func TestMemoryBehaviour(t *testing.T) {
	const last = 65535
	calls := []coreCall{
		call("size"),
		call("load8", 100), call("load8", 104), call("load8", last), call("load8", last+1),
		call("load32", last-3), call("load32", last-2), call("load32", 0xffffffff),
		call("load_off", 0), call("load_off", 1), call("load_huge_off", 0),
		call("store32", last-3, 0xdeadbeef), call("load32", last-3), call("store32", last-2, 1),
		call("store64", last-10, 0x0102030405060708), call("store64", last-9, 1),
		call("v128rt", 500), call("v128rt", last-15), call("v128rt", last-14),
		call("fill", last, 7, 1), call("load8", last), call("fill", last, 7, 2), call("fill", last+1, 0, 0), call("fill", last+2, 0, 0),
		call("fill", 0xffffffff, 0, 1),
		call("copy", 0, 100, 11), call("sum", 0, 11), call("copy", last, 0, 2), call("copy", 0, last, 2), call("copy", 0xfffffff0, 0, 0x20),
		call("init", 10, 0, 8), call("sum", 10, 8), call("init", last-7, 0, 8), call("init", last-6, 0, 8), call("init", 0, 1, 8),
		call("grow", 1), call("size"), call("load8", last+1), call("load8", 2*65536), call("grow", 1), call("grow", 1), call("size"), call("grow", 0),
		call("load8", 3*65536-1), call("load8", 3*65536),
		call("fill", 3*65536-1, 9, 1), call("sum", 3*65536-2, 2), call("fill", 3*65536, 0, 1),
		call("getg"), call("setg", 9), call("getg"),
	}
	want, _ := coreRun(t, memWasm, calls, nil)
	for _, o := range coreOptionSets {
		t.Run(o.name, func(t *testing.T) {
			out, sm, err := Instrument(memWasm, o.opts)
			if err != nil {
				t.Fatal(err)
			}
			got, mod := coreRun(t, out, calls, nil)
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("call %d: instrumented %q, original %q", i, got[i], want[i])
				}
			}
			if mod.ExportedMemory(MemoryExport) == nil {
				t.Errorf("no %s export", MemoryExport)
			}
			if g := mod.ExportedGlobal(GlobalExportPrefix + "0"); g == nil || g.Get() != 9 {
				t.Errorf("global export %s0 missing or wrong", GlobalExportPrefix)
			}
			if sm.Layout.ReservedBytes() == 0 {
				t.Errorf("no reserved bytes")
			}
		})
	}
	t.Logf("original:\n%s", strings.Join(want, "\n"))
}

func counters(t *testing.T, mod api.Module, sm *SiteMap) []byte {
	t.Helper()
	b, ok := mod.ExportedMemory(MemoryExport).Read(sm.Layout.CountersOffset, sm.Layout.Counters)
	if !ok {
		t.Fatal("counters out of range")
	}
	return filled(t, sm, b)
}

// filled returns a copy of the raw counters b with the derived sites'
// counts filled in, after checking that no derived site's byte was written.
func filled(t *testing.T, sm *SiteMap, b []byte) []byte {
	t.Helper()
	for id, s := range sm.Sites {
		if s.Sum > 0 && b[id] != 0 {
			t.Fatalf("derived site %d (%s) has counter byte %d, expected 0", id, sm.Describe(id), b[id])
		}
	}
	c := append([]byte(nil), b...)
	sm.FillDerived(c)
	return c
}

// instrOrder returns xs (one element per site id) in instruction order:
// ids are in function order, and within a function in reverse instruction
// order (see doc.go), so each function's run of ids is reversed.
func instrOrder[T any](sm *SiteMap, xs []T) []T {
	out := slices.Clone(xs)
	for lo := 0; lo < len(sm.Sites); {
		hi := lo
		for hi < len(sm.Sites) && sm.Sites[hi].Func == sm.Sites[lo].Func {
			hi++
		}
		slices.Reverse(out[lo:hi])
		lo = hi
	}
	return out
}

// instrID is the site id of the k-th site in instruction order.
func instrID(sm *SiteMap, k int) int {
	ids := make([]int, len(sm.Sites))
	for i := range ids {
		ids[i] = i
	}
	return instrOrder(sm, ids)[k]
}

func TestCounters(t *testing.T) {
	out, sm, err := Instrument(branchesWasm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantSites := []Site{
		{Func: 0, Kind: FuncEntry, Arm: 0}, {Func: 0, Kind: IfThen, Arm: 0}, {Func: 0, Kind: IfElse, Arm: 0}, {Func: 0, Kind: IfThen, Arm: 0}, {Func: 0, Kind: IfElse, Arm: 0},
		{Func: 0, Kind: BrIfTaken, Arm: 0}, {Func: 0, Kind: BrIfNotTaken, Arm: 0},
		{Func: 0, Kind: BrTableArm, Arm: 0}, {Func: 0, Kind: BrTableArm, Arm: 1}, {Func: 0, Kind: BrTableArm, Arm: 2}, {Func: 0, Kind: BrTableArm, Arm: 3},
		{Func: 1, Kind: FuncEntry, Arm: 0}, {Func: 1, Kind: BrIfTaken, Arm: 0}, {Func: 1, Kind: BrIfNotTaken, Arm: 0}, {Func: 1, Kind: BrTableArm, Arm: 0}, {Func: 1, Kind: BrTableArm, Arm: 1},
		{Func: 2, Kind: FuncEntry, Arm: 0}, {Func: 2, Kind: BrIfTaken, Arm: 0}, {Func: 2, Kind: BrIfNotTaken, Arm: 0},
	}
	if len(sm.Sites) != len(wantSites) {
		t.Fatalf("got %d sites, want %d: %+v", len(sm.Sites), len(wantSites), sm.Sites)
	}
	for i, s := range instrOrder(sm, sm.Sites) {
		w := wantSites[i]
		if s.Func != w.Func || s.Kind != w.Kind || s.Arm != w.Arm {
			t.Errorf("site %d = %+v, want %+v", i, s, w)
		}
	}
	if sm.Funcs[0].Name != "classify" || sm.Funcs[1].Name != "valued" {
		t.Errorf("func names %+v", sm.Funcs)
	}
	if d := sm.Describe(instrID(sm, 9)); !strings.HasPrefix(d, "classify+0x") || !strings.HasSuffix(d, " br_table arm 2") {
		t.Errorf("Describe(site 9 in instruction order) = %q", d)
	}

	tests := []struct {
		name  string
		calls []coreCall
		want  []byte
	}{
		{"classify(2)", []coreCall{call("classify", 2)},
			[]byte{1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"classify(11)", []coreCall{call("classify", 11)},
			[]byte{1, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"classify(1234)", []coreCall{call("classify", 1234)},
			[]byte{1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"calls(3)", []coreCall{call("calls", 3)},
			[]byte{3, 0, 3, 1, 2, 0, 3, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 2, 1}},
		{"valued", []coreCall{call("valued", 0), call("valued", 1), call("valued", 2)},
			[]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 1, 2, 0, 2, 0, 0, 0}},
		// counters saturate: 256 hits read 255, as do 255
		{"calls(256)", []coreCall{call("calls", 256)},
			[]byte{255, 245, 11, 128, 128, 0, 255, 1, 1, 1, 253, 0, 0, 0, 0, 0, 1, 255, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mod := sameResults(t, branchesWasm, out, tc.calls)
			if c := instrOrder(sm, counters(t, mod, sm)); !reflect.DeepEqual(c, tc.want) {
				t.Errorf("counters\n got %v\nwant %v", c, tc.want)
			}
		})
	}
}

func TestFuel(t *testing.T) {
	out, sm, err := Instrument(memWasm, Options{Fuel: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	mod, err := rt.Instantiate(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	fuel := mod.ExportedGlobal(sm.Layout.FuelExport).(api.MutableGlobal)
	fuel.Set(1000)
	if _, err := mod.ExportedFunction("sum").Call(ctx, 100, 11); err != nil {
		t.Fatalf("sum with fuel: %v", err)
	}
	// 12 loop iterations (sum starts with its loop: no entry fuel)
	if got := int64(fuel.Get()); got != 1000-12 {
		t.Errorf("fuel after sum = %d, want %d", got, 1000-12)
	}
	fuel.Set(100)
	_, err = mod.ExportedFunction("spin").Call(ctx)
	if err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("spin: want unreachable trap, got %v", err)
	}
	if got := int64(fuel.Get()); got != -1 {
		t.Errorf("fuel after exhaustion = %d, want -1", got)
	}
}

// TestDirtyPages pins the dirty map: one byte per block of 1<<dirtyShift
// bytes of target memory (address >> dirtyShift), set for the block of the
// first byte a store writes, every block of a bulk op's destination and
// of the pages memory.grow adds. setup calls run first and their marks are
// cleared.
func TestDirtyPages(t *testing.T) {
	out, sm, err := Instrument(memWasm, Options{DirtyPages: true})
	if err != nil {
		t.Fatal(err)
	}
	l := sm.Layout
	if l.DirtyPages != 1<<(32-dirtyShift) || l.DirtyShift() != dirtyShift || uint64(l.DirtyOffset)+uint64(l.DirtyPages) > l.ReservedBytes() {
		t.Fatalf("bad layout %+v", l)
	}
	const block = 1 << dirtyShift
	// at: the block of address a; span: the blocks of addresses lo..hi
	at := func(a int) []int { return []int{a >> dirtyShift} }
	span := func(lo, hi int) []int {
		var b []int
		for i := lo >> dirtyShift; i <= hi>>dirtyShift; i++ {
			b = append(b, i)
		}
		return b
	}
	const page = 65536
	tests := []struct {
		name  string
		setup []coreCall
		calls []coreCall
		dirty []int
	}{
		{"none", nil, []coreCall{call("load8", 5), call("sum", 0, 100)}, nil},
		{"store block 0", nil, []coreCall{call("store32", 10, 1)}, []int{0}},
		{"store in the middle of a page: one block", nil, []coreCall{call("store32", 0x8000+4, 1)}, at(0x8004)},
		// a store marks the block of its first byte; the host restores
		// DirtySpill bytes past it, which covers the rest
		{"store spanning blocks", nil, []coreCall{call("store32", block-2, 1)}, []int{0}},
		{"store spanning pages", []coreCall{call("grow", 1)}, []coreCall{call("store32", page-2, 1)}, at(page - 2)},
		{"store64 offset", []coreCall{call("grow", 2)}, []coreCall{call("store64", 2*page-4, 1)}, at(2*page - 4)},
		{"store64 in page 2", []coreCall{call("grow", 2)}, []coreCall{call("store64", 2*page+10, 1)}, at(2*page + 10)},
		{"fill", []coreCall{call("grow", 2)}, []coreCall{call("fill", 100, 1, 2*page)}, span(100, 100+2*page-1)},
		{"copy", []coreCall{call("grow", 1)}, []coreCall{call("copy", page+5, 0, 3)}, at(page + 5)},
		{"grow: every block of the new pages", nil, []coreCall{call("grow", 2)}, span(page, 3*page-1)},
		{"trapping store", nil, []coreCall{call("store32", page-1, 1)}, at(page - 1)},
		{"trapping fill at 4 GiB: up to the last map byte", nil, []coreCall{call("fill", 0xfffff000, 0, 0x2000)}, span(0xfffff000, 1<<32-1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			setup := func(mod api.Module) {
				for _, c := range tc.setup {
					if _, err := mod.ExportedFunction(c.fn).Call(context.Background(), c.args...); err != nil {
						t.Fatalf("setup %s: %v", c.fn, err)
					}
				}
				b, _ := mod.ExportedMemory(MemoryExport).Read(l.DirtyOffset, l.DirtyPages)
				clear(b)
			}
			_, mod := coreRun(t, out, tc.calls, setup)
			b, _ := mod.ExportedMemory(MemoryExport).Read(l.DirtyOffset, l.DirtyPages)
			var got []int
			for i, v := range b {
				if v != 0 {
					got = append(got, i)
				}
			}
			if !reflect.DeepEqual(got, tc.dirty) {
				t.Errorf("dirty blocks %v, want %v", got, tc.dirty)
			}
		})
	}
}

// TestDirtyShift: the block size follows from the map's length, so
// layouts with the older 64 KiB-page map keep working.
func TestDirtyShift(t *testing.T) {
	for _, tc := range []struct {
		mapLen uint32
		want   uint
	}{{0, 16}, {4, 16}, {65536, 16}, {1 << 17, 15}, {1 << 20, 12}} {
		if got := (Layout{DirtyPages: tc.mapLen}).DirtyShift(); got != tc.want {
			t.Errorf("DirtyShift of a %d-byte map: expected %d, got %d", tc.mapLen, tc.want, got)
		}
	}
}

func TestSkip(t *testing.T) {
	out, sm, err := Instrument(branchesWasm, Options{Skip: []string{"class*"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sm.Sites {
		if s.Func == 0 {
			t.Fatalf("skipped function has site %+v", s)
		}
	}
	if len(sm.Sites) != 8 {
		t.Errorf("got %d sites, want 8", len(sm.Sites))
	}
	want, _ := coreRun(t, branchesWasm, []coreCall{call("calls", 5)}, nil)
	got, _ := coreRun(t, out, []coreCall{call("calls", 5)}, nil)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%v vs %v", got, want)
	}
	if _, _, err := Instrument(branchesWasm, Options{Skip: []string{"["}}); err == nil || err.Error() != `instrument: skip pattern "[": syntax error in pattern` {
		t.Errorf("bad pattern: got %v", err)
	}
	// memory is still shifted in skipped functions
	out, _, err = Instrument(memWasm, Options{Skip: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	calls := []coreCall{call("load8", 100), call("load8", 65535), call("load8", 65536), call("size")}
	want, _ = coreRun(t, memWasm, calls, nil)
	got, _ = coreRun(t, out, calls, nil)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%v vs %v", got, want)
	}
}

func TestSiteMapRoundTrip(t *testing.T) {
	_, sm, err := Instrument(branchesWasm, Options{Fuel: true, DirtyPages: true})
	if err != nil {
		t.Fatal(err)
	}
	sm.Files = []string{"a.c"}
	sm.Lines = make([]Line, len(sm.Sites))
	k := instrID(sm, 3) // the second if's then arm
	sm.Lines[k] = Line{0, 42}
	sm.LineTable = []LineEntry{{Offset: 10, File: 0, Line: 42}}
	sm.Layout.StackPointerExport, sm.Layout.StackLow, sm.Layout.StackHigh = "wafer.g0", 1024, 70000
	sm.Layout.StackMinExport, sm.Layout.DepthSite = StackMinExport, uint32(len(sm.Sites))
	for step := range uint32(DepthSites) {
		sm.Sites = append(sm.Sites, Site{Kind: StackDepth, Arm: step})
		sm.Lines = append(sm.Lines, Line{})
	}
	sm.Layout.Counters = uint32(len(sm.Sites))
	b, err := sm.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got SiteMap
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&got, sm) {
		t.Errorf("round trip differs:\n%+v\n%+v", got, *sm)
	}
	if d := got.Describe(k); !strings.Contains(d, "a.c:42 if-then") {
		t.Errorf("Describe(%d) = %q", k, d)
	}
	if d := got.Describe(int(got.Layout.DepthSite) + 9); d != "stack depth step 9 (144 bytes or more)" {
		t.Errorf("Describe(stack depth step 9) = %q", d)
	}
	// A map whose depth sites would lie past its counters is refused.
	short := *sm
	short.Layout.DepthSite++
	if b, _ := short.MarshalBinary(); got.UnmarshalBinary(b) == nil {
		t.Errorf("UnmarshalBinary accepted %d depth sites from %d of %d", DepthSites, short.Layout.DepthSite, short.Layout.Counters)
	}
	for _, bad := range [][]byte{nil, []byte(siteMapMagicV2), []byte(siteMapMagic), b[:len(b)-1], append(append([]byte{}, b...), 0)} {
		var x SiteMap
		if err := x.UnmarshalBinary(bad); err == nil {
			t.Errorf("UnmarshalBinary(%q...) succeeded", bad[:min(len(bad), 20)])
		}
	}
}

func FuzzSiteMap(f *testing.F) {
	_, sm, _ := Instrument(branchesWasm, Options{Fuel: true})
	b, _ := sm.MarshalBinary()
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		var m SiteMap
		if m.UnmarshalBinary(data) != nil {
			return
		}
		for i := range m.Sites {
			_ = m.Describe(i)
		}
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var m2 SiteMap
		if err := m2.UnmarshalBinary(b); err != nil || !reflect.DeepEqual(m, m2) {
			t.Fatalf("re-marshal: %v", err)
		}
	})
}

func TestDictionary(t *testing.T) {
	_, sm, err := Instrument(memWasm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range sm.Dictionary {
		got = append(got, string(d))
	}
	want := []string{"hello wafer", "passive!"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("dictionary %q, want %q", got, want)
	}
	_, sm, _ = Instrument(branchesWasm, Options{})
	want4 := [][]byte{{10}, {0xd2, 0x04}} // i32 consts 10 and 1234, high zero bytes trimmed
	if !reflect.DeepEqual(sm.Dictionary, want4) {
		t.Errorf("dictionary %v, want %v", sm.Dictionary, want4)
	}
}

// TestDirtyRestoreContract checks the dirty map against what a host does
// with it (Layout): after random stores of every width (including v128 and
// stores straddling two 4 KiB blocks) and bulk operations, copying back
// every marked block plus the DirtySpill bytes after it from a snapshot
// restores the target memory exactly.
func TestDirtyRestoreContract(t *testing.T) {
	out, sm, err := Instrument(memWasm, Options{DirtyPages: true})
	if err != nil {
		t.Fatal(err)
	}
	l := sm.Layout
	res, mod := coreRun(t, out, []coreCall{call("grow", 2)}, nil)
	if strings.Contains(res[0], "trap") {
		t.Fatal(res[0])
	}
	ctx := context.Background()
	mem := mod.ExportedMemory(MemoryExport)
	rb := l.ReservedBytes()
	view, _ := mem.Read(0, mem.Size())
	target := view[rb:]
	dirty := view[l.DirtyOffset : l.DirtyOffset+l.DirtyPages]
	clear(dirty)
	snap := append([]byte(nil), target...)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		// addresses near block boundaries half the time
		addr := uint64(rng.IntN(len(target) - 64))
		if rng.IntN(2) == 0 {
			addr = addr&^(1<<dirtyShift-1) + 1<<dirtyShift - uint64(rng.IntN(20))
		}
		var c coreCall
		switch rng.IntN(5) {
		case 0:
			c = call("store32", addr, uint64(rng.Uint32()))
		case 1:
			c = call("store64", addr, rng.Uint64()) // offset=3
		case 2:
			c = call("v128rt", addr) // a v128 store and load
		case 3:
			c = call("fill", addr, uint64(rng.IntN(256)), uint64(rng.IntN(40)))
		default:
			c = call("copy", addr, uint64(rng.IntN(len(target)-64)), uint64(rng.IntN(40)))
		}
		if _, err := mod.ExportedFunction(c.fn).Call(ctx, c.args...); err != nil {
			continue // out of bounds: nothing written
		}
		for b, m := range dirty[:len(target)>>dirtyShift+1] {
			if m == 0 {
				continue
			}
			off := b << dirtyShift
			end := min(off+1<<dirtyShift+DirtySpill, len(target))
			copy(target[off:end], snap[off:end])
		}
		clear(dirty[:len(target)>>dirtyShift+1])
		if !bytes.Equal(target, snap) {
			t.Fatalf("op %d %s%v: memory differs from the snapshot after restoring the marked blocks", i, c.fn, c.args)
		}
	}
}

// TestHeapGuardWithoutAllocator: a module with no malloc and free to wrap
// comes out of the heap guard, and the heap check, as it would without
// them.
func TestHeapGuardWithoutAllocator(t *testing.T) {
	for _, wasm := range [][]byte{branchesWasm, memWasm, compareWasm} {
		a, sa, err := Instrument(wasm, Options{Fuel: true, DirtyPages: true})
		if err != nil {
			t.Fatal(err)
		}
		b, sb, err := Instrument(wasm, Options{Fuel: true, DirtyPages: true, HeapGuard: true, HeapCheck: true})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) || sb.Layout.HeapExport != "" || sa.Layout != sb.Layout {
			t.Fatalf("the guard changed a module without an allocator (HeapExport %q)", sb.Layout.HeapExport)
		}
	}
}
