package generators

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"go/parser"
	"image/png"
	"io"
	"math/rand/v2"
	"regexp"
	"strconv"
)

// testDict is a dictionary with entries that need escaping in every format.
var testDict = [][]byte{
	[]byte("GET"), []byte("<tag>"), []byte("a\"b\\c"), []byte("]]>--"), []byte("\xff\xfe\x00"),
	{0x2a, 0, 0, 0}, {0xff, 0xff}, []byte("1234567"), []byte("-42"), []byte("select"),
	[]byte("x"), []byte("_"), []byte("Z"), []byte("name-1.x"),
}

// randomSeq returns FromBytes of 0–511 random bytes.
func randomSeq(r *rand.Rand) *Sequence {
	b := make([]byte, r.IntN(512))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return FromBytes(b)
}

// sink uses every combinator; its output encodes every result.
func sink(s *Source) []byte {
	var b []byte
	b = strconv.AppendInt(b, int64(s.Int(-5, 1000)), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, s.Int64(-1<<62, 1<<62), 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, s.Uint64(), 16)
	b = append(b, ' ')
	b = strconv.AppendBool(b, s.Bool())
	b = append(b, ' ')
	b = strconv.AppendBool(b, s.Decide(0.3))
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(s.Pick(3)), 10)
	b = strconv.AppendInt(b, int64(s.Weighted(0, 2, 1)), 10)
	b = append(b, ' ')
	b = append(b, s.Draw(Structural, 2)...)
	b = append(b, s.Draw(Value, 3)...)
	b = append(b, s.Bytes(0, 10)...)
	if d, ok := s.Dict(0.5); ok {
		b = append(b, d...)
	}
	items := List(s, 0, 4, func(s *Source) string {
		return Call(s, "item", func(s *Source) string { return s.String("abc", 0, 5) })
	})
	b = fmt.Appendf(b, " %q ", items)
	b = append(b, OneOf(s,
		Alt[string]{1, func(s *Source) string { return "one" + s.String("xyz", 1, 3) }},
		Alt[string]{2, func(s *Source) string { return strconv.Itoa(s.Int(0, 9)) }},
	)...)
	n := Repeat(s, 1, 3, func(s *Source, i int) { b = strconv.AppendInt(b, int64(i*s.Int(1, 3)), 10) })
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, sinkTree(s)...)
	return b
}

func sinkTree(s *Source) string {
	return Recurse(s, "tree", 3,
		func(s *Source) string { return strconv.Itoa(s.Int(0, 9)) },
		func(s *Source) string { return "(" + sinkTree(s) + " " + sinkTree(s) + ")" })
}

// generatorCases are the generators every property test runs.
var generatorCases = []struct {
	name  string
	gen   Generator
	valid func([]byte) error // nil: no validity check
}{
	{"raw", Raw, nil},
	{"json", JSON, validJSON},
	{"xml", XML, validXML},
	{"png", PNG, validPNG},
	{"expr", Expr, validExpr},
	{"sql", SQL, validSQL},
	{"sink", sink, nil},
}

func validJSON(b []byte) error {
	if !json.Valid(b) {
		return errors.New("json.Valid: false")
	}
	var v any
	return json.Unmarshal(b, &v)
}

var xmlEntityDecl = regexp.MustCompile(`<!ENTITY (\w+) "([^"]*)">`)

func validXML(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	roots := 0
	depth := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.Directive:
			// a conforming processor expands the DTD's internal entities;
			// encoding/xml does not read DTDs, so tell it about them
			for _, m := range xmlEntityDecl.FindAllSubmatch(t, -1) {
				if d.Entity == nil {
					d.Entity = map[string]string{}
				}
				d.Entity[string(m[1])] = string(m[2])
			}
		case xml.StartElement:
			if depth == 0 {
				roots++
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if roots != 1 {
		return fmt.Errorf("expected 1 root element, got %d", roots)
	}
	return nil
}

func validPNG(b []byte) error {
	_, err := png.Decode(bytes.NewReader(b))
	return err
}

func validExpr(b []byte) error {
	_, err := parser.ParseExpr(string(b))
	return err
}
