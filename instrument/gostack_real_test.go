package instrument_test

import (
	"context"
	"os"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// TestGoStackCheckCounts runs gocalc on the differential test's inputs
// built twice, with both arms of Go's stack checks counted and with the
// then arm only (instrument.Options.CountGoStackChecks): the programs
// behave the same, every site of the second build is a site of the
// first with the same count, and the sites only the first has are the
// checks' else arms. Those held no count of their own: in a function
// none of whose br_ifs was taken (no unwind, so no re-entry at another
// resume point), a check's then and else arms sum to the function's
// entry count, and they never sum to more.
func TestGoStackCheckCounts(t *testing.T) {
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
	opts.CountGoStackChecks = true
	before, beforeIDs := build(opts)
	type check struct{ then, els, entry int } // site ids in before
	var checks []check
	for k, id := range beforeIDs {
		if _, ok := nowIDs[k]; ok {
			continue
		}
		if k.kind != instrument.IfElse {
			t.Fatalf("site %d (%s) of kind %v is gone with the then arms only", id, before.sm.Describe(id), k.kind)
		}
		then, ok1 := beforeIDs[key{k.fn, k.off, instrument.IfThen, 0}]
		entry, ok2 := beforeIDs[key{k.fn, 0, instrument.FuncEntry, 0}]
		if !ok2 { // the entry's offset is the body's first instruction
			for k2, id2 := range beforeIDs {
				if k2.fn == k.fn && k2.kind == instrument.FuncEntry {
					entry, ok2 = id2, true
				}
			}
		}
		if !ok1 || !ok2 {
			t.Fatalf("site %d (%s): no then arm or entry", id, before.sm.Describe(id))
		}
		checks = append(checks, check{then, id, entry})
	}
	exact := 0
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
			t.Fatalf("%q: %v with both arms counted, %v with the then arms only", in, a, b)
		}
		for k, id := range nowIDs {
			if bid := beforeIDs[k]; a.Counters[bid] != b.Counters[id] {
				t.Errorf("%q: site %s hit %d times with both arms counted, %d with the then arms only", in, now.sm.Describe(id), a.Counters[bid], b.Counters[id])
			}
		}
		unwound := map[uint32]bool{} // functions with a br_if taken
		for id, s := range before.sm.Sites {
			if s.Kind == instrument.BrIfTaken && a.Counters[id] > 0 {
				unwound[s.Func] = true
			}
		}
		for _, c := range checks {
			sum, entry := min(int(a.Counters[c.then])+int(a.Counters[c.els]), 255), int(a.Counters[c.entry])
			switch fn := before.sm.Sites[c.els].Func; {
			case sum > entry:
				t.Errorf("%q: %s: the stack check's arms sum to %d, the entry to %d", in, before.sm.Funcs[fn].Name, sum, entry)
			case !unwound[fn] && sum != entry:
				t.Errorf("%q: %s, no br_if taken: the stack check's arms sum to %d, the entry to %d", in, before.sm.Funcs[fn].Name, sum, entry)
			case !unwound[fn] && entry > 0:
				exact++
			}
		}
	}
	if len(checks) == 0 || exact == 0 {
		t.Errorf("%d stack checks, %d exact sums over the runs: expected some of both", len(checks), exact)
	}
}
