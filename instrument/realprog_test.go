package instrument_test

// Differential tests on real programs: WASI commands built from C
// (clang + wasi-libc) and Go (GOOS=wasip1), checked in under
// testdata/programs with build.sh. Each program runs on a set of inputs as
// the original module and instrumented (counters, +fuel, +dirty pages)
// through internal/wasip1; stdout, stderr, exit code and trap must be the
// same. A hand-checked input pins exactly which counters of one function
// are hit how many times.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/internal/wasip1"
)

// realVariant is one way of building a program: the original or
// instrumented with some options.
type realVariant struct {
	name string
	opts *instrument.Options // nil: the original module
}

func realVariants() []realVariant {
	return []realVariant{
		{"original", nil},
		{"counters", &instrument.Options{}},
		{"fuel", &instrument.Options{Fuel: true}},
		{"dirty", &instrument.Options{Fuel: true, DirtyPages: true}},
		{"compares", &instrument.Options{Fuel: true, DirtyPages: true, Compares: true}},
		// what a campaign runs: the allocator wrapped and the stack's
		// depth kept too
		{"campaign", &instrument.Options{Fuel: true, DirtyPages: true, HeapGuard: true, StackCheck: true, StackDepth: true, CallPairs: true}},
		// the build a campaign runs one input in 8 on: the heap checked
		{"checked", &instrument.Options{Fuel: true, DirtyPages: true, HeapGuard: true, HeapCheck: true, StackCheck: true, StackDepth: true, CallPairs: true}},
		// The Go runtime and libc internals get no counters.
		{"skip", &instrument.Options{Skip: []string{"runtime.*", "__*"}}},
		{"all-counted", ptr(instrument.AllCounted(instrument.Options{}))},
	}
}

type realProgram struct {
	name   string
	path   string
	inputs []string
	full   bool // only with WAFER_FULL=1 (slow to compile)
	// interp: in the default run, use the interpreter (Go programs: the
	// compiler spends seconds per variant); otherwise the compiler.
	// WAFER_FULL=1 runs every program on both.
	interp bool
}

func ptr[T any](v T) *T { return &v }

func realPrograms() []realProgram {
	return []realProgram{
		{name: "cwords", path: "testdata/programs/cwords/cwords.wasm", inputs: []string{
			"",
			"hello world\n",
			"a\n\nthree little words\nAbi\n",
			"x\n!bang\nnot reached\n",
			"ok\ntrap\n",
			"abort\n",
			strings.Repeat("aeiou bcd ", 20) + "\n" + strings.Repeat("z", 300) + "\n",
		}},
		{name: "crunch", path: "testdata/programs/crunch/crunch.wasm", inputs: []string{"1\n", "42\n", "junk"}},
		{name: "gocalc", path: "testdata/programs/gocalc/gocalc.wasm", interp: true, inputs: []string{
			`[]`,
			`[{"op":"add","args":[1,2]},{"op":"print"}]`,
			`not json`,
			`[{"op":"boom"}]`,
			`[{"op":"idiv","args":[1,0]}]`,
			`[{"op":"exit","args":[7]}]`,
			`[{"op":"set","name":"x","args":[3]},{"op":"get","name":"x"},{"op":"mul"},{"op":"sort","args":[9,-1]},{"op":"json"},{"op":"nope"},{"op":"add"},{"op":"print"}]`,
		}},
		{name: "gobig", path: "testdata/programs/gobig/gobig.wasm", full: true, interp: true, inputs: []string{
			"",
			"hello <world> & \"friends\" 123 abc",
		}},
	}
}

// realFuel is the budget of fuel variants in differential runs: far more
// than any input here needs.
const realFuel = 1 << 50

// realTarget is one compiled variant of a program.
type realTarget struct {
	rt   wazero.Runtime
	cm   wazero.CompiledModule
	sm   *instrument.SiteMap // nil for the original
	name string
}

