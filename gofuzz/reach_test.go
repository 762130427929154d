package gofuzz

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// testImports follows the fuzz test's own code through the package's
// functions, variables, types and their methods, and methods called by
// name, to the imports their files name; init functions, initialised
// variables and blank imports count for every test; another test's
// imports do not; a test not declared, or a file that does not parse,
// is not ok.
func TestTestImports(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"p.go": `package p

import (
	"strconv"
	"strings"
	_ "image/png"
	u "unicode/utf8"
)

type Parser struct{}

func (Parser) Parse(s string) int { n, _ := strconv.Atoi(strings.TrimSpace(s)); return n }

func (*Parser) Valid(b []byte) bool { return u.Valid(b) }

func unused() string { return strconv.Quote("x") }
`,
		"reg.go": `package p

import "hash/crc32"

var table = crc32.MakeTable(crc32.Castagnoli)

func init() { register() }

func register() {}
`,
		"p_test.go": `package p

import (
	"bytes"
	"encoding/json"
	"testing"
	"math"
)

func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		var p Parser
		if p.Parse(s) < 0 {
			t.Skip()
		}
		helper(t, bytes.ToUpper([]byte(s)))
	})
}

func helper(t *testing.T, b []byte) { _ = math.MaxInt; var q *Parser; q.Valid(b) }

func FuzzJSON(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) { json.Valid(b) })
}
`,
	}
	var paths []string
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	slices.Sort(paths)
	got, ok := testImports(paths, "FuzzParse")
	want := []string{"bytes", "hash/crc32", "image/png", "math", "strconv", "strings", "testing", "unicode/utf8"}
	if !ok || !slices.Equal(got, want) {
		t.Errorf("FuzzParse: %q, %v; want %q", got, ok, want)
	}
	got, ok = testImports(paths, "FuzzJSON")
	want = []string{"encoding/json", "hash/crc32", "image/png", "testing"}
	if !ok || !slices.Equal(got, want) {
		t.Errorf("FuzzJSON: %q, %v; want %q", got, ok, want)
	}
	if _, ok := testImports(paths, "FuzzMissing"); ok {
		t.Error("a test not declared: ok")
	}
	bad := filepath.Join(dir, "bad.go")
	os.WriteFile(bad, []byte("package p\nfunc {"), 0o644)
	if _, ok := testImports(append(paths, bad), "FuzzParse"); ok {
		t.Error("a file that does not parse: ok")
	}
}

// With the imports of one test as roots, uncounted names what only other
// tests of the package reach, and still leaves the package itself and
// what testing's own imports share with the test's counted.
func TestUncountedRoots(t *testing.T) {
	const p = "example.com/m/p"
	pkgs := []listed{
		{ImportPath: p + " [" + p + ".test]", Name: "p", Imports: []string{"encoding/json", "image/png", "testing"}},
		{ImportPath: p + ".test", Name: "main", Imports: []string{"testing", p + " [" + p + ".test]"}},
		{ImportPath: "encoding/json", Name: "json", Imports: []string{"reflect"}},
		{ImportPath: "image/png", Name: "png", Imports: []string{"compress/zlib"}},
		{ImportPath: "compress/zlib", Name: "zlib"},
		{ImportPath: "reflect", Name: "reflect"},
		{ImportPath: "runtime", Name: "runtime"},
		{ImportPath: "testing", Name: "testing", Imports: []string{"reflect"}},
	}
	got := uncounted(pkgs, p, []string{"image/png", "testing"})
	want := []string{"encoding_json.*", "reflect.*", "testing.*", "type_.eq.encoding_json.*", "type_.eq.reflect.*", "type_.eq.testing.*"}
	if !slices.Equal(got, want) {
		t.Errorf("roots png: %q, want %q", got, want)
	}
	got = uncounted(pkgs, p, []string{"encoding/json", "testing"})
	want = []string{"compress_zlib.*", "image_png.*", "testing.*", "type_.eq.compress_zlib.*", "type_.eq.image_png.*", "type_.eq.testing.*"}
	if !slices.Equal(got, want) {
		t.Errorf("roots json: %q, want %q", got, want)
	}
}
