package runtime

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// poke is poke's input: store v at target address addr
// (testdata/poke.wat stores input[4] at the target address in input[0:4];
// rebuild: wat2wasm -o testdata/poke.wasm testdata/poke.wat).
func poke(addr uint32, v byte) string {
	return string(append(binary.LittleEndian.AppendUint32(nil, addr), v))
}

// pokeWorker instruments poke with fuel and dirty pages and makes a worker.
func pokeWorker(t *testing.T, cfg Config) (*Worker, instrument.Layout) {
	t.Helper()
	tg := testdataTarget(t, "poke.wasm", true, cfg)
	return worker(t, tg), tg.meta.layout
}

// TestRestoreDirtyBlocks: in restore mode a write into the middle of a
// 64 KiB page is undone by copying back its dirty block (1<<DirtyShift
// bytes) and the instrument.DirtySpill bytes after it only. The snapshot
// is poisoned at the written block and at its neighbours in the same page:
// after the restore the written block and the spill hold the snapshot's
// bytes, the neighbours beyond keep the live bytes (not copied), and the
// map entry is cleared.
func TestRestoreDirtyBlocks(t *testing.T) {
	w, lay := pokeWorker(t, Config{MaxInputLen: 64})
	shift := lay.DirtyShift()
	if shift >= 16 {
		t.Fatalf("expected dirty blocks smaller than a page, got shift %d", shift)
	}
	base := lay.ReservedBytes()
	at := func(a uint32) byte {
		v, ok := w.mem.Read(uint32(base)+a, 1)
		if !ok {
			t.Fatalf("target address %#x outside memory", a)
		}
		return v[0]
	}
	mark := func(block uint32) byte {
		v, _ := w.mem.Read(lay.DirtyOffset+block, 1)
		return v[0]
	}
	const addr = 0x18804 // in the middle of target page 1
	blk := uint32(1) << shift
	start := addr &^ (blk - 1) // the written block: [start, start+blk)
	if r := run(t, w, poke(addr, 0xab)); r.Outcome != Valid {
		t.Fatalf("poke: %v %v", r.Outcome, r.Failure)
	}
	if at(addr) != 0xab || mark(addr>>shift) == 0 {
		t.Fatalf("after the poke: expected 0xab at %#x and its block marked, got %#x mark %d", addr, at(addr), mark(addr>>shift))
	}
	next := start + blk
	spill := []uint32{next, next + instrument.DirtySpill - 1}
	poisoned := []uint32{start, 0x10804, start - blk + 4, next + blk + 4, 0x1f804, start - 1, next + instrument.DirtySpill}
	for _, a := range append(spill, poisoned...) {
		w.snapMem[base+uint64(a)] = 0x5a
	}
	w.snapZero = zeroPages(w.snapMem) // the snapshot changed: its zero pages too
	// The next run restores first; it pokes block 0 (the input buffer's).
	if r := run(t, w, poke(0x300, 1)); r.Outcome != Valid {
		t.Fatalf("second poke: %v %v", r.Outcome, r.Failure)
	}
	if got := at(addr); got != 0 {
		t.Errorf("written byte: expected 0 (restored), got %#x", got)
	}
	if got := at(start); got != 0x5a {
		t.Errorf("start of the written block: expected the snapshot's 0x5a (whole block copied), got %#x", got)
	}
	for _, a := range spill {
		if got := at(a); got != 0x5a {
			t.Errorf("spill at %#x: expected the snapshot's 0x5a (copied with the block), got %#x", a, got)
		}
	}
	for _, a := range poisoned[1:] {
		if got := at(a); got != 0 {
			t.Errorf("neighbouring block at %#x: expected 0 (not copied), got %#x", a, got)
		}
	}
	if mark(addr>>shift) != 0 || mark(0) == 0 {
		t.Errorf("dirty map: expected block %#x cleared and block 0 marked, got %d and %d", addr>>shift, mark(addr>>shift), mark(0))
	}
}

// TestRestoreZeroPages: a dirty block in a page that is zero in the
// snapshot is restored to zero without the snapshot's page being read:
// where the OS tells (osTouched), that page is still not resident after
// the restore, while a page the snapshot holds data in is restored from
// it.
func TestRestoreZeroPages(t *testing.T) {
	w, lay := pokeWorker(t, Config{MaxInputLen: 64})
	base := lay.ReservedBytes()
	view, _ := w.mem.Read(0, w.mem.Size())
	// a page past the target's data, zero in the snapshot
	var zeroAddr uint64
	for a := uint64(len(view)) - osPage; a > base; a -= osPage {
		if w.snapZero[a/osPage] { // (not read here: reading may make it resident)
			zeroAddr = a + 0x204
			break
		}
	}
	if zeroAddr == 0 {
		t.Fatal("expected a zero page in the snapshot")
	}
	touchedBefore, known := osTouched(w.snapMem[zeroAddr&^(osPage-1):][:osPage], nil)
	if r := run(t, w, poke(uint32(zeroAddr-base), 0xab)); r.Outcome != Valid {
		t.Fatalf("poke: %v %v", r.Outcome, r.Failure)
	}
	if r := run(t, w, poke(0x300, 1)); r.Outcome != Valid { // restores the first
		t.Fatalf("second poke: %v %v", r.Outcome, r.Failure)
	}
	if view, _ = w.mem.Read(0, w.mem.Size()); view[zeroAddr] != 0 {
		t.Fatalf("expected the poked byte restored to zero, got %#x", view[zeroAddr])
	}
	if known {
		after, _ := osTouched(w.snapMem[zeroAddr&^(osPage-1):][:osPage], nil)
		if touchedBefore[0] || after[0] {
			t.Fatalf("expected the snapshot's zero page never resident, got %v before and %v after the restore", touchedBefore[0], after[0])
		}
	}
}

