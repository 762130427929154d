package engine

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// fakeArm is an arm that issues jobs of n fresh children and waits
// while waiting is set; jobs counts its Next calls that issued one.
type fakeArm struct {
	Base
	n       int
	waiting bool
	jobs    int
	learned int
	done    int
	// foreign counts the JobDone calls without the arm's own param and
	// note (they must be unwrapped before they reach the arm)
	foreign int
}

func (f *fakeArm) Next(*State) (*Entry, int, any) {
	if f.waiting {
		return nil, Wait, nil
	}
	f.jobs++
	return nil, f.n, "own"
}

func (f *fakeArm) Learn(*State, *Job, *Feedback) { f.learned++ }

func (f *fakeArm) JobDone(_ *State, j *Job, note any) {
	if j.Param != "own" || note != "note" {
		f.foreign++
	}
	f.done++
}

func (f *fakeArm) NewMutator(int, *MutatorEnv) Mutator { return &fakeArmMutator{} }

// fakeArmMutator notes "note" for a job whose every child it made with
// the arm's own param, "foreign" otherwise.
type fakeArmMutator struct{ foreign bool }

func (m *fakeArmMutator) Mutate(dst []byte, j *Job, _ Rand) []byte {
	m.foreign = m.foreign || j.Param != "own"
	return dst[:0]
}
func (m *fakeArmMutator) Observe(*Job, Local) {}
func (m *fakeArmMutator) Done(*Job) any {
	if m.foreign {
		m.foreign = false
		return "foreign"
	}
	return "note"
}

// simulate runs the portfolio without a coordinator for execs executions:
// each job is merged at once, its children finding a new branch every
// 1/rate(arm, execs so far) executions (rate 0: never). It returns the
// executions each arm ran in the last quarter.
func simulate(t *testing.T, a *Auto, execs int64, rate func(arm int, at int64) float64) []int64 {
	t.Helper()
	s := &State{Cov: newCoverage(0)}
	env := &MutatorEnv{}
	m := a.NewMutator(0, env)
	recent := make([]int64, len(a.arms))
	owed := make([]float64, len(a.arms))
	for s.Execs < execs {
		parent, n, p := a.Next(s)
		if n == Wait {
			t.Fatal("expected a job, got Wait")
		}
		j := &Job{Parent: parent, N: n, Param: p}
		for range n {
			m.Mutate(nil, j, nil)
			m.Observe(j, Local{})
		}
		note := m.Done(j)
		arm := p.(*armParam).arm
		owed[arm] += rate(arm, s.Execs) * float64(n)
		for ; owed[arm] >= 1; owed[arm]-- {
			fb := &Feedback{Outcome: Valid, NewBranch: true, Note: note}
			a.Save(s, fb)
			a.Learn(s, j, fb)
		}
		a.JobDone(s, j, note)
		s.Execs += int64(n)
		if s.Execs > execs*3/4 {
			recent[arm] += int64(n)
		}
	}
	return recent
}

func newFakeAuto(t *testing.T, k int) (*Auto, []*fakeArm) {
	t.Helper()
	var names []string
	var strats []Strategy
	var arms []*fakeArm
	for i := range k {
		f := &fakeArm{n: 50}
		names = append(names, string(rune('a'+i)))
		strats = append(strats, f)
		arms = append(arms, f)
	}
	s, err := NewAutoOf(names, strats)
	if err != nil {
		t.Fatal(err)
	}
	return AsAuto(s), arms
}

func shares(recent []int64) []float64 {
	var sum int64
	for _, n := range recent {
		sum += n
	}
	out := make([]float64, len(recent))
	for i, n := range recent {
		out[i] = float64(n) / float64(sum)
	}
	return out
}

// TestAutoUselessArmKeepsFloor: an arm whose children find nothing gets
// little of the schedule, but not nothing.
func TestAutoUselessArmKeepsFloor(t *testing.T) {
	a, arms := newFakeAuto(t, 3)
	recent := simulate(t, a, 400_000, func(arm int, _ int64) float64 {
		return []float64{0.01, 0.005, 0}[arm]
	})
	sh := shares(recent)
	t.Logf("last quarter's shares %.3f, arms %+v", sh, a.Arms())
	if sh[2] >= 0.10 || sh[2] < autoFloor/2 {
		t.Fatalf("expected the useless arm between %.3f and 0.10 of the executions, got %.3f", autoFloor/2, sh[2])
	}
	if sh[0] <= sh[1] {
		t.Fatalf("expected the arm finding twice as much to get more, got %.3f", sh)
	}
	for i, f := range arms {
		if f.done != f.jobs || f.foreign != 0 {
			t.Fatalf("arm %d: %d jobs, %d JobDone calls, %d without the arm's own param and note", i, f.jobs, f.done, f.foreign)
		}
	}
	if arms[0].learned == 0 || arms[2].learned != 0 {
		t.Fatalf("expected Learn only at the arm whose child found something, got %d, %d", arms[0].learned, arms[2].learned)
	}
}

