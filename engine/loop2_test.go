package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/generators"

	"github.com/wafer-fuzz/wafer/runtime"
)

// TestWorkerAllocs: a worker's per-child path (mutate, run, scan, filter)
// does not allocate; a job costs a constant number of allocations.
func TestWorkerAllocs(t *testing.T) {
	flat := &fakeTarget{sites: 64, run: func(in []byte, c fakeCov) (Outcome, *Failure) {
		c.hit(0)
		c.hit(40)
		return Valid, nil
	}}
	ex, _ := flat.executors(nil)(context.Background(), 0)
	env := &MutatorEnv{MaxLen: 64, FreshLen: 8, Raw: true}
	w := newTestWorker(ex, (&Havoc{}).NewMutator(0, env))
	parent := &Entry{Choices: []byte("0123456789abcdef"), Input: []byte("0123456789abcdef")}
	job := &Job{Parent: parent, N: 1000}
	w.run(context.Background(), job) // warm up buffers and the filter
	allocs := testing.AllocsPerRun(20, func() { w.run(context.Background(), job) })
	if allocs > 4 {
		t.Fatalf("expected at most 4 allocations per 1000-child job (result, hit delta), got %v", allocs)
	}
	t.Logf("%v allocations per 1000-child job", allocs)
}

func newTestWorker(ex Executor, m Mutator) *worker {
	return &worker{exec: ex, mut: m, sc: newScanner(), maxLen: 1 << 20, rng: &pcgRand{}}
}

// slowTarget is magicTarget taking about d per run.
func slowTarget(d time.Duration) *fakeTarget {
	return &fakeTarget{sites: magicTarget.sites, run: func(in []byte, c fakeCov) (Outcome, *Failure) {
		time.Sleep(d)
		return magicTarget.run(in, c)
	}}
}

