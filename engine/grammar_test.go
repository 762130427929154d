package engine

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
	"github.com/wafer-fuzz/wafer/generators/grammar"
	"github.com/wafer-fuzz/wafer/runtime"
)

// TestGrammarValidity runs the sentences of the shipped grammars
// (generators/grammars) on the real parsers of the bundled examples:
// SQLite itself (csqlite), the cexpr evaluator and the rustini INI parser.
// The harness returns -1 (Invalid) for input the parser rejects. Each
// grammar must reach ≥ 99 % valid sentences over random choice sequences
// (FromBytes of 0–511 random bytes, extended by the PRNG; every second run
// with the example's instrumentation dictionary). 10,000 sequences per
// grammar with WAFER_FULL=1, 1,000 otherwise (-short: 300). The test lives
// in engine because it needs runtime, which generators may not import.
func TestGrammarValidity(t *testing.T) {
	n := 1000
	if os.Getenv("WAFER_FULL") != "" {
		n = 10000
	} else if testing.Short() {
		n = 300
	}
	for _, tc := range []struct{ name, grammar, wasm string }{
		{"csqlite", "../generators/grammars/SQLite.g4", "../examples/csqlite/csqlite.wasm"},
		{"cexpr", "../generators/grammars/Expr.g4", "../examples/cexpr/cexpr.wasm"},
		{"rustini", "../generators/grammars/INI.g4", "../examples/rustini/rustini.wasm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := grammar.Load(tc.grammar)
			if err != nil {
				t.Fatal(err)
			}
			gen, err := g.Generator(grammar.Options{})
			if err != nil {
				t.Fatal(err)
			}
			tgt, sm := loadTarget(t, tc.wasm, false)
			ctx := context.Background()
			w, err := tgt.NewWorker(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close(ctx)
			plain := generators.NewRunner(gen, generators.Options{})
			dict := generators.NewRunner(gen, generators.Options{Dictionary: sm.Dictionary})
			r := rand.New(rand.NewPCG(26, 26))
			ok, size, shown := 0, 0, 0
			for i := range n {
				b := make([]byte, r.IntN(512))
				for j := range b {
					b[j] = byte(r.Uint32())
				}
				runner := plain
				if i%2 == 1 {
					runner = dict
				}
				in, _ := runner.Run(generators.FromBytes(b))
				size += len(in)
				res, err := w.Run(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				if res.Outcome == runtime.Valid {
					ok++
					continue
				}
				if shown < 5 {
					shown++
					t.Logf("%v: %q", res.Outcome, in)
				}
			}
			rate := float64(ok) / float64(n)
			t.Logf("%s: %d/%d valid (%.2f%%), mean sentence %d bytes", tc.name, ok, n, 100*rate, size/n)
			if rate < 0.99 {
				t.Errorf("validity %.2f%%, expected ≥ 99%%", 100*rate)
			}
		})
	}
}
