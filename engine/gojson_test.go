package engine

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
)

// TestZestVsHavocGoJSON compares strategies on a real structured target,
// the gojson example (encoding/json round trip, Go reactor), at equal
// executions: Zest with the json generator against havoc on raw bytes from
// the example's seed, and the random baseline. Slow (a 2 MB Go module):
// WAFER_FULL=1 only.
func TestZestVsHavocGoJSON(t *testing.T) {
	if os.Getenv("WAFER_FULL") == "" {
		t.Skip("WAFER_FULL=1 runs the gojson comparison (compiles a 2 MB Go module)")
	}
	tgt, sm := loadTarget(t, "../examples/gojson/gojson.wasm", false)
	seed, err := os.ReadFile("../examples/gojson/seeds/object.json")
	if err != nil {
		t.Fatal(err)
	}
	g, _ := generators.Lookup("json")
	gen := FromGenerator(g, generators.Options{Dictionary: sm.Dictionary})
	const runs = 3000
	seeds := []uint64{1, 2, 3}
	variants := []struct {
		name  string
		strat string
		gen   Generator
		seeds [][]byte
	}{
		{"zest+json", "zest", gen, nil},
		{"havoc-raw+seed", "havoc", nil, [][]byte{seed}},
		{"random+json", "random", gen, nil},
	}
	mean := map[string]float64{}
	for _, v := range variants {
		var line strings.Builder
		for _, s := range seeds {
			sum, err := Fuzz(context.Background(), Config{Search: Search{Seed: s, Runs: runs, Strategy: v.strat, KeepGoing: true, NoShrink: true}},
				Deps{NewExecutor: runtimeExecutors(tgt), Generator: v.gen, Seeds: v.seeds, TargetDict: sm.Dictionary})
			if err != nil {
				t.Fatal(err)
			}
			mean[v.name] += float64(sum.Stats.ValidCoverage) / float64(len(seeds))
			fmt.Fprintf(&line, " %d/%d(%.0f%%)", sum.Stats.ValidCoverage, sum.Stats.Coverage, sum.Stats.ValidPct)
		}
		t.Logf("%-15s valid/all coverage (valid%%) after %d runs, seeds %v:%s; mean valid %.1f", v.name, runs, seeds, line.String(), mean[v.name])
	}
	if mean["zest+json"] <= mean["havoc-raw+seed"] {
		t.Errorf("expected zest's mean valid coverage > havoc's, got %.1f <= %.1f", mean["zest+json"], mean["havoc-raw+seed"])
	}
}
