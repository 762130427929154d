package runtime

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestThirdPartyExampleSeeds: the third-party C examples (Zstandard's
// decoder, SQLite), instrumented as a campaign runs them, accept every
// seed (valid) and reject it with its first byte flipped (invalid: a
// broken frame magic number, a syntax error).
func TestThirdPartyExampleSeeds(t *testing.T) {
	for _, ex := range []string{"czstd", "csqlite"} {
		t.Run(ex, func(t *testing.T) {
			start := time.Now()
			w := worker(t, loadInstrumented(t, "../examples/"+ex+"/"+ex+".wasm", fullOpts, Config{MaxInputLen: 4096}))
			t.Logf("instrumented, compiled and initialised in %v", time.Since(start).Round(time.Millisecond))
			seeds, err := filepath.Glob("../examples/" + ex + "/seeds/*")
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
					t.Fatalf("%s with its first byte flipped: expected invalid, got %v %v", s, r.Outcome, r.Failure)
				}
			}
		})
	}
}

// TestGoHeapHeadroom: the Go examples (built with package harness, whose
// malloc grows Go's heap before the snapshot) run their seeds in restore
// mode without growing memory, so no run after the first needs a new
// instance. Without the headroom every run of these seeds grew memory.
func TestGoHeapHeadroom(t *testing.T) {
	for _, ex := range []string{"gojson", "gopng"} {
		t.Run(ex, func(t *testing.T) {
			w := worker(t, loadInstrumented(t, "../examples/"+ex+"/"+ex+".wasm", fullOpts, Config{Reset: Restore, MaxInputLen: DefaultMaxInputLen}))
			seeds, err := filepath.Glob("../examples/" + ex + "/seeds/*")
			if err != nil || len(seeds) == 0 {
				t.Fatalf("no seeds: %v", err)
			}
			for _, s := range seeds {
				in, err := os.ReadFile(s)
				if err != nil || len(in) > DefaultMaxInputLen {
					continue
				}
				if r := run(t, w, string(in)); r.Outcome != Valid {
					t.Fatalf("%s: expected valid, got %v %v", s, r.Outcome, r.Failure)
				}
				seq := w.alloc.seq
				for range 5 {
					run(t, w, string(in))
				}
				if n := w.alloc.seq - seq; n != 0 {
					t.Errorf("%s: 5 runs in restore mode allocated %d new memories: memory grew in every run", filepath.Base(s), n)
				}
			}
		})
	}
}
