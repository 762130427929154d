package generators

// Rand is the randomness the mutation helpers use; *math/rand/v2.Rand
// satisfies it.
type Rand interface {
	// IntN returns a uniform int in [0, n); n > 0.
	IntN(n int) int
	// Uint64 returns 64 uniform random bits.
	Uint64() uint64
}

// geometric returns a draw on {1, 2, …} with mean 1/p = 4 (docs/ALGORITHMS.md
// §1), using integer draws only, capped at 1024.
func geometric(r Rand) int {
	n := 1
	for n < 1024 && r.IntN(4) != 0 {
		n++
	}
	return n
}

// MutateBytes is Zest's mutation (docs/ALGORITHMS.md §1) over all of buf: m
// runs, m geometric with mean 4; each run starts at a uniform offset k, has
// a length l geometric with mean 4, and overwrites buf[k:min(k+l, len)] with
// uniform random bytes, or zeros when zero is set. It returns the number of
// runs (0 for an empty buf) and uses only r for randomness. Apply it to
// Sequence.Bytes() of a Clone.
func MutateBytes(r Rand, buf []byte, zero bool) int {
	return mutate(r, buf, nil, len(buf), zero)
}

// MutatePositions is MutateBytes restricted to the byte positions pos of
// buf: runs are contiguous in pos, not in buf. Pass a Sequence's
// KindPositions(Structural) or KindPositions(Value) for BeDivFuzz,
// TypePositions(T) for SpotOn's targeted runs, or the positions a FairFuzz
// mask allows. An empty pos makes no change and returns 0.
func MutatePositions(r Rand, buf []byte, pos []int, zero bool) int {
	return mutate(r, buf, pos, len(pos), zero)
}

func mutate(r Rand, buf []byte, pos []int, n int, zero bool) int {
	if n == 0 {
		return 0
	}
	runs := geometric(r)
	for range runs {
		k := r.IntN(n)
		end := min(k+geometric(r), n)
		for i := k; i < end; i++ {
			p := i
			if pos != nil {
				p = pos[i]
			}
			if zero {
				buf[p] = 0
			} else {
				buf[p] = byte(r.Uint64())
			}
		}
	}
	return runs
}
