package wasip1

import (
	"encoding/binary"
	"math"
	"reflect"

	"github.com/tetratelabs/wazero/api"
)

var le = binary.LittleEndian

// guest is the calling module's memory seen through the base offset: every
// method takes a guest pointer, adds base, and checks the whole range
// against the memory. A range that does not fit (including any that would
// wrap past 4 GiB) reports !ok, which callers turn into EFAULT; nothing
// here panics.
//
// The memory is captured once per host call as one slice: a host function
// never grows memory, so the view stays valid for the call, and every
// access is a slice bounds check instead of an interface call.
type guest struct {
	mem   []byte
	base  uint64
	dirty []byte // dirty-page map (State.DirtyOffset/DirtyLen), nil when off
	shift uint8  // log2 of the target bytes per map byte (State.DirtyShift)
}

// newGuest captures m. A module without memory (wazero then returns a
// typed nil) gets an empty view: every access faults. wazero reports a
// 4 GiB memory's Size as 0; its first 4 GiB - 1 bytes are then used.
func newGuest(m api.Memory, s *State) guest {
	if m == nil {
		return guest{base: s.Base}
	}
	if v := reflect.ValueOf(m); v.Kind() == reflect.Pointer && v.IsNil() {
		return guest{base: s.Base}
	}
	buf, _ := m.Read(0, m.Size())
	if len(buf) == 0 {
		buf, _ = m.Read(0, math.MaxUint32)
	}
	g := guest{mem: buf, base: s.Base}
	if s.DirtyLen > 0 && s.DirtyOffset <= uint64(len(buf)) && s.DirtyLen <= uint64(len(buf))-s.DirtyOffset {
		g.dirty = buf[s.DirtyOffset : s.DirtyOffset+s.DirtyLen]
		g.shift = s.DirtyShift
		if g.shift == 0 {
			g.shift = 16
		}
	}
	return g
}

// bytes returns a view of n bytes at guest address ptr.
func (g guest) bytes(ptr, n uint32) ([]byte, bool) {
	return g.bytes64(ptr, uint64(n))
}

// bytes64 is bytes with a 64-bit length (n computed from counts).
func (g guest) bytes64(ptr uint32, n uint64) ([]byte, bool) {
	a := uint64(ptr) + g.base
	if a > uint64(len(g.mem)) || n > uint64(len(g.mem))-a {
		return nil, false
	}
	if g.dirty != nil && n > 0 {
		g.mark(uint64(ptr), n)
	}
	return g.mem[a : a+n : a+n], true
}

// mark sets the dirty byte of every target block in [ptr, ptr+n), n > 0.
func (g guest) mark(ptr, n uint64) {
	last := min((ptr+n-1)>>g.shift, uint64(len(g.dirty))-1)
	for p := ptr >> g.shift; p <= last; p++ {
		g.dirty[p] = 1
	}
}

func (g guest) u32(ptr uint32) (uint32, bool) {
	b, ok := g.bytes(ptr, 4)
	if !ok {
		return 0, false
	}
	return le.Uint32(b), true
}

func (g guest) putU32(ptr, v uint32) bool {
	b, ok := g.bytes(ptr, 4)
	if ok {
		le.PutUint32(b, v)
	}
	return ok
}

func (g guest) putU64(ptr uint32, v uint64) bool {
	b, ok := g.bytes(ptr, 8)
	if ok {
		le.PutUint64(b, v)
	}
	return ok
}

// iovec returns a view of the buffer described by entry i of the
// iovec/ciovec array at guest address iovs (8 bytes each: buf u32, len u32;
// buf is itself a guest pointer and is translated too).
func (g guest) iovec(iovs, i uint32) ([]byte, Errno) {
	e, ok := g.bytes64(iovs, 8*uint64(i)+8)
	if !ok {
		return nil, ErrnoFault
	}
	e = e[8*i:]
	buf, ok := g.bytes(le.Uint32(e), le.Uint32(e[4:]))
	if !ok {
		return nil, ErrnoFault
	}
	return buf, ErrnoSuccess
}
