package engine

import (
	"encoding/binary"

	"context"
	"github.com/cespare/xxhash/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/wafer-fuzz/wafer/runtime"
)

// fuelTarget is a fake fuel-counting target: inputs whose first byte is
// odd loop forever (reaching one of four sites on the way in, by bits 1-2),
// ones whose first byte is 2 mod 8 are slow (slowFuel units) and reach a
// site only late in their run (one of two, by the second byte), the rest
// are quick.
type fuelTarget struct {
	full       uint64
	loopFirst  atomic.Int64 // loop inputs stopped below the whole budget
	loopFull   atomic.Int64 // loop inputs run with the whole budget
	slowPassed atomic.Int64 // slow inputs that ran to their end
}

const (
	slowFuel = 100_000
	lateSite = 7
)

type fuelExec struct {
	t *fuelTarget
	c fakeCov
}

func (e *fuelExec) Fuel() uint64 { return e.t.full }

func (e *fuelExec) Run(ctx context.Context, in []byte) (Result, error) {
	return e.RunFuel(ctx, in, e.t.full)
}

func (e *fuelExec) RunFuel(_ context.Context, in []byte, fuel uint64) (Result, error) {
	clear(e.c)
	e.c.hit(0)
	hang := Result{Outcome: Hang, Counters: e.c, Fuel: fuel, Failure: &Failure{Identity: "hang: fuel|out of fuel|loop", Kind: runtime.KindFuel, Message: "out of fuel", Frames: []string{"loop"}}}
	switch {
	case len(in) == 0:
		return Result{Outcome: Valid, Counters: e.c, Fuel: 1}, nil
	case in[0]&1 == 1:
		e.c.hit(2 + int(in[0]>>1&3))
		if fuel == e.t.full {
			e.t.loopFull.Add(1)
		} else {
			e.t.loopFirst.Add(1)
		}
		return hang, nil
	case in[0]&7 == 2:
		e.c.hit(6)
		if fuel < slowFuel {
			return hang, nil
		}
		e.t.slowPassed.Add(1)
		late := lateSite
		if len(in) > 1 {
			late += int(in[1] & 1)
		}
		e.c.hit(late)
		return Result{Outcome: Valid, Counters: e.c, Fuel: slowFuel}, nil
	}
	e.c.hit(1)
	return Result{Outcome: Valid, Counters: e.c, Fuel: uint64(10 + len(in))}, nil
}

func (t *fuelTarget) executors(context.Context, int) (Executor, error) {
	return &fuelExec{t: t, c: make(fakeCov, 9)}, nil
}

// TestTimeoutsRerunOnlyNewSites: a loop that mutations reach over and over
// is run with the whole budget only when it reached a site no earlier
// timeout did, and a slow input's late site is still found (its rerun).
func TestTimeoutsRerunOnlyNewSites(t *testing.T) {
	for _, workers := range []int{1, 2} {
		ft := &fuelTarget{full: 1 << 24}
		st := &memStore{}
		cfg := Config{Search: Search{Runs: 20_000, Workers: workers, Deterministic: true, KeepGoing: true, Seed: 3}}
		sum, err := Fuzz(context.Background(), cfg, Deps{NewExecutor: ft.executors, Store: st, Seeds: [][]byte{{0x10, 0x20}}})
		if err != nil {
			t.Fatal(err)
		}
		first, full := ft.loopFirst.Load(), ft.loopFull.Load()
		t.Logf("%d workers: loop runs: %d stopped at the first budget, %d with the whole; %d timeouts dropped, %d hang runs; slow inputs passed %d", workers, first, full, sum.Stats.Timeouts, sum.Stats.HangRuns, ft.slowPassed.Load())
		// Four ways into the loop: each worker reruns each at most once.
		if full == 0 || full > int64(4*workers) || first < 1000 {
			t.Errorf("%d workers: expected at most %d loop runs with the whole budget, and many below it; got %d and %d", workers, 4*workers, full, first)
		}
		if sum.Stats.Hangs != 1 || len(st.failures) != 1 || sum.Stats.Timeouts < first-int64(4*workers) {
			t.Errorf("%d workers: expected 1 unique hang and the timeouts counted; got %d unique, %d stored, %d timeouts", workers, sum.Stats.Hangs, len(st.failures), sum.Stats.Timeouts)
		}
		// The slow input is queued for its late site, with its fuel, and
		// its children get a budget it fits in.
		var slow *Entry
		for _, e := range st.entries { // (the queue's entries hold no trace: havoc is traceFree)
			if len(e.Input) > 0 && e.Input[0]&7 == 2 && (Hits(e.Trace, lateSite) || Hits(e.Trace, lateSite+1)) {
				slow = e
				break
			}
		}
		if slow == nil || slow.Fuel != slowFuel {
			t.Fatalf("%d workers: expected the slow input queued with fuel %d, got %+v", workers, slowFuel, slow)
		}
		if ft.slowPassed.Load() < 100 {
			t.Errorf("%d workers: expected the slow entry's children to run to their end, %d did", workers, ft.slowPassed.Load())
		}
	}
}

