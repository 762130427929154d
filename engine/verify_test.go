package engine

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
)

// flakyExec runs magicTarget, but its crash reproduces only on the
// executors made for the campaign's workers (w < workers), or on every
// executor when reproduce is set; reruns counts the runs of the others.
func flakyExecutors(workers int, reproduce bool, reruns *atomic.Int64) func(context.Context, int) (Executor, error) {
	return func(ctx context.Context, w int) (Executor, error) {
		e := &fakeExec{t: magicTarget, c: make(fakeCov, magicTarget.sites)}
		if w < workers || reproduce {
			return e, nil
		}
		return &passingExec{fakeExec: e, runs: reruns}, nil
	}
}

// passingExec turns every crash of its target into a valid run.
type passingExec struct {
	*fakeExec
	runs *atomic.Int64
}

func (p *passingExec) Run(ctx context.Context, in []byte) (Result, error) {
	p.runs.Add(1)
	r, err := p.fakeExec.Run(ctx, in)
	if r.Outcome == Crash {
		r.Outcome, r.Failure = Valid, nil
	}
	return r, err
}

// TestFlakyCrashNotSaved: a crash that does not crash again on a fresh
// executor is not a finding: the campaign goes on (it would stop at a
// crash), saves nothing, counts it as flaky and hands it to the store's
// flaky list once per identity; a crash that does reproduce is saved as
// before, after one rerun.
func TestFlakyCrashNotSaved(t *testing.T) {
	var reruns atomic.Int64
	st := &flakyStore{}
	sum, err := Fuzz(context.Background(), Config{Search: Search{Seed: 1, Runs: 60_000, NoShrink: true}},
		Deps{NewExecutor: flakyExecutors(1, false, &reruns), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Failures) != 0 || sum.Stop == "crash" || sum.Stats.Crashes != 0 {
		t.Fatalf("a crash that did not reproduce was saved: stop %q, %d failures", sum.Stop, len(sum.Failures))
	}
	if sum.Stats.Flaky == 0 || reruns.Load() < int64(sum.Stats.Flaky) && reruns.Load() < maxFlakyTries {
		t.Fatalf("expected flaky crashes counted after reruns: flaky %d, reruns %d", sum.Stats.Flaky, reruns.Load())
	}
	if len(st.flaky) != 1 || !strings.HasPrefix(string(st.flaky[0].Input), "FUZZ") {
		t.Fatalf("expected the flaky crash handed to the store once, got %d", len(st.flaky))
	}
	t.Logf("flaky %d, reruns %d", sum.Stats.Flaky, reruns.Load())

	reruns.Store(0)
	sum, err = Fuzz(context.Background(), Config{Search: Search{Seed: 1, Runs: 60_000, NoShrink: true}},
		Deps{NewExecutor: flakyExecutors(1, true, &reruns)})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stop != "crash" || len(sum.Failures) != 1 || sum.Stats.Flaky != 0 {
		t.Fatalf("a reproducing crash: stop %q, %d failures, flaky %d", sum.Stop, len(sum.Failures), sum.Stats.Flaky)
	}
}

// flakyStore is an in-memory FlakyStore.
type flakyStore struct {
	flaky []*Finding
}

func (s *flakyStore) Load(context.Context) ([][]byte, error)     { return nil, nil }
func (s *flakyStore) AddEntry(context.Context, *Entry) error     { return nil }
func (s *flakyStore) AddFailure(context.Context, *Finding) error { return nil }
func (s *flakyStore) WriteStats(context.Context, *Stats) error   { return nil }
func (s *flakyStore) AddFlaky(_ context.Context, f *Finding) error {
	s.flaky = append(s.flaky, f)
	return nil
}
