package wasip1

import (
	"bytes"
	"testing"
)

// dirtyCase is one host write (random_get of n bytes at target ptr) and the
// map bytes it must set.
type dirtyCase struct {
	name      string
	ptr, n    uint64
	marked    []int
	wantErrno Errno
}

// dirtyMap returns a reader of the map at mapOff and a function building
// the expected map with the given bytes set.
func dirtyMap(t *testing.T, f *fwd, mapOff, mapLen uint32) (read func() []byte, marked func(...int) []byte) {
	read = func() []byte {
		b, ok := f.mem.Read(mapOff, mapLen)
		if !ok {
			t.Fatal("map out of range")
		}
		return b
	}
	marked = func(idx ...int) []byte {
		b := make([]byte, mapLen)
		for _, i := range idx {
			b[i] = 1
		}
		return b
	}
	return read, marked
}

// checkDirty runs each case on a cleared map and compares the whole map.
func checkDirty(t *testing.T, f *fwd, s *State, tests []dirtyCase) {
	dirty, marked := dirtyMap(t, f, uint32(s.DirtyOffset), uint32(s.DirtyLen))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clear(dirty())
			if got := f.call(s, "random_get", tc.ptr, tc.n); got != tc.wantErrno {
				t.Fatalf("random_get: expected %v, got %v", tc.wantErrno, got)
			}
			if got, want := dirty(), marked(tc.marked...); !bytes.Equal(got, want) {
				t.Errorf("dirty map: expected %v, got %v", want, got)
			}
		})
	}
}

// TestDirtyMarking: with a dirty map configured, every guest range a host
// call touches marks its target pages (so a dirty-page restore also undoes
// what WASI wrote), nothing else is marked, and a failed range marks
// nothing. Memory is 3 pages: page 0 real holds the map, base is 1 page, so
// target pages 0 and 1 exist.
func TestDirtyMarking(t *testing.T) {
	f := newFwd(t)
	const mapOff, mapLen = 0x100, 4
	s := &State{Base: 1 << 16, DirtyOffset: mapOff, DirtyLen: mapLen}
	checkDirty(t, f, s, []dirtyCase{
		{"inside page 0", 0x10, 8, []int{0}, ErrnoSuccess},
		{"straddles pages 0 and 1", 0xfffc, 8, []int{0, 1}, ErrnoSuccess},
		{"page 1 only", 0x10010, 4, []int{1}, ErrnoSuccess},
		{"empty range", 0x10, 0, nil, ErrnoSuccess},
		{"out of memory: nothing marked", 0x1fffc, 8, nil, ErrnoFault},
	})
	t.Run("off when DirtyLen is 0", func(t *testing.T) {
		dirty, _ := dirtyMap(t, f, mapOff, mapLen)
		clear(dirty())
		off := &State{Base: 1 << 16, DirtyOffset: mapOff}
		if got := f.call(off, "random_get", 0x10, 8); got != ErrnoSuccess {
			t.Fatalf("random_get: %v", got)
		}
		if got := dirty(); !bytes.Equal(got, make([]byte, mapLen)) {
			t.Errorf("dirty map: expected all zero, got %v", got)
		}
	})
}

// TestDirtyMarking4K: with DirtyShift 12 (instrument's 4 KiB blocks) a
// host write marks only the blocks it touches, not the whole 64 KiB page.
// The map has one byte per block of the 2 target pages (32 bytes).
func TestDirtyMarking4K(t *testing.T) {
	f := newFwd(t)
	s := &State{Base: 1 << 16, DirtyOffset: 0x100, DirtyLen: 32, DirtyShift: 12}
	checkDirty(t, f, s, []dirtyCase{
		{"inside block 0", 0x10, 8, []int{0}, ErrnoSuccess},
		{"middle of page 0: block 8 only", 0x8004, 8, []int{8}, ErrnoSuccess},
		{"straddles blocks 2 and 3", 0x2ffc, 8, []int{2, 3}, ErrnoSuccess},
		{"straddles pages 0 and 1", 0xfffc, 8, []int{15, 16}, ErrnoSuccess},
		{"three blocks", 0x4ff0, 0x1020, []int{4, 5, 6}, ErrnoSuccess},
		{"last block", 0x1fff0, 16, []int{31}, ErrnoSuccess},
		{"out of memory: nothing marked", 0x1fffc, 8, nil, ErrnoFault},
	})
}
