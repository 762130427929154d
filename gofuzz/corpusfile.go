package gofuzz

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wafer-fuzz/wafer/generators"
	"github.com/wafer-fuzz/wafer/internal/atomicfile"
)

// corpusHeader is the first line of a corpus file of go test -fuzz.
const corpusHeader = "go test fuzz v1"

// IsCorpusFile reports whether b is a corpus file of go test -fuzz.
func IsCorpusFile(b []byte) bool {
	return strings.HasPrefix(string(b), corpusHeader+"\n") || string(b) == corpusHeader
}

// MarshalCorpusFile writes values as go test -fuzz writes a corpus file:
// the header, then one Go expression a line ([]byte("..."), int(-3),
// byte('a'), rune('x'), math.Float64frombits(0x...) for the floats a
// literal cannot spell).
func MarshalCorpusFile(values []any) []byte {
	var b strings.Builder
	b.WriteString(corpusHeader + "\n")
	for _, v := range values {
		switch x := v.(type) {
		case []byte:
			fmt.Fprintf(&b, "[]byte(%q)\n", x)
		case string:
			fmt.Fprintf(&b, "string(%q)\n", x)
		case uint8:
			fmt.Fprintf(&b, "byte(%q)\n", x)
		case int32:
			if utf8.ValidRune(x) {
				fmt.Fprintf(&b, "rune(%q)\n", x)
			} else {
				fmt.Fprintf(&b, "int32(%d)\n", x)
			}
		case float32:
			if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) || (f == 0 && math.Signbit(f)) {
				fmt.Fprintf(&b, "math.Float32frombits(0x%x)\n", math.Float32bits(x))
			} else {
				fmt.Fprintf(&b, "float32(%s)\n", strconv.FormatFloat(f, 'g', -1, 32))
			}
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) || (x == 0 && math.Signbit(x)) {
				fmt.Fprintf(&b, "math.Float64frombits(0x%x)\n", math.Float64bits(x))
			} else {
				fmt.Fprintf(&b, "float64(%s)\n", strconv.FormatFloat(x, 'g', -1, 64))
			}
		default:
			fmt.Fprintf(&b, "%T(%v)\n", v, v)
		}
	}
	return []byte(b.String())
}

// CorpusFileName is the name go test -fuzz gives a corpus file: the first
// 16 hex digits of its SHA-256.
func CorpusFileName(file []byte) string {
	return fmt.Sprintf("%x", sha256.Sum256(file))[:16]
}

// ReadCorpusFile reads a corpus file of go test -fuzz into values of the
// fields' types. Errors give the line and what was expected.
func ReadCorpusFile(b []byte, fields []generators.Field) ([]any, error) {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if lines[0] != corpusHeader {
		return nil, fmt.Errorf("line 1: expected %q", corpusHeader)
	}
	var values []any
	for i, l := range lines[1:] {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		line := i + 2
		if len(values) == len(fields) {
			return nil, fmt.Errorf("line %d: expected %d values, got more", line, len(fields))
		}
		want := fields[len(values)].Type
		v, err := parseValue(l, want)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		values = append(values, v)
	}
	if len(values) != len(fields) {
		return nil, fmt.Errorf("%d values: expected %d (%s)", len(values), len(fields), typeList(fields))
	}
	return values, nil
}

func typeList(fields []generators.Field) string {
	var ts []string
	for _, f := range fields {
		ts = append(ts, f.Type.String())
	}
	return strings.Join(ts, ", ")
}

