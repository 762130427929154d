package instrument

import (
	"context"
	_ "embed"
	"slices"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero/api"
)

// TestGoStackCheckPrograms checks goStackCheck on real Go programs
// against a description of Go's code written another way, by names: in
// every function with a recognised dispatch, an if is found as the stack
// check exactly when its call is to runtime.morestack or
// runtime.morestack_noctxt. Most functions with a dispatch must have
// one: a share that falls means a form of Go's code generator stopped
// being recognised.
func TestGoStackCheckPrograms(t *testing.T) {
	for _, path := range []string{"testdata/programs/gocalc/gocalc.wasm", "../examples/gojson/gojson.wasm", "../examples/goparser/goparser.wasm"} {
		_, m := decodeFile(t, path)
		names := funcNames(m)
		nimp := m.NumImported(ExternFunc)
		var dispatched, checked int
		for i := range m.Code {
			d := findGoDispatch(&m.Code[i].Body)
			if d.table < 0 {
				continue
			}
			dispatched++
			body := m.Code[i].Body.Instrs
			le, found := goStackCheck(body, d)
			for k := range body {
				if body[k].Op != OpIf {
					continue
				}
				morestack := false
				for j := k + 1; j < len(body) && body[j].Op != OpEnd; j++ {
					if body[j].Op == OpCall {
						morestack = strings.HasPrefix(names[body[j].A], "runtime.morestack")
					}
				}
				if is := found && k == le+1; morestack != is {
					t.Errorf("%s: %s: if at %d calls morestack: %v, found as the stack check: %v", path, names[nimp+uint32(i)], k, morestack, is)
				}
			}
			if found {
				checked++
				if body[le].Op != OpI32LeU {
					t.Errorf("%s: %s: the stack check's comparison at %d is %v", path, names[nimp+uint32(i)], le, body[le].Op)
				}
			}
		}
		share := float64(checked) / float64(dispatched)
		t.Logf("%s: stack checks in %d of %d functions with a dispatch", path, checked, dispatched)
		if share < 0.8 {
			t.Errorf("%s: stack checks found in %.1f%% of the functions with a dispatch, expected at least 80%%", path, 100*share)
		}
	}
}

//go:embed testdata/gostack.wasm
var goStackWasm []byte

// TestGoStackCheckShape: goStackCheck finds gostack.wat's stack checks
// (of a small and of a large frame), and none when one instruction of
// the check or of the shape of Go's unwindExit block changes.
func TestGoStackCheckShape(t *testing.T) {
	m, err := Decode(asGoModule(goStackWasm))
	if err != nil {
		t.Fatal(err)
	}
	const f, big = 2, 3            // defined functions
	le := func(body []Instr) int { // the stack check's comparison
		for k := range body {
			if body[k].Op == OpI32LeU {
				return k
			}
		}
		t.Fatal("no i32.le_u")
		return 0
	}
	for _, i := range []int{f, big} {
		e := &m.Code[i].Body
		if got, ok := goStackCheck(e.Instrs, findGoDispatch(e)); !ok || got != le(e.Instrs) {
			t.Errorf("function %d: expected the stack check at %d, got %d, %v", i, le(e.Instrs), got, ok)
		}
	}
	e := &m.Code[f].Body
	at := le(e.Instrs)
	for _, tc := range []struct {
		name string
		k    int // the instruction to change
		to   Instr
	}{
		{"i32.const 1 after unwindExit is 2", len(e.Instrs) - 2, Instr{Op: OpI32Const, A: 2}},
		{"no unreachable before unwindExit's end", len(e.Instrs) - 4, Instr{Op: OpNop}},
		{"stackguard0 at another offset", at - 1, Instr{Op: OpI32Load, A: 24, B: 2}},
		{"a greater-than comparison", at, Instr{Op: OpI32GtU}},
		{"an if with a result", at + 1, Instr{Op: OpIf, C: 0x7f}},
		{"a jump in the arm", at + 2, Instr{Op: OpBr, A: 0}},
		{"a second call in the arm", at + 9, Instr{Op: OpCall, A: 1}},
		{"the arm's br_if to another block", at + 14, Instr{Op: OpBrIf, A: 2}},
	} {
		body := slices.Clone(e.Instrs)
		body[tc.k] = tc.to
		if got, ok := goStackCheck(body, findGoDispatch(&Expr{Instrs: body, Pool: e.Pool})); ok {
			t.Errorf("%s: found a stack check at %d", tc.name, got)
		}
	}
}

