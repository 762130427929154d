package generators

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// ValueType is the type of one field of a tuple (Tuple): the argument
// types a Go fuzz test may take. Byte is Uint8 and rune is Int32, as in Go.
type ValueType uint8

const (
	TypeBytes ValueType = iota + 1 // []byte
	TypeString
	TypeBool
	TypeInt
	TypeInt8
	TypeInt16
	TypeInt32
	TypeInt64
	TypeUint
	TypeUint8
	TypeUint16
	TypeUint32
	TypeUint64
	TypeFloat32
	TypeFloat64
)

// goNames are the types' names as Go's reflect prints them.
var goNames = [...]string{
	TypeBytes: "[]uint8", TypeString: "string", TypeBool: "bool",
	TypeInt: "int", TypeInt8: "int8", TypeInt16: "int16", TypeInt32: "int32", TypeInt64: "int64",
	TypeUint: "uint", TypeUint8: "uint8", TypeUint16: "uint16", TypeUint32: "uint32", TypeUint64: "uint64",
	TypeFloat32: "float32", TypeFloat64: "float64",
}

// String is the type's Go name ("[]byte", "int64").
func (t ValueType) String() string {
	switch {
	case t == TypeBytes:
		return "[]byte"
	case int(t) < len(goNames) && t > 0:
		return goNames[t]
	}
	return fmt.Sprintf("ValueType(%d)", uint8(t))
}

// ParseValueType returns the type whose name, as Go's reflect prints it
// ("[]uint8", "int32") or as source writes it ("[]byte", "byte", "rune"),
// is name.
func ParseValueType(name string) (ValueType, error) {
	switch name {
	case "[]byte":
		return TypeBytes, nil
	case "byte":
		return TypeUint8, nil
	case "rune":
		return TypeInt32, nil
	}
	for t, n := range goNames {
		if n != "" && n == name {
			return ValueType(t), nil
		}
	}
	return 0, fmt.Errorf("unsupported type %s: expected []byte, string, bool, a sized or unsized int or uint, float32 or float64", name)
}

// width is the encoded size of a fixed-size type, 0 for []byte and string.
func (t ValueType) width() int {
	switch t {
	case TypeBool, TypeInt8, TypeUint8:
		return 1
	case TypeInt16, TypeUint16:
		return 2
	case TypeInt32, TypeUint32, TypeFloat32:
		return 4
	case TypeInt, TypeInt64, TypeUint, TypeUint64, TypeFloat64:
		return 8
	}
	return 0
}

// Field is one named, typed field of a tuple.
type Field struct {
	Name string
	Type ValueType
}

// The tuple encoding (EncodeTuple, DecodeTuple) is the fixed-size fields
// in order, little-endian (a bool one byte, its low bit; floats by their
// IEEE bits), then the []byte and string fields in order, each but the
// last as a uvarint length and its bytes, the last as every byte left. Any
// bytes decode: a missing fixed-size byte is zero, a length past the end
// is cut to what is there. A tuple of one []byte is its bytes, so a raw
// input and its tuple are the same thing.

// EncodeTuple encodes values (Go values of the fields' types, in order:
// []byte, string, bool, int, int8, ..., float64).
func EncodeTuple(fields []Field, values []any) ([]byte, error) {
	if len(values) != len(fields) {
		return nil, fmt.Errorf("tuple of %d values: expected %d", len(values), len(fields))
	}
	var out []byte
	for i, f := range fields {
		if f.Type.width() == 0 {
			continue
		}
		bits, err := fixedBits(f.Type, values[i])
		if err != nil {
			return nil, fmt.Errorf("value %d (%s): %w", i+1, f.Name, err)
		}
		out = binary.LittleEndian.AppendUint64(out, bits)[:len(out)+f.Type.width()]
	}
	last := lastVariable(fields)
	for i, f := range fields {
		if f.Type.width() != 0 {
			continue
		}
		var b []byte
		switch v := values[i].(type) {
		case []byte:
			b = v
		case string:
			b = []byte(v)
		default:
			return nil, fmt.Errorf("value %d (%s): %T, expected %s", i+1, f.Name, values[i], f.Type)
		}
		if (f.Type == TypeString) != isString(values[i]) {
			return nil, fmt.Errorf("value %d (%s): %T, expected %s", i+1, f.Name, values[i], f.Type)
		}
		if i != last {
			out = binary.AppendUvarint(out, uint64(len(b)))
		}
		out = append(out, b...)
	}
	return out, nil
}

func isString(v any) bool { _, ok := v.(string); return ok }

