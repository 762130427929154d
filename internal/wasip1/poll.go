package wasip1

import (
	"bytes"
	"math"
)

// Subscription and event layout (witx "subscription", "event").
const (
	subSize   = 48 // userdata u64 @0, tag u8 @8, union @16
	eventSize = 32 // userdata u64 @0, error u16 @8, type u8 @10, nbytes u64 @16, flags u16 @24

	eventClock   = 0
	eventFdRead  = 1
	eventFdWrite = 2

	subclockAbstime = 1 << 0 // subscription_clock.flags @40
	eventHangup     = 1 << 0 // event_fd_readwrite.flags
)

// pollOneoff never blocks. Descriptor subscriptions are decided at once:
// stdin and files are readable (nbytes = bytes left, HANGUP at the end),
// stdout/stderr writable, anything else an event with EBADF. If any
// descriptor event is ready, those are reported together with clock
// subscriptions already due. Otherwise the earliest clock subscription
// fires: the run's clock jumps forward to its deadline (a sleep costs no
// real time) and every clock subscription due by then is reported.
func pollOneoff(s *State, g guest, p []uint64) Errno {
	in, out, n, resPtr := uint32(p[0]), uint32(p[1]), uint32(p[2]), uint32(p[3])
	if n == 0 {
		return ErrnoInval
	}
	subs, ok := g.bytes64(in, uint64(n)*subSize)
	if !ok {
		return ErrnoFault
	}
	evs, ok := g.bytes64(out, uint64(n)*eventSize)
	if !ok {
		return ErrnoFault
	}
	if _, ok := g.bytes(resPtr, 4); !ok {
		return ErrnoFault
	}
	if overlap(uint64(in), uint64(n)*subSize, uint64(out), uint64(n)*eventSize) {
		// Writing events would overwrite subscriptions not yet read.
		subs = bytes.Clone(subs)
	}
	// Pass 1: is any descriptor ready, and when is the earliest deadline?
	fdReady := false
	minWait := uint64(math.MaxUint64)
	for i := uint32(0); i < n; i++ {
		sub := subs[i*subSize : (i+1)*subSize]
		switch sub[8] {
		case eventClock:
			if w, ok := s.clockWait(sub); ok && w < minWait {
				minWait = w
			} else if !ok {
				fdReady = true // an EINVAL event is reported at once
			}
		case eventFdRead, eventFdWrite:
			fdReady = true
		default:
			return ErrnoInval
		}
	}
	var advance uint64
	if !fdReady {
		advance = minWait
	}
	// Pass 2: write the events that fire now.
	var nev uint32
	for i := uint32(0); i < n; i++ {
		sub := subs[i*subSize : (i+1)*subSize]
		ev := evs[nev*eventSize : (nev+1)*eventSize]
		var errno Errno
		var nbytes uint64
		var flags uint16
		switch tag := sub[8]; tag {
		case eventClock:
			w, ok := s.clockWait(sub)
			if ok && w > advance {
				continue
			}
			if !ok {
				errno = ErrnoInval
			}
		default:
			errno, nbytes, flags = s.fdReadiness(le.Uint32(sub[16:]), tag)
		}
		clear(ev)
		copy(ev[0:8], sub[0:8])
		le.PutUint16(ev[8:], uint16(errno))
		ev[10] = sub[8]
		le.PutUint64(ev[16:], nbytes)
		le.PutUint16(ev[24:], flags)
		nev++
	}
	s.advance(advance)
	le.PutUint32(mustBytes(g, resPtr), nev)
	return ErrnoSuccess
}

// mustBytes returns a 4-byte view already checked by the caller.
func mustBytes(g guest, ptr uint32) []byte {
	b, _ := g.bytes(ptr, 4)
	return b
}

// clockWait is how long from now until a clock subscription (id u32 @16,
// timeout u64 @24, precision u64 @32, flags u16 @40) is due; !ok for an
// unknown clock id.
func (s *State) clockWait(sub []byte) (uint64, bool) {
	id := le.Uint32(sub[16:])
	if id > clockThreadCPUTime {
		return 0, false
	}
	timeout := le.Uint64(sub[24:])
	if le.Uint16(sub[40:])&subclockAbstime == 0 {
		return timeout, true
	}
	now := s.now
	if id == clockRealtime {
		now += s.epoch()
	}
	if timeout <= now {
		return 0, true
	}
	return timeout - now, true
}

// fdReadiness answers an fd_read/fd_write subscription.
func (s *State) fdReadiness(fd uint32, tag uint8) (Errno, uint64, uint16) {
	kind, f, _ := s.fd(fd)
	switch {
	case tag == eventFdRead && kind == kindStdin:
		left := uint64(len(s.Stdin)) - min(s.stdinPos, uint64(len(s.Stdin)))
		if left == 0 {
			return ErrnoSuccess, 0, eventHangup
		}
		return ErrnoSuccess, left, 0
	case tag == eventFdRead && kind == kindFile:
		left := uint64(len(f.data)) - min(f.pos, uint64(len(f.data)))
		if left == 0 {
			return ErrnoSuccess, 0, eventHangup
		}
		return ErrnoSuccess, left, 0
	case tag == eventFdWrite && kind == kindStdout:
		return ErrnoSuccess, 0, 0
	case kind == kindBad:
		return ErrnoBadf, 0, 0
	}
	return ErrnoNotsup, 0, 0
}

// overlap reports whether [a, a+an) and [b, b+bn) intersect.
func overlap(a, an, b, bn uint64) bool {
	return a < b+bn && b < a+an
}
