package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
)

func TestHavocFindsMagic(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			sum, err := Fuzz(context.Background(), Config{Seed: seed, Runs: 200_000},
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

// execLog records, per worker, an order-sensitive hash of every input run.
type execLog struct {
	h [8]uint64
	n [8]int
}

func (l *execLog) onRun(w int) func([]byte) {
	return func(in []byte) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], l.h[w])
		l.h[w] = xxhash.Sum64(append(b[:], in...))
		l.n[w]++
	}
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
				cfg := Config{Seed: 7, Runs: 10_000, Workers: tc.workers, Deterministic: tc.det, KeepGoing: true, NoShrink: true, Strategy: tc.strat, JobSize: 16}
				target := tc.target
				if i == 1 {
					// Perturb the scheduling: worker 1 is slow in the second run.
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
				sums[i], err = Fuzz(context.Background(), cfg, Deps{NewExecutor: target.executors(logs[i].onRun), Generator: tc.gen})
				if err != nil {
					t.Fatal(err)
				}
			}
			if logs[0] != logs[1] {
				t.Fatalf("expected identical per-worker input hashes, got %x/%v and %x/%v", logs[0].h[:tc.workers], logs[0].n[:tc.workers], logs[1].h[:tc.workers], logs[1].n[:tc.workers])
			}
			total := 0
			for _, n := range logs[0].n {
				total += n
			}
			if total != 10_000 || sums[0].Stats.Execs != 10_000 {
				t.Fatalf("expected 10000 executions, got %d (stats %d)", total, sums[0].Stats.Execs)
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
			t.Logf("hashes %x, queue %d, coverage %d", logs[0].h[:tc.workers], len(sums[0].Queue), sums[0].Stats.Coverage)
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
			sum, err := Fuzz(context.Background(), Config{Seed: seed, Runs: runs, Strategy: v.strat},
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