func TestStopConditions(t *testing.T) {
	t.Run("max total time", func(t *testing.T) {
		// No other limit: without the time stop the campaign would not end.
		sum, err := Fuzz(context.Background(), Config{Search: Search{MaxTotalTime: 200 * time.Millisecond, Workers: 2}},
			Deps{NewExecutor: slowTarget(50 * time.Microsecond).executors(nil)})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Stop != "time" {
			t.Fatalf("expected stop \"time\", got %q", sum.Stop)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		st := &memStore{}
		var runs atomic.Int64
		exec := func(ctx context.Context, w int) (Executor, error) {
			return &fakeExec{t: slowTarget(20 * time.Microsecond), c: make(fakeCov, 16), onRun: func([]byte) {
				if runs.Add(1) == 3000 {
					cancel()
				}
			}}, nil
		}
		sum, err := Fuzz(ctx, Config{Search: Search{Workers: 2, KeepGoing: true}}, Deps{NewExecutor: exec, Store: st})
		if err != nil {
			t.Fatalf("expected a clean stop, got %v", err)
		}
		if sum.Stop != "canceled" || sum.Stats.Execs < 3000 || !sum.Stats.Final {
			t.Fatalf("expected stop \"canceled\" after ≥ 3000 runs with final stats, got %q after %d", sum.Stop, sum.Stats.Execs)
		}
		if len(st.stats) == 0 || !st.stats[len(st.stats)-1].Final || len(st.entries) != len(sum.Queue) {
			t.Fatalf("expected final stats and %d entries in the store, got %d stats, %d entries", len(sum.Queue), len(st.stats), len(st.entries))
		}
	})
	t.Run("runs", func(t *testing.T) {
		sum, err := Fuzz(context.Background(), Config{Search: Search{Runs: 777, Workers: 2, KeepGoing: true}, JobSize: 10},
			Deps{NewExecutor: progTarget.executors(nil)})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Stop != "runs" || sum.Stats.Execs != 777 {
			t.Fatalf("expected stop \"runs\" after exactly 777 runs, got %q after %d", sum.Stop, sum.Stats.Execs)
		}
	})
}

// memStore is an in-memory Store.
type memStore struct {
	prev     [][]byte
	entries  []*Entry
	failures []*Finding
	stats    []Stats
}

func (m *memStore) Load(context.Context) ([][]byte, error) { return m.prev, nil }
func (m *memStore) AddEntry(_ context.Context, e *Entry) error {
	m.entries = append(m.entries, e)
	return nil
}
func (m *memStore) AddFailure(_ context.Context, f *Finding) error {
	m.failures = append(m.failures, f)
	return nil
}
func (m *memStore) WriteStats(_ context.Context, s *Stats) error {
	m.stats = append(m.stats, *s)
	return nil
}

func TestShrinkCrash(t *testing.T) {
	st := &memStore{}
	// Start from a long seed that only needs its first byte fixed.
	seed := []byte("XUZZ and a long tail that shrinking removes")
	sum, err := Fuzz(context.Background(), Config{Search: Search{Seed: 3, Runs: 100_000}},
		Deps{NewExecutor: magicTarget.executors(nil), Store: st, Seeds: [][]byte{seed}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Failures) != 1 || !sum.Failures[0].Shrunk || string(sum.Failures[0].Input) != "FUZZ" {
		t.Fatalf("expected one crash shrunk to \"FUZZ\", got %+v", sum.Failures)
	}
	// The store saw the crash twice: as found, then shrunk.
	if len(st.failures) != 2 || string(st.failures[1].Input) != "FUZZ" {
		t.Fatalf("expected the store to get the crash then its shrunk form, got %d calls", len(st.failures))
	}
}

// statusUntil is a status writer that stops the campaign once it has
// seen n status updates (redraws on a terminal, JSON lines otherwise):
// the test waits for events, not for a time.
type statusUntil struct {
	buf    bytes.Buffer
	tty    bool
	n      int
	cancel context.CancelFunc
}

func (w *statusUntil) Write(p []byte) (int, error) {
	w.buf.Write(p)
	got := strings.Count(w.buf.String(), "\n")
	if w.tty {
		got = strings.Count(w.buf.String(), "\r\x1b[2K#")
	}
	if got >= w.n {
		w.cancel()
	}
	return len(p), nil
}

// TestStatusOutput: the status is redrawn in place on a terminal (one
// newline, at the end) and is one JSON line per update otherwise, the
// last one the final stats with executions, coverage and time shares.
func TestStatusOutput(t *testing.T) {
	for _, tty := range []bool{true, false} {
		ctx, cancel := context.WithCancel(context.Background())
		out := &statusUntil{tty: tty, n: 3, cancel: cancel}
		sum, err := Fuzz(ctx, Config{StatsInterval: 20 * time.Millisecond},
			Deps{NewExecutor: slowTarget(10 * time.Microsecond).executors(nil), Status: out, StatusTTY: tty})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if sum.Stop != StopCanceled {
			t.Fatalf("expected the campaign stopped by the status writer, got %q", sum.Stop)
		}
		s := out.buf.String()
		if tty {
			if n := strings.Count(s, "\r\x1b[2K#"); n < 3 || !strings.HasSuffix(s, "\n") || strings.Count(s, "\n") != 1 {
				t.Fatalf("expected ≥ 3 redraws and one final newline, got %d redraws: %q", n, s)
			}
			continue
		}
		lines := strings.Split(strings.TrimSpace(s), "\n")
		if len(lines) < 3 {
			t.Fatalf("expected ≥ 3 JSON lines, got %d", len(lines))
		}
		var last Stats
		for _, l := range lines {
			if err := json.Unmarshal([]byte(l), &last); err != nil {
				t.Fatalf("bad JSON line %q: %v", l, err)
			}
		}
		if !last.Final || last.Execs == 0 || last.Coverage == 0 || last.Strategy != "havoc" {
			t.Fatalf("expected a final line with executions and coverage, got %+v", last)
		}
		if sum := last.MutateShare + last.GenerateShare + last.ExecuteShare + last.BookShare; sum < 0.99 || sum > 1.01 {
			t.Fatalf("expected time shares summing to 1, got %v", sum)
		}
	}
}

// TestCorpusResume runs a campaign into a corpus directory, then a second
// one on the same directory: it replays the saved queue first and so
// starts with at least the first run's coverage.
func TestCorpusResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	ctx := context.Background()
	campaign := func(runs int64) *Summary {
		d, skipped, err := corpus.Open(ctx, dir, corpus.Options{NoSync: true})
		if err != nil || skipped != nil {
			t.Fatalf("open: %v, skipped %v", err, skipped)
		}
		defer d.Close()
		store := NewCorpusStore(d, false)
		sum, err := Fuzz(ctx, Config{Search: Search{Seed: 5, Runs: runs, Strategy: "zest"}},
			Deps{NewExecutor: progTarget.executors(nil), Generator: progGen{}, Store: store})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	first := campaign(5000)
	d, _, _ := corpus.Open(ctx, dir, corpus.Options{NoSync: true})
	saved := len(d.Entries())
	d.Close()
	if saved != len(first.Queue) {
		t.Fatalf("expected %d queue entries on disk, got %d", len(first.Queue), saved)
	}
	// Only the replays: exactly the saved entries run, nothing mutated.
	second := campaign(int64(saved))
	if second.Stats.Coverage != first.Stats.Coverage || second.Stats.ValidCoverage != first.Stats.ValidCoverage {
		t.Fatalf("expected resume to restore coverage %d/%d, got %d/%d", first.Stats.Coverage, first.Stats.ValidCoverage, second.Stats.Coverage, second.Stats.ValidCoverage)
	}
	for _, f := range []string{corpus.StatsFile, corpus.PlotFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("expected %s: %v", f, err)
		}
	}
	if second.Stats.Jobs <= first.Stats.Jobs {
		t.Fatalf("expected the resumed run to continue the job counter %d, got %d", first.Stats.Jobs, second.Stats.Jobs)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, corpus.StatsFile))
	st, err := corpus.ParseStats(raw)
	if err != nil {
		t.Fatal(err)
	}
	if want := uint64(5000 + saved); st.Execs != want {
		t.Fatalf("expected execs_done %d across the resume, got %d", want, st.Execs)
	}
}

