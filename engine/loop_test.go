package engine

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
)

func TestHavocFindsMagic(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			sum, err := Fuzz(context.Background(), Config{Search: Search{Seed: seed, Runs: 200_000}},
				Deps{NewExecutor: magicTarget.executors(nil)})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Stop != "crash" || len(sum.Failures) != 1 {
				t.Fatalf("expected to stop at the FUZZ crash within 200,000 runs, got stop %q after %d runs, %d failures, coverage %d",
					sum.Stop, sum.Stats.Execs, len(sum.Failures), sum.Stats.Coverage)
			}
			f := sum.Failures[0]
			if !strings.HasPrefix(string(f.Input), "FUZZ") || f.Identity != "crash: panic|found FUZZ|check;main" {
				t.Fatalf("expected a FUZZ input with identity \"crash: panic|found FUZZ|check;main\", got %q, %q", f.Input, f.Identity)
			}
			t.Logf("seed %d: crash after %d executions, queue %d", seed, sum.Stats.Execs, sum.Stats.Queue)
		})
	}
}

// execLog records every input run by (job, child), so the sequence in
// issue order can be hashed whatever worker ran what.
type execLog struct {
	mu   sync.Mutex
	runs map[[2]uint64]uint64
}

func (l *execLog) onRun(job uint64, child int, in []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runs == nil {
		l.runs = make(map[[2]uint64]uint64)
	}
	l.runs[[2]uint64{job, uint64(child)}] = xxhash.Sum64(in)
}

// hash chains the input hashes in (job, child) order.
func (l *execLog) hash() (uint64, int) {
	keys := make([][2]uint64, 0, len(l.runs))
	for k := range l.runs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]uint64) int {
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		return cmp.Compare(a[1], b[1])
	})
	var h uint64
	for _, k := range keys {
		var b [16]byte
		binary.LittleEndian.PutUint64(b[:], h)
		binary.LittleEndian.PutUint64(b[8:], l.runs[k])
		h = xxhash.Sum64(b[:])
	}
	return h, len(keys)
}

func TestDeterministic(t *testing.T) {
	tests := []struct {
		name    string
		workers int
		det     bool
		target  *fakeTarget
		gen     Generator
		strat   string
	}{
		{"havoc 1 worker", 1, false, magicTarget, nil, "havoc"},
		{"havoc 2 workers deterministic", 2, true, magicTarget, nil, "havoc"},
		{"zest 2 workers deterministic", 2, true, progTarget, progGen{}, "zest"},
		{"random 1 worker", 1, false, progTarget, progGen{}, "random"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var logs [2]execLog
			var sums [2]*Summary
			for i := range logs {
				cfg := Config{Search: Search{Seed: 7, Runs: 10_000, Workers: tc.workers, Deterministic: tc.det, KeepGoing: true, NoShrink: true, Strategy: tc.strat}, JobSize: 16}
				target := tc.target
				if i == 1 {
					// Perturb the scheduling: some runs are slow in the second campaign.
					slow := *tc.target
					inner := slow.run
					slow.run = func(in []byte, c fakeCov) (Outcome, *Failure) {
						if len(in)%3 == 0 {
							time.Sleep(time.Microsecond)
						}
						return inner(in, c)
					}
					target = &slow
				}
				var err error
				sums[i], err = Fuzz(context.Background(), cfg, Deps{NewExecutor: target.executors(nil), Generator: tc.gen, OnRun: logs[i].onRun})
				if err != nil {
					t.Fatal(err)
				}
			}
			h0, n0 := logs[0].hash()
			h1, n1 := logs[1].hash()
			if h0 != h1 || n0 != n1 {
				t.Fatalf("expected identical input sequences, got %x over %d runs and %x over %d", h0, n0, h1, n1)
			}
			if n0 != 10_000 || sums[0].Stats.Execs != 10_000 {
				t.Fatalf("expected 10000 executions, got %d (stats %d)", n0, sums[0].Stats.Execs)
			}
			if len(sums[0].Queue) != len(sums[1].Queue) || sums[0].Stats.UniqueTraces != sums[1].Stats.UniqueTraces {
				t.Fatalf("expected identical queues and traces, got %d/%d entries, %d/%d traces",
					len(sums[0].Queue), len(sums[1].Queue), sums[0].Stats.UniqueTraces, sums[1].Stats.UniqueTraces)
			}
			for i := range sums[0].Queue {
				if string(sums[0].Queue[i].Choices) != string(sums[1].Queue[i].Choices) {
					t.Fatalf("queue entry %d differs", i)
				}
			}
			t.Logf("sequence hash %x, queue %d, coverage %d", h0, len(sums[0].Queue), sums[0].Stats.Coverage)
		})
	}
}

