package generators

import (
	"testing"
)

// optional draws an optional integer at one site, then two more at two
// other sites of the same frame.
func optional(s *Source) []byte {
	var out []byte
	if s.Decide(0.5) {
		out = append(out, byte(s.Int(0, 15))) // site X: only when decided
	}
	out = append(out, byte(s.Int(0, 15))) // site Y
	out = append(out, byte(s.Int(0, 15))) // site Z
	return out
}

// TestCallSiteIndexes: with Options.CallSites, inserting a draw at an
// earlier site of the frame leaves the indexes, hence the values, of the
// later draws as they were; keyed by the kind of draw (the default) they
// shift by one.
func TestCallSiteIndexes(t *testing.T) {
	for _, sites := range []bool{true, false} {
		runner := NewRunner(optional, Options{CallSites: sites})
		// decide false: Y and Z read 7 and 9
		_, parent := runner.Run(FromBytes([]byte{0, 7, 9}))
		in, _ := runner.Run(parent)
		if string(in) != "\x07\x09" {
			t.Fatalf("CallSites %v: parent gives %v, expected [7 9]", sites, in)
		}
		// flip the decision: X is inserted before Y
		child := parent.Clone()
		child.Bytes()[0] = 0xff
		in, used := runner.Run(child)
		if len(in) != 3 {
			t.Fatalf("CallSites %v: expected three values, got %v", sites, in)
		}
		if sites {
			if in[1] != 7 || in[2] != 9 {
				t.Errorf("call-site indexes: Y and Z are %d and %d, expected 7 and 9 (unshifted)", in[1], in[2])
			}
			// and removing X again gives the parent's values back
			back := used.Clone()
			back.Bytes()[0] = 0
			if in, _ := runner.Run(back); string(in) != "\x07\x09" {
				t.Errorf("call-site indexes: removing X gives %v, expected [7 9]", in)
			}
		} else if in[0] != 7 || in[1] != 9 {
			// kind-of-draw keys: X takes Y's old index, Y takes Z's
			t.Errorf("kind-of-draw indexes: X and Y are %d and %d, expected 7 and 9 (shifted)", in[0], in[1])
		}
	}
}

// TestCallSitesDeterministic: call-site keys give every generator the same
// input and sequence on replay, with a fresh runner too.
func TestCallSitesDeterministic(t *testing.T) {
	for _, tc := range generatorCases {
		a := NewRunner(tc.gen, Options{CallSites: true})
		b := NewRunner(tc.gen, Options{CallSites: true})
		for i := range 20 {
			data := []byte{byte(i), byte(i * 7), byte(i * 13), 0xff, 0x80, byte(i)}
			in1, u1 := a.Run(FromBytes(data))
			in2, u2 := b.Run(FromBytes(data))
			in3, u3 := a.Run(u1)
			if string(in1) != string(in2) || !u1.Equal(u2) || string(in1) != string(in3) || !u1.Equal(u3) {
				t.Fatalf("%s: call-site keys are not deterministic", tc.name)
			}
		}
	}
}

func BenchmarkCallSites(b *testing.B) {
	for _, sites := range []bool{false, true} {
		name := "kind"
		if sites {
			name = "callsite"
		}
		b.Run(name, func(b *testing.B) {
			r := NewRunner(JSON, Options{CallSites: sites})
			_, q := r.Run(FromBytes([]byte("a json sequence of modest length to drive the generator 0123456789")))
			b.ResetTimer()
			for range b.N {
				r.Run(q)
			}
		})
	}
}

// FuzzCallSites: with call-site keys, every generator replays its used
// sequence to the same input, through the indexes and through WithBytes,
// and a value mutation keeps the structural signature.
func FuzzCallSites(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, dict bool) {
		opts := Options{CallSites: true}
		if dict {
			opts.Dictionary = testDict
		}
		for _, tc := range generatorCases {
			r := NewRunner(tc.gen, opts)
			in, used := r.Run(FromBytes(data))
			if in2, used2 := r.Run(used); string(in) != string(in2) || !used.Equal(used2) {
				t.Fatalf("%s: replay differs", tc.name)
			}
			if in3, _ := r.Run(used.WithBytes(used.Bytes())); string(in) != string(in3) {
				t.Fatalf("%s: WithBytes replay differs", tc.name)
			}
			child := used.Clone()
			for _, p := range child.KindPositions(Value) {
				child.Bytes()[p] ^= 0x55
			}
			if _, u := r.Run(child); u.StructuralSignature() != used.StructuralSignature() {
				t.Fatalf("%s: a value mutation changed the signature", tc.name)
			}
		}
	})
}
