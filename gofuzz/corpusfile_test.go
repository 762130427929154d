package gofuzz

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/generators"
)

var allTypes = []generators.Field{
	{Name: "a", Type: generators.TypeBytes}, {Name: "b", Type: generators.TypeString}, {Name: "c", Type: generators.TypeBool}, {Name: "d", Type: generators.TypeInt},
	{Name: "e", Type: generators.TypeInt8}, {Name: "f", Type: generators.TypeInt16}, {Name: "g", Type: generators.TypeInt32}, {Name: "h", Type: generators.TypeInt64},
	{Name: "i", Type: generators.TypeUint}, {Name: "j", Type: generators.TypeUint8}, {Name: "k", Type: generators.TypeUint16}, {Name: "l", Type: generators.TypeUint32},
	{Name: "m", Type: generators.TypeUint64}, {Name: "n", Type: generators.TypeFloat32}, {Name: "o", Type: generators.TypeFloat64},
}

// Files as go test -fuzz writes them read back as its values.
func TestReadCorpusFileGoSpellings(t *testing.T) {
	file := `go test fuzz v1
[]byte("a\x00\xff")
string("λ\n")
bool(true)
int(-9223372036854775808)
int8(-128)
int16(32767)
int32(-5)
int64(7)
uint(18446744073709551615)
byte('\x00')
uint16(0x10)
uint32(4294967295)
uint64(1)
math.Float32frombits(0x7fc00001)
float64(-2.5e-300)
`
	got, err := ReadCorpusFile([]byte(file), allTypes)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{[]byte("a\x00\xff"), "λ\n", true, math.MinInt, int8(-128), int16(32767), int32(-5), int64(7), uint(math.MaxUint),
		byte(0), uint16(16), uint32(math.MaxUint32), uint64(1), math.Float32frombits(0x7fc00001), -2.5e-300}
	for i := range want {
		if f, ok := want[i].(float32); ok {
			if math.Float32bits(got[i].(float32)) != math.Float32bits(f) {
				t.Errorf("value %d: %v, want bits %#x", i+1, got[i], math.Float32bits(f))
			}
			continue
		}
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("value %d: %#v, want %#v", i+1, got[i], want[i])
		}
	}
	// rune and byte spellings of int32 and uint8
	v, err := ReadCorpusFile([]byte("go test fuzz v1\nrune('λ')\nbyte('a')\n"), []generators.Field{{Name: "r", Type: generators.TypeInt32}, {Name: "b", Type: generators.TypeUint8}})
	if err != nil || v[0] != int32('λ') || v[1] != byte('a') {
		t.Errorf("rune and byte: %#v, %v", v, err)
	}
}

func TestReadCorpusFileErrors(t *testing.T) {
	one := []generators.Field{{Name: "n", Type: generators.TypeInt8}}
	for _, tc := range []struct{ file, want string }{
		{"go test fuzz v2\nint8(1)\n", `expected "go test fuzz v1" header`},
		{"go test fuzz v1\nint8(300)\n", `line 2: "int8(300)": not a value of type int8`},
		{"go test fuzz v1\nint16(3)\n", `value 1 (n): int16, expected int8`},
		{"go test fuzz v1\nint8(1)\nint8(2)\n", "2 values: expected 1 (int8)"},
		{"go test fuzz v1\n", "0 values: expected 1 (int8)"},
		{"go test fuzz v1\nint8(x)\n", `line 2: "int8(x)": expected a literal argument`},
		{"go test fuzz v1\n)(\n", `line 2: ")(": not a Go expression`},
	} {
		_, err := ReadCorpusFile([]byte(tc.file), one)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %q", tc.file, err, tc.want)
		}
	}
}

// MarshalCorpusFile and ReadCorpusFile round-trip every value of every
// type (NaNs and negative zero by their bits).
func TestCorpusFileRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		in := make([]byte, 64)
		for i := range in {
			in[i] = byte(r.Uint32())
		}
		values := generators.DecodeTuple(allTypes, in)
		got, err := ReadCorpusFile(corpus.FormatGoCorpusValues(values), allTypes)
		if err != nil {
			t.Fatalf("%s: %v", corpus.FormatGoCorpusValues(values), err)
		}
		a, _ := generators.EncodeTuple(allTypes, values)
		b, _ := generators.EncodeTuple(allTypes, got)
		if string(a) != string(b) {
			t.Fatalf("round trip of\n%s\ngave %#v", corpus.FormatGoCorpusValues(values), got)
		}
	}
}

func TestCorpusFileName(t *testing.T) {
	// go test -fuzz names a file by the first 16 hex digits of its SHA-256
	if got := CorpusFileName([]byte("go test fuzz v1\n[]byte(\"x\")\n")); len(got) != 16 || strings.Trim(got, "0123456789abcdef") != "" {
		t.Errorf("CorpusFileName = %q", got)
	}
}

func FuzzReadCorpusFile(f *testing.F) {
	f.Add([]byte("go test fuzz v1\n[]byte(\"a\")\nint(3)\n"), uint8(0))
	f.Add([]byte("go test fuzz v1\nmath.Float64frombits(0x1)\n"), uint8(14))
	f.Fuzz(func(t *testing.T, file []byte, pick uint8) {
		fields := allTypes[int(pick)%len(allTypes):]
		values, err := ReadCorpusFile(file, fields)
		if err != nil {
			return
		}
		again, err := ReadCorpusFile(corpus.FormatGoCorpusValues(values), fields)
		if err != nil {
			t.Fatalf("a file read back does not read again: %v", err)
		}
		a, _ := generators.EncodeTuple(fields, values)
		b, _ := generators.EncodeTuple(fields, again)
		if string(a) != string(b) {
			t.Fatalf("%#v != %#v", values, again)
		}
	})
}

func TestParseSpec(t *testing.T) {
	for _, tc := range []struct {
		spec, pkg, name string
		ok              bool
	}{
		{"./parser:FuzzParse", "./parser", "FuzzParse", true},
		{"image/png:FuzzDecode", "image/png", "FuzzDecode", true},
		{"C:/x/y.wasm", "", "", false},
		{"t.wasm", "", "", false},
		{":FuzzX", "", "", false},
	} {
		pkg, name, ok := ParseSpec(tc.spec)
		if pkg != tc.pkg || name != tc.name || ok != tc.ok {
			t.Errorf("ParseSpec(%q) = %q, %q, %v", tc.spec, pkg, name, ok)
		}
	}
}

func TestParseDescription(t *testing.T) {
	d, err := parseDescription("PASS\ntypes []uint8,int64\nseed 0102\n", []string{"data"})
	if err != nil || len(d.Fields) != 2 || d.Fields[0].Name != "data" || d.Fields[1].Name != "arg2" || len(d.Seeds) != 1 || string(d.Seeds[0]) != "\x01\x02" {
		t.Errorf("parseDescription = %+v, %v", d, err)
	}
	_, err = parseDescription("--- FAIL: FuzzX (0.00s)\n    x_test.go:9: open seeds/a: no such file\nerror FuzzX ended before calling f.Fuzz\n", nil)
	if err == nil || err.Error() != "FuzzX ended before calling f.Fuzz: x_test.go:9: open seeds/a: no such file" {
		t.Errorf("failed F: %v", err)
	}
	if _, err := parseDescription("types complex128\n", nil); err == nil {
		t.Error("an unsupported type: no error")
	}
}