// TestZestBeatsHavoc compares strategies on progTarget at equal
// executions: Zest (with the generator) must reach more valid coverage than
// havoc on raw bytes, averaged over several seeds.
func TestZestBeatsHavoc(t *testing.T) {
	const runs = 20_000
	seeds := []uint64{1, 2, 3, 4, 5}
	type variant struct {
		name  string
		strat string
		gen   Generator
		seeds [][]byte
	}
	variants := []variant{
		{"zest", "zest", progGen{}, nil},
		{"havoc-raw", "havoc", nil, nil},
		// One valid seed, as the paper gave AFL: declare, use, return.
		{"havoc-raw+seed", "havoc", nil, [][]byte{{3, 0, 0, 1, 0, 5, 0, 0xff}}},
		{"havoc-choices", "havoc", progGen{}, nil},
		{"random", "random", progGen{}, nil},
	}
	mean := map[string]float64{}
	for _, v := range variants {
		var line strings.Builder
		for _, seed := range seeds {
			sum, err := Fuzz(context.Background(), Config{Search: Search{Seed: seed, Runs: runs, Strategy: v.strat}},
				Deps{NewExecutor: progTarget.executors(nil), Generator: v.gen, Seeds: v.seeds})
			if err != nil {
				t.Fatal(err)
			}
			mean[v.name] += float64(sum.Stats.ValidCoverage) / float64(len(seeds))
			fmt.Fprintf(&line, " %d/%d(%.0f%%)", sum.Stats.ValidCoverage, sum.Stats.Coverage, sum.Stats.ValidPct)
		}
		t.Logf("%-14s valid/all coverage (valid%%) after %d runs, seeds %v:%s; mean valid %.1f", v.name, runs, seeds, line.String(), mean[v.name])
	}
	for _, h := range []string{"havoc-raw", "havoc-raw+seed"} {
		if mean["zest"] <= mean[h] {
			t.Fatalf("expected zest's mean valid coverage > %s's, got %.1f <= %.1f", h, mean["zest"], mean[h])
		}
	}
}

func TestMain(m *testing.M) { os.Exit(m.Run()) }

// TestDeterministicAcrossWorkers: with up to two workers the number of jobs
// in flight is the same (4), so one and two deterministic workers run the
// very same inputs.
func TestDeterministicAcrossWorkers(t *testing.T) {
	var hs [2]uint64
	for i, w := range []int{1, 2} {
		var l execLog
		if _, err := Fuzz(context.Background(), Config{Search: Search{Seed: 3, Runs: 10_000, Workers: w, Deterministic: true, KeepGoing: true, NoShrink: true, Strategy: "zest"}},
			Deps{NewExecutor: progTarget.executors(nil), Generator: progGen{}, OnRun: l.onRun}); err != nil {
			t.Fatal(err)
		}
		hs[i], _ = l.hash()
	}
	if hs[0] != hs[1] {
		t.Fatalf("expected one input sequence for 1 and 2 workers, got %x and %x", hs[0], hs[1])
	}
}

// keepTraces wraps a strategy so the coordinator keeps its queue entries'
// traces (it is not traceFree), forwarding the optional methods the
// coordinator asks a strategy for.
type keepTraces struct{ Strategy }

func (k keepTraces) wrapGenerator(g Generator) Generator {
	if gw, ok := k.Strategy.(generatorWrapper); ok {
		return gw.wrapGenerator(g)
	}
	return g
}

// TestTraceFreeQueue: a traceFree strategy's campaign runs the same inputs
// and queues the same entries whether or not the queue keeps their traces
// (so the strategy really reads none), its queue holds none, and the Store
// still gets every entry's trace, the one a campaign that keeps them
// queues; a strategy that reads them (fairfuzz) keeps them.
func TestTraceFreeQueue(t *testing.T) {
	tests := []struct {
		strat  string
		target *fakeTarget
		gen    Generator
	}{
		{"havoc", magicTarget, nil},
		{"zest", progTarget, progGen{}},
		{"random", progTarget, progGen{}},
		{"bedivfuzz", progTarget, progGen{}},
		{"spoton", progTarget, progGen{}},
		{"fairfuzz", magicTarget, nil},
	}
	for _, tc := range tests {
		t.Run(tc.strat, func(t *testing.T) {
			var logs [2]execLog
			var sums [2]*Summary
			var stores [2]memStore
			for i := range sums {
				cfg := Config{Search: Search{Seed: 7, Runs: 5_000, Workers: 2, Deterministic: true, KeepGoing: true, NoShrink: true, Strategy: tc.strat}}
				strat, err := NewStrategy(tc.strat, StrategyOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if i == 1 {
					strat = keepTraces{strat}
				}
				sums[i], err = FuzzWith(context.Background(), cfg, Deps{NewExecutor: tc.target.executors(nil), Generator: tc.gen, OnRun: logs[i].onRun, Store: &stores[i]}, strat)
				if err != nil {
					t.Fatal(err)
				}
			}
			h0, n0 := logs[0].hash()
			h1, n1 := logs[1].hash()
			if h0 != h1 || n0 != n1 || len(sums[0].Queue) != len(sums[1].Queue) || len(stores[0].entries) != len(sums[0].Queue) {
				t.Fatalf("expected the same runs and queues, got %x/%x over %d/%d runs, queues %d/%d, %d stored", h0, h1, n0, n1, len(sums[0].Queue), len(sums[1].Queue), len(stores[0].entries))
			}
			s, _ := NewStrategy(tc.strat, StrategyOptions{})
			_, free := s.(traceFree)
			if free == (tc.strat == "fairfuzz") {
				t.Fatalf("%s: traceFree is %v", tc.strat, free)
			}
			withTraces := 0
			for i, e := range sums[0].Queue {
				kept := sums[1].Queue[i]
				if string(e.Choices) != string(kept.Choices) || string(stores[0].entries[i].Trace) != string(kept.Trace) {
					t.Fatalf("entry %d: choices or the stored trace differ from the campaign that keeps traces", i)
				}
				if len(kept.Trace) > 0 {
					withTraces++
				}
				if free != (e.Trace == nil) {
					t.Fatalf("entry %d: queue trace %d bytes, traceFree %v", i, len(e.Trace), free)
				}
			}
			if withTraces == 0 {
				t.Fatal("expected entries with traces")
			}
			t.Logf("%d runs, %d entries", n0, len(sums[0].Queue))
		})
	}
}