// TestInputBuffer: the input buffer is allocated once per instance
// (malloc(MaxInputLen) during initialisation, part of the snapshot) and
// reused: across growing and shrinking inputs, restores and the
// re-instantiation after a crash, the target gets the same pointer, sees
// exactly the current input (it stores input[4] at the address in
// input[0:4]), and the rest of the buffer is zero.
func TestInputBuffer(t *testing.T) {
	const maxLen = 64
	for _, mode := range []Reset{Restore, Persistent, Fresh} {
		t.Run(mode.String(), func(t *testing.T) {
			w, lay := pokeWorker(t, Config{Reset: mode, MaxInputLen: maxLen})
			base := lay.ReservedBytes()
			ptr := w.inPtr
			pad := func(n int) string { return string(make([]byte, n)) }
			inputs := []struct {
				in  string
				out Outcome
			}{
				{poke(0x2000, 1), Valid},
				{poke(0x2001, 2) + pad(35), Valid},
				{poke(0x2002, 3) + "x", Valid},
				{poke(0x2003, 4) + pad(maxLen-5), Valid},
				{poke(0xfffffff0, 5) + pad(20), Crash}, // out of bounds: the instance is replaced
				{poke(0x2004, 6) + "yz", Valid},
				{poke(0x2005, 7), Valid},
			}
			for i, tc := range inputs {
				r := run(t, w, tc.in)
				if r.Outcome != tc.out {
					t.Fatalf("input %d: expected %v, got %v (%v)", i, tc.out, r.Outcome, r.Failure)
				}
				if w.inPtr != ptr {
					t.Fatalf("input %d: buffer moved from %#x to %#x", i, ptr, w.inPtr)
				}
				mem := w.dead
				if mem == nil {
					mem = w.mod
				}
				buf, ok := mem.Memory().Read(uint32(base)+ptr, maxLen)
				if !ok {
					t.Fatal("input buffer outside memory")
				}
				if want := tc.in + pad(maxLen-len(tc.in)); string(buf) != want {
					t.Fatalf("input %d: buffer holds %x, expected %x", i, buf, want)
				}
				if tc.out != Valid {
					continue
				}
				addr := binary.LittleEndian.Uint32([]byte(tc.in))
				if got, _ := mem.Memory().ReadByte(uint32(base) + addr); got != tc.in[4] {
					t.Fatalf("input %d: the target stored %d at %#x, expected %d", i, got, addr, tc.in[4])
				}
			}
		})
	}
}

// TestFreshRecyclesMemory: a worker that instantiates per run reuses the
// previous instance's memory buffer (no megabytes of garbage per run: the
// reserved region alone is over 1 MiB) and the new instance sees it zeroed:
// what the previous run wrote is gone.
func TestFreshRecyclesMemory(t *testing.T) {
	w, lay := pokeWorker(t, Config{Reset: Fresh, MaxInputLen: 64})
	memBytes := uint64(w.mem.Size())
	if memBytes < lay.ReservedBytes() || lay.ReservedBytes() < 1<<20 {
		t.Fatalf("unexpected layout: memory %d, reserved %d", memBytes, lay.ReservedBytes())
	}
	base := uint32(lay.ReservedBytes())
	run(t, w, poke(0x2000, 9))
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	const runs = 20
	for i := range runs {
		if r := run(t, w, poke(0x3000+uint32(i), 1)); r.Outcome != Valid {
			t.Fatalf("run %d: %v %v", i, r.Outcome, r.Failure)
		}
		if b, _ := w.mod.Memory().ReadByte(base + 0x2000); b != 0 {
			t.Fatalf("run %d: a byte the first instance wrote is %d in a fresh instance", i, b)
		}
	}
	goruntime.ReadMemStats(&after)
	if perRun := (after.TotalAlloc - before.TotalAlloc) / runs; perRun > memBytes/2 {
		t.Errorf("fresh runs allocate %d bytes each, expected well under the %d-byte memory (recycled)", perRun, memBytes)
	}
}

// TestForMarked: forMarked visits exactly the non-zero bytes of random
// maps, in order, whatever their length (tails shorter than its 32-byte
// step included), and leaves the map zero.
func TestForMarked(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		m := make([]byte, rng.IntN(300))
		var want []int
		for i := range m {
			if rng.IntN(20) == 0 {
				m[i] = byte(1 + rng.IntN(255))
				want = append(want, i)
			}
		}
		var got []int
		forMarked(m, func(i int) { got = append(got, i) })
		if !slices.Equal(got, want) {
			t.Fatalf("map of %d bytes: visited %v, want %v", len(m), got, want)
		}
		if slices.ContainsFunc(m, func(b byte) bool { return b != 0 }) {
			t.Fatalf("map of %d bytes not zero after forMarked", len(m))
		}
	}
}

