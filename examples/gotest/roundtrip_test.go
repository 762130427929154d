package gotest

import (
	"bytes"
	"encoding/json"
	"go/format"
	"go/parser"
	"go/token"
	"image/png"
	"os"
	"reflect"
	"testing"
)

// FuzzJSON: a document json.Unmarshal accepts marshals and unmarshals
// again to an equal value.
func FuzzJSON(f *testing.F) {
	seed, err := os.ReadFile("../gojson/seeds/object.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Skip()
		}
		out, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("marshal of an unmarshalled value failed: %v", err)
		}
		var w any
		if err := json.Unmarshal(out, &w); err != nil {
			t.Fatalf("re-unmarshal of %q failed: %v", out, err)
		}
		if !reflect.DeepEqual(v, w) {
			t.Fatalf("round trip changed the value: %#v != %#v", v, w)
		}
	})
}

// FuzzPNG: an image png.Decode accepts encodes and decodes again with the
// same bounds.
func FuzzPNG(f *testing.F) {
	seed, err := os.ReadFile("../gopng/seeds/2x1.png")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil || cfg.Width*cfg.Height > 1<<20 {
			t.Skip()
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Skip()
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatalf("encoding a decoded image failed: %v", err)
		}
		img2, err := png.Decode(&buf)
		if err != nil {
			t.Fatalf("decoding a re-encoded image failed: %v", err)
		}
		if img.Bounds() != img2.Bounds() {
			t.Fatalf("round trip changed the bounds: %v != %v", img.Bounds(), img2.Bounds())
		}
	})
}

// FuzzParse: Go source go/parser accepts formats to a fixed point of
// go/format that parses again.
func FuzzParse(f *testing.F) {
	f.Add([]byte("package p\n\nfunc f(x int) int { return x * 2 }\n"), uint8(0))
	f.Fuzz(func(t *testing.T, src []byte, mode uint8) {
		if len(src) > 64<<10 {
			t.Skip()
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, "in.go", src, parser.Mode(mode)&(parser.ParseComments|parser.AllErrors)|parser.SkipObjectResolution)
		if err != nil {
			t.Skip()
		}
		var once bytes.Buffer
		if err := format.Node(&once, fset, file); err != nil {
			t.Skip() // the printer refuses some trees the parser accepts
		}
		again, err := format.Source(once.Bytes())
		if err != nil {
			t.Fatalf("formatted source does not parse: %v\n%s", err, once.Bytes())
		}
		if !bytes.Equal(again, once.Bytes()) {
			t.Fatalf("formatting is not a fixed point:\n%s\n---\n%s", once.Bytes(), again)
		}
	})
}