// realResult is everything observable about one run.
type realResult struct {
	Stdout, Stderr string
	Exit           int    // proc_exit code, -1 when _start returned
	Trap           string // trap class, "" when none
	Counters       []byte `json:"-"` // copy of the counters (instrumented only)
	Dirty          []byte `json:"-"` // copy of the dirty-page map (DirtyPages only)
	Unmarked       int    `json:"-"` // bytes the run changed outside the marked blocks and their spills (DirtyPages only)
	FuelLeft       int64  `json:"-"`
	// Memory: size in bytes and SHA-256 of the target-visible memory after
	// the run (for an instrumented module, everything above the reserved
	// pages).
	MemSize uint64
	MemHash [32]byte
}

func (r realResult) String() string {
	return fmt.Sprintf("exit=%d trap=%q stdout=%q stderr=%q", r.Exit, r.Trap, r.Stdout, r.Stderr)
}

func newRealTarget(ctx context.Context, rt wazero.Runtime, name string, wasm []byte, opts *instrument.Options) (*realTarget, error) {
	tg := &realTarget{rt: rt, name: name}
	bin := wasm
	if opts != nil {
		out, sm, err := instrument.Instrument(wasm, *opts)
		if err != nil {
			return nil, fmt.Errorf("instrument %s: %w", name, err)
		}
		bin, tg.sm = out, sm
	}
	cm, err := rt.CompileModule(ctx, bin)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", name, err)
	}
	tg.cm = cm
	return tg, nil
}

func (tg *realTarget) base() uint64 {
	if tg.sm == nil {
		return 0
	}
	return tg.sm.Layout.ReservedBytes()
}

// run instantiates a fresh instance, runs _start with stdin and collects
// the result.
func (tg *realTarget) run(ctx context.Context, stdin []byte, fuel int64) (realResult, error) {
	st := &wasip1.State{
		Base:   tg.base(),
		Args:   []string{tg.name},
		Stdin:  stdin,
		Stdout: wasip1.NewTailBuffer(1 << 16),
		Stderr: wasip1.NewTailBuffer(1 << 16),
		Seed:   1,
	}
	if tg.sm != nil && tg.sm.Layout.DirtyPages > 0 {
		// the host marks what it writes into guest memory, as runtime's does
		l := tg.sm.Layout
		st.DirtyOffset, st.DirtyLen, st.DirtyShift = uint64(l.DirtyOffset), uint64(l.DirtyPages), uint8(l.DirtyShift())
	}
	rctx := wasip1.WithState(ctx, st)
	mod, err := tg.rt.InstantiateModule(rctx, tg.cm, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		return realResult{}, fmt.Errorf("instantiate: %w", err)
	}
	defer mod.Close(ctx)
	var mem api.Memory
	var fuelG api.MutableGlobal
	if tg.sm != nil {
		mem = mod.ExportedMemory(tg.sm.Layout.MemoryExport)
		if mem == nil {
			return realResult{}, fmt.Errorf("no memory exported as %q", tg.sm.Layout.MemoryExport)
		}
		if f := tg.sm.Layout.FuelExport; f != "" {
			g, ok := mod.ExportedGlobal(f).(api.MutableGlobal)
			if !ok {
				return realResult{}, fmt.Errorf("no mutable global exported as %q", f)
			}
			fuelG = g
			g.Set(uint64(fuel))
		}
	}
	start := mod.ExportedFunction("_start")
	if start == nil {
		return realResult{}, errors.New("no _start export")
	}
	var before []byte // target memory before the run (DirtyPages)
	if mem != nil && tg.sm.Layout.DirtyPages > 0 {
		all, _ := mem.Read(0, mem.Size())
		before = bytes.Clone(all[tg.base():])
	}
	_, err = start.Call(rctx)
	res := realResult{Exit: -1, Stdout: st.Stdout.String(), Stderr: st.Stderr.String()}
	var exit *sys.ExitError
	switch {
	case errors.As(err, &exit):
		res.Exit = int(exit.ExitCode())
	case err != nil:
		res.Trap = trapClass(err)
	}
	target := mod.Memory()
	if mem != nil {
		target = mem
	}
	if target != nil {
		base := tg.base()
		all, ok := target.Read(0, target.Size())
		if !ok || uint64(len(all)) < base {
			return res, fmt.Errorf("memory of %d bytes not readable above base %d", target.Size(), base)
		}
		res.MemSize = uint64(len(all)) - base
		res.MemHash = sha256.Sum256(all[base:])
	}
	if mem != nil {
		l := tg.sm.Layout
		c, ok := mem.Read(l.CountersOffset, l.Counters)
		if !ok {
			return res, fmt.Errorf("counters [%d,+%d) not readable", l.CountersOffset, l.Counters)
		}
		res.Counters = append([]byte(nil), c...)
		tg.sm.FillDerived(res.Counters)
		if l.DirtyPages > 0 {
			d, ok := mem.Read(l.DirtyOffset, l.DirtyPages)
			if !ok {
				return res, fmt.Errorf("dirty map [%d,+%d) not readable", l.DirtyOffset, l.DirtyPages)
			}
			res.Dirty = append([]byte(nil), d...)
			all, _ := mem.Read(0, mem.Size())
			res.Unmarked = unmarked(before, all[tg.base():], res.Dirty, tg.sm.Layout.DirtyShift())
		}
	}
	if fuelG != nil {
		res.FuelLeft = int64(fuelG.Get())
	}
	return res, nil
}

