package runtime

import (
	"os"
	"path/filepath"
	"testing"
)

// TestZstdExampleSeeds: the zstd example (a third-party decoder,
// examples/czstd), instrumented as a campaign runs it, decodes every seed
// frame (valid) and rejects each with a broken magic number (invalid).
func TestZstdExampleSeeds(t *testing.T) {
	w := worker(t, loadInstrumented(t, "../examples/czstd/czstd.wasm", fullOpts, Config{MaxInputLen: 4096}))
	seeds, err := filepath.Glob("../examples/czstd/seeds/*")
	if err != nil || len(seeds) == 0 {
		t.Fatalf("no seeds: %v", err)
	}
	for _, s := range seeds {
		in, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if r := run(t, w, string(in)); r.Outcome != Valid {
			t.Fatalf("%s: expected valid, got %v %v", s, r.Outcome, r.Failure)
		}
		in[0] ^= 0xff
		if r := run(t, w, string(in)); r.Outcome != Invalid {
			t.Fatalf("%s with a broken magic number: expected invalid, got %v %v", s, r.Outcome, r.Failure)
		}
	}
}
