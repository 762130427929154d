package corpus

import (
	"container/heap"
	"context"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// CoverFunc returns the coverage features (engine-defined ids, e.g.
// branch × hit-count bucket) of one input. err is for wafer's own errors
// and stops the merge; an input that fails should return the features it
// reached (or none).
type CoverFunc func(ctx context.Context, input []byte) ([]uint32, error)

// MergeResult is what Merge kept.
type MergeResult struct {
	// Keep are the chosen candidates, in the order greedy picked them
	// (most new features first).
	Keep []Seed
	// BaseFeatures is the number of distinct features of base.
	BaseFeatures int
	// NewFeatures is the number of features Keep adds to base.
	NewFeatures int
}

// Merge minimises a corpus as libFuzzer's -merge=1 and afl-cmin do: base
// (the corpus merged into; may be empty) is kept whole and its features
// count as covered; from candidates it keeps a small set that covers every
// feature base does not, by greedy set cover: repeatedly the candidate
// adding the most uncovered features, ties going to the smaller input,
// then to the earlier one. Candidates equal in content to base or to an
// earlier candidate are dropped. cover is called once per input, in
// order (base first). Deterministic for a deterministic cover.
func Merge(ctx context.Context, base, candidates []Seed, cover CoverFunc) (MergeResult, error) {
	var res MergeResult
	covered := newFeatureSet()
	seen := map[uint64]bool{}
	for _, s := range base {
		seen[xxhash.Sum64(s.Data)] = true
		feats, err := cover(ctx, s.Data)
		if err != nil {
			return res, err
		}
		for _, f := range feats {
			if covered.add(f) {
				res.BaseFeatures++
			}
		}
	}
	type cand struct {
		seed  Seed
		feats []uint32 // features not in base, distinct
	}
	var cands []cand
	for _, s := range candidates {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		h := xxhash.Sum64(s.Data)
		if seen[h] {
			continue
		}
		seen[h] = true
		feats, err := cover(ctx, s.Data)
		if err != nil {
			return res, err
		}
		var fresh []uint32
		for _, f := range feats {
			if !covered.has(f) {
				fresh = append(fresh, f)
			}
		}
		slices.Sort(fresh)
		fresh = slices.Compact(fresh)
		if len(fresh) > 0 {
			cands = append(cands, cand{s, fresh})
		}
	}
	// Lazy greedy: gains only shrink as features get covered, so a
	// popped candidate whose recomputed gain equals its key is the best.
	h := &gainHeap{}
	for i, c := range cands {
		h.items = append(h.items, gainItem{gain: len(c.feats), size: len(c.seed.Data), idx: i})
	}
	heap.Init(h)
	for h.Len() > 0 {
		top := heap.Pop(h).(gainItem)
		gain := 0
		for _, f := range cands[top.idx].feats {
			if !covered.has(f) {
				gain++
			}
		}
		if gain == 0 {
			continue
		}
		if gain < top.gain {
			top.gain = gain
			heap.Push(h, top)
			continue
		}
		for _, f := range cands[top.idx].feats {
			covered.add(f)
		}
		res.NewFeatures += gain
		res.Keep = append(res.Keep, cands[top.idx].seed)
	}
	return res, nil
}

type gainItem struct{ gain, size, idx int }

type gainHeap struct{ items []gainItem }

func (h *gainHeap) Len() int { return len(h.items) }
func (h *gainHeap) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	if a.gain != b.gain {
		return a.gain > b.gain
	}
	if a.size != b.size {
		return a.size < b.size
	}
	return a.idx < b.idx
}
func (h *gainHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *gainHeap) Push(x any)    { h.items = append(h.items, x.(gainItem)) }
func (h *gainHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// featureSet is a bitset for small feature ids and a map for the rest.
type featureSet struct {
	bits []uint64
	big  map[uint32]bool
}

const featureBitsMax = 1 << 26

func newFeatureSet() *featureSet { return &featureSet{big: map[uint32]bool{}} }

func (s *featureSet) has(f uint32) bool {
	if f < featureBitsMax {
		w := int(f / 64)
		return w < len(s.bits) && s.bits[w]&(1<<(f%64)) != 0
	}
	return s.big[f]
}

// add inserts f and reports whether it was new.
func (s *featureSet) add(f uint32) bool {
	if s.has(f) {
		return false
	}
	if f < featureBitsMax {
		w := int(f / 64)
		if w >= len(s.bits) {
			s.bits = append(s.bits, make([]uint64, w+1-len(s.bits))...)
		}
		s.bits[w] |= 1 << (f % 64)
		return true
	}
	s.big[f] = true
	return true
}
