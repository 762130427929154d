package gofuzz

import (
	"slices"
	"testing"
)

// uncounted leaves counted what the package under test, its internal
// and external test packages reach by imports, also where testing
// imports it too (regexp), and names the rest by the name section's
// prefix: what only testing reaches (os here); the test binary's main,
// the runtime and a package whose prefix could match a reached one's
// functions ("example") are never named.
func TestUncounted(t *testing.T) {
	const p = "example.com/m/p"
	pkgs := []listed{
		{ImportPath: p, Name: "p", Imports: []string{"encoding/json"}},
		{ImportPath: p + " [" + p + ".test]", Name: "p", Imports: []string{"encoding/json", "regexp", "testing"}},
		{ImportPath: p + "_test [" + p + ".test]", Name: "p_test", Imports: []string{p + " [" + p + ".test]", "example.com/m/q [" + p + ".test]", "testing"}},
		{ImportPath: "example.com/m/q [" + p + ".test]", Name: "q", Imports: []string{p + " [" + p + ".test]"}},
		{ImportPath: p + ".test", Name: "main", Imports: []string{"os", "testing", "testing/internal/testdeps", p + " [" + p + ".test]", p + "_test [" + p + ".test]"}},
		{ImportPath: "encoding/json", Name: "json", Imports: []string{"reflect"}},
		{ImportPath: "reflect", Name: "reflect"},
		{ImportPath: "regexp", Name: "regexp", Imports: []string{"regexp/syntax"}},
		{ImportPath: "regexp/syntax", Name: "syntax"},
		{ImportPath: "os", Name: "os"},
		{ImportPath: "runtime", Name: "runtime"},
		{ImportPath: "testing", Name: "testing", Imports: []string{"flag", "regexp", "runtime/pprof", "os"}},
		{ImportPath: "testing/internal/testdeps", Name: "testdeps", Imports: []string{"internal/fuzz", "testing"}},
		{ImportPath: "internal/fuzz", Name: "fuzz", Imports: []string{"gopkg.in/yaml.v3"}},
		{ImportPath: "gopkg.in/yaml.v3", Name: "yaml"},
		{ImportPath: "flag", Name: "flag"},
		{ImportPath: "runtime/pprof", Name: "pprof", Imports: []string{"example"}},
		// "example.*" would match example.com/m/p's functions
		{ImportPath: "example", Name: "example"},
	}
	got := uncounted(pkgs, p, nil)
	var want []string
	for _, pre := range []string{"flag.", "gopkg.in_yaml_2ev3.", "internal_fuzz.", "os.", "runtime_pprof.", "testing.", "testing_internal_testdeps."} {
		want = append(want, pre+"*", "type_.eq."+pre+"*")
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("uncounted:\n got %q\nwant %q", got, want)
	}
}

// namePrefix spells a package path as Go's wasm linker writes it in the
// name section.
func TestNamePrefix(t *testing.T) {
	for path, want := range map[string]string{
		"fmt":                      "fmt",
		"compress/flate":           "compress_flate",
		"golang.org/x/net/html":    "golang.org_x_net_html",
		"gopkg.in/yaml.v3":         "gopkg.in_yaml_2ev3",
		"example.com/my-pkg/héllo": "example.com_my_pkg_h_c3_a9llo",
	} {
		if got := namePrefix(path); got != want {
			t.Errorf("namePrefix(%q) = %q, want %q", path, got, want)
		}
	}
}
