package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestRestoreExactGo: on the Go examples, instrumented as a campaign runs
// them, the restore of a run's dirty blocks brings the whole target memory
// back to the snapshot, byte for byte (the input buffer aside: Run writes
// it unmarked and clears it itself). The runs are the seeds and mutants
// of them (bytes flipped, inserted, deleted, cut), which make the Go
// runtime allocate, collect, switch goroutines, grow stacks and recover
// panics (go/parser's bailout), with and without the seeds as warm-up. A
// store whose mark the instrumentation left out as implied by another
// (instrument's marks.go and goframe.go) shows here as a difference after
// the restore, with its address.
func TestRestoreExactGo(t *testing.T) {
	n := 25 // mutants per seed
	if testing.Short() {
		n = 6
	}
	ctx := context.Background()
	for _, ex := range []string{"gojson", "gopng", "goparser"} {
		seeds := exampleSeeds(t, ex)
		for _, warm := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/warm=%v", ex, warm), func(t *testing.T) {
				cfg := Config{Reset: Restore, MaxInputLen: DefaultMaxInputLen}
				if warm {
					cfg.WarmUp = seeds
				}
				w := worker(t, loadInstrumented(t, "../examples/"+ex+"/"+ex+".wasm", fullOpts, cfg))
				rng := rand.New(rand.NewPCG(uint64(len(ex)), 1))
				checked := 0
				for i, s := range seeds {
					for j := range n + 1 {
						in := s
						if j > 0 {
							in = mutant(rng, s)
						}
						run(t, w, string(in))
						if w.mod == nil {
							continue // failed: the next run gets a new instance
						}
						if err := w.restore(ctx); err != nil {
							t.Fatal(err)
						}
						if len(w.view) != len(w.snapMem) {
							continue // grown: restored by a new instance
						}
						if at := restoreDiff(w); at >= 0 {
							t.Fatalf("seed %d, mutant %d (%d bytes): after the restore, target address %#x differs from the snapshot", i, j, len(in), at)
						}
						checked++
					}
				}
				if checked < len(seeds)*(n+1)/2 {
					t.Fatalf("only %d of %d runs were restored in place", checked, len(seeds)*(n+1))
				}
			})
		}
	}
}

// exampleSeeds reads the seeds of a bundled example (at most
// DefaultMaxInputLen bytes each).
func exampleSeeds(t *testing.T, ex string) [][]byte {
	paths, err := filepath.Glob("../examples/" + ex + "/seeds/*")
	if err != nil || len(paths) == 0 {
		t.Fatalf("%s: no seeds: %v", ex, err)
	}
	var seeds [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 0 && len(b) <= DefaultMaxInputLen {
			seeds = append(seeds, b)
		}
	}
	return seeds
}

// mutant returns a copy of s with a few random edits.
func mutant(rng *rand.Rand, s []byte) []byte {
	b := append([]byte(nil), s...)
	for range 1 + rng.IntN(8) {
		switch k := rng.IntN(4); {
		case len(b) == 0 || k == 0:
			b = append(b, byte(rng.IntN(256)))
		case k == 1:
			b[rng.IntN(len(b))] = byte(rng.IntN(256))
		case k == 2:
			i := rng.IntN(len(b))
			b = append(b[:i], b[i+1:]...)
		default:
			b = b[:rng.IntN(len(b))]
		}
	}
	return b
}

// restoreDiff returns the first target address where w's memory differs
// from its snapshot, the input buffer aside, or -1.
func restoreDiff(w *Worker) int64 {
	base := w.t.meta.layout.ReservedBytes()
	in := uint64(w.inPtr) + w.io.st.Base
	for _, r := range [][2]uint64{{base, in}, {in + uint64(w.t.maxIn), uint64(len(w.view))}} {
		a, b := w.view[r[0]:r[1]], w.snapMem[r[0]:r[1]]
		for i := range a {
			if a[i] != b[i] {
				return int64(r[0] + uint64(i) - base)
			}
		}
	}
	return -1
}
