package instrument

import (
	_ "embed"
	"reflect"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero/api"
)

// testdata/nest.wat, rebuilt by testdata/build.sh.
//
//go:embed testdata/nest.wasm
var nestWasm []byte

// testNestSites lets every loop of testdata/nest.wat count in locals (the
// default, maxNestSites, admits only the two-site ones).
const testNestSites = 8

func nestOpts(o Options) Options {
	o.nestSites = testNestSites
	return o
}

// funcCounters returns the counters of the named function's sites in
// instruction order.
func funcCounters(t *testing.T, sm *SiteMap, c []byte, name string) []byte {
	t.Helper()
	var out []byte
	for i, s := range instrOrder(sm, sm.Sites) {
		if sm.Funcs[s.Func].Name == name {
			out = append(out, instrOrder(sm, c)[i])
		}
	}
	if out == nil {
		t.Fatalf("no sites in %s", name)
	}
	return out
}

// TestLeafNestCounters checks every way of leaving a leaf loop: the
// counters after the run are exactly the hits (saturating at 255), as with
// memory counters, and the results match the original module's.
func TestLeafNestCounters(t *testing.T) {
	out, sm, err := Instrument(nestWasm, nestOpts(Options{}))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		calls []coreCall
		fn    string
		want  []byte // in instruction order
	}{
		// entry, if then, if else, br_if taken, br_if not taken
		{"sum(5) falls through the end", []coreCall{call("sum", 5)}, "sum", []byte{1, 2, 3, 4, 1}},
		{"sum(1000) saturates", []coreCall{call("sum", 1000)}, "sum", []byte{1, 255, 255, 255, 1}},
		{"saturation across calls", []coreCall{call("sum", 1000), call("sum", 5)}, "sum", []byte{2, 255, 255, 255, 2}},
		// entry, br_if $done taken/not, if then/else, br_if $inner taken/not, br_if $outer taken/not
		{"nested(2) leaves the inner loop by br_if past both loops", []coreCall{call("nested", 2)}, "nested", []byte{1, 1, 14, 0, 14, 7, 7, 7, 0}},
		{"nested(200) leaves by return", []coreCall{call("nested", 200)}, "nested", []byte{1, 0, 101, 1, 100, 100, 0, 0, 0}},
		// entry, br_table arms 0, 1, default
		{"table(5) leaves by a br_table arm", []coreCall{call("table", 5)}, "table", []byte{1, 3, 2, 1}},
		{"table(600)", []coreCall{call("table", 600)}, "table", []byte{1, 255, 255, 1}},
		// entry, br_if taken, not taken
		{"vexit(4) leaves by a valued br_if", []coreCall{call("vexit", 4)}, "vexit", []byte{1, 1, 4}},
		// A trap inside a leaf nest loses the nest's pending counts.
		{"trap(5)", []coreCall{call("trap", 5)}, "trap", []byte{1, 0, 0}},
		// Not a leaf nest (it calls): memory counters survive the trap.
		{"withcall(10)", []coreCall{call("withcall", 10)}, "withcall", []byte{1, 3, 0}},
		{"check in withcall(10)", []coreCall{call("withcall", 10)}, "check", []byte{4, 1, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mod := sameResults(t, nestWasm, out, tc.calls)
			if c := funcCounters(t, sm, counters(t, mod, sm), tc.fn); !reflect.DeepEqual(c, tc.want) {
				t.Errorf("%s counters\n got %v\nwant %v", tc.fn, c, tc.want)
			}
		})
	}
}

// TestLeafNestFuel: when fuel runs out inside a leaf nest, the counts of
// the iterations that ran are flushed before the trap.
func TestLeafNestFuel(t *testing.T) {
	out, sm, err := Instrument(nestWasm, nestOpts(Options{Fuel: true}))
	if err != nil {
		t.Fatal(err)
	}
	const fuel = 50
	res, mod := coreRun(t, out, []coreCall{call("spin")}, func(m api.Module) {
		m.ExportedGlobal(FuelExport).(api.MutableGlobal).Set(fuel)
	})
	if !strings.Contains(res[0], "unreachable") {
		t.Fatalf("spin: expected the fuel trap, got %q", res[0])
	}
	if f := int64(mod.ExportedGlobal(FuelExport).Get()); f >= 0 {
		t.Errorf("fuel after the trap = %d, expected < 0", f)
	}
	// One unit per loop header (spin starts with its loop: none at
	// entry): the header of iteration fuel+1 traps, after fuel taken back
	// edges.
	if c := funcCounters(t, sm, counters(t, mod, sm), "spin"); !reflect.DeepEqual(c, []byte{1, fuel, 0}) {
		t.Errorf("spin counters %v, expected [1 %d 0]", c, fuel)
	}
}

