package instrument_test

import (
	"context"
	"os"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/wafer-fuzz/wafer/instrument"
)

// TestRealProgramIfCounters pins the counters of the hand-written
// testdata/programs/ifloop module, where every site is an `if`, `br_if` or
// `br_table` written by hand:
//
//	classify(n): loop { br_if exit (i >= n); if (i & 1) then odd++ [no else]; i++ }
//	pick(k):     br_table [a b] default c on k
//
// classify(6) runs i = 0..5: the br_if is not taken 6 times and taken once;
// the if's then arm runs for i = 1, 3, 5 and the else arm Instrument adds
// for i = 0, 2, 4. pick(0), pick(1), pick(1), pick(7) hit arms 0, 1, 1 and
// the default (arm 2). Then 300 more calls of pick(0) show the saturating
// 8-bit counter: 1 + 300 hits read 255.
func TestRealProgramIfCounters(t *testing.T) {
	ctx := context.Background()
	wasm, err := os.ReadFile("testdata/programs/ifloop/ifloop.wasm")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range realVariants() {
		t.Run(v.name, func(t *testing.T) {
			rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
			defer rt.Close(ctx)
			bin, sm := wasm, (*instrument.SiteMap)(nil)
			if v.opts != nil {
				bin, sm, err = instrument.Instrument(wasm, *v.opts)
				if err != nil {
					t.Fatal(err)
				}
			}
			mod, err := rt.InstantiateWithConfig(ctx, bin, wazero.NewModuleConfig())
			if err != nil {
				t.Fatal(err)
			}
			call := func(name string, arg uint64) uint32 {
				t.Helper()
				res, err := mod.ExportedFunction(name).Call(ctx, arg)
				if err != nil {
					t.Fatalf("%s(%d): %v", name, arg, err)
				}
				return uint32(res[0])
			}
			if got := call("classify", 6); got != 3 {
				t.Errorf("classify(6) = %d, expected 3", got)
			}
			for _, c := range []struct{ k, want uint32 }{{0, 10}, {1, 20}, {1, 20}, {7, 30}} {
				if got := call("pick", uint64(c.k)); got != c.want {
					t.Errorf("pick(%d) = %d, expected %d", c.k, got, c.want)
				}
			}
			if sm == nil {
				return
			}
			counters := func() []byte {
				mem := mod.ExportedMemory(sm.Layout.MemoryExport)
				c, ok := mem.Read(sm.Layout.CountersOffset, sm.Layout.Counters)
				if !ok {
					t.Fatal("counters not readable")
				}
				c = append([]byte(nil), c...)
				sm.FillDerived(c)
				return c
			}
			classify := realFuncIndex(t, sm, "classify")
			pick := realFuncIndex(t, sm, "pick")
			type key struct {
				fn   uint32
				kind instrument.SiteKind
				arm  uint32
			}
			byKey := map[key]int{}
			for id, s := range sm.Sites {
				k := key{s.Func, s.Kind, s.Arm}
				if _, dup := byKey[k]; dup {
					t.Fatalf("two sites for %+v", k)
				}
				byKey[k] = id
			}
			if len(sm.Sites) != 9 {
				t.Errorf("expected 9 sites (classify: entry, if then/else, br_if taken/not taken; pick: entry, 3 arms), got %d: %+v", len(sm.Sites), sm.Sites)
			}
			c := counters()
			for _, w := range []struct {
				what string
				k    key
				n    byte
			}{
				{"classify entry", key{classify, instrument.FuncEntry, 0}, 1},
				{"classify if-then (odd i)", key{classify, instrument.IfThen, 0}, 3},
				{"classify added else (even i)", key{classify, instrument.IfElse, 0}, 3},
				{"classify br_if taken (loop exit)", key{classify, instrument.BrIfTaken, 0}, 1},
				{"classify br_if not taken", key{classify, instrument.BrIfNotTaken, 0}, 6},
				{"pick entry", key{pick, instrument.FuncEntry, 0}, 4},
				{"pick br_table arm 0", key{pick, instrument.BrTableArm, 0}, 1},
				{"pick br_table arm 1", key{pick, instrument.BrTableArm, 1}, 2},
				{"pick br_table default (arm 2)", key{pick, instrument.BrTableArm, 2}, 1},
			} {
				id, ok := byKey[w.k]
				if !ok {
					t.Errorf("%s: no site", w.what)
					continue
				}
				if c[id] != w.n {
					t.Errorf("%s (site %d, %s): expected %d hits, got %d", w.what, id, sm.Describe(id), w.n, c[id])
				}
			}
			for i := 0; i < 300; i++ {
				call("pick", 0)
			}
			c = counters()
			if id := byKey[key{pick, instrument.BrTableArm, 0}]; c[id] != 255 {
				t.Errorf("pick arm 0 after 301 hits: expected 255 (saturated), got %d", c[id])
			}
			if id := byKey[key{pick, instrument.BrTableArm, 1}]; c[id] != 2 {
				t.Errorf("pick arm 1 after 2 hits: expected 2, got %d", c[id])
			}
		})
	}
}
