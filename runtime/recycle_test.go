package runtime

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// mismatch is the index of the first byte where a and b differ, -1 if none.
func mismatch(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// TestActiveData: the data segments of an instrumented module are found
// at their moved (constant) offsets.
func TestActiveData(t *testing.T) {
	tg := testdataTarget(t, "recycle.wasm", true, Config{MaxInputLen: 1024})
	if !tg.recycle || len(tg.data) != 1 {
		t.Fatalf("expected recycling with one data segment, got %v, %d", tg.recycle, len(tg.data))
	}
	d := tg.data[0]
	if want := 512 + tg.meta.layout.ReservedBytes(); d.off != want || string(d.data) != "initial data, changed by malloc" {
		t.Fatalf("expected segment at %d, got %d: %q", want, d.off, d.data)
	}
}

// TestRecycledRestore: in restore mode, random runs that store anywhere
// (the data segment included), grow memory, trap or store out of bounds
// give the same results as on a worker that never recycles a discarded
// instance's memory, and after every restore the memory equals the
// snapshot (except the input buffer's last input, which Run overwrites
// and clears itself, the counters, which Run zeroes, and dirty-map
// entries no restore reads); pages grown again read as zero
// ('g' is invalid otherwise).
func TestRecycledRestore(t *testing.T) {
	cfg := Config{MaxInputLen: 1024}
	tg := testdataTarget(t, "recycle.wasm", true, cfg)
	ref := testdataTarget(t, "recycle.wasm", true, cfg)
	ref.recycle = false
	w, wr := worker(t, tg), worker(t, ref)
	r := rand.New(rand.NewPCG(5, 6))
	lay := tg.meta.layout
	base := lay.ReservedBytes()
	target := uint64(2 * pageSize) // the target's initial memory
	recycled := 0
	for i := range 2000 {
		op := []byte("wwwwgt")[r.IntN(6)]
		var a uint64
		switch r.IntN(4) {
		case 0:
			a = 512 + uint64(r.IntN(40)) // the data segment
		case 1:
			a = target + uint64(r.IntN(4*pageSize)) // out of bounds, or in grown pages
		default:
			a = uint64(r.IntN(int(target)))
		}
		in := []byte{op}
		in = binary.LittleEndian.AppendUint32(in, uint32(a))
		in = append(in, byte(1+r.IntN(255)), byte(r.IntN(4)))
		got, want := run(t, w, string(in)), run(t, wr, string(in))
		if keyOf(got) != keyOf(want) {
			t.Fatalf("run %d %q: recycling %s, without %s", i, in, describe(keyOf(got)), describe(keyOf(want)))
		}
		if op == 'g' && got.Outcome == Invalid {
			t.Fatalf("run %d: grown pages were not zero", i)
		}
		mod := w.mod
		if err := w.prepare(t.Context()); err != nil {
			t.Fatal(err)
		}
		w.used = true // the next Run restores again (a no-op: nothing ran)
		view, _ := w.mem.Read(0, w.mem.Size())
		if len(view) != len(w.snapMem) {
			t.Fatalf("run %d: restored memory of %d bytes, snapshot %d", i, len(view), len(w.snapMem))
		}
		// Compare all but: the input buffer's last input, the counters and
		// the dirty-map entries past those a restore scans. Marks of stores
		// that trapped beyond memory stay there: none is read before a
		// growth past it sends the next restore through restoreRecycled
		// again, which clears up to the size reached.
		in0 := base + uint64(w.inPtr)
		d0 := uint64(lay.DirtyOffset) + (uint64(len(view))-base)>>tg.dirtyShift
		skip := [][2]uint64{
			{uint64(lay.CountersOffset), uint64(lay.CountersOffset + lay.Counters)},
			{d0, uint64(lay.DirtyOffset) + uint64(lay.DirtyPages)},
			{in0, in0 + uint64(w.prevLen)},
		}
		slices.SortFunc(skip, func(x, y [2]uint64) int { return cmp.Compare(x[0], y[0]) })
		at := uint64(0)
		for _, sk := range append(skip, [2]uint64{uint64(len(view)), uint64(len(view))}) {
			if at < sk[0] {
				if j := mismatch(view[at:sk[0]], w.snapMem[at:sk[0]]); j >= 0 {
					j += int(at)
					t.Fatalf("run %d %q (recycled %v): byte %#x is %#x, snapshot %#x", i, in, w.mod != mod, j, view[j], w.snapMem[j])
				}
			}
			at = max(at, sk[1])
		}
		if w.mod != mod {
			if !w.alloc.reused {
				t.Fatalf("run %d: a new instance on zeroed memory", i)
			}
			recycled++
		}
	}
	if recycled < 100 {
		t.Fatalf("expected many recycled restores, got %d", recycled)
	}
	t.Logf("%d of 2000 restores made a new instance on the recycled memory", recycled)
}
