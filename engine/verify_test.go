package engine

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wafer-fuzz/wafer/runtime"
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

// checkedExec is a CheckedRunner whose checked build always reports
// failure.
type checkedExec struct {
	failure *Failure
	runs    int
}

func (e *checkedExec) Run(context.Context, []byte) (Result, error) {
	return Result{Outcome: Valid}, nil
}

func (e *checkedExec) RunChecked(context.Context, []byte) (Result, error) {
	e.runs++
	return Result{Outcome: Crash, Failure: e.failure}, nil
}

// TestCheckedFailure: a heap overflow found when its block was freed or
// reallocated (Failure.Found, whatever its message) is run on the checked
// build, whose failure then stands; one found at the access, or another
// kind, is not.
func TestCheckedFailure(t *testing.T) {
	atWrite := &Failure{Identity: "crash: at the write", Kind: runtime.KindHeapOverflow, Message: "a 1-byte write at 0x10, outside every heap block (in a redzone)", Frames: []string{"f"}}
	for _, tc := range []struct {
		name    string
		failure *Failure
		checked bool
	}{
		{"at free", &Failure{Kind: runtime.KindHeapOverflow, Message: "m", Found: runtime.FoundAtFree}, true},
		{"at realloc", &Failure{Kind: runtime.KindHeapOverflow, Message: "m", Found: runtime.FoundAtRealloc}, true},
		{"at the access", &Failure{Kind: runtime.KindHeapOverflow, Message: "found when it was freed"}, false},
		{"another kind", &Failure{Kind: runtime.KindDoubleFree, Found: runtime.FoundAtFree}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex := &checkedExec{failure: atWrite}
			c := &coordinator{verify: &verifier{ex: ex}}
			got := c.checkedFailure(context.Background(), &childResult{input: []byte("x"), failure: tc.failure})
			if !tc.checked {
				if got != nil || ex.runs != 0 {
					t.Fatalf("expected no checked run, got %d runs, failure %+v", ex.runs, got)
				}
				return
			}
			if ex.runs != 1 || got == nil || got.Identity != atWrite.Identity || got == atWrite {
				t.Fatalf("expected a copy of the checked build's failure after one run, got %d runs, %+v", ex.runs, got)
			}
		})
	}
}
