package wasip1

import "math"

func argsGet(s *State, g guest, p []uint64) Errno {
	return stringsGet(s.Args, g, uint32(p[0]), uint32(p[1]))
}

func argsSizesGet(s *State, g guest, p []uint64) Errno {
	return stringsSizes(s.Args, g, uint32(p[0]), uint32(p[1]))
}

func environGet(s *State, g guest, p []uint64) Errno {
	return stringsGet(s.Env, g, uint32(p[0]), uint32(p[1]))
}

func environSizesGet(s *State, g guest, p []uint64) Errno {
	return stringsSizes(s.Env, g, uint32(p[0]), uint32(p[1]))
}

// stringsBytes is the size of list as NUL-terminated strings.
func stringsBytes(list []string) uint64 {
	var n uint64
	for _, a := range list {
		n += uint64(len(a)) + 1
	}
	return n
}

// stringsSizes writes the count and the buffer size args_get/environ_get
// will need.
func stringsSizes(list []string, g guest, countPtr, sizePtr uint32) Errno {
	size := stringsBytes(list)
	if size > math.MaxUint32 || uint64(len(list)) > math.MaxUint32 {
		return ErrnoOverflow
	}
	if _, ok := g.bytes(countPtr, 4); !ok {
		return ErrnoFault
	}
	if !g.putU32(sizePtr, uint32(size)) {
		return ErrnoFault
	}
	g.putU32(countPtr, uint32(len(list)))
	return ErrnoSuccess
}

// stringsGet writes the pointer array at vec (guest addresses into buf,
// not translated: the guest sees its own addresses) and the NUL-terminated
// strings at buf. Both ranges are checked before anything is written.
func stringsGet(list []string, g guest, vec, buf uint32) Errno {
	size := stringsBytes(list)
	vecs, ok := g.bytes64(vec, 4*uint64(len(list)))
	if !ok {
		return ErrnoFault
	}
	dst, ok := g.bytes64(buf, size)
	if !ok {
		return ErrnoFault
	}
	off := 0
	for i, a := range list {
		le.PutUint32(vecs[4*i:], buf+uint32(off))
		off += copy(dst[off:], a)
		dst[off] = 0
		off++
	}
	return ErrnoSuccess
}
