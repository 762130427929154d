package wasip1

import (
	"encoding/binary"
	"math"

	"github.com/tetratelabs/wazero/api"
)

var le = binary.LittleEndian

// guest is the calling module's memory seen through the base offset: every
// method takes a guest pointer, adds base, and checks the whole range
// against the memory's current size. A range that does not fit (including
// any that would wrap past 4 GiB) reports !ok, which callers turn into
// EFAULT; nothing here panics.
type guest struct {
	mem  api.Memory // nil when the module has no memory
	base uint64
}

// bytes returns a view of n bytes at guest address ptr.
func (g guest) bytes(ptr, n uint32) ([]byte, bool) {
	return g.bytes64(ptr, uint64(n))
}

// bytes64 is bytes with a 64-bit length (n computed from counts).
func (g guest) bytes64(ptr uint32, n uint64) ([]byte, bool) {
	if g.mem == nil {
		return nil, false
	}
	a := uint64(ptr) + g.base
	if a > math.MaxUint32 || n > math.MaxUint32 {
		return nil, false
	}
	return g.mem.Read(uint32(a), uint32(n))
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
	if ok {
		e = e[8*i:]
	}
	if !ok {
		return nil, ErrnoFault
	}
	buf, ok := g.bytes(le.Uint32(e), le.Uint32(e[4:]))
	if !ok {
		return nil, ErrnoFault
	}
	return buf, ErrnoSuccess
}