// TestTimeoutsDeterministic: whether a worker reruns a timeout depends on
// the timeouts it sent before, so on which jobs it ran; what the campaign
// keeps and runs must not: one worker and two deterministic ones run the
// same inputs (see TestDeterministicAcrossWorkers; TestTimeoutRuleIsGlobal
// checks the rule that makes it so, which this schedule may not need).
func TestTimeoutsDeterministic(t *testing.T) {
	var queues [2][]string
	var hashes [2]uint64
	for i, workers := range []int{1, 2} {
		ft := &fuelTarget{full: 1 << 24}
		var l execLog
		cfg := Config{Search: Search{Runs: 10_000, Workers: workers, Deterministic: true, KeepGoing: true, NoShrink: true, Seed: 5}}
		sum, err := Fuzz(context.Background(), cfg, Deps{NewExecutor: ft.executors, Seeds: [][]byte{{0x10}}, OnRun: l.onRun})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range sum.Queue {
			queues[i] = append(queues[i], string(e.Input))
		}
		hashes[i], _ = l.hash()
	}
	if !slices.Equal(queues[0], queues[1]) || hashes[0] != hashes[1] {
		t.Fatalf("1 worker queued %q, 2 workers %q; input sequences %x and %x", queues[0], queues[1], hashes[0], hashes[1])
	}
}

func TestChildFuel(t *testing.T) {
	const full = 1 << 28
	for _, c := range []struct{ parent, want uint64 }{
		{0, full >> firstFuelShift},
		{1000, full >> firstFuelShift},
		{1 << 20, 8 << 20},
		{full / 8, full},
		{full, full},
		{^uint64(0), full},
	} {
		if got := childFuel(c.parent, full); got != c.want {
			t.Errorf("childFuel(%d, %d) = %d, want %d", c.parent, uint64(full), got, c.want)
		}
	}
}

func TestSiteSet(t *testing.T) {
	tr := func(sites ...uint32) []byte {
		var b []byte
		for _, s := range sites {
			b = append(b, byte(1), byte(s), byte(s>>8), byte(s>>16))
		}
		return b
	}
	var s siteSet
	if !s.covers(nil) || s.covers(tr(3)) {
		t.Fatal("empty set: covers the empty trace only")
	}
	if !s.add(tr(3, 64, 1000)) || s.add(tr(3, 1000)) {
		t.Fatal("add reports new sites only")
	}
	if !s.covers(tr(3, 64)) || s.covers(tr(3, 65)) || s.covers(tr(5000)) {
		t.Fatal("covers wrong")
	}
}

// TestTimeoutRuleIsGlobal: the coordinator takes a rerun timeout only when
// its first run reached a site no timeout merged before did, whatever the
// worker that sent it knew: a worker that had sent no timeout reruns one
// another worker's timeouts already covered, and that rerun, new branch or
// not, must count for nothing (else what a deterministic campaign keeps
// would depend on which worker ran which job).
func TestTimeoutRuleIsGlobal(t *testing.T) {
	ctx := context.Background()
	strat, err := NewStrategy("havoc", StrategyOptions{Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	c := &coordinator{cfg: Config{}.withDefaults(false), strat: strat, cov: newCoverage(0), failures: map[string]*Finding{}}
	c.st.Cov = c.cov
	tr := func(sites ...uint32) []byte {
		var b []byte
		for _, s := range sites {
			b = binary.LittleEndian.AppendUint32(b, s<<8|1)
		}
		return b
	}
	rerun := func(timeout, trace []byte, o Outcome, f *Failure) childResult {
		return childResult{choices: []byte{byte(len(c.st.Queue))}, input: []byte{byte(len(c.st.Queue))}, outcome: o, trace: trace, hash: xxhash.Sum64(trace), timeout: timeout, failure: f, fuel: slowFuel}
	}
	merge := func(ch childResult) {
		c.mergeJob(ctx, &jobResult{job: &Job{N: 1}, children: []childResult{ch}, execs: 1})
	}
	merge(rerun(tr(0, 6), tr(0, 6, 7), Valid, nil))
	if len(c.st.Queue) != 1 || c.st.Queue[0].Fuel != slowFuel {
		t.Fatalf("a rerun timeout with a new branch: expected it queued with its fuel, got %d entries", len(c.st.Queue))
	}
	merge(rerun(tr(0, 6), tr(0, 6, 8), Valid, nil))
	if len(c.st.Queue) != 1 || c.cov.Covered(8) {
		t.Fatalf("the rerun of a timeout whose sites were all reached before: expected it ignored, got %d entries, site 8 covered", len(c.st.Queue))
	}
	merge(childResult{timeout: tr(0, 5), dropped: true})
	merge(rerun(tr(0, 5), tr(0, 5), Hang, &Failure{Identity: "hang: fuel||loop", Kind: runtime.KindFuel, Frames: []string{"loop"}}))
	if len(c.findings) != 0 {
		t.Fatalf("a timeout after a dropped one with the same sites: expected it ignored, got %d findings", len(c.findings))
	}
	merge(rerun(tr(0, 4), tr(0, 4), Hang, &Failure{Identity: "hang: fuel||loop", Kind: runtime.KindFuel, Frames: []string{"loop"}}))
	if len(c.findings) != 1 || c.hangs != 1 {
		t.Fatalf("a hang on a new site: expected it found, got %d findings", len(c.findings))
	}
}