// parseValue reads one line: T(literal) or math.FloatNNfrombits(bits).
func parseValue(line string, want generators.ValueType) (any, error) {
	e, err := parser.ParseExpr(line)
	if err != nil {
		return nil, fmt.Errorf("%q: not a Go expression", line)
	}
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil, fmt.Errorf("%q: expected T(value)", line)
	}
	var typ string
	switch fn := call.Fun.(type) {
	case *ast.Ident:
		typ = fn.Name
	case *ast.ArrayType:
		if id, ok := fn.Elt.(*ast.Ident); ok && fn.Len == nil && (id.Name == "byte" || id.Name == "uint8") {
			typ = "[]byte"
		}
	case *ast.SelectorExpr:
		if pkg, ok := fn.X.(*ast.Ident); ok && pkg.Name == "math" {
			typ = "math." + fn.Sel.Name
		}
	}
	if id, ok := call.Args[0].(*ast.Ident); ok && typ == "bool" && want == generators.TypeBool {
		switch id.Name {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	lit, neg := call.Args[0], false
	if u, ok := lit.(*ast.UnaryExpr); ok && (u.Op == token.SUB || u.Op == token.ADD) {
		lit, neg = u.X, u.Op == token.SUB
	}
	bl, ok := lit.(*ast.BasicLit)
	if !ok {
		return nil, fmt.Errorf("%q: expected a literal argument", line)
	}
	switch typ {
	case "math.Float64frombits", "math.Float32frombits":
		bits, err := strconv.ParseUint(bl.Value, 0, 64)
		if err != nil || neg {
			return nil, fmt.Errorf("%q: expected an unsigned integer", line)
		}
		if typ == "math.Float32frombits" {
			if want != generators.TypeFloat32 || bits > math.MaxUint32 {
				return nil, fmt.Errorf("%q: expected %s", line, want)
			}
			return math.Float32frombits(uint32(bits)), nil
		}
		if want != generators.TypeFloat64 {
			return nil, fmt.Errorf("%q: expected %s", line, want)
		}
		return math.Float64frombits(bits), nil
	}
	t, err := generators.ParseValueType(typ)
	if err != nil || t != want {
		return nil, fmt.Errorf("%q: expected a value of type %s", line, want)
	}
	switch bl.Kind {
	case token.STRING:
		s, err := strconv.Unquote(bl.Value)
		if err != nil || neg {
			return nil, fmt.Errorf("%q: bad string literal", line)
		}
		switch t {
		case generators.TypeBytes:
			return []byte(s), nil
		case generators.TypeString:
			return s, nil
		}
	case token.CHAR:
		r, _, tail, err := strconv.UnquoteChar(bl.Value[1:len(bl.Value)-1], '\'')
		if err != nil || tail != "" || neg {
			return nil, fmt.Errorf("%q: bad character literal", line)
		}
		switch t {
		case generators.TypeUint8:
			if r > 255 {
				return nil, fmt.Errorf("%q: character out of range of byte", line)
			}
			return uint8(r), nil
		case generators.TypeInt32:
			return r, nil
		}
	case token.INT, token.FLOAT:
		return parseNumber(line, bl.Value, neg, t)
	}
	return nil, fmt.Errorf("%q: expected a value of type %s", line, want)
}

// parseNumber converts a numeric literal to type t, checking its range.
func parseNumber(line, lit string, neg bool, t generators.ValueType) (any, error) {
	bad := fmt.Errorf("%q: not a value of type %s", line, t)
	sign := ""
	if neg {
		sign = "-"
	}
	switch t {
	case generators.TypeFloat32, generators.TypeFloat64:
		bitSize := 64
		if t == generators.TypeFloat32 {
			bitSize = 32
		}
		f, err := strconv.ParseFloat(sign+lit, bitSize)
		if err != nil {
			return nil, bad
		}
		if t == generators.TypeFloat32 {
			return float32(f), nil
		}
		return f, nil
	case generators.TypeInt, generators.TypeInt8, generators.TypeInt16, generators.TypeInt32, generators.TypeInt64:
		x, err := strconv.ParseInt(sign+lit, 0, 8*intSize[t])
		if err != nil {
			return nil, bad
		}
		switch t {
		case generators.TypeInt:
			return int(x), nil
		case generators.TypeInt8:
			return int8(x), nil
		case generators.TypeInt16:
			return int16(x), nil
		case generators.TypeInt32:
			return int32(x), nil
		}
		return x, nil
	case generators.TypeUint, generators.TypeUint8, generators.TypeUint16, generators.TypeUint32, generators.TypeUint64:
		x, err := strconv.ParseUint(lit, 0, 8*intSize[t])
		if err != nil || (neg && x != 0) {
			return nil, bad
		}
		switch t {
		case generators.TypeUint:
			return uint(x), nil
		case generators.TypeUint8:
			return uint8(x), nil
		case generators.TypeUint16:
			return uint16(x), nil
		case generators.TypeUint32:
			return uint32(x), nil
		}
		return x, nil
	}
	return nil, bad
}

// intSize is the size in bytes of the integer types (int and uint are
// 64-bit on wasm, as on the hosts go test -fuzz runs on).
var intSize = map[generators.ValueType]int{
	generators.TypeInt: 8, generators.TypeInt8: 1, generators.TypeInt16: 2, generators.TypeInt32: 4, generators.TypeInt64: 8,
	generators.TypeUint: 8, generators.TypeUint8: 1, generators.TypeUint16: 2, generators.TypeUint32: 4, generators.TypeUint64: 8,
}

// TestdataDir is where go test keeps t's seed corpus and findings
// (testdata/fuzz/FuzzXxx in the package's directory).
func (t *Test) TestdataDir() string { return filepath.Join(t.Dir, "testdata", "fuzz", t.Name) }

// ReadCorpusDir reads the corpus files of dir, tuple-encoded for fields,
// in name order. A missing dir has none; a file that is not a corpus
// file of these fields is left out and its error (naming the file) is in
// skipped.
func ReadCorpusDir(dir string, fields []generators.Field) (inputs [][]byte, skipped []error, err error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		values, err := ReadCorpusFile(b, fields)
		if err == nil {
			var in []byte
			if in, err = generators.EncodeTuple(fields, values); err == nil {
				inputs = append(inputs, in)
				continue
			}
		}
		skipped = append(skipped, fmt.Errorf("%s: %w", path, err))
	}
	return inputs, skipped, nil
}

// WriteCorpusFile writes input (tuple-encoded for fields) into dir as
// go test -fuzz writes a finding (CorpusFileName, atomically), creating
// dir, and returns the file's path.
func WriteCorpusFile(dir string, fields []generators.Field, input []byte) (string, error) {
	b := MarshalCorpusFile(generators.DecodeTuple(fields, input))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, CorpusFileName(b))
	return path, atomicfile.Write(path, b)
}