// TestGeneratorAdapter: the built-in expr generator through FromGenerator
// gives the same inputs for the same choices, and its used sequence
// regenerates the input.
func TestGeneratorAdapter(t *testing.T) {
	g, ok := generators.Lookup("expr")
	if !ok {
		t.Fatal("no expr generator")
	}
	a := FromGenerator(g, generators.Options{})
	w := a.(interface{ ForWorker(int) Generator }).ForWorker(0)
	for _, ch := range [][]byte{nil, {1, 2, 3}, bytes.Repeat([]byte{0xa5}, 100)} {
		in1, used, err := a.Generate(ch)
		if err != nil {
			t.Fatal(err)
		}
		in2, _, _ := w.Generate(ch)
		in3, _, _ := w.Generate(used)
		if !bytes.Equal(in1, in2) || !bytes.Equal(in1, in3) {
			t.Fatalf("choices %x: expected one input, got %q, %q, %q", ch, in1, in2, in3)
		}
	}
	sum, err := Fuzz(context.Background(), Config{Search: Search{Seed: 1, Runs: 2000, Workers: 2, Deterministic: true}},
		Deps{NewExecutor: progTarget.executors(nil), Generator: a})
	if err != nil || sum.Stats.Execs != 2000 || sum.Stats.Strategy != "zest" {
		t.Fatalf("expected 2000 zest runs, got %v, %+v", err, sum)
	}
	for _, e := range sum.Queue {
		seq, ok := e.Seq.(*generators.Sequence)
		if !ok || !bytes.Equal(seq.Bytes(), e.Choices) {
			t.Fatalf("entry %d: expected a *generators.Sequence holding its choices, got %T", e.ID, e.Seq)
		}
	}
}

// indexedMutator is Zest's mutator asking for execution-indexed replay.
type indexedMutator struct{ Mutator }

func (indexedMutator) ReuseIndexes() bool { return true }

type indexedZest struct{ Zest }

func (z *indexedZest) NewMutator(w int, env *MutatorEnv) Mutator {
	return indexedMutator{z.Zest.NewMutator(w, env)}
}

// recordingGen is a StructuredGenerator that counts the bases it gets.
type recordingGen struct {
	progGen
	withBase *atomic.Int64
}