// BenchmarkForMarked scans the dirty map of 2 and 16 MiB of target memory
// (1 KiB blocks) with two marks, as restoreDirty does per run: forMarked,
// and the loop it replaced (8 bytes at a time) for comparison.
func BenchmarkForMarked(b *testing.B) {
	scans := []struct {
		name string
		scan func([]byte, func(int))
	}{{"32-at-a-time", forMarked}, {"8-at-a-time", forMarked8}}
	for _, mib := range []int{2, 16} {
		for _, sc := range scans {
			b.Run(fmt.Sprintf("%dMiB/%s", mib, sc.name), func(b *testing.B) {
				m := make([]byte, mib<<20>>10)
				n := 0
				for b.Loop() {
					m[3], m[len(m)/2] = 1, 1
					sc.scan(m, func(int) { n++ })
				}
				if n != 2*b.N {
					b.Fatalf("visited %d marks, want %d", n, 2*b.N)
				}
			})
		}
	}
}

// forMarked8 is restoreDirty's scan before forMarked: 8 bytes at a time.
func forMarked8(dirty []byte, f func(int)) {
	i := 0
	for ; i+8 <= len(dirty); i += 8 {
		if binary.LittleEndian.Uint64(dirty[i:]) == 0 {
			continue
		}
		for j := i; j < i+8; j++ {
			if dirty[j] != 0 {
				f(j)
			}
		}
		binary.LittleEndian.PutUint64(dirty[i:], 0)
	}
	for ; i < len(dirty); i++ {
		if dirty[i] != 0 {
			f(i)
			dirty[i] = 0
		}
	}
}

// TestRegionHelpers: snapshotOf, copyPages and clearPages give what a
// plain copy and clear give, on buffers of zero and non-zero pages of odd
// lengths, and a region's zero clears exactly its range.
func TestRegionHelpers(t *testing.T) {
	for _, n := range []int{0, 1, osPage - 1, osPage, 3*osPage + 17, 40 * osPage} {
		src := make([]byte, n)
		for i := 0; i < n; i += 3 * osPage / 2 {
			src[i] = byte(i>>12) | 1
		}
		if n > 0 {
			src[n-1] = 7
		}
		r := snapshotOf(src)
		if !bytes.Equal(r.b, src) {
			t.Fatalf("%d bytes: snapshotOf differs from its source", n)
		}
		dst := make([]byte, n)
		for i := range dst {
			dst[i] = byte(i * 7)
		}
		copyPages(dst, src)
		if !bytes.Equal(dst, src) {
			t.Fatalf("%d bytes: copyPages differs from copy", n)
		}
		clearPages(dst)
		if !isZero(dst) {
			t.Fatalf("%d bytes: clearPages left a non-zero byte", n)
		}
		r.release()
	}
	// The same on regions (mapped on Linux), whose untouched pages the OS
	// may report never written (osTouched): a snapshot of one, a copy
	// into a fresh one and back into a written one, a clear.
	src := newRegion(40*osPage, 1<<30)
	src.b = src.b[:40*osPage]
	for _, pg := range []int{0, 3, 4, 17, 39} {
		src.b[pg*osPage+pg] = byte(pg) | 0x80
	}
	snap := snapshotOf(src.b)
	if !bytes.Equal(snap.b, src.b) {
		t.Fatal("snapshotOf a region differs from it")
	}
	fresh := newRegion(40*osPage, 1<<30)
	fresh.b = fresh.b[:40*osPage]
	copyPages(fresh.b, snap.b)
	if !bytes.Equal(fresh.b, src.b) {
		t.Fatal("copyPages into a fresh region differs from the source")
	}
	for i := range fresh.b {
		fresh.b[i] = byte(i) | 1
	}
	copyPages(fresh.b, snap.b)
	if !bytes.Equal(fresh.b, src.b) {
		t.Fatal("copyPages into a written region differs from the source")
	}
	clearPages(fresh.b)
	if !isZero(fresh.b) {
		t.Fatal("clearPages left a non-zero byte in a region")
	}
	for _, x := range []*region{&src, &snap, &fresh} {
		x.release()
	}
	r := newRegion(64*osPage, 1<<30)
	if !r.commit(64 * osPage) {
		t.Fatal("commit failed")
	}
	b := r.b[:64*osPage]
	for i := range b {
		b[i] = 0xff
	}
	lo, hi := uint64(osPage+5), uint64(40*osPage+9)
	r.zero(lo, hi)
	for i, c := range b {
		if want := byte(0xff); uint64(i) >= lo && uint64(i) < hi {
			want = 0
			if c != want {
				t.Fatalf("byte %d: %#x after zero, want 0", i, c)
			}
		} else if c != want {
			t.Fatalf("byte %d outside the zeroed range: %#x, want 0xff", i, c)
		}
	}
	r.release()
}
