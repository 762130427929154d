package generators

import (
	"math/rand/v2"
	"testing"
)

// TestValidity measures, per format, the share of random choice sequences
// (FromBytes of 0–511 random bytes, extended by the PRNG; a quarter of them
// Zest-mutated children of the sequence before; half of them run with a
// dictionary of entries that need escaping) whose input the Go standard
// library parses: encoding/json, encoding/xml (one root element), image/png,
// go/parser (Expr). It requires ≥ 99 % and prints the rate over 10,000
// sequences per format (about 3 s in all).
func TestValidity(t *testing.T) {
	const n = 10000
	for _, tc := range generatorCases {
		if tc.valid == nil {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 7))
			plain := NewRunner(tc.gen, Options{})
			dict := NewRunner(tc.gen, Options{Dictionary: testDict})
			ok, size := 0, 0
			var firstErr error
			var firstIn []byte
			var parent *Sequence
			for i := range n {
				runner := plain
				if i%2 == 1 {
					runner = dict
				}
				seq := randomSeq(r)
				if i%4 == 3 && parent != nil {
					// A Zest child of the previous sequence, as the
					// engine makes them.
					seq = parent.Clone()
					MutateBytes(r, seq.Bytes(), false)
				}
				in, used := runner.Run(seq)
				parent = used
				size += len(in)
				if err := tc.valid(in); err != nil {
					if firstErr == nil {
						firstErr, firstIn = err, in
					}
					continue
				}
				ok++
			}
			rate := float64(ok) / float64(n)
			t.Logf("%s: %d/%d valid (%.2f%%), mean input %d bytes", tc.name, ok, n, 100*rate, size/n)
			if firstErr != nil {
				t.Logf("first invalid: %v: %q", firstErr, firstIn)
			}
			if rate < 0.99 {
				t.Errorf("validity %.2f%%, expected ≥ 99%%", 100*rate)
			}
		})
	}
}
