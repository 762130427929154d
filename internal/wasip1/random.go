package wasip1

// randomGet fills the buffer from the run's PCG stream (seeded by
// State.Seed at Reset): eight bytes per draw, little-endian, the unused
// bytes of a final partial draw discarded.
func randomGet(s *State, g guest, p []uint64) Errno {
	b, ok := g.bytes(uint32(p[0]), uint32(p[1]))
	if !ok {
		return ErrnoFault
	}
	for len(b) >= 8 {
		le.PutUint64(b, s.rng.Uint64())
		b = b[8:]
	}
	if len(b) > 0 {
		v := s.rng.Uint64()
		for i := range b {
			b[i] = byte(v)
			v >>= 8
		}
	}
	return ErrnoSuccess
}
