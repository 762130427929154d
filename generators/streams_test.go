package generators

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// checkStreams asserts, for FromStreams(st, v) under every generator: runs
// are deterministic; the used sequence's structural and value bytes replay
// to the same input through FromStreams; replacing the value bytes keeps the
// signature and the structural bytes consumed (values never shift the
// structure); replacing structural bytes leaves the value stream's consumed
// prefix as it was (structure never shifts values: the value draws still
// read v from its start).
func checkStreams(t *testing.T, g Generator, st, v []byte) {
	runner := NewRunner(g, Options{Dictionary: testDict})
	in, used := runner.Run(FromStreams(st, v))
	in2, used2 := runner.Run(FromStreams(st, v))
	if !bytes.Equal(in, in2) || !used.Equal(used2) {
		t.Fatalf("two runs differ: %q vs %q", in, in2)
	}
	s1, v1 := used.KindBytes(Structural), used.KindBytes(Value)
	if in3, _ := runner.Run(FromStreams(s1, v1)); !bytes.Equal(in, in3) {
		t.Fatalf("replay of the consumed streams differs: %q vs %q", in, in3)
	}
	// the consumed streams are prefixes of the given ones, or extend them
	if n := min(len(s1), len(st)); !bytes.Equal(s1[:n], st[:n]) {
		t.Fatalf("structural stream not read in order")
	}
	if n := min(len(v1), len(v)); !bytes.Equal(v1[:n], v[:n]) {
		t.Fatalf("value stream not read in order")
	}
	v2 := bytes.Clone(v1)
	for i := range v2 {
		v2[i] ^= 0x5a
	}
	_, usedV := runner.Run(FromStreams(s1, v2))
	if got := usedV.KindBytes(Structural); !bytes.Equal(got, s1) || usedV.StructuralSignature() != used.StructuralSignature() {
		t.Fatalf("a value mutation changed the structure: %x vs %x", got, s1)
	}
	if len(s1) > 0 {
		s2 := bytes.Clone(s1)
		s2[len(s2)/2] ^= 0xa5
		_, usedS := runner.Run(FromStreams(s2, v1))
		got := usedS.KindBytes(Value)
		if n := min(len(got), len(v1)); !bytes.Equal(got[:n], v1[:n]) {
			t.Fatalf("a structural mutation shifted the values: %x vs %x", got[:n], v1[:n])
		}
	}
}

func TestStreamsSeparate(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 31))
	for _, tc := range generatorCases {
		t.Run(tc.name, func(t *testing.T) {
			for range 100 {
				st := make([]byte, r.IntN(64))
				v := make([]byte, r.IntN(256))
				for i := range st {
					st[i] = byte(r.Uint32())
				}
				for i := range v {
					v[i] = byte(r.Uint32())
				}
				checkStreams(t, tc.gen, st, v)
			}
		})
	}
}

// TestStreamsScripted: with a known generator, structural draws read s and
// value draws read v, whatever their interleaving.
func TestStreamsScripted(t *testing.T) {
	gen := func(s *Source) []byte {
		var out []byte
		n := s.Pick(4) // s[0]
		for range n {
			out = append(out, byte(s.Int(0, 9))) // v[0], v[1], ...
		}
		out = append(out, byte(s.Pick(7))) // s[1]
		return out
	}
	in, used := Run(gen, FromStreams([]byte{3, 5}, []byte{1, 2, 3, 4}), Options{})
	if want := []byte{1, 2, 3, 5}; !bytes.Equal(in, want) {
		t.Fatalf("got %v, expected %v", in, want)
	}
	if got := used.KindBytes(Value); !bytes.Equal(got, []byte{1, 2, 3}) {
		t.Errorf("consumed values %v, expected the first three", got)
	}
	// one fewer repetition: the later structural draw still reads s[1]
	in, _ = Run(gen, FromStreams([]byte{2, 5}, []byte{1, 2, 3, 4}), Options{})
	if want := []byte{1, 2, 5}; !bytes.Equal(in, want) {
		t.Fatalf("got %v, expected %v", in, want)
	}
}

// FuzzStreams fuzzes the two-stream source through every generator.
func FuzzStreams(f *testing.F) {
	f.Add([]byte{}, []byte{})
	f.Add([]byte{1, 2, 3}, []byte("values"))
	f.Add([]byte("\xff\xff\xff\xff\xff\xff\xff\xff"), []byte{0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, st, v []byte) {
		for _, tc := range generatorCases {
			checkStreams(t, tc.gen, st, v)
		}
	})
}

// TestDictProbAndIntBias: the share of string draws that take a dictionary
// entry and of integer draws that take a range boundary follows
// Options.DictProb and Options.IntBias; negative turns each off.
func TestDictProbAndIntBias(t *testing.T) {
	dict := [][]byte{[]byte("needle"), []byte("haystack")}
	gen := func(s *Source) []byte {
		str := s.String("abcdefghijklmnopqrstuvwxyz", 0, 12)
		n := s.Int(-1000000, 1000000)
		b := byte(0)
		if str == "needle" || str == "haystack" {
			b |= 1
		}
		if n == -1000000 || n == 1000000 || n == -999999 || n == 999999 || n == 0 || n == 1 || n == -1 {
			b |= 2
		}
		return []byte{b}
	}
	tests := []struct {
		opts         Options
		dict, bounds float64 // expected shares
	}{
		// the dictionary holds no integer, so the integer draws' dictionary
		// share (DictProb/5) falls to the boundaries
		{Options{Dictionary: dict}, 0.5, 16.0/256 + 0.1},
		{Options{Dictionary: dict, DictProb: -1}, 0, 16.0 / 256},
		{Options{Dictionary: dict, DictProb: -1, IntBias: -1}, 0, 0},
		{Options{Dictionary: dict, DictProb: 0.25, IntBias: 0.5}, 0.25, 0.55},
	}
	r := rand.New(rand.NewPCG(5, 5))
	const n = 4000
	for _, tc := range tests {
		runner := NewRunner(gen, tc.opts)
		var d, b int
		for range n {
			in, _ := runner.Run(randomSeq(r))
			d += int(in[0] & 1)
			b += int(in[0] >> 1)
		}
		gd, gb := float64(d)/n, float64(b)/n
		if gd < tc.dict-0.03 || gd > tc.dict+0.03 || gb < tc.bounds-0.03 || gb > tc.bounds+0.03 {
			t.Errorf("DictProb %v IntBias %v: dictionary share %.3f (expected %.3f), boundary share %.3f (expected %.3f)",
				tc.opts.DictProb, tc.opts.IntBias, gd, tc.dict, gb, tc.bounds)
		}
	}
}
