package instrument

import (
	_ "embed"
	"math/bits"
	"slices"
	"testing"
)

//go:embed testdata/wide.wasm
var wideWasm []byte

// TestWideCompares: the log takes a binary128 comparison call (its two
// operands as 16 little-endian bytes each), each i64.xor of LLVM's 128-bit
// equality idiom (as an 8-byte comparison), and a switch against every
// one of its cases, beyond CompareSlots.
func TestWideCompares(t *testing.T) {
	out, sm, err := Instrument(wideWasm, Options{Compares: true})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		calls []coreCall
		want  []string
	}{
		{"__letf2", []coreCall{call("ld", 5, 0x4000000000000000)},
			[]string{`"\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00@" "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xa0\x00@"`}},
		{"__letf2 on equal operands", []coreCall{call("ld", 0, 0x4000a00000000000)}, nil},
		{"the xor idiom", []coreCall{call("x128", 1, 2)}, []string{"8:0x1 0xfedcba9876543210", "8:0x2 0x123456789abcdef"}},
		{"six cases", []coreCall{call("sw6", 7)},
			[]string{"4:0x7 0x3e8", "4:0x7 0x3e9", "4:0x7 0x3ea", "4:0x7 0x3eb", "4:0x7 0x3ec", "4:0x7 0x3ed"}},
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

// vpFeatures is the model of $vp: the region's counters that comparison
// ord of operands a and b sets.
func vpFeatures(ord uint32, a, b uint64, size int) []int {
	d := a - b
	if a < b {
		d = b - a
	}
	l := bits.Len64(d)
	keys := []uint32{ord<<9 + uint32(bits.OnesCount64(a^b)), ord<<9 + 128 + uint32(4*l) + uint32((d<<(uint(64-l)%64))>>61&3)}
	var out []int
	for _, k := range keys {
		out = append(out, int((k*0x9e3779b1)>>(32-bits.TrailingZeros(uint(size)))))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// vpMemFeature is the model of $vpmem's one counter.
func vpMemFeature(ord uint32, a, b []byte, size int) int {
	l := 0
	for l < len(a) && l < len(b) && a[l] == b[l] {
		l++
	}
	eq := 8
	if l < len(a) && l < len(b) {
		eq = 8 - bits.OnesCount8(a[l]^b[l])
	}
	k := ord<<9 + uint32(9*l+eq)
	return int((k * 0x9e3779b1) >> (32 - bits.TrailingZeros(uint(size))))
}

// setIn returns the indices of the non-zero bytes of region.
func setIn(region []byte) []int {
	var out []int
	for i, v := range region {
		if v != 0 {
			if v != 1 {
				return []int{-1} // a value profile counter is set to 1, never counted
			}
			out = append(out, i)
		}
	}
	return out
}

// TestValueProfile: with Options.ValueProfile the module behaves as
// before (memory comparisons at the end of memory included), the region
// of ValueProfile sites comes last, and one comparison sets exactly the
// counters of its equal bits and its distance's bit length, hashed with
// its ordinal; a memory comparison the counter of its common prefix and
// the equal bits of the first differing byte.
func TestValueProfile(t *testing.T) {
	opts := Options{ValueProfile: true, Fuel: true, DirtyPages: true}
	out, sm, err := Instrument(compareWasm, opts)
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, compareWasm, out, compareCalls)
	from := sm.ValueFrom()
	n := len(sm.Sites) - from
	if from == 0 || n < minValueSites || n&(n-1) != 0 || sm.Sites[from-1].Kind == ValueProfile {
		t.Fatalf("expected a region of value profile sites at the end, got %d from %d", n, from)
	}
	region := func(calls ...coreCall) []int {
		mod := sameResults(t, compareWasm, out, calls)
		return setIn(counters(t, mod, sm)[from:])
	}
	// eq32's comparison: find its ordinal from one run, then check the
	// model on others
	ord := -1
	got := region(call("eq32", 7))
	for k := range 64 {
		if slices.Equal(got, vpFeatures(uint32(k), 7, 0x4d414749, n)) {
			ord = k
			break
		}
	}
	if ord < 0 {
		t.Fatalf("eq32(7) set %v: no ordinal's features", got)
	}
	for _, a := range []uint64{0x4d414749, 0x4d414748, 0x4d414649, 0xffffffff, 0} {
		if got, want := region(call("eq32", a)), vpFeatures(uint32(ord), a, 0x4d414749, n); !slices.Equal(got, want) {
			t.Errorf("eq32(%#x) set %v, want %v", a, got, want)
		}
	}
	// closer operands, new features
	if a, b := region(call("eq32", 0x4d414649)), region(call("eq32", 0x4d414748)); slices.Equal(a, b) {
		t.Errorf("eq32 two bits off and one bit off set the same counters %v", a)
	}
	// magic(p): memcmp(p, "MAGIC", 5) in $memcmp, whose loop's byte
	// comparison adds features of its own: compare the memory feature
	// against the model for each ordinal
	for _, in := range []string{"MAGIX", "MXXXX", "MAGIC"} {
		var v uint64
		for i := len(in) - 1; i >= 0; i-- {
			v = v<<8 | uint64(in[i])
		}
		got := region(call("store", 100, v), call("magic", 100))
		found := false
		for k := range 64 {
			if slices.Contains(got, vpMemFeature(uint32(k), []byte(in), []byte("MAGIC"), n)) {
				found = true
			}
		}
		if !found {
			t.Errorf("magic(%q) set %v: none is the memory feature of any ordinal", in, got)
		}
	}

	// the option changes no site before the region
	_, plain, err := Instrument(compareWasm, Options{Fuel: true, DirtyPages: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plain.Sites, sm.Sites[:from]) || plain.ValueFrom() != 0 {
		t.Errorf("the branch sites differ with the value profile, or a region without it")
	}
}

// TestValueProfileWide: the binary128 call records its high and low
// halves' features, and the build with both logs behaves as the module.
func TestValueProfileWide(t *testing.T) {
	out, sm, err := Instrument(wideWasm, Options{ValueProfile: true, Compares: true})
	if err != nil {
		t.Fatal(err)
	}
	calls := []coreCall{call("ld", 5, 0x4000000000000000), call("x128", 1, 2), call("sw6", 1003)}
	sameResults(t, wideWasm, out, calls)
	if got := logged(t, out, sm, call("sw6", 1003)); len(got) != 5 {
		t.Errorf("sw6(1003) with the value profile logged %q, want the 5 other cases", got)
	}
	from := sm.ValueFrom()
	mod := sameResults(t, wideWasm, out, []coreCall{call("ld", 5, 0x4000000000000000)})
	got := setIn(counters(t, mod, sm)[from:])
	var want []int
	for k := range uint32(64) {
		hi := vpFeatures(k, 0x4000000000000000, 0x4000a00000000000, len(sm.Sites)-from)
		lo := vpFeatures(k+1, 5, 0, len(sm.Sites)-from)
		if all := slices.Compact(slices.Sorted(slices.Values(append(hi, lo...)))); slices.Equal(all, got) {
			want = all
		}
	}
	if want == nil {
		t.Errorf("ld set %v: not the features of its halves for any ordinal", got)
	}
}

func TestValueSiteCount(t *testing.T) {
	for _, c := range [][2]int{{0, 0}, {1, 1024}, {16, 1024}, {17, 2048}, {1000, 65536}, {100000, 65536}} {
		if got := valueSiteCount(c[0]); got != c[1] {
			t.Errorf("valueSiteCount(%d) = %d, want %d", c[0], got, c[1])
		}
	}
}
