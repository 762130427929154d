package campaign

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/wafer-fuzz/wafer/corpus"
)

func loadTLV(t *testing.T) *Target {
	t.Helper()
	wasm, err := os.ReadFile("../examples/tlv/tlv.wasm")
	if err != nil {
		t.Fatal(err)
	}
	tg, err := Load("tlv.wasm", wasm, TargetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFuzzDeterministic: two campaigns with the same seed, target and
// options make the same executions: the same count, the same new inputs
// in the same order, the same findings.
func TestFuzzDeterministic(t *testing.T) {
	tg := loadTLV(t)
	seed := readFile(t, "../examples/tlv/seeds/valid")
	run := func() *Summary {
		sum, err := tg.Fuzz(context.Background(), Options{Search: Search{Seed: 7, Runs: 5_000, KeepGoing: true}, Seeds: [][]byte{seed}})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	a, b := run(), run()
	if a.Stop != StopRuns || a.Stats.Execs != 5_000 || len(a.NewInputs) == 0 {
		t.Fatalf("expected 5,000 executions that keep new inputs, got %s after %d, %d new", a.Stop, a.Stats.Execs, len(a.NewInputs))
	}
	same := a.Stats.Execs == b.Stats.Execs && len(a.NewInputs) == len(b.NewInputs) && len(a.Findings) == len(b.Findings)
	for i := 0; same && i < len(a.NewInputs); i++ {
		same = bytes.Equal(a.NewInputs[i], b.NewInputs[i])
	}
	for i := 0; same && i < len(a.Findings); i++ {
		same = a.Findings[i].Identity == b.Findings[i].Identity && bytes.Equal(a.Findings[i].Input, b.Findings[i].Input)
	}
	if !same {
		t.Fatalf("two campaigns with one seed differ: %d/%d executions, %d/%d new inputs, %d/%d findings",
			a.Stats.Execs, b.Stats.Execs, len(a.NewInputs), len(b.NewInputs), len(a.Findings), len(b.Findings))
	}
}

// TestMinimizeReproduce: a padded crash shrinks to a smaller input with
// the same identity, which a Reproducer reports with its stack; a valid
// input is ErrNoFailure.
func TestMinimizeReproduce(t *testing.T) {
	ctx := context.Background()
	tg := loadTLV(t)
	crash := readFile(t, "../examples/tlv/testdata/crash-padded")
	m, err := tg.Minimize(ctx, crash, MinimizeOptions{Runs: 5_000})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Input) >= len(crash) || m.Identity != "crash: divide-by-zero|integer divide by zero|parse_tlv" {
		t.Fatalf("expected a smaller input than %d bytes with the planted crash's identity, got %d bytes, %q", len(crash), len(m.Input), m.Identity)
	}
	rp, err := tg.NewReproducer(ctx, ReproOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	r, err := rp.Run(ctx, m.Input)
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != Crash || r.Identity != m.Identity || !bytes.Contains([]byte(r.Report), []byte("parse_tlv examples/tlv/tlv.c:")) {
		t.Fatalf("the minimised input: expected the same crash with a source-line stack, got %s %q\n%s", r.Outcome, r.Identity, r.Report)
	}
	valid := readFile(t, "../examples/tlv/seeds/valid")
	if _, err := tg.Minimize(ctx, valid, MinimizeOptions{}); !errors.Is(err, ErrNoFailure) {
		t.Fatalf("a valid input: expected ErrNoFailure, got %v", err)
	}
}

// TestMerge: of two copies of an input one is kept, a crash is left out
// and counted, and candidates that add nothing to the base are dropped.
// NewEdges (libFuzzer's "new coverage edges") is at most NewFeatures (a
// new site brings at least one new feature), 0 when the base covers all,
// and smaller when the base covers part.
func TestMerge(t *testing.T) {
	ctx := context.Background()
	tg := loadTLV(t)
	valid := readFile(t, "../examples/tlv/seeds/valid")
	crash := readFile(t, "../examples/tlv/testdata/crash-divzero")
	m, err := tg.Merge(ctx, nil, []corpus.Seed{{Path: "a", Data: valid}, {Path: "b", Data: bytes.Clone(valid)}, {Path: "c", Data: crash}})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Keep) != 1 || m.Failed != 1 || m.NewFeatures == 0 {
		t.Fatalf("expected one input kept with new features and one crash left out, got %d kept, %d failed, %d features", len(m.Keep), m.Failed, m.NewFeatures)
	}
	if m.NewEdges == 0 || m.NewEdges > m.NewFeatures {
		t.Errorf("new edges: expected 1..%d (the new features), got %d", m.NewFeatures, m.NewEdges)
	}
	allEdges := m.NewEdges
	m, err = tg.Merge(ctx, []corpus.Seed{{Path: "empty", Data: []byte{}}}, []corpus.Seed{{Path: "a", Data: valid}})
	if err != nil {
		t.Fatal(err)
	}
	if m.NewEdges == 0 || m.NewEdges >= allEdges {
		t.Errorf("new edges over a base with the empty input: expected 1..%d, got %d", allEdges-1, m.NewEdges)
	}
	m, err = tg.Merge(ctx, []corpus.Seed{{Path: "a", Data: valid}}, []corpus.Seed{{Path: "b", Data: bytes.Clone(valid)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Keep) != 0 || m.NewFeatures != 0 || m.BaseFeatures == 0 || m.NewEdges != 0 {
		t.Fatalf("a candidate the base covers: expected nothing kept, got %d kept, %d new of %d base features, %d new edges", len(m.Keep), m.NewFeatures, m.BaseFeatures, m.NewEdges)
	}
}

// TestPrepareOneAtATime: a build waits for its turn at instrument.Prepare
// while another build (the compare build, compiled aside) holds it, and
// gives up when its context ends; with the turn free it proceeds.
func TestPrepareOneAtATime(t *testing.T) {
	tg := loadTLV(t)
	aside := &Target{name: tg.name, wasm: tg.wasm, opts: tg.opts, building: tg.building}
	aside.building <- struct{}{} // the other build is in Prepare
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, _, err := tg.compile(ctx, buildCounters, 0, ResetDefault, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("with the turn taken: expected to wait until the deadline, got %v", err)
	}
	<-aside.building
	tgt, sm, err := tg.compile(context.Background(), buildCounters, 0, ResetDefault, true)
	if err != nil || sm == nil || len(sm.Sites) == 0 {
		t.Fatalf("with the turn free: %v", err)
	}
	tgt.Close(context.Background())
}
