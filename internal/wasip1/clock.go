package wasip1

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
	s.now += s.step()
	t := s.now
	if id == clockRealtime {
		t += s.epoch()
	}
	le.PutUint64(b, t)
	return ErrnoSuccess
}