func (g recordingGen) GenerateFrom(base any, ch []byte) ([]byte, []byte, any, error) {
	if base != nil {
		if _, ok := base.(string); !ok {
			panic("unexpected base type")
		}
		g.withBase.Add(1)
	}
	in, used, err := g.Generate(ch)
	return in, used, "seq", err
}

func TestIndexedMutatorGetsParentSeq(t *testing.T) {
	for _, indexed := range []bool{false, true} {
		var n atomic.Int64
		var strat Strategy = &Zest{}
		if indexed {
			strat = &indexedZest{}
		}
		sum, err := FuzzWith(context.Background(), Config{Search: Search{Runs: 500}}, Deps{NewExecutor: progTarget.executors(nil), Generator: recordingGen{withBase: &n}}, strat)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Queue[0].Seq != "seq" {
			t.Fatalf("expected entries to keep the generator's seq, got %v", sum.Queue[0].Seq)
		}
		if got := n.Load() > 0; got != indexed {
			t.Fatalf("indexed %v: expected runs with the parent's seq as base: %v, got %d", indexed, indexed, n.Load())
		}
	}
}

// TestHammer: many workers, one-child jobs, splicing over a growing queue
// (run with -race: workers read queue snapshots while the coordinator
// appends).
func TestHammer(t *testing.T) {
	for _, det := range []bool{false, true} {
		sum, err := Fuzz(context.Background(), Config{Search: Search{Seed: 9, Runs: 20_000, Workers: 4, Deterministic: det, KeepGoing: true}, JobSize: 1},
			Deps{NewExecutor: progTarget.executors(nil), Seeds: [][]byte{{3, 0, 0, 1, 0, 5, 0, 0xff}, {1, 5, 0, 0xff}}})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Stats.Execs != 20_000 || sum.Stats.Queue < 2 {
			t.Fatalf("deterministic %v: expected 20000 runs and a queue, got %d runs, queue %d", det, sum.Stats.Execs, sum.Stats.Queue)
		}
	}
}

// failStore fails every AddEntry (a full disk).
type failStore struct{ memStore }

func (*failStore) AddEntry(context.Context, *Entry) error { return errors.New("disk full") }

func TestStoreErrorStops(t *testing.T) {
	sum, err := Fuzz(context.Background(), Config{Search: Search{Runs: 1_000_000, KeepGoing: true}},
		Deps{NewExecutor: progTarget.executors(nil), Store: &failStore{}})
	if err == nil || !strings.Contains(err.Error(), "disk full") || sum.Stop != "error" {
		t.Fatalf("expected a \"disk full\" error and stop \"error\", got %v, stop %q", err, sum.Stop)
	}
	if sum.Stats.Execs >= 1_000_000 {
		t.Fatalf("expected the campaign to stop early, ran %d", sum.Stats.Execs)
	}
}

// noteStrategy checks what Learn sees: each child's index, its job's note,
// and its choices.
type noteStrategy struct {
	Havoc
	t       *testing.T
	learned int
}

type noteMutator struct{ Mutator }

func (noteMutator) Done(j *Job) any { return j.Seq }

func (s *noteStrategy) NewMutator(w int, env *MutatorEnv) Mutator {
	return noteMutator{s.Havoc.NewMutator(w, env)}
}

func (s *noteStrategy) Learn(_ *State, j *Job, fb *Feedback) {
	if j.replay {
		return
	}
	s.learned++
	if fb.Note != j.Seq || fb.Index < 0 || fb.Index >= j.N || fb.Choices == nil {
		s.t.Fatalf("job %d: expected note %d, an index in [0, %d) and choices, got %v, %d, %v", j.Seq, j.Seq, j.N, fb.Note, fb.Index, fb.Choices)
	}
}

func TestFeedbackCarriesChild(t *testing.T) {
	s := &noteStrategy{t: t}
	if _, err := FuzzWith(context.Background(), Config{Search: Search{Runs: 5000, Workers: 2, KeepGoing: true}}, Deps{NewExecutor: progTarget.executors(nil)}, s); err != nil {
		t.Fatal(err)
	}
	if s.learned == 0 {
		t.Fatal("expected Learn calls")
	}
}

