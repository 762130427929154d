package campaign

import (
	"context"
	"math"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/wafer-fuzz/wafer/engine"
	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/runtime"
)

// TestSampledExecutors: campaigns on the heap check fixture whose workers
// run one input in 4 on the checked build find its heap bugs (kinds only
// the check reports), shrunk on the checked build; two deterministic
// two-worker campaigns run the same inputs (a sum of their hashes) and
// find the same, each shrunk (crashes the plain build's heap guard found
// too); the plain build alone finds only the guard's.
func TestSampledExecutors(t *testing.T) {
	plain, sm, checked, csm := heapBuilds(t)
	if csm.Layout.ShadowBytes == 0 || len(csm.Sites) != len(sm.Sites) {
		t.Fatalf("checked build: shadow %d bytes, %d sites against %d", csm.Layout.ShadowBytes, len(csm.Sites), len(sm.Sites))
	}
	run := func(newExec func(context.Context, int) (engine.Executor, error), workers int) (*engine.Summary, uint64) {
		var h uint64
		sum, err := engine.Fuzz(context.Background(), engine.Config{Seed: 3, Runs: 20_000, Workers: workers, Deterministic: true, KeepGoing: true},
			engine.Deps{NewExecutor: newExec, Seeds: [][]byte{[]byte("xxxx")}, TargetDict: sm.Dictionary,
				OnRun: func(seq uint64, i int, in []byte) { atomic.AddUint64(&h, xxhash.Sum64(in)^seq<<20^uint64(i)) }})
		if err != nil {
			t.Fatal(err)
		}
		return sum, h
	}
	heapKinds := func(s *engine.Summary) (kinds []string) {
		for _, f := range s.Failures {
			if k := f.Failure.Kind.String(); strings.HasPrefix(k, "heap-") {
				if !f.Shrunk {
					t.Errorf("%s not shrunk", f.Identity)
				}
				kinds = append(kinds, k)
			}
		}
		slices.Sort(kinds)
		return kinds
	}
	a, ha := run(sampledExecutors(plain, checked, 4, 2), 2)
	b, hb := run(sampledExecutors(plain, checked, 4, 2), 2)
	ka, kb := heapKinds(a), heapKinds(b)
	t.Logf("found %v in %d runs", ka, a.Stats.Execs)
	if len(ka) < 3 || strings.Join(ka, ",") != strings.Join(kb, ",") || ha != hb {
		t.Fatalf("expected the same heap findings (at least 3) twice, got %v and %v (runs hash equal: %v)", ka, kb, ha == hb)
	}
	plainSum, _ := run(executors(plain), 2)
	for _, f := range plainSum.Failures {
		if !strings.Contains(f.Failure.Message, "found when it was freed") {
			t.Fatalf("the plain build alone: expected only the heap guard's findings, got %s", f.Identity)
		}
	}
}

// TestComparerChecks: with the checks in the comparer's build, a campaign
// whose workers run the plain build (sampledExecutors that almost never
// picks the checked one; its shrinker runs it) finds the fixture's heap
// bugs on the queue entries that reach them (Op "checked", or "havoc" for
// an overflow the workers' guard met first), shrunk.
func TestComparerChecks(t *testing.T) {
	plain, sm, checked, _ := heapBuilds(t)
	cmp, _ := heapBuild(t, buildCompares)
	sum, err := engine.Fuzz(context.Background(), engine.Config{Seed: 5, Runs: 20_000, KeepGoing: true},
		engine.Deps{NewExecutor: sampledExecutors(plain, checked, math.MaxInt32, 1), NewComparer: comparers(cmp), Seeds: [][]byte{[]byte("xxxx")}, TargetDict: sm.Dictionary})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, f := range sum.Failures {
		if strings.HasPrefix(f.Failure.Kind.String(), "heap-") && !strings.Contains(f.Failure.Message, "found when it was freed") {
			// (the heap guard's findings come from the workers, and are
			// reported as the checked build's when it finds them too,
			// engine's verify.go: then their op is the workers')
			if (f.Op != engine.OpChecked && f.Op != "havoc") || !f.Shrunk {
				t.Errorf("%s: op %q, shrunk %v: expected %q, shrunk", f.Identity, f.Op, f.Shrunk, engine.OpChecked)
			}
			kinds = append(kinds, f.Failure.Kind.String())
		}
	}
	t.Logf("found %v in %d runs", kinds, sum.Stats.Execs)
	if len(kinds) < 3 {
		t.Fatalf("expected at least 3 heap findings, got %v", kinds)
	}
}

const heapFixture = "../testdata/heapcheck/check.wasm"

// heapBuilds compiles the heap check fixture as a campaign builds it
// without the check and with it.
func heapBuilds(t *testing.T) (plain *runtime.Target, sm *instrument.SiteMap, checked *runtime.Target, csm *instrument.SiteMap) {
	plain, sm = heapBuild(t, buildCounters)
	checked, csm = heapBuild(t, buildChecked)
	return plain, sm, checked, csm
}

func heapBuild(t *testing.T, b build) (*runtime.Target, *instrument.SiteMap) {
	t.Helper()
	wasm, err := os.ReadFile(heapFixture)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := Load(heapFixture, wasm, TargetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt, sm, err := tg.compile(ctx, b, 1<<16, ResetDefault, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(ctx) })
	return rt, sm
}