// TestAutoArmStartsPaying: an arm that finds nothing at first and then
// finds more than the others takes over the schedule.
func TestAutoArmStartsPaying(t *testing.T) {
	a, _ := newFakeAuto(t, 3)
	recent := simulate(t, a, 800_000, func(arm int, at int64) float64 {
		if arm == 2 {
			if at < 200_000 {
				return 0
			}
			return 0.02
		}
		return 0.005
	})
	sh := shares(recent)
	t.Logf("last quarter's shares %.3f", sh)
	if sh[2] < 0.5 {
		t.Fatalf("expected the arm that started paying to get most executions, got %.3f", sh)
	}
}

// TestAutoNothingPays: with no finds at all the arms share evenly.
func TestAutoNothingPays(t *testing.T) {
	a, _ := newFakeAuto(t, 3)
	sh := shares(simulate(t, a, 200_000, func(int, int64) float64 { return 0 }))
	for _, x := range sh {
		if x < 0.2 || x > 0.5 {
			t.Fatalf("expected even shares, got %.3f", sh)
		}
	}
}

// TestAutoWait: a waiting arm's turn goes to another; Auto waits only
// when every arm does.
func TestAutoWait(t *testing.T) {
	a, arms := newFakeAuto(t, 3)
	s := &State{Cov: newCoverage(0)}
	arms[0].waiting = true
	_, n, p := a.Next(s)
	if n == Wait || p.(*armParam).arm != 1 {
		t.Fatalf("expected arm 1's job while arm 0 waits, got n %d, %+v", n, p)
	}
	for _, f := range arms {
		f.waiting = true
	}
	if _, n, _ := a.Next(s); n != Wait {
		t.Fatalf("expected Wait when every arm waits, got %d", n)
	}
	arms[2].waiting = false
	if _, n, p := a.Next(s); n == Wait || p.(*armParam).arm != 2 {
		t.Fatalf("expected arm 2's job, got n %d, %+v", n, p)
	}
}

// TestAutoDependentOutermost: an arm's Dependent stays the outer param, so
// the coordinator still runs it as one job.
func TestAutoDependentOutermost(t *testing.T) {
	d := &dependentArm{}
	s, err := NewAutoOf([]string{"d"}, []Strategy{d})
	if err != nil {
		t.Fatal(err)
	}
	_, _, p := s.Next(&State{Cov: newCoverage(0)})
	dep, ok := p.(Dependent)
	if !ok {
		t.Fatalf("expected a Dependent param, got %T", p)
	}
	if ap, ok := dep.Param.(*armParam); !ok || ap.inner != "probe" {
		t.Fatalf("expected the arm's param inside, got %+v", dep.Param)
	}
}

type dependentArm struct{ fakeArm }

func (*dependentArm) Next(*State) (*Entry, int, any) { return nil, 5, Dependent{Param: "probe"} }

// TestAutoArmsCompatible: the built-in arms can share a queue; arms that
// lay choices out differently are refused.
func TestAutoArmsCompatible(t *testing.T) {
	for _, raw := range []bool{true, false} {
		if _, err := NewAuto(StrategyOptions{Raw: raw, Workers: 1}, AutoArms(raw)...); err != nil {
			t.Fatalf("raw %v: %v", raw, err)
		}
	}
	_, err := NewAuto(StrategyOptions{Workers: 1}, "zest", "bedivfuzz", "spoton")
	if err == nil || !strings.Contains(err.Error(), "bedivfuzz and spoton") {
		t.Fatalf("expected bedivfuzz and spoton refused together, got %v", err)
	}
	if _, free := newAuto(StrategyOptions{Raw: false}).(traceFree); !free {
		t.Fatal("expected generator-mode auto (zest, bedivfuzz) to be traceFree")
	}
	if _, free := newAuto(StrategyOptions{Raw: true, Workers: 1}).(traceFree); free {
		t.Fatal("expected raw-mode auto (fairfuzz, levy read traces) to keep traces")
	}
}

