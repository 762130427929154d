package instrument

import (
	"bytes"
	"os"
	"slices"
	"testing"
)

// TestStackBounds: the stack pointer of LLVM-built modules and its bounds,
// in Instrument's Layout and from ExportStackPointer (which exports it
// under the same name); none for a module without a name section.
func TestStackBounds(t *testing.T) {
	tests := []struct {
		path      string
		low, high uint32 // both 0: no stack pointer
	}{
		// wasm-ld's default layout: the initialised data (1024..3712)
		// and the zero-initialised data below the stack, whose top is
		// the pointer's initial value; the code's highest access at a
		// constant address ends at 5300, 12 bytes short of the stack's
		// 64 KiB (0x114c0-0x10000 = 5312).
		{"../testdata/clib/clib.wasm", 5300, 70848},
		// No initialised data, zero-initialised data (the allocator's
		// state) up to 0x600, the stack's real bottom.
		{"../testdata/stack/stack.wasm", 0x5f4, 0x10600},
		// --stack-first: the stack from 0, the data above it.
		{"../testdata/stack/first.wasm", 0, 0x10000},
		{"../examples/rustini/rustini.wasm", 0, 1 << 20},
		{"../testdata/cxxcommand/stripped.wasm", 0, 0},
	}
	for _, tc := range tests {
		wasm, err := os.ReadFile(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		want := Layout{}
		if tc.high != 0 {
			want = Layout{StackPointerExport: "wafer.g0", StackLow: tc.low, StackHigh: tc.high}
		}
		_, sm, err := Instrument(wasm, Options{Fuel: true, DirtyPages: true})
		if err != nil {
			t.Fatal(err)
		}
		l := sm.Layout
		if l.StackPointerExport != want.StackPointerExport || l.StackLow != want.StackLow || l.StackHigh != want.StackHigh {
			t.Errorf("%s: Instrument: expected stack %q [%#x, %#x], got %q [%#x, %#x]", tc.path,
				want.StackPointerExport, want.StackLow, want.StackHigh, l.StackPointerExport, l.StackLow, l.StackHigh)
		}
		out, l, err := ExportStackPointer(wasm)
		if err != nil || l != want {
			t.Errorf("%s: ExportStackPointer: expected %+v, got %+v, %v", tc.path, want, l, err)
			continue
		}
		m, err := Decode(out)
		if err != nil {
			t.Fatal(err)
		}
		exported := false
		for _, e := range m.Exports {
			exported = exported || (e.Name == want.StackPointerExport && e.Kind == ExternGlobal && e.Index == 0)
		}
		if exported != (tc.high != 0) {
			t.Errorf("%s: expected the stack pointer exported: %v", tc.path, tc.high != 0)
		}
		checks := []struct {
			sp   uint32
			over bool
		}{{tc.high, false}, {tc.low, false}, {tc.high + 1, true}, {0xfffffff0, true}}
		if tc.low > 0 {
			checks = append(checks, struct {
				sp   uint32
				over bool
			}{tc.low - 1, true})
		}
		for _, c := range checks {
			if got := l.StackOverflow(c.sp); got != (c.over && tc.high != 0) {
				t.Errorf("%s: StackOverflow(%#x) = %v", tc.path, c.sp, got)
			}
		}
	}
}

// TestDepthStep: the steps of stack depths rise by at most one from one
// depth to the next, from 0 to DepthSites-1 over the 32-bit depths, eight
// per doubling past 128 bytes; DepthOfStep is the least depth of a step.
func TestDepthStep(t *testing.T) {
	prev := DepthStep(0)
	if prev != 0 {
		t.Fatalf("DepthStep(0) = %d", prev)
	}
	check := func(d uint32) {
		s := DepthStep(d)
		if s != prev && s != prev+1 {
			t.Fatalf("DepthStep(%d) = %d after %d", d, s, prev)
		}
		if s != prev && DepthOfStep(s) != d {
			t.Fatalf("step %d starts at depth %d, DepthOfStep says %d", s, d, DepthOfStep(s))
		}
		prev = s
	}
	for d := uint32(1); d < 1<<20; d++ {
		check(d)
	}
	// past 1 MiB, the steps' first depths and their neighbours
	for s := DepthStep(1<<20) + 1; s < DepthSites; s++ {
		d := DepthOfStep(s)
		if DepthStep(d-1) != s-1 || DepthStep(d) != s {
			t.Fatalf("step %d: DepthStep(%d) = %d, DepthStep(%d) = %d", s, d-1, DepthStep(d-1), d, DepthStep(d))
		}
	}
	if got := DepthStep(1<<32 - 1); got != DepthSites-1 {
		t.Errorf("DepthStep(max) = %d, expected %d", got, DepthSites-1)
	}
	if got := DepthStep(4096) - DepthStep(2048); got != 8 {
		t.Errorf("steps from 2 KiB to 4 KiB: %d, expected 8", got)
	}
}

// TestStackDepthSets: Options.StackDepth updates the lowest stack pointer
// after each set of the stack pointer but an epilogue's (plus a positive
// constant), and adds nothing to a module without a stack pointer.
func TestStackDepthSets(t *testing.T) {
	wasm, m, sb := stackModule(t, "../testdata/clib/clib.wasm")
	var sets, lowering int
	for i := range m.Code {
		b := m.Code[i].Body.Instrs
		for k := range b {
			if b[k].Op != OpGlobalSet || uint32(b[k].A) != sb.global {
				continue
			}
			sets++
			if k < 2 || b[k-1].Op != OpI32Add || b[k-2].Op != OpI32Const || int32(b[k-2].A) <= 0 {
				lowering++
			}
		}
	}
	out, sm, err := Instrument(wasm, Options{StackDepth: true})
	if err != nil {
		t.Fatal(err)
	}
	om, err := Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	var minSets int
	minGlobal := -1
	for _, e := range om.Exports {
		if e.Name == StackMinExport && e.Kind == ExternGlobal {
			minGlobal = int(e.Index)
		}
	}
	for i := range om.Code {
		for _, in := range om.Code[i].Body.Instrs {
			if in.Op == OpGlobalSet && int(in.A) == minGlobal {
				minSets++
			}
		}
	}
	if sets == 0 || lowering == sets || minSets != lowering {
		t.Errorf("clib.wasm: %d sets of the stack pointer, %d not epilogues: expected as many updates of the lowest, got %d", sets, lowering, minSets)
	}
	if l := sm.Layout; l.StackMinExport != StackMinExport || l.DepthSite+DepthSites != l.Counters || sm.Sites[l.DepthSite].Kind != StackDepth {
		t.Errorf("clib.wasm: expected %d depth sites at the end, got layout %+v", DepthSites, l)
	}

	stripped, err := os.ReadFile("../testdata/cxxcommand/stripped.wasm")
	if err != nil {
		t.Fatal(err)
	}
	a, sa, err := Instrument(stripped, Options{Fuel: true})
	if err != nil {
		t.Fatal(err)
	}
	b, sb2, err := Instrument(stripped, Options{Fuel: true, StackDepth: true})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) || sb2.Layout.StackMinExport != "" || len(sa.Sites) != len(sb2.Sites) {
		t.Errorf("stripped.wasm (no stack pointer): StackDepth changed the module")
	}
}

