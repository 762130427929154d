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

// TestGoWarmSnapshot: the Go examples are built with package harness,
// whose malloc warms the instance up before the snapshot (heap headroom, a
// grown stack). Their seeds then run in restore mode without growing
// memory, so no run after the first needs a new instance (before, every
// run of gopng's seed grew memory), and a restore-mode run costs at most
// 2.2 times the fuel of a warm persistent-mode run (gojson 2.07, 2.54
// before; gopng 0.87; fuel counts function entries and loop iterations,
// so the ratio does not depend on the machine). The fuel is counted as
// these figures were measured, every jump of Go's resume-point dispatch
// paying (instrument.Options.CountGoDispatch); campaigns pay at backward
// jumps only, where gojson's ratio is 2.38.
func TestGoWarmSnapshot(t *testing.T) {
	opts := fullOpts
	opts.CountGoDispatch = true
	for _, ex := range []string{"gojson", "gopng", "goparser"} {
		t.Run(ex, func(t *testing.T) {
			path := "../examples/" + ex + "/" + ex + ".wasm"
			w := worker(t, loadInstrumented(t, path, opts, Config{Reset: Restore, MaxInputLen: DefaultMaxInputLen}))
			warm := worker(t, loadInstrumented(t, path, opts, Config{Reset: Persistent, MaxInputLen: DefaultMaxInputLen}))
			seeds, err := filepath.Glob("../examples/" + ex + "/seeds/*")
			if err != nil || len(seeds) == 0 {
				t.Fatalf("no seeds: %v", err)
			}
			for _, s := range seeds {
				in, err := os.ReadFile(s)
				if err != nil || len(in) > DefaultMaxInputLen {
					continue
				}
				r := run(t, w, string(in))
				if r.Outcome != Valid {
					t.Fatalf("%s: expected valid, got %v %v", s, r.Outcome, r.Failure)
				}
				seq := w.alloc.seq
				for range 5 {
					run(t, w, string(in))
				}
				if n := w.alloc.seq - seq; n != 0 {
					t.Errorf("%s: 5 runs in restore mode allocated %d new memories: memory grew in every run", filepath.Base(s), n)
				}
				var wr Result
				for range 5 {
					wr = run(t, warm, string(in))
				}
				ratio := float64(r.Fuel) / float64(wr.Fuel)
				t.Logf("%s: fuel %d per restore-mode run, %d per warm persistent-mode run (%.2fx)", filepath.Base(s), r.Fuel, wr.Fuel, ratio)
				if ratio > 2.2 {
					t.Errorf("%s: a restore-mode run costs %.2f times the fuel of a warm one, expected at most 2.2", filepath.Base(s), ratio)
				}
			}
		})
	}
}
