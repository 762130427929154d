package runtime

import (
	"bytes"
	"fmt"
	"testing"
)

// outcomeKey is everything a run must reproduce exactly.
type outcomeKey struct {
	outcome  Outcome
	kind     Kind
	message  string
	top      string
	counters string
	stdout   string
	fuel     uint64
}

func keyOf(r Result) outcomeKey {
	k := outcomeKey{outcome: r.Outcome, counters: string(r.Counters), stdout: string(r.Stdout), fuel: r.Fuel}
	if r.Failure != nil {
		k.kind, k.message, k.top = r.Failure.Kind, r.Failure.Message, r.Failure.Top()
	}
	return k
}

// TestDeterminism: the same input gives identical counters, outcome, output
// and fuel across reset modes and across two workers, over 1,000 runs
// (100 with -short). Inputs interleave valid, invalid, crashing and
// hanging runs so every reset path (dirty pages, re-instantiation after a
// crash) is exercised between repeats.
func TestDeterminism(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 100
	}
	tests := []struct {
		fixture string
		inputs  []string
		modes   []Reset // Persistent only where the target keeps no state
	}{
		{"clib/clib.wasm", []string{"V", "Phello", "X", "D", "Pworld", "O", "", "A", "L", "Zz", "R"}, []Reset{Restore, Fresh, Persistent}},
		{"goreactor/goreactor.wasm", []string{"V", "X", "Pboom", "", "Valid input", "I", "M", "L", "VV"}, []Reset{Restore, Fresh}},
	}
	for _, tc := range tests {
		t.Run(tc.fixture, func(t *testing.T) {
			cfg := Config{Fuel: 1 << 16, MaxInputLen: 4096}
			ref := map[string]outcomeKey{}
			for _, mode := range tc.modes {
				cfg.Reset = mode
				tg := loadInstrumented(t, tc.fixture, fullOpts, cfg)
				workers := []*Worker{worker(t, tg), worker(t, tg)}
				runs := n
				if mode == Fresh {
					runs = n / 20 // a Go reactor re-initialises in milliseconds
				}
				for i := range runs {
					in := tc.inputs[i%len(tc.inputs)]
					w := workers[i/len(tc.inputs)%2]
					r := run(t, w, in)
					k := keyOf(r)
					want, ok := ref[in]
					if !ok {
						ref[in] = k
						continue
					}
					if k != want {
						t.Fatalf("%v run %d input %q: expected %s, got %s", mode, i, in, describe(want), describe(k))
					}
				}
			}
			// Sanity: the reference saw counters and distinct outcomes.
			if k := ref["V"]; k.outcome != Valid || len(k.counters) == 0 || k.fuel == 0 {
				t.Fatalf("reference run of V: %s", describe(k))
			}
		})
	}
}

func describe(k outcomeKey) string {
	return fmt.Sprintf("{%v %v %q top=%q counters=%d nonzero/%x.. stdout=%q fuel=%d}", k.outcome, k.kind, k.message, k.top,
		nonzero([]byte(k.counters)), bytes.TrimRight([]byte(k.counters)[:min(16, len(k.counters))], ""), k.stdout, k.fuel)
}
