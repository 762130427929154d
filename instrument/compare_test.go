package instrument

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero/api"
)

//go:embed testdata/compare.wasm
var compareWasm []byte

// compareCalls exercise every function of compare.wasm; the pointers are
// target addresses, some at the very end of the 1-page memory.
var compareCalls = []coreCall{
	call("store", 100, 0x43494741_4d), // "MAGIC" at 100
	call("store", 200, 0x64726f7779656b),
	call("store", 65528, 0x00646e65), // "end\0" in the last 8 bytes
	call("eq32", 0x4d414749), call("eq32", 7),
	call("lt64", 5), call("lt64", 1<<50),
	call("ltf32", 0x40a00000), call("ltf32", 0x49742450), call("ltf32", 0x7fc00000), // 5, 1000005, NaN
	call("gef64", 0x3ff8000000000000), call("gef64", 0x400a000000000000), // 1.5, 3.25
	call("sw", 5), call("sw", 100001), call("sw", 100002), call("sw", 100003),
	call("rng", 5), call("rng", 100001), call("rng", 100003), call("rng", 100004), call("rng", 0xffffffff),
	call("magic", 100), call("magic", 16), call("magic", 65533), call("magic", 65534),
	call("keyword", 32), call("keyword", 200), call("keyword", 65528), call("keyword", 65536),
	call("memcmp", 65535, 0, 0), call("memcmp", 65536, 0, 1),
	call("strcmp", 65535, 65535),
	call("dead", 3),
	call("goeq", 100, 16, 5), call("goeq", 65530, 16, 40),
	call("gocmp", 200, 4, 32, 7), call("gocmp", 65535, 1, 32, 100),
}

func TestComparesBehaviour(t *testing.T) {
	for _, opts := range []Options{{Compares: true}, {Compares: true, Fuel: true, DirtyPages: true}} {
		t.Run(fmt.Sprintf("%+v", opts), func(t *testing.T) {
			out, sm, err := Instrument(compareWasm, opts)
			if err != nil {
				t.Fatal(err)
			}
			sameResults(t, compareWasm, out, compareCalls)
			l := sm.Layout
			// integers: memcmp's, strcmp's, eq32's, lt64's, ltf32's
			// two, gef64's, sw's switch, rng's and dead's (whose entry
			// stays empty); memory: $memcmp, $strcmp, $memeqbody,
			// $cmpbody and the exports named memcmp and strcmp
			if l.Compares != 10 || l.CompareMems != 6 {
				t.Errorf("log entries: %d integer, %d memory; want 10, 6", l.Compares, l.CompareMems)
			}
			if l.CompareOffset < l.DirtyOffset+l.DirtyPages || uint64(l.CompareOffset)+l.CompareLogBytes() > l.ReservedBytes() {
				t.Errorf("log at %d+%d outside the reserved %d bytes or overlapping the dirty map", l.CompareOffset, l.CompareLogBytes(), l.ReservedBytes())
			}
		})
	}
}

// logged instantiates out, runs calls and returns the comparisons logged.
func logged(t *testing.T, out []byte, sm *SiteMap, calls ...coreCall) []string {
	t.Helper()
	res, mod := coreRun(t, out, calls, nil)
	for _, r := range res {
		if strings.Contains(r, "trap") {
			t.Fatal(r)
		}
	}
	return comparisons(mod.ExportedMemory(MemoryExport), sm)
}

func comparisons(mem api.Memory, sm *SiteMap) []string {
	view, _ := mem.Read(0, mem.Size())
	var got []string
	for c := range sm.Layout.Comparisons(view) {
		if c.Size == 0 {
			got = append(got, fmt.Sprintf("%q %q", c.MemA, c.MemB))
		} else {
			got = append(got, fmt.Sprintf("%d:%#x %#x", c.Size, c.A, c.B))
		}
	}
	return got
}

func TestComparesLog(t *testing.T) {
	out, sm, err := Instrument(compareWasm, Options{Compares: true})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		calls []coreCall
		want  []string
	}{
		{"equal operands are not logged", []coreCall{call("eq32", 0x4d414749), call("lt64", 1000000000000)}, nil},
		{"i32", []coreCall{call("eq32", 7)}, []string{"4:0x7 0x4d414749"}},
		{"i64", []coreCall{call("lt64", 1<<50)}, []string{"8:0x4000000000000 0xe8d4a51000"}},
		{"f32: the operands' bits, each comparison its entry", []coreCall{call("ltf32", 0x40a00000)},
			[]string{"4:0x40a00000 0x49742400", "4:0x40a00000 0x497424b0"}},
		{"f64", []coreCall{call("gef64", 0x3ff8000000000000)}, []string{"8:0x3ff8000000000000 0x400a000000000000"}},
		{"a switch: its value against each case", []coreCall{call("sw", 5)}, []string{"4:0x5 0x186a1", "4:0x5 0x186a2"}},
		{"a range check logs the value, not the value minus the range's start", []coreCall{call("rng", 5)}, []string{"4:0x5 0x186a4"}},
		{"a switch on a case value", []coreCall{call("sw", 100002)}, []string{"4:0x186a2 0x186a1"}},
		{"the last pairs of an entry", []coreCall{call("eq32", 1), call("eq32", 2), call("eq32", 3), call("eq32", 4), call("eq32", 5), call("eq32", 6)},
			[]string{"4:0x5 0x4d414749", "4:0x6 0x4d414749", "4:0x3 0x4d414749", "4:0x4 0x4d414749"}},
		{"memcmp: n bytes, and the loop's byte comparison",
			[]coreCall{call("store", 100, 0x4349474158), call("magic", 100)},
			[]string{"4:0x58 0x4d", `"XAGIC" "MAGIC"`}},
		{"strcmp: up to the NUL",
			[]coreCall{call("store", 200, 0x64726f77), call("keyword", 200)},
			[]string{"4:0x77 0x6b", `"word" "keyword"`}},
		{"a buffer past the end of memory is not logged", []coreCall{call("keyword", 65528)}, []string{"4:0x0 0x6b"}},
		{"dead code", []coreCall{call("dead", 1)}, nil},
		{"Go's memeqbody", []coreCall{call("goeq", 100, 16, 5)}, []string{`"\x00\x00\x00\x00\x00" "MAGIC"`}},
		{"Go's cmpbody: each side its length", []coreCall{call("store", 200, 0x64726f77), call("gocmp", 200, 4, 32, 7)}, []string{`"word" "keyword"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := logged(t, out, sm, c.calls...)
			if !slices.Equal(got, c.want) {
				t.Errorf("logged %q, want %q", got, c.want)
			}
		})
	}
}

func TestComparesOff(t *testing.T) {
	_, sm, err := Instrument(compareWasm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l := sm.Layout; l.Compares != 0 || l.CompareMems != 0 || l.CompareOffset != 0 {
		t.Errorf("layout without Compares: %+v", l)
	}
	for c := range sm.Layout.Comparisons(make([]byte, 1<<16)) {
		t.Errorf("Comparisons yielded %+v without a log", c)
	}
}