// realRuntime is a runtime with the WASI host module, on wazero's
// compiler or interpreter (see realProgram.interp).
func realRuntime(ctx context.Context, t testing.TB, compiler bool) wazero.Runtime {
	t.Helper()
	cfg := wazero.NewRuntimeConfigInterpreter()
	if compiler {
		cfg = wazero.NewRuntimeConfigCompiler()
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	if _, err := wasip1.Instantiate(ctx, rt); err != nil {
		t.Fatal(err)
	}
	return rt
}

func TestRealProgramsDifferential(t *testing.T) {
	ctx := context.Background()
	full := os.Getenv("WAFER_FULL") == "1"
	for _, engine := range []string{"interpreter", "compiler"} {
		for _, p := range realPrograms() {
			t.Run(engine+"/"+p.name, func(t *testing.T) {
				if p.full && !full {
					t.Skip("slow: runs with WAFER_FULL=1")
				}
				if !full && p.interp != (engine == "interpreter") {
					t.Skipf("runs on the %s only with WAFER_FULL=1", engine)
				}
				realDifferential(ctx, t, p, engine == "compiler")
			})
		}
	}
}

// realDifferential runs every input of p on every variant and compares
// them with the original.
func realDifferential(ctx context.Context, t *testing.T, p realProgram, compiler bool) {
	wasm, err := os.ReadFile(p.path)
	if err != nil {
		t.Fatal(err)
	}
	rt := realRuntime(ctx, t, compiler)
	defer rt.Close(ctx)
	var targets []*realTarget
	for _, v := range realVariants() {
		tg, err := newRealTarget(ctx, rt, p.name, wasm, v.opts)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		tg.name = p.name
		targets = append(targets, tg)
		if v.opts != nil && len(v.opts.Skip) > 0 {
			for id, site := range tg.sm.Sites {
				name := tg.sm.Funcs[site.Func].Name
				for _, pat := range v.opts.Skip {
					if ok, _ := path.Match(pat, name); ok {
						t.Errorf("%s: site %d is in %s, which matches Skip pattern %q", v.name, id, name, pat)
					}
				}
			}
		}
	}
	for i, in := range p.inputs {
		var orig realResult
		results := make([]realResult, len(targets))
		for j, tg := range targets {
			res, err := tg.run(ctx, []byte(in), realFuel)
			if err != nil {
				t.Fatalf("input %d, %s: %v", i, realVariants()[j].name, err)
			}
			results[j] = res
			if j == 0 {
				orig = res
				t.Logf("input %d %q: %s", i, clip(in, 40), res)
				continue
			}
			v := realVariants()[j]
			if res.Stdout != orig.Stdout || res.Stderr != orig.Stderr || res.Exit != orig.Exit || res.Trap != orig.Trap {
				t.Errorf("input %d %q: %s differs from the original:\n original %s\n %8s %s", i, clip(in, 40), v.name, orig, v.name, res)
			}
			if res.MemSize != orig.MemSize || res.MemHash != orig.MemHash {
				t.Errorf("input %d %q: %s: target memory after the run differs from the original (%d vs %d bytes)", i, clip(in, 40), v.name, res.MemSize, orig.MemSize)
			}
			if bytesAllZero(res.Counters) {
				t.Errorf("input %d: %s: no counter was hit", i, v.name)
			}
			if tg.sm.Layout.FuelExport != "" && res.FuelLeft <= 0 {
				t.Errorf("input %d: %s: fuel left %d, expected > 0", i, v.name, res.FuelLeft)
			}
			if v.opts.DirtyPages && bytesAllZero(res.Dirty) {
				t.Errorf("input %d: %s: no page marked dirty", i, v.name)
			}
			if res.Unmarked != 0 {
				t.Errorf("input %d: %s: the run changed %d bytes of target memory outside the marked blocks and their spills", i, v.name, res.Unmarked)
			}
			// Same input again on a fresh instance: same counters.
			again, err := tg.run(ctx, []byte(in), realFuel)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(again.Counters, res.Counters) {
				t.Errorf("input %d: %s: counters differ between two runs of the same input", i, v.name)
			}
		}
		// Variants whose site lists agree must report the same counters.
		for j := 2; j < len(targets); j++ {
			if reflect.DeepEqual(targets[j].sm.Sites, targets[1].sm.Sites) &&
				!reflect.DeepEqual(results[j].Counters, results[1].Counters) {
				t.Errorf("input %d: %s and counters have the same sites but different counters", i, realVariants()[j].name)
			}
		}
		// Derived sites: their filled-in sums equal what a counter of
		// their own counts, unless the run trapped (derive.go).
		ref := results[slices.IndexFunc(realVariants(), func(v realVariant) bool { return v.name == "all-counted" })]
		if orig.Trap == "" && !reflect.DeepEqual(ref.Counters, results[1].Counters) {
			for id := range ref.Counters {
				if ref.Counters[id] != results[1].Counters[id] {
					t.Errorf("input %d: site %d (%s): derived count %d, counted %d", i, id, targets[1].sm.Describe(id), results[1].Counters[id], ref.Counters[id])
				}
			}
		}
	}
}

// TestRealProgramFuelExhaustion: with a tiny budget the fuel variant stops
// with a trap and a negative fuel global (a hang), where the original
// finishes.
func TestRealProgramFuelExhaustion(t *testing.T) {
	ctx := context.Background()
	wasm, err := os.ReadFile("testdata/programs/crunch/crunch.wasm")
	if err != nil {
		t.Fatal(err)
	}
	rt := realRuntime(ctx, t, true)
	defer rt.Close(ctx)
	tg, err := newRealTarget(ctx, rt, "crunch", wasm, &instrument.Options{Fuel: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := tg.run(ctx, []byte("7\n"), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if res.Trap == "" || res.FuelLeft >= 0 {
		t.Fatalf("expected a trap with negative fuel, got %s, fuel left %d", res, res.FuelLeft)
	}
	full, err := tg.run(ctx, []byte("7\n"), realFuel)
	if err != nil {
		t.Fatal(err)
	}
	if full.Trap != "" || full.Exit > 0 {
		t.Fatalf("expected a clean run with enough fuel, got %s", full)
	}
}

// TestRealProgramCounters pins the counters of count_vowels in
// testdata/programs/cwords for the input "aXi\n". The function, as clang -O2
// compiled it (see `wasm2wat cwords.wasm`), is:
//
//	block                                ;; @1
//	  (n < 1) br_if @1                   ;; br_if #0: skip the loop
//	  loop                               ;; @2
//	    block block block                ;; @3 @4 @5
//	      (c & 0xdb) == 'A' br_if @5     ;; br_if #1: 'a','e' (either case)
//	      br_table (c - 'I') [46 arms]   ;; arms 0,6,12,32,38,44 → @5 (i,o,u), others → @4
//	    end mark(&v) br @3               ;; vowel
//	    end mark(others)                 ;; other
//	    end ... (--n != 0) br_if @2      ;; br_if #2: loop back edge
//
// For "aXi" (n=3): 'a' takes br_if #1; 'X' (0x58 - 73 = 15) and 'i'
// (0x69 - 73 = 32) fall through to the br_table, arms 15 and 32; the loop
// runs three times (back edge taken twice). mark is entered three times.
func TestRealProgramCounters(t *testing.T) {
	ctx := context.Background()
	wasm, err := os.ReadFile("testdata/programs/cwords/cwords.wasm")
	if err != nil {
		t.Fatal(err)
	}
	rt := realRuntime(ctx, t, false)
	defer rt.Close(ctx)
	for _, v := range realVariants()[1:] {
		t.Run(v.name, func(t *testing.T) {
			tg, err := newRealTarget(ctx, rt, "cwords", wasm, v.opts)
			if err != nil {
				t.Fatal(err)
			}
			res, err := tg.run(ctx, []byte("aXi\n"), realFuel)
			if err != nil {
				t.Fatal(err)
			}
			if want := "1: one word, 2 vowels, 1 others\n"; res.Stdout != want {
				t.Fatalf("stdout: expected %q, got %q", want, res.Stdout)
			}
			sm := tg.sm
			cv := realFuncIndex(t, sm, "count_vowels")
			mark := realFuncIndex(t, sm, "mark")
			if f := sm.Funcs[cv]; !strings.HasSuffix(f.File, "cwords.c") || f.Line != 16 {
				t.Errorf("count_vowels: expected cwords.c:16, got %s:%d", f.File, f.Line)
			}

			type hit struct {
				kind instrument.SiteKind
				nth  int    // nth site of this kind in the function, by offset (br_if pairs share it)
				arm  uint32 // br_table arm
				n    byte
			}
			var got []hit
			ids := realSitesOf(sm, cv)
			nth := map[instrument.SiteKind]int{}
			lastOff := map[instrument.SiteKind]uint32{}
			for _, id := range ids {
				s := sm.Sites[id]
				k := s.Kind
				if k == instrument.BrIfNotTaken { // pairs with the BrIfTaken at the same offset
					k = instrument.BrIfTaken
				}
				if o, seen := lastOff[k]; !seen || o != s.Offset {
					nth[k]++
					lastOff[k] = s.Offset
				}
				got = append(got, hit{s.Kind, nth[k] - 1, s.Arm, res.Counters[id]})
			}
			count := func(kind instrument.SiteKind, n int, arm uint32) (byte, bool) {
				for _, h := range got {
					if h.kind == kind && h.nth == n && (kind != instrument.BrTableArm || h.arm == arm) {
						return h.n, true
					}
				}
				return 0, false
			}
			want := []struct {
				what string
				kind instrument.SiteKind
				nth  int
				arm  uint32
				n    byte
			}{
				{"entry", instrument.FuncEntry, 0, 0, 1},
				{"br_if #0 (n<1) taken", instrument.BrIfTaken, 0, 0, 0},
				{"br_if #0 (n<1) not taken", instrument.BrIfNotTaken, 0, 0, 1},
				{"br_if #1 ('a'/'e') taken", instrument.BrIfTaken, 1, 0, 1},
				{"br_if #1 ('a'/'e') not taken", instrument.BrIfNotTaken, 1, 0, 2},
				{"br_if #2 (loop) taken", instrument.BrIfTaken, 2, 0, 2},
				{"br_if #2 (loop) not taken", instrument.BrIfNotTaken, 2, 0, 1},
				{"br_table arm 15 ('X')", instrument.BrTableArm, 0, 15, 1},
				{"br_table arm 32 ('i')", instrument.BrTableArm, 0, 32, 1},
				{"br_table arm 0 ('I')", instrument.BrTableArm, 0, 0, 0},
				{"br_table arm 45 (default)", instrument.BrTableArm, 0, 45, 0},
			}
			for _, w := range want {
				n, ok := count(w.kind, w.nth, w.arm)
				if !ok {
					t.Errorf("count_vowels: no site for %s", w.what)
					continue
				}
				if n != w.n {
					t.Errorf("count_vowels %s: expected %d hits, got %d", w.what, w.n, n)
				}
			}
			// Exactly 3 br_if pairs, 46 br_table arms, one entry, no if arms.
			kinds := map[instrument.SiteKind]int{}
			var total int
			for _, h := range got {
				kinds[h.kind]++
				total += int(h.n)
			}
			if kinds[instrument.FuncEntry] != 1 || kinds[instrument.BrIfTaken] != 3 || kinds[instrument.BrIfNotTaken] != 3 ||
				kinds[instrument.BrTableArm] != 46 || kinds[instrument.IfThen] != 0 || kinds[instrument.IfElse] != 0 {
				t.Errorf("count_vowels sites by kind: %v, expected 1 entry, 3+3 br_if, 46 br_table arms", kinds)
			}
			if total != 1+1+3+3+2 {
				t.Errorf("count_vowels: %d hits in all, expected 10", total)
			}
			markIDs := realSitesOf(sm, mark)
			if len(markIDs) != 1 || sm.Sites[markIDs[0]].Kind != instrument.FuncEntry || res.Counters[markIDs[0]] != 3 {
				var c []byte
				for _, id := range markIDs {
					c = append(c, res.Counters[id])
				}
				t.Errorf("mark: expected one entry site hit 3 times, got sites %v counters %v", markIDs, c)
			}
			if d := sm.Describe(ids[0]); !strings.Contains(d, "count_vowels") {
				t.Errorf("Describe(%d) = %q, expected it to name count_vowels", ids[0], d)
			}
		})
	}
}

// realFuncIndex finds a function by its SiteMap name.
func realFuncIndex(t *testing.T, sm *instrument.SiteMap, name string) uint32 {
	t.Helper()
	for i, f := range sm.Funcs {
		if f.Name == name {
			return uint32(i)
		}
	}
	t.Fatalf("no function named %q in the SiteMap", name)
	return 0
}

// realSitesOf returns the site ids of function fn ordered by code offset,
// then kind, then arm.
func realSitesOf(sm *instrument.SiteMap, fn uint32) []int {
	var ids []int
	for id, s := range sm.Sites {
		if s.Func == fn {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(a, b int) bool {
		sa, sb := sm.Sites[ids[a]], sm.Sites[ids[b]]
		if sa.Offset != sb.Offset {
			return sa.Offset < sb.Offset
		}
		if sa.Kind != sb.Kind {
			return sa.Kind < sb.Kind
		}
		return sa.Arm < sb.Arm
	})
	return ids
}

func bytesAllZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// unmarked counts the bytes that differ between target memory before and
// after a run (memory that grew counts as zero before) and lie outside
// every block the dirty map marks, with its DirtySpill bytes: what a host
// restoring the marked blocks would miss.
func unmarked(before, after, dirty []byte, shift uint) int {
	n := 0
	for i, v := range after {
		var old byte
		if i < len(before) {
			old = before[i]
		}
		if v == old {
			continue
		}
		b := i >> shift
		if dirty[b] != 0 || (b > 0 && dirty[b-1] != 0 && i-b<<shift < instrument.DirtySpill) {
			continue
		}
		n++
	}
	return n
}
