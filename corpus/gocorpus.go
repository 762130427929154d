package corpus

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// GoCorpusHeader is the first line of a Go fuzzing corpus file
// (testdata/fuzz/FuzzX/*).
const GoCorpusHeader = "go test fuzz v1"

// IsGoCorpus reports whether data is a Go fuzzing corpus file: it starts
// with GoCorpusHeader's line.
func IsGoCorpus(data []byte) bool {
	rest, ok := bytes.CutPrefix(data, []byte(GoCorpusHeader))
	return ok && (len(rest) == 0 || rest[0] == '\n' || rest[0] == '\r')
}

// ParseGoCorpusValues decodes a Go fuzzing corpus file as go test -fuzz
// writes it: the header, then one value a line, each T(literal) for T one
// of the types a fuzz function takes ([]byte, string, bool, byte, rune,
// the sized and unsized ints and uints, float32, float64), or
// math.Float32frombits(bits), math.Float64frombits(bits). A value has
// its Go type (int8(-3) is an int8, byte('a') a uint8). Blank lines and
// "//" comments are ignored. Errors give the line and what was expected.
func ParseGoCorpusValues(data []byte) ([]any, error) {
	if !IsGoCorpus(data) {
		return nil, fmt.Errorf("expected %q header", GoCorpusHeader)
	}
	var values []any
	for n, line := range strings.Split(string(data), "\n")[1:] {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		v, err := parseGoValue(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+2, err)
		}
		values = append(values, v)
	}
	return values, nil
}

// ParseGoCorpus decodes a Go fuzzing corpus file (ParseGoCorpusValues)
// that holds one []byte or string value: its bytes. Another value type,
// or more than one value, is an error.
func ParseGoCorpus(data []byte) ([]byte, error) {
	values, err := ParseGoCorpusValues(data)
	if err != nil {
		return nil, err
	}
	if len(values) != 1 {
		return nil, fmt.Errorf("expected one []byte or string value, got %d values", len(values))
	}
	switch v := values[0].(type) {
	case []byte:
		return v, nil
	case string:
		return []byte(v), nil
	}
	return nil, fmt.Errorf("expected one []byte or string value, got a value of type %T", values[0])
}

// FormatGoCorpus renders data as a Go fuzzing corpus file with one []byte
// value, readable by `go test` and by ParseGoCorpus.
func FormatGoCorpus(data []byte) []byte { return FormatGoCorpusValues([]any{data}) }

// FormatGoCorpusValues renders values as go test -fuzz writes a corpus
// file: the header, then one Go expression a line ([]byte("..."),
// int(-3), byte('a'), rune('x'); math.Float64frombits(0x...) for the
// floats a literal cannot spell: NaNs, infinities, negative zero).
func FormatGoCorpusValues(values []any) []byte {
	var b strings.Builder
	b.WriteString(GoCorpusHeader + "\n")
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

// goIntBits are the integer types' sizes in bits (int and uint are 64
// bits, as on the hosts go test -fuzz runs on and on wasm).
var goIntBits = map[string]int{
	"int": 64, "int8": 8, "int16": 16, "int32": 32, "rune": 32, "int64": 64,
	"uint": 64, "uint8": 8, "byte": 8, "uint16": 16, "uint32": 32, "uint64": 64,
}

// parseGoValue reads one line: T(literal) or math.FloatNNfrombits(bits).
func parseGoValue(line string) (any, error) {
	e, err := parser.ParseExpr(line)
	if err != nil {
		return nil, fmt.Errorf("%.40q: not a Go expression", line)
	}
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil, fmt.Errorf("%.40q: expected T(value)", line)
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
	if id, ok := call.Args[0].(*ast.Ident); ok && typ == "bool" && (id.Name == "true" || id.Name == "false") {
		return id.Name == "true", nil
	}
	lit, neg := call.Args[0], false
	if u, ok := lit.(*ast.UnaryExpr); ok && (u.Op == token.SUB || u.Op == token.ADD) {
		lit, neg = u.X, u.Op == token.SUB
	}
	bl, ok := lit.(*ast.BasicLit)
	if !ok {
		return nil, fmt.Errorf("%.40q: expected a literal argument", line)
	}
	bad := fmt.Errorf("%.40q: not a value of type %s", line, typ)
	switch typ {
	case "math.Float64frombits", "math.Float32frombits":
		bits, err := strconv.ParseUint(bl.Value, 0, 64)
		if err != nil || neg || bl.Kind != token.INT {
			return nil, fmt.Errorf("%.40q: expected an unsigned integer", line)
		}
		if typ == "math.Float32frombits" {
			if bits > math.MaxUint32 {
				return nil, fmt.Errorf("%.40q: expected 32 bits", line)
			}
			return math.Float32frombits(uint32(bits)), nil
		}
		return math.Float64frombits(bits), nil
	case "[]byte", "string":
		if bl.Kind != token.STRING || neg {
			return nil, bad
		}
		s, err := strconv.Unquote(bl.Value)
		if err != nil {
			return nil, fmt.Errorf("%.40q: bad string literal", line)
		}
		if typ == "string" {
			return s, nil
		}
		return []byte(s), nil
	case "float32", "float64":
		if bl.Kind != token.INT && bl.Kind != token.FLOAT {
			return nil, bad
		}
		size := 64
		if typ == "float32" {
			size = 32
		}
		sign := ""
		if neg {
			sign = "-"
		}
		f, err := strconv.ParseFloat(sign+bl.Value, size)
		if err != nil {
			return nil, bad
		}
		if typ == "float32" {
			return float32(f), nil
		}
		return f, nil
	}
	size, ok := goIntBits[typ]
	if !ok {
		return nil, fmt.Errorf("%.40q: expected a value of a fuzz argument type, not %q", line, typ)
	}
	var x uint64 // the value's bits
	switch bl.Kind {
	case token.CHAR:
		r, _, tail, err := strconv.UnquoteChar(bl.Value[1:len(bl.Value)-1], '\'')
		if err != nil || tail != "" || neg {
			return nil, fmt.Errorf("%.40q: bad character literal", line)
		}
		if uint64(r) >= 1<<size || (typ != "byte" && typ != "uint8" && typ != "rune" && typ != "int32") {
			return nil, bad
		}
		x = uint64(r)
	case token.INT:
		if typ[0] == 'u' || typ == "byte" {
			u, err := strconv.ParseUint(bl.Value, 0, size)
			if err != nil || (neg && u != 0) {
				return nil, bad
			}
			x = u
		} else {
			sign := ""
			if neg {
				sign = "-"
			}
			i, err := strconv.ParseInt(sign+bl.Value, 0, size)
			if err != nil {
				return nil, bad
			}
			x = uint64(i)
		}
	default:
		return nil, bad
	}
	switch typ {
	case "int":
		return int(x), nil
	case "int8":
		return int8(x), nil
	case "int16":
		return int16(x), nil
	case "int32", "rune":
		return int32(x), nil
	case "int64":
		return int64(x), nil
	case "uint":
		return uint(x), nil
	case "uint8", "byte":
		return uint8(x), nil
	case "uint16":
		return uint16(x), nil
	case "uint32":
		return uint32(x), nil
	}
	return x, nil
}