// TestLeafNestFuelBurn: a leaf loop burns its fuel in a local and stores it
// back when it leaves, so the fuel left is exactly as if it had used the
// global: one unit per loop header (these functions all start with a
// loop, so their entries burn none: loopsFirst).
func TestLeafNestFuelBurn(t *testing.T) {
	out, _, err := Instrument(nestWasm, nestOpts(Options{Fuel: true}))
	if err != nil {
		t.Fatal(err)
	}
	const fuel = 1000
	for _, tc := range []struct {
		call coreCall
		burn int64
	}{
		{call("sum", 100), 100},           // falls through
		{call("vexit", 10), 11},           // leaves by br_if on the 11th header
		{call("nested", 200), 1 + 101},    // outer header, 101 inner headers, return
		{call("withcall", 3), 3},          // not a leaf loop: 3 headers; check neither loops nor calls: no fuel
		{call("table", 3), 4},             // leaves by a br_table arm on the 4th header
		{call("nested", 2), 8 + 8*2 - 1},  // 8 outer headers, 2 inner each but the last
		{call("trap", 1000), 1000},        // never traps for n=1000: i runs 0..999
		{call("sum", 1), 1},               // one iteration
		{call("nested", 100000), 1 + 101}, // return before n matters
		{call("vexit", 0), 1},             // leaves at once
		{call("table", 0), 1},             // leaves at once
	} {
		_, mod := coreRun(t, out, []coreCall{tc.call}, func(m api.Module) {
			m.ExportedGlobal(FuelExport).(api.MutableGlobal).Set(fuel)
		})
		if left := int64(mod.ExportedGlobal(FuelExport).Get()); left != fuel-tc.burn {
			t.Errorf("%s%v: fuel left %d, expected %d", tc.call.fn, tc.call.args, left, fuel-tc.burn)
		}
	}
}

func TestLeafNests(t *testing.T) {
	m, err := Decode(nestWasm)
	if err != nil {
		t.Fatal(err)
	}
	names := funcNames(m)
	// sites counted in locals in each function's leaf loop (exit arms count
	// in memory, derived sites nowhere: nested's first br_if falls through
	// to its if); 0: no leaf loop
	want := map[string]int{"sum": 3, "nested": 3, "table": 2, "vexit": 1, "spin": 1, "trap": 1, "check": 0, "withcall": 0}
	inLocals := func(acc []bool) (n int) {
		for _, a := range acc {
			if a {
				n++
			}
		}
		return n
	}
	for i := range m.Code {
		name := names[uint32(i)]
		got := leafNests(&m.Code[i].Body, testNestSites, planOf(m.Code[i].Body.Instrs))
		n := 0
		for _, acc := range got {
			n += inLocals(acc)
		}
		if len(got) > 1 || n != want[name] {
			t.Errorf("%s: nests %v, expected one with %d sites in locals", name, got, want[name])
		}
	}
	// The default admits loops with at most maxNestSites in locals.
	for i := range m.Code {
		name := names[uint32(i)]
		w := want[name] > 0 && want[name] <= maxNestSites
		if n := len(leafNests(&m.Code[i].Body, maxNestSites, planOf(m.Code[i].Body.Instrs))); (n == 1) != w {
			t.Errorf("%s with the default cap: %d nests", name, n)
		}
	}
	// A nest whose flush would be repeated at many exits keeps memory
	// counters: 300 br_if out of the loop.
	body := []Instr{{Op: OpLoop, C: 0x40}}
	for range 300 {
		body = append(body, Instr{Op: OpI32Const}, Instr{Op: OpBrIf, A: 1})
	}
	body = append(body, Instr{Op: OpEnd}, Instr{Op: OpEnd})
	if got := leafNests(&Expr{Instrs: body}, testNestSites, planOf(body)); len(got) != 0 {
		t.Errorf("300 exits: nests %v, expected none", got)
	}
}

func planOf(body []Instr) *derivation {
	d := &derivation{}
	d.plan(body, true)
	return d
}
