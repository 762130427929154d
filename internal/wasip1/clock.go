package wasip1

import "math"

// Clock ids (witx "clockid").
const (
	clockRealtime       = 0
	clockMonotonic      = 1
	clockProcessCPUTime = 2
	clockThreadCPUTime  = 3
)

// clockResGet reports ClockStep as the resolution of every clock.
func clockResGet(s *State, g guest, p []uint64) Errno {
	if uint32(p[0]) > clockThreadCPUTime {
		return ErrnoInval
	}
	if !g.putU64(uint32(p[1]), s.step()) {
		return ErrnoFault
	}
	return ErrnoSuccess
}

// clockTimeGet advances the run's clock by one step and reports it: the
// realtime clock is ClockEpoch plus the monotonic clock; the CPU-time
// clocks read as the monotonic one. Precision is ignored.
func clockTimeGet(s *State, g guest, p []uint64) Errno {
	id := uint32(p[0])
	if id > clockThreadCPUTime {
		return ErrnoInval
	}
	b, ok := g.bytes(uint32(p[2]), 8)
	if !ok {
		return ErrnoFault
	}
	s.advance(s.step())
	t := s.now
	if id == clockRealtime {
		t += s.epoch()
	}
	le.PutUint64(b, t)
	return ErrnoSuccess
}

// advance moves the clock forward by d, saturating so that neither clock
// exceeds math.MaxInt64 ns (languages read time as a signed count): a
// guest sleeping "forever" sees time stop at the end, never wrap back.
func (s *State) advance(d uint64) {
	var limit uint64
	if e := s.epoch(); e < math.MaxInt64 {
		limit = math.MaxInt64 - e
	}
	if d > limit || s.now > limit-d {
		s.now = limit
		return
	}
	s.now += d
}
