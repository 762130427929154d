package campaign

import (
	"os"
	"path"
	"slices"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// TestGoRuntimeSkip: a Go module's builds skip the runtime's functions
// unless GoRuntimeCounters is set, and a Go fuzz test's also what it
// does not reach (Summary.Uncounted); a C module's builds keep the user's
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
	// a Go fuzz test's build adds GoTestSkip and its UncountedSection's
	// patterns, another Go module's section is not read
	goTest := &instrument.Summary{Customs: []string{"go:buildid"}, Exports: []instrument.Export{{Name: goTestExport, Kind: instrument.ExternFunc}}, Uncounted: []string{"regexp.*"}}
	want := append(append([]string{"main.*", GoRuntimeSkip}, GoTestSkip()...), "regexp.*")
	if got := (&TargetOptions{Skip: user}).skip(goTest); !slices.Equal(got, want) {
		t.Errorf("Go fuzz test: skip patterns %q, want %q", got, want)
	}
	if got := (&TargetOptions{GoRuntimeCounters: true}).skip(goTest); got != nil {
		t.Errorf("Go fuzz test with --instrument-go-runtime: skip patterns %q, want none", got)
	}
	s, err := instrument.Summarize(instrument.AppendCustom(slices.Clone(goWasm), instrument.UncountedSection, []byte("regexp.*")))
	if err != nil {
		t.Fatal(err)
	}
	if got := (&TargetOptions{}).skip(s); !slices.Equal(got, []string{GoRuntimeSkip}) {
		t.Errorf("Go reactor with an uncounted section: skip patterns %q, want only %q", got, GoRuntimeSkip)
	}
	if user[:cap(user)][1] != "" {
		t.Errorf("the Go runtime's pattern was written into the caller's Skip slice")
	}
}

// TestGoTestSkip: GoTestSkip's patterns match package testing's
// functions, the fuzzing machinery go test links, and the generated
// file's functions (methods and closures too), and none of the code a
// fuzz test tests.
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
	// names as the name section spells them (GoTestSkip)
	for _, name := range []string{"testing.__common_.SkipNow", "testing.tRunner.func1", "testing_internal_testdeps.TestDeps.RunFuzzWorker",
		"internal_fuzz.RunFuzzWorker", "p.waferFuzzStart", "example.com_m_p.waferFuzzWrap.func1.1",
		"github.com_a_b_c_d_e_f_g_h_i_j_test.__waferFuzzState_.RunFuzzWorker", "example.com_p.waferFuzzSkipper.Skip"} {
		if !matches(name) {
			t.Errorf("%s: counted, want it skipped", name)
		}
	}
	for _, name := range []string{"example.com_m_p.Parse", "example.com_m_p.FuzzParse.func1", "flag.Parse", "regexp.Compile",
		"encoding_json.Unmarshal", "testingx.F", "github.com_x_testing.F", "reflect.Value.Call", "example.com_m_p.__T_.Skip"} {
		if matches(name) {
			t.Errorf("%s: skipped, want it counted", name)
		}
	}
}
