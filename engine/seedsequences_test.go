package engine

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
)

// Deps.SeedSequences run first, laid out as the strategy reads choice
// sequences: the input each one makes is the first the target sees, under
// Zest's one stream and BeDivFuzz's two alike.
func TestSeedSequencesRunFirst(t *testing.T) {
	fields := []generators.Field{{Name: "n", Type: generators.TypeUint16}, {Name: "s", Type: generators.TypeString}}
	want, err := generators.EncodeTuple(fields, []any{uint16(0xbeef), "seed text"})
	if err != nil {
		t.Fatal(err)
	}
	seq, err := generators.ReadTuple(fields, 0, generators.Options{}, want)
	if err != nil {
		t.Fatal(err)
	}
	for _, strategy := range []string{"zest", "bedivfuzz"} {
		var mu sync.Mutex
		var first []byte
		tgt := &fakeTarget{sites: 2, run: func(in []byte, c fakeCov) (Outcome, *Failure) {
			c.hit(0)
			return Valid, nil
		}}
		onRun := func(int) func([]byte) {
			return func(in []byte) {
				mu.Lock()
				defer mu.Unlock()
				if first == nil {
					first = bytes.Clone(in)
				}
			}
		}
		cfg := Config{Search: Search{Strategy: strategy, Runs: 20, Workers: 1, Seed: 1}}
		deps := Deps{NewExecutor: tgt.executors(onRun), Generator: FromGenerator(generators.Tuple(fields, 0), generators.Options{}),
			SeedSequences: []*generators.Sequence{seq}}
		if _, err := Fuzz(context.Background(), cfg, deps); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, want) {
			t.Errorf("%s: first input %x, want the seed's %x", strategy, first, want)
		}
	}
}
