package instrument

import (
	"context"
	_ "embed"
	"slices"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero/api"
)

// TestGoCallChecksPrograms checks goCallChecks on real Go programs
// against a description of Go's code written another way: by names and
// by what precedes an instruction. In every function with a recognised
// dispatch, the unwind br_ifs found must be exactly the br_ifs that
// follow a call, direct or indirect, and the reload of SP (`call;
// global.get 0; local.set L; br_if`), and the stack checks found exactly
// the ifs whose only call is to runtime.morestack or
// runtime.morestack_noctxt. Most functions with a dispatch must have a
// stack check: a share that falls means a form of Go's code generator
// stopped being recognised.
func TestGoCallChecksPrograms(t *testing.T) {
	for _, path := range []string{"testdata/programs/gocalc/gocalc.wasm", "../examples/gojson/gojson.wasm", "../examples/goparser/goparser.wasm"} {
		_, m := decodeFile(t, path)
		names := funcNames(m)
		nimp := m.NumImported(ExternFunc)
		var dispatched, checked, unwinds int
		for i := range m.Code {
			c := &m.Code[i]
			d := findGoDispatch(&c.Body)
			if d.table < 0 {
				continue
			}
			dispatched++
			body := c.Body.Instrs
			checks := goCallChecks(body, d)
			stack := false
			for k := range body {
				in := &body[k]
				switch in.Op {
				case OpBrIf:
					after := k >= 3 && (body[k-3].Op == OpCall || body[k-3].Op == OpCallIndirect) && body[k-2].Op == OpGlobalGet && body[k-2].A == 0 && body[k-1].Op == OpLocalSet
					if after != checks[k] {
						t.Errorf("%s: %s: br_if at %d after a call and SP's reload: %v, found as an unwind check: %v", path, names[nimp+uint32(i)], k, after, checks[k])
					}
					if checks[k] {
						unwinds++
					}
				case OpIf:
					morestack := false
					for j := k + 1; j < len(body) && body[j].Op != OpEnd; j++ {
						if body[j].Op == OpCall {
							morestack = strings.HasPrefix(names[body[j].A], "runtime.morestack")
						}
					}
					if morestack != checks[k] || checks[k] != checks[k-1] || (checks[k] && body[k-1].Op != OpI32LeU) {
						t.Errorf("%s: %s: if at %d calls morestack: %v, found as a stack check: %v (its comparison: %v)", path, names[nimp+uint32(i)], k, morestack, checks[k], checks[k-1])
					}
					stack = stack || checks[k]
				}
			}
			if stack {
				checked++
			}
		}
		share := float64(checked) / float64(dispatched)
		t.Logf("%s: %d unwind br_ifs; stack checks in %d of %d functions with a dispatch", path, unwinds, checked, dispatched)
		if share < 0.8 || unwinds == 0 {
			t.Errorf("%s: stack checks found in %.1f%% of the functions with a dispatch, %d unwind br_ifs; expected at least 80%% and some", path, 100*share, unwinds)
		}
	}
}

//go:embed testdata/gocalls.wasm
var goCallsWasm []byte

// TestGoCallChecksShape: goCallChecks finds gocalls.wat's stack checks
// (of a small and of a large frame) and unwind br_ifs, finds no stack
// check when one instruction of its shape changes, and nothing when the
// shape of Go's unwindExit block breaks.
func TestGoCallChecksShape(t *testing.T) {
	m, err := Decode(asGoModule(goCallsWasm))
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
		checks := goCallChecks(e.Instrs, findGoDispatch(e))
		at := le(e.Instrs)
		var unwinds int
		for k := range checks {
			if e.Instrs[k].Op == OpBrIf {
				unwinds++
			}
		}
		if len(checks) != 4 || !checks[at] || !checks[at+1] || unwinds != 2 {
			t.Errorf("function %d: expected the stack check at %d and two unwind br_ifs, got %v", i, at, checks)
		}
	}
	e := &m.Code[f].Body
	at := le(e.Instrs)
	for _, tc := range []struct {
		name  string
		k     int // the instruction to change
		to    Instr
		found int // checks still found
	}{
		{"i32.const 1 after unwindExit is 2", len(e.Instrs) - 2, Instr{Op: OpI32Const, A: 2}, 0},
		{"no unreachable before unwindExit's end", len(e.Instrs) - 4, Instr{Op: OpNop}, 0},
		{"stackguard0 at another offset", at - 1, Instr{Op: OpI32Load, A: 24, B: 2}, 2},
		{"a greater-than comparison", at, Instr{Op: OpI32GtU}, 2},
		{"an if with a result", at + 1, Instr{Op: OpIf, C: 0x7f}, 2},
		{"a jump in the arm", at + 2, Instr{Op: OpBr, A: 0}, 2},
		{"a second call in the arm", at + 9, Instr{Op: OpCall, A: 1}, 2},
	} {
		body := slices.Clone(e.Instrs)
		body[tc.k] = tc.to
		got := goCallChecks(body, findGoDispatch(&Expr{Instrs: body, Pool: e.Pool}))
		if got[at] || got[at+1] || len(got) != tc.found {
			t.Errorf("%s: expected no stack check and %d checks, got %v", tc.name, tc.found, got)
		}
	}
}

