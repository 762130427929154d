package campaign

import (
	"bytes"
	"context"
	"testing"

	"github.com/wafer-fuzz/wafer/runtime"
)

// TestPuzzles: each comparison puzzle of testdata/puzzles (issue 42;
// docs/ALGORITHMS.md §8) reaches its abort() in a one-worker campaign of
// seed 1 from 64 'x' bytes, within an execution budget of about three
// times the runs it took when the test was written (a one-worker campaign
// is a function of its seed: a change of search or instrumentation that
// takes more runs shows here). The puzzles whose operands are copied from
// the input (nested sparse switches, 128-bit integers, long double,
// transformed strings, the C++ one) are solved by input-to-state alone;
// those whose operand is computed from the input (a weighted sum, a hash,
// a mask of byte checks, a sum of switch results) with the value profile.
// The .wasm files are checked in (testdata/puzzles/build.sh rebuilds
// them).
func TestPuzzles(t *testing.T) {
	if testing.Short() {
		t.Skip("several million executions (-short)")
	}
	cases := []struct {
		name string
		vp   bool
		runs int64
	}{
		{"bitmask_O0", false, 20_000},
		{"sparse_O0", false, 20_000},
		{"sparse_O2", false, 20_000},
		{"int128_O0", false, 20_000},
		{"int128_O2", false, 20_000},
		{"longdouble_O0", false, 20_000},
		{"longdouble_O2", false, 20_000},
		{"transform_O0", false, 20_000},
		{"transform_O2", false, 20_000},
		{"puzzle_cc_O0", false, 100_000},
		{"puzzle_cc_O2", false, 100_000},
		{"weighted_O0", true, 600_000},
		{"weighted_O2", true, 300_000},
		{"hash_O0", true, 100_000},
		{"hash_O2", true, 400_000},
		{"bitmask_O2", true, 4_000_000},
		{"switchsum_O0", true, 600_000},
		{"switchsum_O2", true, 300_000},
	}
	seed := bytes.Repeat([]byte("x"), 64)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wasm := readFile(t, "../testdata/puzzles/"+c.name+".wasm")
			tg, err := Load(c.name+".wasm", wasm, TargetOptions{ValueProfile: c.vp})
			if err != nil {
				t.Fatal(err)
			}
			sum, err := tg.Fuzz(context.Background(), Options{Search: Search{Seed: 1, Runs: c.runs, NoShrink: true}, Seeds: [][]byte{seed}})
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Findings) == 0 || sum.Findings[0].Kind != runtime.KindAbort {
				t.Fatalf("not solved in %d runs (value profile %v): %d findings, coverage %d, %d features", c.runs, c.vp, len(sum.Findings), sum.Stats.Coverage, sum.Stats.Features)
			}
			t.Logf("solved in %d runs", sum.Stats.Execs)
		})
	}
}

// TestValueProfileFeatures: with TargetOptions.ValueProfile a campaign
// counts value-profile features apart from its branches: the same branch
// coverage as without on a puzzle neither solves in a few runs, and
// features only with the option.
func TestValueProfileFeatures(t *testing.T) {
	wasm := readFile(t, "../testdata/puzzles/hash_O2.wasm")
	seed := bytes.Repeat([]byte("x"), 64)
	var cov [2]int
	for i, vp := range []bool{false, true} {
		tg, err := Load("hash_O2.wasm", wasm, TargetOptions{ValueProfile: vp})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := tg.Fuzz(context.Background(), Options{Search: Search{Seed: 1, Runs: 2_000, NoShrink: true}, Seeds: [][]byte{seed}})
		if err != nil {
			t.Fatal(err)
		}
		if len(sum.Findings) != 0 {
			t.Fatalf("value profile %v: solved in 2,000 runs", vp)
		}
		if (sum.Stats.Features > 0) != vp {
			t.Errorf("value profile %v: %d features", vp, sum.Stats.Features)
		}
		cov[i] = sum.Stats.Coverage
	}
	if cov[0] != cov[1] {
		t.Errorf("branch coverage %d without the value profile, %d with it", cov[0], cov[1])
	}
}