// TestGoStackCheckRun runs gostack.wat with the stack check passing and
// failing (morestack called, the function unwound) and with the callee
// unwinding: the original, the build that counts the stack checks' then
// arms only and the one that counts both return the same, and the first
// has no site for the else arms.
func TestGoStackCheckRun(t *testing.T) {
	wasm := asGoModule(goStackWasm)
	ctx := context.Background()
	orig, now, nowSM := instantiatePair(t, wasm, Options{Fuel: true, DirtyPages: true})
	_, before, beforeSM := instantiatePair(t, wasm, Options{Fuel: true, DirtyPages: true, CountGoStackChecks: true})
	for _, tc := range []struct{ guard, unwind, want uint64 }{
		{0, 0, 0},                // SP above stackguard0: no morestack
		{0x8000, 0, 1 + 2 + 4*2}, // both checks call morestack, which unwinds
		{0x7ff0, 0, 2 + 4},       // only the large frame's check does
		{0, 1, 1 + 2},            // the callee unwinds
	} {
		for name, mod := range map[string]api.Module{"original": orig, "then arms counted": now, "both arms counted": before} {
			res, err := mod.ExportedFunction("run").Call(ctx, tc.guard, tc.unwind)
			if err != nil {
				t.Fatalf("%s: run(%#x, %d): %v", name, tc.guard, tc.unwind, err)
			}
			if res[0] != tc.want {
				t.Errorf("%s: run(%#x, %d) = %d, want %d", name, tc.guard, tc.unwind, res[0], tc.want)
			}
		}
	}
	if d := len(beforeSM.Sites) - len(nowSM.Sites); d != 2 {
		t.Errorf("%d sites with both arms of the stack checks counted, %d with the then arm only: expected 2 more", len(beforeSM.Sites), len(nowSM.Sites))
	}
	kinds := map[SiteKind]int{}
	for _, s := range nowSM.Sites {
		kinds[s.Kind]++
	}
	if kinds[IfThen] != 2 || kinds[IfElse] != 0 || kinds[BrIfTaken] != 4 || kinds[BrIfNotTaken] != 4 {
		t.Errorf("sites by kind %v: expected the two stack checks' then arms and both arms of the four br_ifs", kinds)
	}
}

// TestGoStackCheckRegions: in gocalc, built as campaigns build it, the
// arm of a stack check is its IfThen site's region and the code after
// it is in the region of the code before it (the else has no site to
// start one).
func TestGoStackCheckRegions(t *testing.T) {
	wasm, m := decodeFile(t, "testdata/programs/gocalc/gocalc.wasm")
	_, sm, err := Instrument(wasm, Options{Fuel: true, DirtyPages: true})
	if err != nil {
		t.Fatal(err)
	}
	at := func(in *Instr) uint32 { return regionAt(sm, in.Off-m.CodeOffset) }
	checked := 0
	for i := range m.Code {
		body := m.Code[i].Body.Instrs
		le, ok := goStackCheck(body, findGoDispatch(&m.Code[i].Body))
		if !ok {
			continue
		}
		checked++
		k := le + 1
		end := k + 1
		for body[end].Op != OpEnd {
			end++
		}
		if before, arm, after := at(&body[k-1]), at(&body[k+1]), at(&body[end+1]); before == NoRegion || arm == NoRegion || sm.Sites[arm].Kind != IfThen || after != before {
			t.Fatalf("function %d: the stack check at %d is in region %d, its arm in %d, the code after it in %d", i, k, before, arm, after)
		}
	}
	if checked == 0 {
		t.Fatal("no stack check")
	}
}