// TestAutoCampaign runs auto on the fake targets: raw mode finds the FUZZ
// crash, every arm runs, the entries carry the arm that made them, and
// the arms' executions add up; the same seed gives the same schedule and
// the same runs with two deterministic workers.
func TestAutoCampaign(t *testing.T) {
	sum, err := Fuzz(context.Background(), Config{Search: Search{Seed: 3, Runs: 300_000, Strategy: "auto"}},
		Deps{NewExecutor: magicTarget.executors(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stop != "crash" || len(sum.Failures) != 1 {
		t.Fatalf("expected the FUZZ crash, got stop %q after %d runs", sum.Stop, sum.Stats.Execs)
	}
	if op := sum.Failures[0].Op; !slices.Contains(AutoArms(true), string(op)) {
		t.Fatalf("expected the crash's Op to be an arm, got %q", op)
	}
	arms := sum.Stats.Arms
	if len(arms) != 3 {
		t.Fatalf("expected 3 arms in the stats, got %+v", arms)
	}
	var execs int64
	for _, a := range arms {
		if a.Execs == 0 {
			t.Fatalf("expected every arm to run, got %+v", arms)
		}
		execs += a.Execs
		want := int64(0)
		if a.Name == string(sum.Failures[0].Op) {
			want = 1
		}
		if a.Crashes != want {
			t.Fatalf("expected the crash credited to %s alone, got %+v", sum.Failures[0].Op, arms)
		}
	}
	if execs > sum.Stats.Execs || execs < sum.Stats.Execs-int64(len(sum.Queue))*maxStage-10 {
		t.Fatalf("expected the arms' executions (%d) to be the campaign's %d but for seeds", execs, sum.Stats.Execs)
	}
	for _, e := range sum.Queue {
		if e.Op != OpSeed && !slices.Contains(AutoArms(true), string(e.Op)) {
			t.Fatalf("entry %d: expected an arm's name as Op, got %q", e.ID, e.Op)
		}
	}
	if !strings.Contains(sum.Stats.Line(), " arms:fairfuzz ") {
		t.Fatalf("expected the arms in the status line, got %s", sum.Stats.Line())
	}

	var logs [2]execLog
	var scheds [2][]int
	for i := range logs {
		a := AsAuto(newAuto(StrategyOptions{Raw: false, Workers: 2}))
		a.Record = true
		cfg := Config{Search: Search{Seed: 11, Runs: 30_000, Workers: 2, Deterministic: true, KeepGoing: true, NoShrink: true, Strategy: "auto"}}
		if _, err := FuzzWith(context.Background(), cfg, Deps{NewExecutor: progTarget.executors(nil), Generator: progGen{}, OnRun: logs[i].onRun}, a); err != nil {
			t.Fatal(err)
		}
		scheds[i] = a.Sched
	}
	h0, n0 := logs[0].hash()
	h1, n1 := logs[1].hash()
	if h0 != h1 || n0 != n1 || !slices.Equal(scheds[0], scheds[1]) {
		t.Fatalf("expected the same runs and schedule, got %x/%d and %x/%d, schedules %v and %v", h0, n0, h1, n1, scheds[0], scheds[1])
	}
	if len(scheds[0]) < 4 {
		t.Fatalf("expected several turns, got %v", scheds[0])
	}
	t.Logf("schedule %v", scheds[0])
}

// BenchmarkAutoOverhead: whole one-worker campaigns of b.N executions on
// progTarget in raw mode, havoc against a portfolio whose one arm is
// havoc: the difference per execution is the routing and the bandit.
func BenchmarkAutoOverhead(b *testing.B) {
	for _, name := range []string{"havoc", "auto-havoc"} {
		b.Run(name, func(b *testing.B) {
			var strat Strategy = &Havoc{}
			if name == "auto-havoc" {
				var err error
				if strat, err = NewAutoOf([]string{"havoc"}, []Strategy{&Havoc{}}); err != nil {
					b.Fatal(err)
				}
			}
			cfg := Config{Search: Search{Seed: 1, Runs: int64(max(b.N, 1000)), Workers: 1, KeepGoing: true, NoShrink: true, Strategy: name}}
			b.ResetTimer()
			cpu0 := cpuTime()
			sum, err := FuzzWith(context.Background(), cfg, Deps{NewExecutor: progTarget.executors(nil)}, strat)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(sum.Stats.Execs), "cpu-ns/exec")
		})
	}
}
