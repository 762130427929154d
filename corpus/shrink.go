package corpus

import (
	"context"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// RunFunc runs one candidate and returns the identity of the failure it
// causes ("" when it does not fail; use Identity to build it). err is for
// wafer's own errors and stops the shrink; a target failure is not an err.
type RunFunc func(ctx context.Context, candidate []byte) (identity string, err error)

// ShrinkOptions bounds a shrink. The zero value is usable.
type ShrinkOptions struct {
	// Budget is the maximum number of runs; zero means 2000.
	Budget int
}

// Shrunk is the result of a shrink.
type Shrunk struct {
	// Data is the smallest candidate found that keeps the identity (the
	// original when nothing smaller does). Smaller means shorter, or as
	// long and bytewise smaller.
	Data []byte
	// Kinds is the kind information aligned with Data (ShrinkChoices
	// with per-byte kinds); nil otherwise.
	Kinds []byte
	// Runs is the number of times run was called.
	Runs int
	// Done is true when a full round of every pass made no progress: Data
	// is a local minimum. False means the budget or ctx ran out first.
	Done bool
}

// ShrinkChoices shrinks a failing choice sequence while run keeps
// returning identity (docs/ALGORITHMS.md §7): first structure (delete runs of
// choices, long runs first, each run tried at every position), then values
// (each byte to 0, else binary search for the smallest value that keeps the
// failure; then moving value from a byte to its right neighbour, which lets
// the next round delete the emptied byte), repeated until nothing changes
// or the budget is spent.
//
// kinds is nil or has one opaque kind byte per byte of choices (expand
// per-choice kinds to per-byte before calling); it is kept aligned with
// the sequence as bytes are deleted and returned in Shrunk.Kinds. run gets
// the candidate sequence; the generator extends a sequence that is too
// short deterministically. Shrinking is deterministic: the same arguments
// and run give the same result and the same runs.
func ShrinkChoices(ctx context.Context, choices, kinds []byte, identity string, run RunFunc, opts ShrinkOptions) (Shrunk, error) {
	if kinds != nil && len(kinds) != len(choices) {
		kinds = nil
	}
	s := newShrinker(choices, kinds, identity, run, opts)
	return s.shrink(ctx, []pass{s.truncate, s.deleteRuns(true), s.lowerValues, s.redistribute})
}

// ShrinkBytes shrinks a failing raw input while run keeps returning
// identity: it deletes chunks (halves, quarters, ... down to single bytes,
// at aligned positions, then sliding for chunks of up to 4 bytes), then
// simplifies bytes (each to 0, else the smallest value found by binary
// search; then moving value to the right neighbour), repeated until
// nothing changes or the budget is spent.
// Deterministic, as ShrinkChoices.
func ShrinkBytes(ctx context.Context, input []byte, identity string, run RunFunc, opts ShrinkOptions) (Shrunk, error) {
	s := newShrinker(input, nil, identity, run, opts)
	return s.shrink(ctx, []pass{s.truncate, s.deleteRuns(false), s.lowerValues, s.redistribute})
}

type pass func(ctx context.Context) (progress bool, err error)

type shrinker struct {
	cur, kinds []byte
	identity   string
	run        RunFunc
	budget     int
	runs       int
	seen       map[uint64]bool
}

func newShrinker(data, kinds []byte, identity string, run RunFunc, opts ShrinkOptions) *shrinker {
	b := opts.Budget
	if b <= 0 {
		b = 2000
	}
	return &shrinker{
		cur: slices.Clone(data), kinds: slices.Clone(kinds),
		identity: identity, run: run, budget: b, seen: map[uint64]bool{},
	}
}

// errBudget ends a shrink early; it never leaves this file.
type budgetError struct{}

func (budgetError) Error() string { return "shrink budget spent" }

func (s *shrinker) shrink(ctx context.Context, passes []pass) (Shrunk, error) {
	done := false
	var err error
loop:
	for {
		progress := false
		for _, p := range passes {
			var pr bool
			pr, err = p(ctx)
			progress = progress || pr
			if err != nil {
				break loop
			}
		}
		if !progress {
			done = true
			break
		}
	}
	if _, ok := err.(budgetError); ok {
		err = nil
	}
	return Shrunk{Data: s.cur, Kinds: s.kinds, Runs: s.runs, Done: done}, err
}

// try runs cand and reports whether it keeps the identity.
func (s *shrinker) try(ctx context.Context, cand []byte) (bool, error) {
	h := xxhash.Sum64(cand) ^ uint64(len(cand))<<1
	if s.seen[h] {
		return false, nil
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if s.runs >= s.budget {
		return false, budgetError{}
	}
	s.seen[h] = true
	s.runs++
	id, err := s.run(ctx, cand)
	if err != nil {
		return false, err
	}
	return id == s.identity, nil
}

// truncate finds a short prefix that keeps the failure, by binary search
// on its length (checking the halves first is cheap and usually wins big).
func (s *shrinker) truncate(ctx context.Context) (bool, error) {
	progress := false
	for n := len(s.cur) / 2; n >= 1 && n < len(s.cur); {
		ok, err := s.try(ctx, s.cur[:n])
		if err != nil {
			return progress, err
		}
		if !ok {
			break
		}
		s.cut(n, len(s.cur))
		progress = true
		n = len(s.cur) / 2
	}
	return progress, nil
}

// cut deletes cur[i:j] (and the aligned kinds).
func (s *shrinker) cut(i, j int) {
	s.cur = slices.Delete(s.cur, i, j)
	if s.kinds != nil {
		s.kinds = slices.Delete(s.kinds, i, j)
	}
}

// deleteRuns deletes runs of k bytes, k from len/2 down to 1. Runs longer
// than slideMax are tried at multiples of k (ddmin); shorter ones at every
// position, which is what removes one multi-byte choice or one element
// of a generated list.
func (s *shrinker) deleteRuns(generator bool) pass {
	slideMax := 4
	if generator {
		slideMax = 8
	}
	return func(ctx context.Context) (bool, error) {
		progress := false
		for k := max(len(s.cur)/2, 1); k >= 1; k /= 2 {
			step := 1
			if k > slideMax {
				step = k
			}
			for i := 0; i+k <= len(s.cur); {
				cand := make([]byte, 0, len(s.cur)-k)
				cand = append(append(cand, s.cur[:i]...), s.cur[i+k:]...)
				ok, err := s.try(ctx, cand)
				if err != nil {
					return progress, err
				}
				if ok {
					s.cut(i, i+k)
					progress = true
					continue
				}
				i += step
			}
		}
		return progress, nil
	}
}

// lowerValues moves each byte toward 0: first 0 itself, then a binary
// search between 0 (fails) and the current value (holds).
func (s *shrinker) lowerValues(ctx context.Context) (bool, error) {
	progress := false
	for i := 0; i < len(s.cur); i++ {
		if s.cur[i] == 0 {
			continue
		}
		cand := slices.Clone(s.cur)
		set := func(v byte) (bool, error) {
			cand[i] = v
			return s.try(ctx, cand)
		}
		ok, err := set(0)
		if err != nil {
			return progress, err
		}
		if ok {
			s.cur[i] = 0
			progress = true
			continue
		}
		lo, hi := 0, int(s.cur[i])
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			ok, err := set(byte(mid))
			if err != nil {
				if byte(hi) < s.cur[i] {
					s.cur[i] = byte(hi)
					progress = true
				}
				return progress, err
			}
			if ok {
				hi = mid
			} else {
				lo = mid
			}
		}
		if byte(hi) < s.cur[i] {
			s.cur[i] = byte(hi)
			progress = true
		}
	}
	return progress, nil
}

// redistribute moves value from cur[i] to cur[i+1] (all of it, else
// half): the candidate is bytewise smaller, and a byte brought to 0 can
// be deleted by the next round.
func (s *shrinker) redistribute(ctx context.Context) (bool, error) {
	progress := false
	for i := 0; i+1 < len(s.cur); i++ {
		for _, d := range []int{int(s.cur[i]), int(s.cur[i]) / 2} {
			d = min(d, 255-int(s.cur[i+1]))
			if d <= 0 {
				continue
			}
			cand := slices.Clone(s.cur)
			cand[i] -= byte(d)
			cand[i+1] += byte(d)
			ok, err := s.try(ctx, cand)
			if err != nil {
				return progress, err
			}
			if ok {
				s.cur = cand
				progress = true
				break
			}
		}
	}
	return progress, nil
}