// TestGoCallChecksRun runs gocalls.wat with the stack check passing and
// failing (morestack called, the function unwound) and with the callee
// unwinding: the original, the build that counts the checks' rare arms
// only and the one that counts both return the same, and the first has
// no site for the arm every call takes (the else of two ifs, the
// fall-through of four br_ifs).
func TestGoCallChecksRun(t *testing.T) {
	wasm := asGoModule(goCallsWasm)
	ctx := context.Background()
	orig, now, nowSM := instantiatePair(t, wasm, Options{Fuel: true, DirtyPages: true})
	_, before, beforeSM := instantiatePair(t, wasm, Options{Fuel: true, DirtyPages: true, CountGoCallChecks: true})
	for _, tc := range []struct{ guard, unwind, want uint64 }{
		{0, 0, 0},                // SP above stackguard0: no morestack
		{0x8000, 0, 1 + 2 + 4*2}, // both checks call morestack, which unwinds
		{0x7ff0, 0, 2 + 4},       // only the large frame's check does
		{0, 1, 1 + 2},            // the callee unwinds
	} {
		for name, mod := range map[string]api.Module{"original": orig, "rare arms counted": now, "both arms counted": before} {
			res, err := mod.ExportedFunction("run").Call(ctx, tc.guard, tc.unwind)
			if err != nil {
				t.Fatalf("%s: run(%#x, %d): %v", name, tc.guard, tc.unwind, err)
			}
			if res[0] != tc.want {
				t.Errorf("%s: run(%#x, %d) = %d, want %d", name, tc.guard, tc.unwind, res[0], tc.want)
			}
		}
	}
	if d := len(beforeSM.Sites) - len(nowSM.Sites); d != 2+4 {
		t.Errorf("%d sites with both arms of the checks counted, %d with the rare arm only: expected 6 more", len(beforeSM.Sites), len(nowSM.Sites))
	}
	kinds := map[SiteKind]int{}
	for _, s := range nowSM.Sites {
		kinds[s.Kind]++
	}
	if kinds[IfThen] != 2 || kinds[BrIfTaken] != 4 || kinds[IfElse] != 0 || kinds[BrIfNotTaken] != 0 {
		t.Errorf("sites by kind %v: expected the two stack checks' then arms and the four br_ifs' taken arms only", kinds)
	}
}

// TestGoCallChecksRegions: in gocalc, built as campaigns build it, the
// code after an unwind br_if is in the region of the code before it, and
// so is the code after a stack check, whose arm is its IfThen site's (a
// call does not end a region, and the arm every call takes has no site
// to start one).
func TestGoCallChecksRegions(t *testing.T) {
	wasm, m := decodeFile(t, "testdata/programs/gocalc/gocalc.wasm")
	_, sm, err := Instrument(wasm, Options{Fuel: true, DirtyPages: true})
	if err != nil {
		t.Fatal(err)
	}
	at := func(in *Instr) uint32 { return regionAt(sm, in.Off-m.CodeOffset) }
	var unwinds, stacks int
	for i := range m.Code {
		body := m.Code[i].Body.Instrs
		checks := goCallChecks(body, findGoDispatch(&m.Code[i].Body))
		for k := range body {
			if !checks[k] || k+1 >= len(body) {
				continue
			}
			switch body[k].Op {
			case OpBrIf:
				unwinds++
				if before, after := at(&body[k]), at(&body[k+1]); before == NoRegion || after != before {
					t.Fatalf("function %d: the unwind br_if at %d is in region %d, the code after it in %d", i, k, before, after)
				}
			case OpIf:
				stacks++
				end := k + 1
				for body[end].Op != OpEnd {
					end++
				}
				if before, arm, after := at(&body[k-1]), at(&body[k+1]), at(&body[end+1]); before == NoRegion || arm == NoRegion || sm.Sites[arm].Kind != IfThen || after != before {
					t.Fatalf("function %d: the stack check at %d is in region %d, its arm in %d, the code after it in %d", i, k, before, arm, after)
				}
			}
		}
	}
	if unwinds == 0 || stacks == 0 {
		t.Fatalf("%d unwind br_ifs and %d stack checks checked", unwinds, stacks)
	}
}