// TestStaticEnd: the stack's lower bound rises past loads and stores at
// constant addresses below it (the static data the code addresses), and
// not for a constant that is no address or an address within minStack of
// the stack's top.
func TestStaticEnd(t *testing.T) {
	_, m, base := stackModule(t, "../testdata/stack/stack.wasm")
	body := &m.Code[0].Body
	orig := body.Instrs
	tests := []struct {
		name string
		code []Instr
		low  uint32
	}{
		{"no address", []Instr{{Op: OpI32Const, A: 0x8000}, {Op: OpDrop}}, base.low},
		{"near the top", []Instr{{Op: OpI32Const, A: uint64(base.high - 100)}, {Op: OpI32Load}, {Op: OpDrop}}, base.low},
		{"load", []Instr{{Op: OpI32Const, A: 0x2000}, {Op: OpI32Load, A: 4}, {Op: OpDrop}}, 0x2008},
		{"store", []Instr{{Op: OpI32Const, A: 0x3000}, {Op: OpLocalGet}, {Op: OpI32Const, A: 1}, {Op: OpI32Add}, {Op: OpI32Store16, A: 8}}, 0x300a},
	}
	for _, tc := range tests {
		body.Instrs = append(slices.Clone(tc.code), orig...)
		sb, ok := findStack(m)
		if !ok || sb.low != tc.low || sb.high != base.high {
			t.Errorf("%s: expected the stack [%#x, %#x], got [%#x, %#x] (%v)", tc.name, tc.low, base.high, sb.low, sb.high, ok)
		}
	}
}

// stackModule reads and decodes the module at path and finds its stack
// pointer, which it must have.
func stackModule(t *testing.T, path string) ([]byte, *Module, stackBounds) {
	t.Helper()
	wasm, m := decodeFile(t, path)
	sb, ok := findStack(m)
	if !ok {
		t.Fatalf("%s: no stack pointer", path)
	}
	return wasm, m, sb
}
