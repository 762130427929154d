package instrument_test

import (
	"context"
	"os"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// TestGoCallChecksCounts runs gocalc on the differential test's inputs
// built twice, with Go's call checks counted and without
// (instrument.Options.CountGoCallChecks): the programs behave the same,
// every site of the second build is a site of the first with the same
// count, and the sites only the first has are else arms and br_if
// fall-throughs (the arms of the checks every call takes), which the
// inputs hit.
func TestGoCallChecksCounts(t *testing.T) {
	ctx := context.Background()
	var gocalc realProgram
	for _, p := range realPrograms() {
		if p.name == "gocalc" {
			gocalc = p
		}
	}
	wasm, err := os.ReadFile(gocalc.path)
	if err != nil {
		t.Fatal(err)
	}
	rt := realRuntime(ctx, t, false)
	defer rt.Close(ctx)
	type key struct {
		fn, off uint32
		kind    instrument.SiteKind
		arm     uint32
	}
	build := func(opts instrument.Options) (*realTarget, map[key]int) {
		tg, err := newRealTarget(ctx, rt, "gocalc", wasm, &opts)
		if err != nil {
			t.Fatal(err)
		}
		ids := make(map[key]int, len(tg.sm.Sites))
		for id, s := range tg.sm.Sites {
			ids[key{s.Func, s.Offset, s.Kind, s.Arm}] = id
		}
		return tg, ids
	}
	opts := instrument.Options{Fuel: true, DirtyPages: true}
	now, nowIDs := build(opts)
	opts.CountGoCallChecks = true
	before, beforeIDs := build(opts)
	only := 0 // hits of the sites only the first build has
	for k, id := range beforeIDs {
		if _, ok := nowIDs[k]; ok {
			continue
		}
		if k.kind != instrument.IfElse && k.kind != instrument.BrIfNotTaken {
			t.Errorf("site %d (%s) of kind %v is gone without Go's call checks", id, before.sm.Describe(id), k.kind)
		}
	}
	for _, in := range gocalc.inputs {
		a, err := before.run(ctx, []byte(in), realFuel)
		if err != nil {
			t.Fatal(err)
		}
		b, err := now.run(ctx, []byte(in), realFuel)
		if err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() || a.MemHash != b.MemHash {
			t.Fatalf("%q: %v with the checks counted, %v without", in, a, b)
		}
		for k, id := range beforeIDs {
			nid, ok := nowIDs[k]
			if !ok {
				only += int(a.Counters[id])
				continue
			}
			if a.Counters[id] != b.Counters[nid] {
				t.Errorf("%q: site %s hit %d times with the checks counted, %d without", in, now.sm.Describe(nid), a.Counters[id], b.Counters[nid])
			}
		}
	}
	if gone := len(beforeIDs) - len(nowIDs); gone <= 0 || only == 0 {
		t.Errorf("%d sites fewer without the checks, hit %d times with them: expected the checks' sites gone and hit", gone, only)
	}
}
