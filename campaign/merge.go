package campaign

import (
	"context"
	"fmt"

	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/engine"
)

// Merged is what Merge found.
type Merged struct {
	// Keep are the candidates that add coverage to the base, smallest
	// first.
	Keep []corpus.Seed
	// NewFeatures is the coverage (site × hit-count bucket) they add;
	// BaseFeatures the base's.
	NewFeatures, BaseFeatures int
	// NewEdges is the number of sites (edges) the candidates reach that
	// the base does not: libFuzzer's "new coverage edges".
	NewEdges int
	// Failed counts the inputs that crashed or hung: left out, as
	// libFuzzer's merge does (they cover nothing a corpus should keep).
	Failed int
}

// Merge runs base and then cands on t's campaign build and returns a
// subset of cands, smallest first, that keeps all the coverage the whole
// set has beyond base (libFuzzer's -merge=1). It writes nothing.
func (t *Target) Merge(ctx context.Context, base, cands []corpus.Seed) (Merged, error) {
	maxIn := 0
	for _, s := range append(base[:len(base):len(base)], cands...) {
		maxIn = max(maxIn, len(s.Data))
	}
	tgt, _, err := t.compile(ctx, buildCounters, maxIn, ResetDefault, false)
	if err != nil {
		return Merged{}, err
	}
	defer tgt.Close(context.WithoutCancel(ctx))
	w, err := tgt.NewWorker(ctx)
	if err != nil {
		return Merged{}, fmt.Errorf("%s: %w", t.name, err)
	}
	defer w.Close(context.WithoutCancel(ctx))
	var m Merged
	// the sites each side reaches, for NewEdges: an input is the base's
	// when its bytes are (a candidate equal to a base input adds nothing)
	inBase := map[string]bool{}
	for _, s := range base {
		inBase[string(s.Data)] = true
	}
	baseSites, allSites := map[int]bool{}, map[int]bool{}
	cover := func(ctx context.Context, input []byte) ([]uint32, error) {
		r, err := w.Run(ctx, input)
		if err != nil {
			return nil, err
		}
		if r.Outcome.Failed() {
			m.Failed++
			return nil, nil
		}
		for i, c := range r.Counters {
			if c != 0 {
				allSites[i] = true
				if inBase[string(input)] {
					baseSites[i] = true
				}
			}
		}
		return engine.CountersFeatures(r.Counters), nil
	}
	res, err := corpus.Merge(ctx, base, cands, cover)
	if err != nil {
		return m, fmt.Errorf("merge: %w", err)
	}
	m.Keep, m.NewFeatures, m.BaseFeatures = res.Keep, res.NewFeatures, res.BaseFeatures
	m.NewEdges = len(allSites) - len(baseSites)
	return m, nil
}
