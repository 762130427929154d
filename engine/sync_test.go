package engine

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/wafer-fuzz/wafer/runtime"
)

// gateTarget passes a hash gate only with "SYNCSEED" first (no mutation
// finds it); behind it, "!" crashes and other bytes cover sites 2..5.
// Before it, the length's parity covers site 6 or 7.
var gateTarget = &fakeTarget{sites: 8, run: func(in []byte, c fakeCov) (Outcome, *Failure) {
	c.hit(0)
	if len(in) >= 8 && xxhash.Sum64(in[:8]) == xxhash.Sum64String("SYNCSEED") {
		c.hit(1)
		if len(in) > 8 && in[8] == '!' {
			return Crash, &Failure{Identity: "crash: panic|gate|check;main", Kind: runtime.KindGoPanic, Message: "gate", Frames: []string{"check", "main"}, Text: "panic: gate"}
		}
		if len(in) > 8 {
			c.hit(2 + int(in[8]%4))
		}
		return Valid, nil
	}
	c.hit(6 + len(in)%2)
	return Valid, nil
}}

// fakeImporter hands out one batch of inputs per Poll from polls (then
// nothing) and records, at each Commit, how many Polls it had answered
// and which inputs had run by then. With stop set, the first Commit after
// every batch of polls was handed out calls it (the test's end is an
// event, not a time).
type fakeImporter struct {
	mu      sync.Mutex
	polls   []Import
	n       int // Polls answered
	ran     map[string]bool
	commits []commitSeen
	stop    func()
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
	if f.stop != nil && f.n >= len(f.polls) {
		f.stop()
	}
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
				{Choices: []byte("BBBB"), Op: "sync:peer"},      // the seed's coverage: not kept
				{Choices: []byte("SYNCSEEDa"), Op: "sync:peer"}, // behind the gate: kept
				{Choices: []byte("SYNCSEED!"), Op: "sync:peer"}, // the peer's crash
			},
			KnownFailures: []string{"crash: panic|gate|check;main"},
		},
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	imp.stop = cancel
	sum, err := Fuzz(ctx,
		Config{Search: Search{Seed: 1, SyncInterval: 20 * time.Millisecond}},
		Deps{NewExecutor: gateTarget.executors(nil), Seeds: [][]byte{[]byte("AAAA")}, Importer: imp, OnRun: imp.onRun})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stop != StopCanceled {
		t.Fatalf("expected the campaign to run until the importer stopped it (the crash is known), got stop %q after %d polls, %d executions, findings %+v", sum.Stop, imp.n, sum.Stats.Execs, sum.Failures)
	}
	if len(sum.Failures) != 0 {
		t.Errorf("expected no finding (the peer saved the crash), got %d: %q", len(sum.Failures), sum.Failures[0].Input)
	}
	var synced [][]byte
	for _, e := range sum.Queue {
		if e.Op == "sync:peer" {
			synced = append(synced, e.Input)
		}
	}
	if len(synced) != 1 || string(synced[0]) != "SYNCSEEDa" {
		t.Errorf("expected exactly SYNCSEEDa imported into the queue, got %q", synced)
	}
	if imp.n < 3 {
		t.Fatalf("expected at least 3 polls, got %d", imp.n)
	}
	ok := false
	for _, c := range imp.commits {
		if c.polls >= 3 {
			ok = true
			for _, in := range []string{"BBBB", "SYNCSEEDa", "SYNCSEED!"} {
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
	sum, err := Fuzz(context.Background(), Config{Search: Search{Seed: 1, Runs: 50}},
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

// TestImportedCrash: the same peer crash without its identity is a
// finding of this campaign, made by the import (the control of
// TestLiveImport's known failure).
func TestImportedCrash(t *testing.T) {
	imp := &fakeImporter{polls: []Import{{}, {Inputs: []Imported{{Choices: []byte("SYNCSEED!"), Op: "sync:peer"}}}}}
	// No limit: the campaign ends at the crash the second poll brings
	// (the test's deadline is the go test timeout, never a wall-clock
	// assertion).
	sum, err := Fuzz(context.Background(),
		Config{Search: Search{Seed: 1, SyncInterval: 20 * time.Millisecond}},
		Deps{NewExecutor: gateTarget.executors(nil), Seeds: [][]byte{[]byte("AAAA")}, Importer: imp})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stop != "crash" || len(sum.Failures) != 1 || sum.Failures[0].Op != "sync:peer" || string(sum.Failures[0].Input) != "SYNCSEED!" {
		t.Fatalf("expected to stop at the imported crash, found by sync:peer, got stop %q, %d findings", sum.Stop, len(sum.Failures))
	}
}
