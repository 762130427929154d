package instrument

import (
	"os"
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
		// below the stack, whose top is the pointer's initial value.
		{"../testdata/clib/clib.wasm", 3712, 70848},
		// No initialised data: the stack reaches down to 0 in effect.
		{"../testdata/stack/stack.wasm", 0, 0x10600},
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