// lastVariable is the index of the last []byte or string field, -1 if none.
func lastVariable(fields []Field) int {
	for i := len(fields) - 1; i >= 0; i-- {
		if fields[i].Type.width() == 0 {
			return i
		}
	}
	return -1
}

// fixedBits is v's encoding as a fixed-size value of type t.
func fixedBits(t ValueType, v any) (uint64, error) {
	var bits uint64
	ok := true
	switch t {
	case TypeBool:
		b, k := v.(bool)
		ok = k
		if b {
			bits = 1
		}
	case TypeInt:
		x, k := v.(int)
		bits, ok = uint64(x), k
	case TypeInt8:
		x, k := v.(int8)
		bits, ok = uint64(x), k
	case TypeInt16:
		x, k := v.(int16)
		bits, ok = uint64(x), k
	case TypeInt32:
		x, k := v.(int32)
		bits, ok = uint64(x), k
	case TypeInt64:
		x, k := v.(int64)
		bits, ok = uint64(x), k
	case TypeUint:
		x, k := v.(uint)
		bits, ok = uint64(x), k
	case TypeUint8:
		x, k := v.(uint8)
		bits, ok = uint64(x), k
	case TypeUint16:
		x, k := v.(uint16)
		bits, ok = uint64(x), k
	case TypeUint32:
		x, k := v.(uint32)
		bits, ok = uint64(x), k
	case TypeUint64:
		x, k := v.(uint64)
		bits, ok = x, k
	case TypeFloat32:
		x, k := v.(float32)
		bits, ok = uint64(math.Float32bits(x)), k
	case TypeFloat64:
		x, k := v.(float64)
		bits, ok = math.Float64bits(x), k
	default:
		return 0, fmt.Errorf("unknown type %s", t)
	}
	if !ok {
		return 0, fmt.Errorf("%T, expected %s", v, t)
	}
	return bits, nil
}

// DecodeTuple decodes data into one Go value per field. It never fails
// on the bytes (see the encoding above); an unknown field type panics.
func DecodeTuple(fields []Field, data []byte) []any {
	values := make([]any, len(fields))
	for i, f := range fields {
		w := f.Type.width()
		if w == 0 {
			continue
		}
		var buf [8]byte
		data = data[copy(buf[:w], data):]
		values[i] = fromBits(f.Type, binary.LittleEndian.Uint64(buf[:]))
	}
	last := lastVariable(fields)
	for i, f := range fields {
		if f.Type.width() != 0 {
			continue
		}
		n := uint64(len(data))
		if i != last {
			l, k := binary.Uvarint(data)
			if k <= 0 {
				l, k = 0, len(data)
			}
			data = data[k:]
			n = min(l, uint64(len(data)))
		}
		if f.Type == TypeString {
			values[i] = string(data[:n])
		} else {
			values[i] = bytes.Clone(data[:n])
		}
		data = data[n:]
	}
	return values
}

// fromBits is the Go value of type t whose encoding is bits.
func fromBits(t ValueType, bits uint64) any {
	switch t {
	case TypeBool:
		return bits&1 == 1
	case TypeInt:
		return int(bits)
	case TypeInt8:
		return int8(bits)
	case TypeInt16:
		return int16(bits)
	case TypeInt32:
		return int32(bits)
	case TypeInt64:
		return int64(bits)
	case TypeUint:
		return uint(bits)
	case TypeUint8:
		return uint8(bits)
	case TypeUint16:
		return uint16(bits)
	case TypeUint32:
		return uint32(bits)
	case TypeUint64:
		return bits
	case TypeFloat32:
		return math.Float32frombits(uint32(bits))
	case TypeFloat64:
		return math.Float64frombits(bits)
	}
	panic(fmt.Sprintf("generators: unknown value type %d", t))
}

// allBytes is the alphabet of a tuple's []byte and string fields.
var allBytes = func() string {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return string(b)
}()

// Tuple returns a generator of the tuple encoding of fields, each field
// drawn in a frame named after it (Source.Enter): integers by Int64 over
// the type's range (boundaries and dictionary integers included), bools by
// Bool, floats with one selector byte (1/8: a special value such as 0, ±1,
// ±Inf, NaN or the extremes; else the IEEE bits), []byte and string by
// String over all 256 bytes (dictionary entries included) up to maxLen
// bytes (0 means 4096).
func Tuple(fields []Field, maxLen int) Generator {
	if maxLen <= 0 {
		maxLen = 4096
	}
	return func(s *Source) []byte {
		values := make([]any, len(fields))
		for i, f := range fields {
			s.Enter(f.Name)
			values[i] = drawField(s, f.Type, maxLen)
			s.Leave()
		}
		out, err := EncodeTuple(fields, values)
		if err != nil {
			panic(err) // drawField makes values of the fields' types
		}
		return out
	}
}

