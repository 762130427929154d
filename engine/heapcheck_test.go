package engine

import (
	"context"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cespare/xxhash/v2"

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
	campaign := func(newExec func(context.Context, int) (Executor, error), workers int) (*Summary, uint64) {
		var h uint64
		sum, err := Fuzz(context.Background(), Config{Seed: 3, Runs: 20_000, Workers: workers, Deterministic: true, KeepGoing: true},
			Deps{NewExecutor: newExec, Seeds: [][]byte{[]byte("xxxx")}, TargetDict: sm.Dictionary,
				OnRun: func(seq uint64, i int, in []byte) { atomic.AddUint64(&h, xxhash.Sum64(in)^seq<<20^uint64(i)) }})
		if err != nil {
			t.Fatal(err)
		}
		return sum, h
	}
	heapKinds := func(s *Summary) (kinds []string) {
		for _, f := range s.Failures {
			if k := f.Failure.Kind; strings.HasPrefix(k, "heap-") {
				if !f.Shrunk {
					t.Errorf("%s not shrunk", f.Identity)
				}
				kinds = append(kinds, k)
			}
		}
		slices.Sort(kinds)
		return kinds
	}
	a, ha := campaign(SampledExecutors(plain, checked, 4, 2), 2)
	b, hb := campaign(SampledExecutors(plain, checked, 4, 2), 2)
	ka, kb := heapKinds(a), heapKinds(b)
	t.Logf("found %v in %d runs", ka, a.Stats.Execs)
	if len(ka) < 3 || strings.Join(ka, ",") != strings.Join(kb, ",") || ha != hb {
		t.Fatalf("expected the same heap findings (at least 3) twice, got %v and %v (runs hash equal: %v)", ka, kb, ha == hb)
	}
	plainSum, _ := campaign(RuntimeExecutors(plain), 2)
	for _, f := range plainSum.Failures {
		if !strings.Contains(f.Failure.Message, "found when it was freed") {
			t.Fatalf("the plain build alone: expected only the heap guard's findings, got %s", f.Identity)
		}
	}
}

// TestComparerChecks: with the checks in the comparer's build, a campaign
// whose workers run the plain build (SampledExecutors that almost never
// picks the checked one; its shrinker runs it) finds the fixture's heap
// bugs on the queue entries that reach them (Op "checked", or "havoc" for
// an overflow the workers' guard met first), shrunk.
func TestComparerChecks(t *testing.T) {
	plain, sm, checked, _ := heapBuilds(t)
	cmp, _ := loadWith(t, heapFixture, &instrument.Options{Fuel: true, DirtyPages: true, HeapGuard: true, HeapCheck: true, Compares: true})
	sum, err := Fuzz(context.Background(), Config{Seed: 5, Runs: 20_000, KeepGoing: true},
		Deps{NewExecutor: SampledExecutors(plain, checked, math.MaxInt32, 1), NewComparer: RuntimeComparers(cmp), Seeds: [][]byte{[]byte("xxxx")}, TargetDict: sm.Dictionary})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, f := range sum.Failures {
		if strings.HasPrefix(f.Failure.Kind, "heap-") && !strings.Contains(f.Failure.Message, "found when it was freed") {
			// (the heap guard's findings come from the workers, and are
			// reported as the checked build's when it finds them too,
			// verify.go: then their op is the workers')
			if (f.Op != opChecked && f.Op != "havoc") || !f.Shrunk {
				t.Errorf("%s: op %q, shrunk %v: expected %q, shrunk", f.Identity, f.Op, f.Shrunk, opChecked)
			}
			kinds = append(kinds, f.Failure.Kind)
		}
	}
	t.Logf("found %v in %d runs", kinds, sum.Stats.Execs)
	if len(kinds) < 3 {
		t.Fatalf("expected at least 3 heap findings, got %v", kinds)
	}
}

const heapFixture = "../testdata/heapcheck/check.wasm"

// heapBuilds loads the heap check fixture built as a campaign builds it
// without the check and with it.
func heapBuilds(t *testing.T) (plain *runtime.Target, sm *instrument.SiteMap, checked *runtime.Target, csm *instrument.SiteMap) {
	opts := instrument.Options{Fuel: true, DirtyPages: true, HeapGuard: true}
	plain, sm = loadWith(t, heapFixture, &opts)
	opts.HeapCheck = true
	checked, csm = loadWith(t, heapFixture, &opts)
	return plain, sm, checked, csm
}
