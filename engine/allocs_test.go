package engine

import (
	"context"
	"testing"
)

// byteTarget hits site b%64 once per input byte b: hit counts change
// with nearly every mutation, so most children have a new trace and go
// to the coordinator (as on cexpr, where a quarter of them do).
var byteTarget = &fakeTarget{sites: 64, run: func(in []byte, c fakeCov) (Outcome, *Failure) {
	for _, b := range in {
		c.hit(int(b % 64))
	}
	if len(in) > 0 && in[0] == 'V' {
		return Valid, nil
	}
	return Invalid, nil
}}

// TestLoopAllocs: the loop's allocations grow with the number of jobs and
// of queue entries, not with executions: a child sent to the coordinator
// is copied into its batch's arena and its result into the batch's array
// (worker.keep, runBatch). Measured as the difference between campaigns
// of 20,000 and 60,000 executions, so the start's allocations cancel.
func TestLoopAllocs(t *testing.T) {
	campaign := func(runs int64) func() {
		return func() {
			sum, err := Fuzz(context.Background(), Config{Search: Search{Seed: 1, Runs: runs, KeepGoing: true, NoShrink: true}},
				Deps{NewExecutor: byteTarget.executors(nil), Seeds: [][]byte{[]byte("Vseed input")}})
			if err != nil || sum.Stats.Execs != runs {
				t.Fatalf("campaign of %d runs: %v, %d executions", runs, err, sum.Stats.Execs)
			}
		}
	}
	var fresh int
	sum, _ := Fuzz(context.Background(), Config{Search: Search{Seed: 1, Runs: 60_000, KeepGoing: true, NoShrink: true}},
		Deps{NewExecutor: byteTarget.executors(nil), Seeds: [][]byte{[]byte("Vseed input")}})
	fresh = int(sum.Stats.UniqueTraces)
	small := testing.AllocsPerRun(2, campaign(20_000))
	large := testing.AllocsPerRun(2, campaign(60_000))
	perExec := (large - small) / 40_000
	t.Logf("allocations: %.0f (20,000 runs), %.0f (60,000 runs): %.3f per execution; %d unique traces in 60,000 runs, queue %d", small, large, perExec, fresh, sum.Stats.Queue)
	if fresh < 6_000 {
		t.Fatalf("expected a target where many children are new (>= 6,000 unique traces), got %d", fresh)
	}
	if perExec > 0.15 {
		t.Errorf("expected at most 0.15 allocations per execution, got %.3f", perExec)
	}
}
