package generators

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// allFields has one field of every type, two variable-size ones apart.
var allFields = []Field{
	{"data", TypeBytes}, {"b", TypeBool}, {"i", TypeInt}, {"i8", TypeInt8}, {"i16", TypeInt16},
	{"r", TypeInt32}, {"i64", TypeInt64}, {"u", TypeUint}, {"by", TypeUint8}, {"u16", TypeUint16},
	{"u32", TypeUint32}, {"u64", TypeUint64}, {"f32", TypeFloat32}, {"f64", TypeFloat64}, {"s", TypeString},
}

func TestTupleEncoding(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fields []Field
		values []any
		want   []byte
	}{
		{"one []byte is its bytes", []Field{{"d", TypeBytes}}, []any{[]byte("abc")}, []byte("abc")},
		{"fixed first, little-endian", []Field{{"s", TypeString}, {"n", TypeInt16}}, []any{"hi", int16(-2)}, []byte{0xfe, 0xff, 'h', 'i'}},
		{"all but the last variable field have a length", []Field{{"a", TypeBytes}, {"b", TypeString}},
			[]any{[]byte("xy"), "z"}, []byte{2, 'x', 'y', 'z'}},
		{"bool and float32", []Field{{"b", TypeBool}, {"f", TypeFloat32}}, []any{true, float32(1)}, []byte{1, 0, 0, 0x80, 0x3f}},
	} {
		got, err := EncodeTuple(tc.fields, tc.values)
		if err != nil || !bytes.Equal(got, tc.want) {
			t.Errorf("%s: EncodeTuple = %x, %v; want %x", tc.name, got, err, tc.want)
		}
		if back := DecodeTuple(tc.fields, got); !reflect.DeepEqual(back, tc.values) {
			t.Errorf("%s: DecodeTuple = %#v, want %#v", tc.name, back, tc.values)
		}
	}
}

func TestEncodeTupleErrors(t *testing.T) {
	for _, tc := range []struct {
		values []any
		want   string
	}{
		{[]any{1}, "tuple of 1 values: expected 2"},
		{[]any{"x", 3}, "value 1 (d): string, expected []byte"},
		{[]any{[]byte("x"), int64(3)}, "value 2 (n): int64, expected int"},
	} {
		_, err := EncodeTuple([]Field{{"d", TypeBytes}, {"n", TypeInt}}, tc.values)
		if err == nil || err.Error() != tc.want {
			t.Errorf("EncodeTuple(%v) = %v, want %q", tc.values, err, tc.want)
		}
	}
}

func TestParseValueType(t *testing.T) {
	for name, want := range map[string]ValueType{"[]byte": TypeBytes, "[]uint8": TypeBytes, "byte": TypeUint8, "rune": TypeInt32, "float64": TypeFloat64, "uint": TypeUint} {
		if got, err := ParseValueType(name); err != nil || got != want {
			t.Errorf("ParseValueType(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := ParseValueType("complex128"); err == nil {
		t.Error("ParseValueType(complex128): no error")
	}
}

// randomValues draws one value per field, extremes included.
func randomValues(r *rand.Rand, fields []Field) []any {
	values := make([]any, len(fields))
	for i, f := range fields {
		bits := r.Uint64()
		if r.IntN(4) == 0 {
			bits = []uint64{0, 1, math.MaxUint64, 1 << 63, (1 << 63) - 1}[r.IntN(5)]
		}
		switch f.Type {
		case TypeBytes:
			b := make([]byte, r.IntN(40))
			for j := range b {
				b[j] = byte(r.Uint32())
			}
			values[i] = b
		case TypeString:
			values[i] = string([]byte{byte(r.Uint32()), 'x', 0xff}[:r.IntN(4)])
		default:
			values[i] = fromBits(f.Type, bits)
		}
	}
	return values
}

// ReadTuple gives a sequence that regenerates the input, for random
// values of every type (the round trip a Go fuzz test's seeds take).
func TestReadTupleRegenerates(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, opts := range []Options{{}, {DictProb: -1, IntBias: -1}} {
		for range 300 {
			values := randomValues(r, allFields)
			in, err := EncodeTuple(allFields, values)
			if err != nil {
				t.Fatal(err)
			}
			seq, err := ReadTuple(allFields, 0, opts, in)
			if err != nil {
				t.Fatalf("ReadTuple(%#v): %v", values, err)
			}
			if out, _ := Run(Tuple(allFields, 0), seq, opts); !bytes.Equal(out, in) {
				t.Fatalf("sequence regenerates %x, want %x", out, in)
			}
			if got := seq.Types(); len(got) == 0 {
				t.Fatalf("sequence has no typed frames")
			}
		}
	}
}

func TestReadTupleRejects(t *testing.T) {
	fields := []Field{{"a", TypeString}, {"b", TypeBytes}}
	// a length written in two bytes where one does: not canonical
	if _, err := ReadTuple(fields, 0, Options{}, []byte{0x81, 0x00, 'x'}); !errors.Is(err, ErrNotGenerated) {
		t.Errorf("non-canonical length: %v, want ErrNotGenerated", err)
	}
	if _, err := ReadTuple(fields, 2, Options{}, []byte{3, 'x', 'y', 'z'}); !errors.Is(err, ErrNotGenerated) {
		t.Errorf("field longer than maxLen: %v, want ErrNotGenerated", err)
	}
}

// Every value a Tuple generator makes decodes back to values of the
// fields' types, and re-encodes to the same bytes.
func TestTupleGeneratesTypedValues(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	g := Tuple(allFields, 64)
	for range 500 {
		b := make([]byte, r.IntN(200))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		out, _ := Run(g, FromBytes(b), Options{})
		values := DecodeTuple(allFields, out)
		again, err := EncodeTuple(allFields, values)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("generated %x re-encodes as %x, %v", out, again, err)
		}
	}
}

func FuzzDecodeTuple(f *testing.F) {
	f.Add([]byte{}, uint8(0))
	f.Add([]byte{3, 'a', 'b', 'c', 1, 2, 3, 4, 5, 6, 7, 8, 9}, uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, pick uint8) {
		fields := allFields[int(pick)%len(allFields):]
		values := DecodeTuple(fields, data)
		enc, err := EncodeTuple(fields, values)
		if err != nil {
			t.Fatal(err)
		}
		// the canonical encoding decodes to the same values and reads back
		if again := DecodeTuple(fields, enc); !reflect.DeepEqual(again, values) && !hasNaN(values) {
			t.Fatalf("decode(encode(%#v)) = %#v", values, again)
		}
		if _, err := ReadTuple(fields, 1<<20, Options{}, enc); err != nil {
			t.Fatalf("ReadTuple of a canonical encoding: %v", err)
		}
	})
}

func hasNaN(values []any) bool {
	for _, v := range values {
		switch x := v.(type) {
		case float32:
			if x != x {
				return true
			}
		case float64:
			if x != x {
				return true
			}
		}
	}
	return false
}
