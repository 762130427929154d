package instrument

import (
	"strings"
	"testing"
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

// TestGoCallChecksShape: goCallChecks finds nothing when the shape of
// Go's unwindExit block or of the stack check is broken by one
// instruction, and finds both in goframe.wat's f (which has no stack
// check: its br_if only) and in a stack check put in front of it.
func TestGoCallChecksShape(t *testing.T) {
	m, err := Decode(asGoModule(goFrameWasm))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Code[0].Body
	d := findGoDispatch(&f)
	checks := goCallChecks(f.Instrs, d)
	if len(checks) != 1 {
		t.Fatalf("f: expected its one unwind br_if, got %v", checks)
	}
	le := d.table + 2 + 4 // after the dispatch's end: SP, g, wrap, load, then the comparison
	withCheck := func(large bool) []Instr {
		c := []Instr{{Op: OpLocalGet, A: 1}, {Op: OpGlobalGet, A: 1}, {Op: OpI32WrapI64}, {Op: OpI32Load, A: 16, B: 2}}
		if large {
			c = append(c, Instr{Op: OpI32Const, A: 1000}, Instr{Op: OpI32Add})
		}
		c = append(c, Instr{Op: OpI32LeU}, Instr{Op: OpIf, C: 0x40}, Instr{Op: OpI32Const}, Instr{Op: OpCall, A: 1},
			Instr{Op: OpGlobalGet}, Instr{Op: OpLocalSet, A: 1}, Instr{Op: OpBrIf, A: 4}, Instr{Op: OpEnd})
		return append(append(append([]Instr(nil), f.Instrs[:d.table+2]...), c...), f.Instrs[d.table+2:]...)
	}
	for _, large := range []bool{false, true} {
		body := withCheck(large)
		at := le
		if large {
			at += 2
		}
		got := goCallChecks(body, findGoDispatch(&Expr{Instrs: body, Pool: f.Pool}))
		if len(got) != 4 || !got[at] || !got[at+1] || !got[at+6] {
			t.Errorf("stack check (large frame %v): expected the comparison at %d, the if and two br_ifs, got %v", large, at, got)
		}
	}
	for _, tc := range []struct {
		name  string
		at    func(body []Instr) int // the instruction to change
		to    Instr
		check bool // whether the unwind br_if is still found
	}{
		{"i32.const 1 after unwindExit is 2", func(b []Instr) int { return len(b) - 2 }, Instr{Op: OpI32Const, A: 2}, false},
		{"no unreachable before unwindExit's end", func(b []Instr) int { return len(b) - 4 }, Instr{Op: OpNop}, false},
		{"stackguard0 at another offset", func([]Instr) int { return le - 1 }, Instr{Op: OpI32Load, A: 24, B: 2}, true},
		{"a greater-than comparison", func([]Instr) int { return le }, Instr{Op: OpI32GtU}, true},
		{"a jump in the arm", func([]Instr) int { return le + 2 }, Instr{Op: OpBr, A: 0}, true},
	} {
		body := withCheck(false)
		body[tc.at(body)] = tc.to
		got := goCallChecks(body, findGoDispatch(&Expr{Instrs: body, Pool: f.Pool}))
		if got[le] || got[le+1] || (len(got) > 0) != tc.check {
			t.Errorf("%s: expected no stack check and the unwind br_ifs found: %v, got %v", tc.name, tc.check, got)
		}
	}
}

// TestGoCallChecksRegions: in gocalc, built as campaigns build it, the
// code after an unwind br_if is in the region of the code before it, and
// so is the code after a stack check (a call does not end a region, and
// the checks have no sites to start one).
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
				if before, arm, after := at(&body[k-1]), at(&body[k+1]), at(&body[end+1]); before == NoRegion || arm != before || after != before {
					t.Fatalf("function %d: the stack check at %d is in region %d, its arm in %d, the code after it in %d", i, k, before, arm, after)
				}
			}
		}
	}
	if unwinds == 0 || stacks == 0 {
		t.Fatalf("%d unwind br_ifs and %d stack checks checked", unwinds, stacks)
	}
}
