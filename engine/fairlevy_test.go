package engine

import (
	"context"
	"testing"
)

func TestSmokeFairLevy(t *testing.T) {
	for _, s := range []string{"fairfuzz", "levy"} {
		for _, w := range []int{1, 2} {
			var log execLog
			sum, err := Fuzz(context.Background(), Config{Seed: 3, Runs: 20_000, Workers: w, Deterministic: true, KeepGoing: true, NoShrink: true, Strategy: s},
				Deps{NewExecutor: magicTarget.executors(nil), OnRun: log.onRun, Seeds: [][]byte{[]byte("ABCDEFGH")}})
			if err != nil {
				t.Fatal(err)
			}
			h, n := log.hash()
			t.Logf("%s w=%d: execs %d cov %d queue %d crashes %d hash %x n %d", s, w, sum.Stats.Execs, sum.Stats.Coverage, len(sum.Queue), sum.Stats.Crashes, h, n)
		}
	}
}
