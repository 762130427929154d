package instrument

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// TestUncheckedAccess: the heap check skips accesses at constant
// addresses and those addressed from the stack pointer through locals set
// only from it (or from each other) plus constants; it checks the rest,
// parameters and locals set from anything else included.
func TestUncheckedAccess(t *testing.T) {
	const sp = 0
	body := []Instr{
		{Op: OpGlobalGet, A: sp}, {Op: OpI32Const, A: 16}, {Op: OpI32Sub}, {Op: OpLocalTee, A: 1}, {Op: OpGlobalSet, A: sp}, // 0-4: $1 frame
		{Op: OpLocalGet, A: 1}, {Op: OpI32Const, A: 8}, {Op: OpI32Add}, {Op: OpLocalSet, A: 2}, // 5-8: $2 = $1+8
		{Op: OpLocalGet, A: 0}, {Op: OpLocalSet, A: 3}, // 9-10: $3 = the parameter
		{Op: OpGlobalGet, A: sp}, {Op: OpLocalSet, A: 4}, {Op: OpLocalGet, A: 0}, {Op: OpLocalSet, A: 4}, // 11-14: $4 set from both
		{Op: OpLocalGet, A: 2}, {Op: OpI32Load, A: 4}, {Op: OpDrop}, // 15-17
		{Op: OpLocalGet, A: 3}, {Op: OpI32Load}, {Op: OpDrop}, // 18-20
		{Op: OpI32Const, A: 1024}, {Op: OpI32Load}, {Op: OpDrop}, // 21-23
		{Op: OpLocalGet, A: 1}, {Op: OpI32Const, A: 4}, {Op: OpI32Add}, {Op: OpI32Const, A: 7}, {Op: OpI32Store}, // 24-28
		{Op: OpLocalGet, A: 3}, {Op: OpI32Const, A: 7}, {Op: OpI32Store}, // 29-31
		{Op: OpLocalGet, A: 4}, {Op: OpI32Load}, {Op: OpDrop}, // 32-34
		{Op: OpLocalGet, A: 0}, {Op: OpLocalGet, A: 1}, {Op: OpI32Load}, {Op: OpI32Store}, // 35-38: *param = *$1
		{Op: OpEnd},
	}
	frame := frameLocals(body, 1, 5, sp, nil)
	if want := []bool{false, true, true, false, false}; len(frame) != len(want) || frame[0] != want[0] || frame[1] != want[1] || frame[2] != want[2] || frame[3] != want[3] || frame[4] != want[4] {
		t.Fatalf("frame locals: expected %v, got %v", want, frame)
	}
	for _, tc := range []struct {
		k         int
		unchecked bool
	}{
		{16, true}, {19, false}, {22, true}, {28, true}, {31, false}, {33, false}, {37, true}, {38, false},
	} {
		if got := uncheckedAccess(body, tc.k, sp, true, frame); got != tc.unchecked {
			t.Errorf("access %d (%v): unchecked %v, expected %v", tc.k, body[tc.k].Op, got, tc.unchecked)
		}
	}
	// without a stack pointer only constant addresses go unchecked
	if uncheckedAccess(body, 16, sp, false, frame) || !uncheckedAccess(body, 22, sp, false, frame) {
		t.Error("without a stack pointer: expected only the constant address unchecked")
	}
}

// TestHeapCheckSameSites: the build with the heap check has the sites of
// the build without it (a campaign scans both builds' counters into one
// coverage map), on the heap check's fixture and on SQLite.
func TestHeapCheckSameSites(t *testing.T) {
	for _, path := range []string{"../testdata/heapcheck/check.wasm", "../examples/csqlite/csqlite.wasm"} {
		wasm, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{Fuel: true, DirtyPages: true, HeapGuard: true, StackCheck: true, StackDepth: true, CallPairs: true}
		_, plain, err := Instrument(wasm, opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.HeapCheck = true
		_, checked, err := Instrument(wasm, opts)
		if err != nil {
			t.Fatal(err)
		}
		if checked.Layout.ShadowBytes == 0 || !slices.Equal(plain.Sites, checked.Sites) {
			t.Fatalf("%s: shadow %d bytes; %d sites with the check, %d without, equal: %v", path, checked.Layout.ShadowBytes,
				len(checked.Sites), len(plain.Sites), slices.Equal(plain.Sites, checked.Sites))
		}
	}
}

//go:embed testdata/heaptrap.wasm
var heapTrapWasm []byte

// TestHeapCheckTrapBlock: a checked function branches to one trap block
// around its body (openTrap). Valid accesses give the original's results
// whichever way the function's label is reached (return, br_if, falling
// through, with two results); a read past a block, and a bulk fill past
// one, trap with the function that made them on top of the stack; a
// function with no check gets no trap block.
func TestHeapCheckTrapBlock(t *testing.T) {
	out, sm, err := Instrument(heapTrapWasm, Options{Fuel: true, DirtyPages: true, HeapGuard: true, HeapCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	if sm.Layout.ShadowBytes == 0 {
		t.Fatal("no shadow: expected the allocator wrapped")
	}
	valid := []coreCall{call("run", 0, 16), call("run", 1, 16), call("run", 2, 16), call("run", 0, 4), call("run", 1, 8), call("none", 41)}
	sameResults(t, heapTrapWasm, out, valid)

	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCoreFeatures(api.CoreFeaturesV2))
	defer rt.Close(ctx)
	mod, err := rt.Instantiate(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c   coreCall
		top string // the stack trace's first frame
	}{
		{call("run", 0, 3), "pair"},  // a 4-byte read of a 3-byte block, then return
		{call("run", 1, 7), "pair"},  // the second word of a 7-byte block, then br_if
		{call("run", 2, 12), "pair"}, // a double word past a 12-byte block, falling through
		{call("fillpast", 20), "fillpast"},
	} {
		_, err := mod.ExportedFunction(tc.c.fn).Call(ctx, tc.c.args...)
		_, trace, _ := strings.Cut(fmt.Sprint(err), "wasm stack trace:\n\t")
		if err == nil || !strings.Contains(err.Error(), "unreachable") || !strings.HasPrefix(trace, "."+tc.top+"(") {
			t.Errorf("%s%v: expected an unreachable trap in %s, got %v", tc.c.fn, tc.c.args, tc.top, err)
		}
		if v := mod.ExportedGlobal(sm.Layout.HeapExport).Get(); v>>32&0xff != HeapReadOverflow && v>>32&0xff != HeapWriteOverflow {
			t.Errorf("%s%v: heap error global %#x, expected an overflow", tc.c.fn, tc.c.args, v)
		}
	}

	m, err := Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	names := funcNames(m)
	nimp := m.NumImported(ExternFunc)
	for i := range m.Code {
		body := m.Code[i].Body.Instrs
		n := len(body)
		trapBlock := n >= 5 && body[n-5].Op == OpEnd && body[n-4].Op == OpReturn && body[n-3].Op == OpEnd && body[n-2].Op == OpUnreachable
		switch names[nimp+uint32(i)] {
		case "pair", "run", "fillpast":
			if !trapBlock {
				t.Errorf("%s: no trap block", names[nimp+uint32(i)])
			}
		case "none":
			if trapBlock || body[0].Op != OpNop || body[1].Op != OpNop {
				t.Errorf("none: expected no trap block, two nops in its place: %v", body[:2])
			}
		}
	}
}
