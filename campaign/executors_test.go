package campaign

import (
	"bytes"
	"context"
	"fmt"
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
// too), as does one whose checked build is the compare build (as Fuzz
// wires raw mode); the plain build alone finds only the guard's.
func TestSampledExecutors(t *testing.T) {
	plain, sm, checked, csm := heapBuilds(t)
	if csm.Layout.ShadowBytes == 0 || len(csm.Sites) != len(sm.Sites) {
		t.Fatalf("checked build: shadow %d bytes, %d sites against %d", csm.Layout.ShadowBytes, len(csm.Sites), len(sm.Sites))
	}
	run := func(newExec func(context.Context, int) (engine.Executor, error), workers int) (*engine.Summary, uint64) {
		var h uint64
		sum, err := engine.Fuzz(context.Background(), engine.Config{Search: engine.Search{Seed: 3, Runs: 20_000, Workers: workers, Deterministic: true, KeepGoing: true}},
			engine.Deps{NewExecutor: newExec, Seeds: [][]byte{[]byte("xxxx")}, TargetDict: sm.Dictionary,
				OnRun: func(seq uint64, i int, in []byte) { atomic.AddUint64(&h, xxhash.Sum64(in)^seq<<20^uint64(i)) }})
		if err != nil {
			t.Fatal(err)
		}
		return sum, h
	}
	heapKinds := func(s *engine.Summary) (kinds []string) {
		for _, f := range s.Failures {
			if k := f.Failure.Kind; k == runtime.KindHeapOverflow || k == runtime.KindUseAfterFree {
				if !f.Shrunk {
					t.Errorf("%s not shrunk", f.Identity)
				}
				kinds = append(kinds, k.String())
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
	// As Fuzz wires a raw-mode campaign: the compare build, which has the
	// heap check too, serves as the checked build (its log unread), and
	// the campaign runs the same inputs and finds the same.
	cmp, cmpMap := heapBuild(t, buildCompares)
	if cmpMap.Layout.ShadowBytes == 0 || len(cmpMap.Sites) != len(sm.Sites) {
		t.Fatalf("compare build: shadow %d bytes, %d sites against %d", cmpMap.Layout.ShadowBytes, len(cmpMap.Sites), len(sm.Sites))
	}
	c, hc := run(sampledExecutors(plain, cmp, 4, 2), 2)
	if kc := heapKinds(c); strings.Join(kc, ",") != strings.Join(ka, ",") || hc != ha {
		t.Fatalf("on the compare build: expected %v, got %v (runs hash equal: %v)", ka, kc, hc == ha)
	}
	plainSum, _ := run(Executors(plain), 2)
	for _, f := range plainSum.Failures {
		if f.Failure.Found != runtime.FoundAtFree {
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
	sum, err := engine.Fuzz(context.Background(), engine.Config{Search: engine.Search{Seed: 5, Runs: 20_000, KeepGoing: true}},
		engine.Deps{NewExecutor: sampledExecutors(plain, checked, math.MaxInt32, 1), NewComparer: comparers(cmp), Seeds: [][]byte{[]byte("xxxx")}, TargetDict: sm.Dictionary})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, f := range sum.Failures {
		if k := f.Failure.Kind; (k == runtime.KindHeapOverflow || k == runtime.KindUseAfterFree) && f.Failure.Found == runtime.FoundAtAccess {
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

// TestSharedComparer: the Comparers of one comparers share a Worker whose
// logs equal a Worker of their own's on the same inputs, run from two
// goroutines at once; closing one leaves the other working, and the
// last close closes the Worker (a Compare after it is an error).
func TestSharedComparer(t *testing.T) {
	cmp, _ := heapBuild(t, buildCompares)
	ctx := context.Background()
	newCmp := comparers(cmp)
	a, err := newCmp(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := newCmp(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	own, err := comparers(cmp)(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer own.(*runtimeComparer).Close(ctx)
	inputs := [][]byte{[]byte("xxxx"), []byte("abcdefgh"), {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, []byte("x")}
	want := make([][]engine.Operands, len(inputs))
	for i, in := range inputs {
		if want[i], _, err = own.Compare(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	if len(slices.Concat(want...)) == 0 {
		t.Fatal("expected the fixture to log comparisons")
	}
	errs := make(chan error, 2)
	for _, c := range []engine.Comparer{a, b} {
		go func() {
			for range 20 {
				for i, in := range inputs {
					got, _, err := c.Compare(ctx, in)
					if err == nil && !slices.EqualFunc(got, want[i], operandsEqual) {
						err = fmt.Errorf("input %q: logs differ from a Worker of their own's", in)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if err := a.(*runtimeComparer).Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _, err := b.Compare(ctx, inputs[0]); err != nil || !slices.EqualFunc(got, want[0], operandsEqual) {
		t.Fatalf("after the first close: %v, logs equal %v", err, err == nil && slices.EqualFunc(got, want[0], operandsEqual))
	}
	if err := b.(*runtimeComparer).Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Compare(ctx, inputs[0]); err == nil {
		t.Fatal("expected an error from a Compare after the last close")
	}
}

func operandsEqual(x, y engine.Operands) bool {
	return x.Size == y.Size && x.A == y.A && x.B == y.B && bytes.Equal(x.MemA, y.MemA) && bytes.Equal(x.MemB, y.MemB)
}