// TestHangsDoNotStop: hangs are deduplicated and counted, never queued,
// and do not end the campaign.
func TestHangsDoNotStop(t *testing.T) {
	hangy := &fakeTarget{sites: 4, run: func(in []byte, c fakeCov) (Outcome, *Failure) {
		c.hit(0)
		if len(in) > 0 && in[0]&1 == 1 {
			c.hit(1)
			return Hang, &Failure{Identity: "hang: fuel|out of fuel|loop", Kind: runtime.KindFuel, Message: "out of fuel", Frames: []string{"loop"}}
		}
		return Valid, nil
	}}
	st := &memStore{}
	sum, err := Fuzz(context.Background(), Config{Search: Search{Runs: 3000}}, Deps{NewExecutor: hangy.executors(nil), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stop != "runs" || sum.Stats.Hangs != 1 || sum.Stats.HangRuns < 10 || len(st.failures) != 1 {
		t.Fatalf("expected to run out the budget with 1 unique hang over many hang runs, got stop %q, %d unique, %d runs, %d stored", sum.Stop, sum.Stats.Hangs, sum.Stats.HangRuns, len(st.failures))
	}
	for _, e := range sum.Queue {
		if len(e.Input) > 0 && e.Input[0]&1 == 1 {
			t.Fatalf("hanging input %q queued", e.Input)
		}
	}
	if sum.Failures[0].Shrunk {
		t.Fatal("expected hangs not to be shrunk")
	}
}

// TestStopsMidBatch: a stop on time, or on a crash when the campaign need
// not be reproducible, ends the batches in flight at their next child
// instead of running them out: here jobs of 1,000 one-millisecond runs
// (a second each) end with fewer runs than the issued jobs hold. A
// reproducible campaign (one worker; jobs of 100 here) runs its issued
// batches to the end after a crash, the same way every time.
func TestStopsMidBatch(t *testing.T) {
	slow := func(crashAt int64) *fakeTarget {
		var runs atomic.Int64
		var crashed atomic.Pointer[string] // the crashing input crashes again when rerun (verify.go)
		return &fakeTarget{sites: 4, run: func(in []byte, c fakeCov) (Outcome, *Failure) {
			c.hit(0)
			if runs.Add(1) == crashAt {
				s := string(in)
				crashed.Store(&s)
				return Crash, &Failure{Identity: "crash: test", Kind: runtime.KindTrap}
			}
			if p := crashed.Load(); p != nil && *p == string(in) {
				return Crash, &Failure{Identity: "crash: test", Kind: runtime.KindTrap}
			}
			time.Sleep(time.Millisecond)
			return Valid, nil
		}}
	}
	tests := []struct {
		name    string
		cfg     Config
		crashAt int64
		stop    Stop
		fast    bool // cuts the batches in flight short
	}{
		{"time, one worker", Config{Search: Search{MaxTotalTime: 100 * time.Millisecond}}, 0, "time", true},
		{"time, two workers", Config{Search: Search{MaxTotalTime: 100 * time.Millisecond, Workers: 2}}, 0, "time", true},
		{"crash, two workers", Config{Search: Search{Workers: 2}}, 50, "crash", true},
		{"crash, one worker", Config{JobSize: 100}, 50, "crash", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			if cfg.JobSize == 0 {
				cfg.JobSize = 1000
			}
			cfg.NoShrink = true
			start := time.Now()
			sum, err := Fuzz(context.Background(), cfg, Deps{NewExecutor: slow(tc.crashAt).executors(nil)})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("stop %q after %v, %d runs", sum.Stop, time.Since(start), sum.Stats.Execs)
			if sum.Stop != tc.stop {
				t.Fatalf("expected stop %q, got %q", tc.stop, sum.Stop)
			}
			// The crash's job stops at the crash; in a reproducible
			// campaign the jobs issued after it (lag 4: three of them) run
			// out, and in the others they are cut short: fewer runs than
			// that in all (a count, so load cannot make it pass or fail).
			ranOut := int64(tc.crashAt) + 3*int64(cfg.JobSize)
			if tc.fast && sum.Stats.Execs >= ranOut {
				t.Fatalf("expected the batches in flight cut short (< %d runs), got %d", ranOut, sum.Stats.Execs)
			}
			if !tc.fast && sum.Stats.Execs < ranOut {
				t.Fatalf("expected the issued jobs run to their end (≥ %d runs), got %d", ranOut, sum.Stats.Execs)
			}
		})
	}
}

// TestKnownCrashKeepsBudget: a crash an earlier session saved
// (Deps.KnownFailures) neither stops the campaign nor cuts the batch it
// happens in short, so --runs is run out: here a quarter of the inputs
// (odd first bytes, reached by a bit flip) hit the known crash.
func TestKnownCrashKeepsBudget(t *testing.T) {
	fail := &Failure{Identity: "crash: panic|odd|f", Kind: runtime.KindGoPanic, Message: "odd", Frames: []string{"f"}}
	tg := &fakeTarget{sites: 8, run: func(in []byte, c fakeCov) (Outcome, *Failure) {
		c.hit(0)
		if len(in) > 0 && in[0]&1 == 1 {
			c.hit(1)
			return Crash, fail
		}
		if len(in) > 1 {
			c.hit(2 + int(in[1]%4))
		}
		return Valid, nil
	}}
	const runs = 20000
	sum, err := Fuzz(context.Background(), Config{Search: Search{Runs: runs, Seed: 1, NoShrink: true}},
		Deps{NewExecutor: tg.executors(nil), Seeds: [][]byte{{0, 0, 0, 0}}, KnownFailures: []string{fail.Identity}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stop != "runs" || sum.Stats.Execs != runs || sum.Stats.CrashRuns < 100 || sum.Stats.Crashes != 0 {
		t.Fatalf("expected %d runs with many runs of the known crash and no new one, got stop %q after %d runs, %d crash runs, %d unique",
			runs, sum.Stop, sum.Stats.Execs, sum.Stats.CrashRuns, sum.Stats.Crashes)
	}
}

// spinExec spends at least spinFor per run, on the CPU.
type spinExec struct{ c []byte }

const spinFor = 50 * time.Microsecond

func (s *spinExec) Run(context.Context, []byte) (Result, error) {
	for t0 := time.Now(); time.Since(t0) < spinFor; {
	}
	s.c[0] = 1
	return Result{Outcome: Valid, Counters: s.c}, nil
}

// TestTimeSharesSmallBatches: batches of fewer children than the worker
// samples from (timeEvery) still report their time in full: over 64
// batches of 8 runs, 8 runs are timed, each at least spinFor, and stand
// for 64 runs each, so the execute time reported is at least 512 spinFor.
// Scaled by each batch's own size it came to about an eighth of that.
func TestTimeSharesSmallBatches(t *testing.T) {
	w := newTestWorker(&spinExec{c: make([]byte, 8)}, (&Havoc{}).NewMutator(0, &MutatorEnv{MaxLen: 64}))
	parent := &Entry{Choices: []byte("abcd"), Input: []byte("abcd")}
	var got time.Duration
	const batches, size = 64, 8
	for i := range batches {
		br := w.runBatch(context.Background(), &batch{seq: uint64(i), jobs: []*Job{{Seq: uint64(i), Parent: parent, N: size}}})
		got += br.times[tExecute]
	}
	if want := batches * size * spinFor; got < want {
		t.Fatalf("%d runs of at least %v: expected at least %v of execute time, got %v", batches*size, spinFor, want, got)
	}
}

// TestFailureTimeIsWhenFound: a failure's saved time is when the
// campaign found it, not when it was saved after its shrinking (a crash
// shrunk for a second read as found a second later than it was).
func TestFailureTimeIsWhenFound(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	ctx := context.Background()
	d, _, err := corpus.Open(ctx, dir, corpus.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	store := NewCorpusStore(d, true)
	fd := &Finding{Outcome: Crash, Input: []byte("x"), Failure: &Failure{Identity: "crash: test", Kind: runtime.KindTrap}, Found: 3 * time.Second}
	if err := store.AddFailure(ctx, fd); err != nil {
		t.Fatal(err)
	}
	if got := d.Failures(); len(got) != 1 || got[0].Time != 3*time.Second {
		t.Fatalf("expected one failure found at 3s, got %+v", got)
	}
}
