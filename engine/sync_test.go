package engine

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// fakeImporter hands out one batch of inputs per Poll from polls (then
// nothing) and records, at each Commit, how many Polls it had answered
// and which inputs had run by then.
type fakeImporter struct {
	mu      sync.Mutex
	polls   []Import
	n       int // Polls answered
	ran     map[string]bool
	commits []commitSeen
}

type commitSeen struct {
	polls int
	ran   map[string]bool
}

func (f *fakeImporter) Poll(context.Context) (Import, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	if f.n-1 < len(f.polls) {
		return f.polls[f.n-1], nil
	}
	return Import{}, nil
}

func (f *fakeImporter) Commit(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	ran := map[string]bool{}
	for k := range f.ran {
		ran[k] = true
	}
	f.commits = append(f.commits, commitSeen{polls: f.n, ran: ran})
	return nil
}

func (f *fakeImporter) onRun(_ uint64, _ int, in []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ran == nil {
		f.ran = map[string]bool{}
	}
	f.ran[string(in)] = true
}

// TestLiveImport: inputs a later poll brings are run once each while the
// campaign runs; the one that adds coverage joins the queue under the
// importer's Op, the one that adds nothing does not; a failure identity
// the poll brings is known (met, not a finding, no stop); Commit comes
// only after the polled inputs ran.
func TestLiveImport(t *testing.T) {
	imp := &fakeImporter{polls: []Import{
		{}, // the poll before the first execution
		{},
		{
			Inputs: []Imported{
				{Choices: []byte("BBBB"), Op: "sync:peer"}, // the seed's coverage: not kept
				{Choices: []byte("FUZa"), Op: "sync:peer"}, // three levels deeper: kept
				{Choices: []byte("FUZZ"), Op: "sync:peer"}, // the peer's crash
			},
			KnownFailures: []string{"crash: panic|found FUZZ|check;main"},
		},
	}}
	sum, err := Fuzz(context.Background(),
		Config{Seed: 1, MaxTotalTime: 500 * time.Millisecond, SyncInterval: 20 * time.Millisecond},
		Deps{NewExecutor: magicTarget.executors(nil), Seeds: [][]byte{[]byte("AAAA")}, Importer: imp, OnRun: imp.onRun})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stop != "time" {
		t.Fatalf("expected the campaign to run until its time (the FUZZ crash is known), got stop %q", sum.Stop)
	}
	if len(sum.Failures) != 0 {
		t.Errorf("expected no finding (the peer saved FUZZ), got %d: %q", len(sum.Failures), sum.Failures[0].Input)
	}
	var synced [][]byte
	for _, e := range sum.Queue {
		if e.Op == "sync:peer" {
			synced = append(synced, e.Input)
		}
	}
	if len(synced) != 1 || string(synced[0]) != "FUZa" {
		t.Errorf("expected exactly FUZa imported into the queue, got %q", synced)
	}
	if imp.n < 3 {
		t.Fatalf("expected at least 3 polls in 500ms at a 20ms interval, got %d", imp.n)
	}
	ok := false
	for _, c := range imp.commits {
		if c.polls >= 3 {
			ok = true
			for _, in := range []string{"BBBB", "FUZa", "FUZZ"} {
				if !c.ran[in] {
					t.Errorf("Commit after poll %d: imported %q had not run", c.polls, in)
				}
			}
		}
	}
	if !ok {
		t.Errorf("expected a Commit after the third poll, got commits %+v", imp.commits)
	}
}

// TestImportStartsQueue: with no seed, the first poll's inputs are the
// first executions (no empty input is made up), in order.
func TestImportStartsQueue(t *testing.T) {
	imp := &fakeImporter{polls: []Import{{Inputs: []Imported{{Choices: []byte("FUaa")}, {Choices: []byte("xy")}}}}}
	var mu sync.Mutex
	var first [][]byte
	sum, err := Fuzz(context.Background(), Config{Seed: 1, Runs: 50},
		Deps{NewExecutor: magicTarget.executors(nil), Importer: imp, OnRun: func(_ uint64, _ int, in []byte) {
			imp.onRun(0, 0, in)
			mu.Lock()
			defer mu.Unlock()
			if len(first) < 2 {
				first = append(first, slices.Clone(in))
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 2 || string(first[0]) != "FUaa" || string(first[1]) != "xy" {
		t.Fatalf("expected the imports to run first, in order, got %q", first)
	}
	if len(sum.Queue) < 2 || sum.Queue[0].Op != OpSync || string(sum.Queue[0].Input) != "FUaa" {
		t.Fatalf("expected the first import as queue entry 0 with Op %q, got %+v", OpSync, sum.Queue[0])
	}
	if len(imp.commits) != 1 || !imp.commits[0].ran["xy"] {
		t.Errorf("expected one Commit at the end, after both imports ran, got %+v", imp.commits)
	}
}
