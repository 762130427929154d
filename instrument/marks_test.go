package instrument

import (
	"bytes"
	"context"
	_ "embed"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

//go:embed testdata/marks.wasm
var marksWasm []byte

// TestElidedMarks checks which stores of testdata/marks.wat elidedMarks
// finds covered: the counts its comments give, function by function.
func TestElidedMarks(t *testing.T) {
	m, err := Decode(marksWasm)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int{ // elided, stores
		"frame": {4, 6}, "derived": {2, 3}, "below": {0, 3}, "tee": {0, 2},
		"arms": {1, 4}, "loop": {1, 3}, "set": {0, 2}, "call": {1, 3},
		"loopinv": {2, 3}, "ptr64": {2, 4},
	}
	var a markAnalysis
	for _, e := range m.Exports {
		w, ok := want[e.Name]
		if !ok {
			continue
		}
		i := e.Index - m.NumImported(0)
		c := &m.Code[i]
		elide := a.elidedMarks(c.Body.Instrs, numLocals(m, int(i)))
		var got, stores int
		for k, in := range c.Body.Instrs {
			if opinfo(in.Op).mem == memStore {
				stores++
			} else if elide[k] {
				t.Errorf("%s: instruction %d (op %#x) is not a store but is elided", e.Name, k, in.Op)
			}
			if elide[k] {
				got++
			}
		}
		if got != w[0] || stores != w[1] {
			t.Errorf("%s: %d of %d stores need no mark, want %d of %d", e.Name, got, stores, w[0], w[1])
		}
		delete(want, e.Name)
	}
	for name := range want {
		t.Errorf("fixture has no export %q", name)
	}
}

// TestElidedMarksRestore runs the fixture's functions with random bases,
// many near the end of a 4 KiB block or of memory (where an elided store
// lands in the block after its marking store's, in the spill, or traps),
// on the original and on the module instrumented with DirtyPages. After
// each call both memories must agree, and copying back every marked block
// with the DirtySpill bytes after it from a snapshot must restore the
// target memory exactly.
func TestElidedMarksRestore(t *testing.T) {
	orig, inst, sm := instantiatePair(t, marksWasm, Options{DirtyPages: true})
	ctx := context.Background()
	l := sm.Layout
	rb := l.ReservedBytes()
	mem := inst.ExportedMemory(MemoryExport)
	view, _ := mem.Read(0, mem.Size())
	target := view[rb:]
	origMem, _ := orig.ExportedMemory("mem").Read(0, orig.ExportedMemory("mem").Size())
	if len(origMem) != len(target) {
		t.Fatalf("target memory %d bytes, original %d", len(target), len(origMem))
	}
	dirty := view[l.DirtyOffset : l.DirtyOffset+l.DirtyPages]
	clear(dirty)
	snap := bytes.Clone(target)
	rng := rand.New(rand.NewPCG(3, 4))
	fns := []string{"frame", "derived", "below", "tee", "arms", "loop", "set", "call", "loopinv", "ptr64"}
	var ok, trapped int
	for i := range 4000 {
		fn := fns[rng.IntN(len(fns))]
		var base uint64
		switch rng.IntN(4) {
		case 0: // near the end of a block, often in its last 8 bytes
			n := 80
			if rng.IntN(2) == 0 {
				n = 8
			}
			base = uint64(rng.IntN(len(target)>>dirtyShift))<<dirtyShift + 1<<dirtyShift - 1 - uint64(rng.IntN(n))
		case 1: // near the end of memory
			base = uint64(len(target)) - uint64(rng.IntN(80))
		case 2: // near the top of the address space
			base = 1<<32 - uint64(rng.IntN(80))
		default:
			base = uint64(rng.IntN(len(target)))
		}
		arg := rng.Uint64()
		if fn == "loop" || fn == "loopinv" {
			arg = uint64(1 + rng.IntN(3))
		}
		args := []uint64{uint64(uint32(base)), arg}
		if fn == "tee" || fn == "set" || fn == "call" {
			args = args[:1]
		}
		_, errO := orig.ExportedFunction(fn).Call(ctx, args...)
		_, errI := inst.ExportedFunction(fn).Call(ctx, args...)
		if (errO == nil) != (errI == nil) {
			t.Fatalf("call %d %s%v: original error %v, instrumented %v", i, fn, args, errO, errI)
		}
		if errO != nil {
			if !strings.Contains(errO.Error(), "out of bounds") {
				t.Fatalf("call %d %s%v: %v", i, fn, args, errO)
			}
			trapped++
		} else {
			ok++
		}
		if !bytes.Equal(origMem, target) {
			t.Fatalf("call %d %s%v: target memory differs from the original's", i, fn, args)
		}
		for b, m := range dirty[:len(target)>>dirtyShift] {
			if m != 0 {
				off := b << dirtyShift
				end := min(off+1<<dirtyShift+DirtySpill, len(target))
				copy(target[off:end], snap[off:end])
			}
		}
		clear(dirty)
		if !bytes.Equal(target, snap) {
			t.Fatalf("call %d %s%v: memory differs from the snapshot after restoring the marked blocks", i, fn, args)
		}
		copy(origMem, snap)
	}
	if ok < 1000 || trapped < 500 {
		t.Fatalf("%d calls returned and %d trapped: the bases do not cover both", ok, trapped)
	}
}

// TestElidedMarksPrograms counts the stores of real C and Go programs that
// need no mark: a share that falls means a common address form stopped
// being recognised.
func TestElidedMarksPrograms(t *testing.T) {
	for _, tc := range []struct {
		path string
		min  float64 // share of stores, measured when written, less a margin
	}{
		{"testdata/programs/crunch/crunch.wasm", 0.10},
		{"testdata/programs/cwords/cwords.wasm", 0.15},
		{"testdata/programs/gocalc/gocalc.wasm", 0.25},
		{"../examples/czstd/czstd.wasm", 0.30},
		{"../examples/csqlite/csqlite.wasm", 0.18},
	} {
		_, m := decodeFile(t, tc.path)
		var a markAnalysis
		var elided, stores int
		for i := range m.Code {
			body := m.Code[i].Body.Instrs
			n, e := storeCounts(body, a.elidedMarks(body, numLocals(m, i)))
			stores, elided = stores+n, elided+e
		}
		share := float64(elided) / float64(stores)
		t.Logf("%s: %d of %d stores need no mark (%.1f%%)", tc.path, elided, stores, 100*share)
		if share < tc.min {
			t.Errorf("%s: %.1f%% of stores need no mark, expected at least %.0f%%", tc.path, 100*share, 100*tc.min)
		}
	}
}

// instantiatePair instruments wasm with opts and instantiates the original
// (named "orig") and the instrumented module ("inst") in one runtime,
// closed when the test ends.
func instantiatePair(t *testing.T, wasm []byte, opts Options) (orig, inst api.Module, sm *SiteMap) {
	t.Helper()
	out, sm, err := Instrument(wasm, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	t.Cleanup(func() { rt.Close(ctx) })
	if orig, err = rt.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithName("orig")); err != nil {
		t.Fatal(err)
	}
	if inst, err = rt.InstantiateWithConfig(ctx, out, wazero.NewModuleConfig().WithName("inst")); err != nil {
		t.Fatal(err)
	}
	return orig, inst, sm
}

// numLocals is the number of locals of m's defined function i,
// parameters included.
func numLocals(m *Module, i int) uint32 {
	n := uint32(len(m.Types[m.Funcs[i]].Params))
	for _, l := range m.Code[i].Locals {
		n += l.Count
	}
	return n
}

// decodeFile reads the module at path and decodes it.
func decodeFile(t *testing.T, path string) ([]byte, *Module) {
	t.Helper()
	wasm, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Decode(wasm)
	if err != nil {
		t.Fatal(err)
	}
	return wasm, m
}

// storeCounts returns the number of stores in body and how many of them
// elide marks as needing no dirty mark.
func storeCounts(body []Instr, elide []bool) (stores, elided int) {
	for k := range body {
		if opinfo(body[k].Op).mem == memStore {
			stores++
			if elide[k] {
				elided++
			}
		}
	}
	return stores, elided
}