var float64Specials = [...]float64{0, math.Copysign(0, -1), 1, -1, 0.5, 2, 10, 1e-300, math.Inf(1), math.Inf(-1), math.NaN(),
	math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 1 << 53, math.MaxFloat32}

// floatSpecials is the selector bytes below which a float draw is special.
const floatSpecials = 32

func drawField(s *Source, t ValueType, maxLen int) any {
	switch t {
	case TypeBytes:
		return s.appendString(nil, allBytes, 0, maxLen)
	case TypeString:
		return string(s.appendString(nil, allBytes, 0, maxLen))
	case TypeBool:
		return s.Bool()
	case TypeFloat32, TypeFloat64:
		b := s.draw(Value, lblFloat, 1+t.width())
		if b[0] < floatSpecials {
			f := float64Specials[int(b[0])%len(float64Specials)]
			if t == TypeFloat32 {
				return float32(f)
			}
			return f
		}
		return fromBits(t, le(b[1:]))
	}
	lo, hi := intRange(t)
	return fromBits(t, uint64(s.Int64(lo, hi)))
}

var lblFloat = hashString("float")

// intRange is the range of integer type t, as int64s whose bits are the
// value's (unsigned 64-bit types span all of int64).
func intRange(t ValueType) (lo, hi int64) {
	switch t {
	case TypeInt8:
		return math.MinInt8, math.MaxInt8
	case TypeInt16:
		return math.MinInt16, math.MaxInt16
	case TypeInt32:
		return math.MinInt32, math.MaxInt32
	case TypeUint8:
		return 0, math.MaxUint8
	case TypeUint16:
		return 0, math.MaxUint16
	case TypeUint32:
		return 0, math.MaxUint32
	}
	return math.MinInt64, math.MaxInt64
}

// ErrNotGenerated is returned by ReadTuple for an input the generator
// does not make as it is (it regenerates a different one).
var ErrNotGenerated = errors.New("the generator does not make this input")

// ReadTuple returns the choice sequence from which Tuple(fields, maxLen)
// with opts makes input: the draws that give each field's value as
// decoded (DecodeTuple), run once to record them. An input that is not
// the canonical encoding of its values, or with a field longer than
// maxLen, or whose draws opts's dictionary settings turn into another
// value, is an error wrapping ErrNotGenerated.
func ReadTuple(fields []Field, maxLen int, opts Options, input []byte) (*Sequence, error) {
	if maxLen <= 0 {
		maxLen = 4096
	}
	values := DecodeTuple(fields, input)
	var draws []byte
	for i, f := range fields {
		draws = appendDraws(draws, f.Type, values[i], maxLen)
	}
	out, seq := Run(Tuple(fields, maxLen), FromBytes(draws), opts)
	if !bytes.Equal(out, input) {
		return nil, fmt.Errorf("%w: it regenerates as %d other bytes", ErrNotGenerated, len(out))
	}
	return seq, nil
}

// appendDraws appends the draw bytes from which drawField makes v.
func appendDraws(dst []byte, t ValueType, v any, maxLen int) []byte {
	switch t {
	case TypeBytes, TypeString:
		var b []byte
		if t == TypeString {
			b = []byte(v.(string))
		} else {
			b = v.([]byte)
		}
		dst = append(dst, 0, 0, 0) // str.head: not a dictionary entry
		// valueLen: a bit width of all bits, then the length
		span := uint64(maxLen)
		n := bytesFor(span)
		w := byte(bits.Len64(span))
		dst = append(dst, w)
		dst = binary.LittleEndian.AppendUint64(dst, uint64(len(b)))[:len(dst)+n]
		return append(dst, b...)
	case TypeBool:
		if v.(bool) {
			return append(dst, 1)
		}
		return append(dst, 0)
	case TypeFloat32, TypeFloat64:
		x, _ := fixedBits(t, v)
		dst = append(dst, 0xff)
		return binary.LittleEndian.AppendUint64(dst, x)[:len(dst)+t.width()]
	}
	// Int64: a selector byte past the dictionary and boundary shares, then
	// the offset from lo in bytesFor(span) bytes
	lo, hi := intRange(t)
	x, _ := fixedBits(t, v)
	span := uint64(hi) - uint64(lo)
	n := bytesFor(span)
	off := x - uint64(lo)
	if span == ^uint64(0) {
		off = x // Int64 over all of int64 takes the bits as they are
	}
	dst = append(dst, 0xff)
	return binary.LittleEndian.AppendUint64(dst, off)[:len(dst)+n]
}
