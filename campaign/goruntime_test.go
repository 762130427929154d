package campaign

import (
	"os"
	"path"
	"slices"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// TestGoRuntimeSkip: a Go module's builds skip the runtime's functions
// unless GoRuntimeCounters is set; a C module's builds keep the user's
// Skip patterns only, and the user's patterns are never lost or aliased.
func TestGoRuntimeSkip(t *testing.T) {
	goWasm, err := os.ReadFile("../examples/gojson/gojson.wasm")
	if err != nil {
		t.Fatal(err)
	}
	cWasm, err := os.ReadFile("../examples/tlv/tlv.wasm")
	if err != nil {
		t.Fatal(err)
	}
	user := make([]string, 1, 4)
	user[0] = "main.*"
	tests := []struct {
		name string
		wasm []byte
		opts TargetOptions
		want []string
	}{
		{"Go module", goWasm, TargetOptions{}, []string{GoRuntimeSkip}},
		{"Go module with --skip", goWasm, TargetOptions{Skip: user}, []string{"main.*", GoRuntimeSkip}},
		{"Go module with --instrument-go-runtime", goWasm, TargetOptions{Skip: user, GoRuntimeCounters: true}, []string{"main.*"}},
		{"C module", cWasm, TargetOptions{Skip: user}, []string{"main.*"}},
		{"C module, no patterns", cWasm, TargetOptions{}, nil},
	}
	for _, tc := range tests {
		s, err := instrument.Summarize(tc.wasm)
		if err != nil {
			t.Fatal(err)
		}
		if got := tc.opts.skip(s); !slices.Equal(got, tc.want) {
			t.Errorf("%s: skip patterns %q, want %q", tc.name, got, tc.want)
		}
	}
	if user[:cap(user)][1] != "" {
		t.Errorf("the Go runtime's pattern was written into the caller's Skip slice")
	}
}

// TestGoTestSkip: GoTestSkip's patterns match package testing's
// functions, the fuzzing machinery go test links, and the generated
// file's functions at any package depth (methods and closures too), and
// none of the code a fuzz test tests.
func TestGoTestSkip(t *testing.T) {
	matches := func(name string) bool {
		for _, p := range GoTestSkip() {
			if ok, err := path.Match(p, name); err != nil {
				t.Fatalf("pattern %q: %v", p, err)
			} else if ok {
				return true
			}
		}
		return false
	}
	for _, name := range []string{"testing.(*common).SkipNow", "testing.tRunner.func1", "testing/internal/testdeps.TestDeps.RunFuzzWorker",
		"internal/fuzz.RunFuzzWorker", "p.waferFuzzStart", "example.com/m/p.waferFuzzWrap.func1.1",
		"github.com/a/b/c/d/e/f/g/h/i/j_test.(*waferFuzzState).RunFuzzWorker", "example.com/p.waferFuzzSkipper.Skip"} {
		if !matches(name) {
			t.Errorf("%s: counted, want it skipped", name)
		}
	}
	for _, name := range []string{"example.com/m/p.Parse", "example.com/m/p.FuzzParse.func1", "flag.Parse", "regexp.Compile",
		"encoding/json.Unmarshal", "testingx.F", "github.com/x/testing.F", "reflect.Value.Call"} {
		if matches(name) {
			t.Errorf("%s: skipped, want it counted", name)
		}
	}
}
