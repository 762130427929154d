package instrument

import (
	"bytes"
	"context"
	_ "embed"
	"os"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

//go:embed testdata/godispatch.wasm
var goDispatchWasm []byte

// asGoModule inserts a "go:buildid" custom section after the header of
// wasm: the mark of a module Go's toolchain built (goModule).
func asGoModule(wasm []byte) []byte {
	name := "go:buildid"
	payload := append([]byte{byte(len(name))}, name...)
	payload = append(payload, "test"...)
	out := append([]byte(nil), wasm[:8]...)
	out = append(out, 0, byte(len(payload)))
	out = append(out, payload...)
	return append(out, wasm[8:]...)
}

// TestGoDispatchSites: in a Go module the resume-point dispatch gets no
// sites; the if of count's loop keeps its two arms. With CountGoDispatch,
// and in a module not built by Go, the br_tables keep one site per arm.
func TestGoDispatchSites(t *testing.T) {
	kinds := func(wasm []byte, opts Options) map[SiteKind]int {
		t.Helper()
		_, sm, err := Instrument(wasm, opts)
		if err != nil {
			t.Fatal(err)
		}
		n := map[SiteKind]int{}
		for _, s := range sm.Sites {
			n[s.Kind]++
		}
		return n
	}
	goWasm := asGoModule(goDispatchWasm)
	if got := kinds(goWasm, Options{}); got[BrTableArm] != 0 || got[IfThen] != 1 || got[IfElse] != 1 || got[FuncEntry] != 2 {
		t.Errorf("Go module: expected no br_table arm, one if and two entries, got %v", got)
	}
	for _, tc := range []struct {
		name string
		wasm []byte
		opts Options
	}{
		{"Go module, CountGoDispatch", goWasm, Options{CountGoDispatch: true}},
		{"not a Go module", goDispatchWasm, Options{}},
	} {
		if got := kinds(tc.wasm, tc.opts); got[BrTableArm] != 4+3 {
			t.Errorf("%s: expected the 7 arms of the two br_tables, got %v", tc.name, got)
		}
	}
}

// TestGoDispatchFuel: count pays fuel at its entry and at each backward
// jump (n for n iterations), not at the forward jump out of the loop nor
// at the dispatch loop's header; spin, a loop of one backward jump, runs
// out of fuel with the hang at its target, the first instruction of
// resume point 1. count's results are the original's either way.
func TestGoDispatchFuel(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	type build struct {
		mod  api.Module
		sm   *SiteMap
		fuel api.MutableGlobal
	}
	load := func(opts Options) build {
		out, sm, err := Instrument(asGoModule(goDispatchWasm), opts)
		if err != nil {
			t.Fatal(err)
		}
		mod, err := rt.InstantiateWithConfig(ctx, out, wazero.NewModuleConfig().WithName(""))
		if err != nil {
			t.Fatal(err)
		}
		return build{mod, sm, mod.ExportedGlobal(sm.Layout.FuelExport).(api.MutableGlobal)}
	}
	now, before := load(Options{Fuel: true}), load(Options{Fuel: true, CountGoDispatch: true})
	for _, n := range []uint64{0, 1, 5, 300} {
		for _, b := range []struct {
			name string
			b    build
			want int64 // fuel used
		}{
			{"dispatch uncounted", now, 1 + int64(n)},
			{"CountGoDispatch", before, 2 + int64(n)}, // the loop header: n back, 1 forward, 1 from the entry
		} {
			b.b.fuel.Set(1 << 40)
			res, err := b.b.mod.ExportedFunction("count").Call(ctx, 0, n)
			if err != nil || uint64(uint32(res[0])) != n {
				t.Fatalf("%s: count(%d) = %v, %v; want %d", b.name, n, res, err, n)
			}
			if used := 1<<40 - int64(b.b.fuel.Get()); used != b.want {
				t.Errorf("%s: count(%d) used %d fuel, want %d", b.name, n, used, b.want)
			}
		}
	}
	// A skipped function (the Go runtime's, by default) has no sites
	// and still pays fuel at its backward jumps: a hang in it is caught.
	skipped := load(Options{Fuel: true, Skip: []string{"*"}})
	if n := len(skipped.sm.Sites); n != 0 {
		t.Errorf("every function skipped: expected no sites, got %d", n)
	}
	for _, b := range []build{now, skipped} {
		b.fuel.Set(50)
		if _, err := b.mod.ExportedFunction("spin").Call(ctx, 0); err == nil || !strings.Contains(err.Error(), "unreachable") {
			t.Fatalf("spin: want an unreachable trap, got %v", err)
		}
		if got := int64(b.fuel.Get()); got != -1 {
			t.Errorf("spin: fuel after exhaustion %d, want -1", got)
		}
	}
	hang := uint32(now.mod.ExportedGlobal(now.sm.Layout.HangAtExport).Get())
	m, err := Decode(goDispatchWasm)
	if err != nil {
		t.Fatal(err)
	}
	// spin's resume point 1 starts after the second end following its br_table
	body := m.Code[1].Body.Instrs
	ends, want := 0, uint32(0)
	for k, in := range body {
		if in.Op == OpEnd {
			if ends++; ends == 2 {
				want = body[k+1].Off - m.CodeOffset
				break
			}
		}
	}
	if hang != want {
		t.Errorf("spin: hang at code offset %d, want %d (resume point 1's first instruction)", hang, want)
	}
}

// TestGoDispatchOtherModulesUnchanged: modules not built by Go are
// instrumented byte for byte as with CountGoDispatch (the C programs, and
// the dispatch-shaped module without Go's custom section), with every
// option a campaign uses.
func TestGoDispatchOtherModulesUnchanged(t *testing.T) {
	opts := Options{Fuel: true, DirtyPages: true, HeapGuard: true, StackCheck: true, StackDepth: true, CallPairs: true}
	for _, p := range []string{"testdata/programs/crunch/crunch.wasm", "testdata/programs/cwords/cwords.wasm", "testdata/godispatch.wasm"} {
		wasm, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		a, _, err := Instrument(wasm, opts)
		if err != nil {
			t.Fatal(err)
		}
		counted := opts
		counted.CountGoDispatch = true
		b, _, err := Instrument(wasm, counted)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: instrumented bytes differ with CountGoDispatch", p)
		}
	}
}
