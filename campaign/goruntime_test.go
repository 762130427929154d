package campaign

import (
	"os"
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
