package generators

import (
	"bytes"
	"testing"
)

// checkGenerator asserts, for the sequence FromBytes(data): two runs give
// the same input and sequence; replaying the used sequence (as is, through
// WithBytes, and linearly through FromBytes) gives the same input; the used sequence survives a marshal round trip; flipping value
// bytes keeps the structural signature; and (valid != nil) the input
// parses.
func checkGenerator(t *testing.T, g Generator, valid func([]byte) error, data []byte, dict bool) {
	opts := Options{}
	if dict {
		opts.Dictionary = testDict
	}
	runner := NewRunner(g, opts)
	in, used := runner.Run(FromBytes(data))
	in2, used2 := runner.Run(FromBytes(data))
	if !bytes.Equal(in, in2) || !used.Equal(used2) {
		t.Fatalf("two runs differ: %q vs %q", in, in2)
	}
	in3, used3 := runner.Run(used)
	if !bytes.Equal(in, in3) || !used.Equal(used3) {
		t.Fatalf("replay differs: %q vs %q", in, in3)
	}
	if in5, _ := runner.Run(used.WithBytes(used.Bytes())); !bytes.Equal(in, in5) {
		t.Fatalf("WithBytes replay differs: %q vs %q", in, in5)
	}
	if in6, _ := runner.Run(FromBytes(used.Bytes())); !bytes.Equal(in, in6) {
		t.Fatalf("linear replay differs: %q vs %q", in, in6)
	}
	enc, err := used.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var dec Sequence
	if err := dec.UnmarshalBinary(enc); err != nil || !dec.Equal(used) {
		t.Fatalf("marshal round trip: %v", err)
	}
	if valid != nil {
		if err := valid(in); err != nil {
			t.Fatalf("invalid input: %v: %q", err, in)
		}
	}
	child := used.Clone()
	for i, p := range child.KindPositions(Value) {
		if len(data) > 0 {
			child.Bytes()[p] ^= data[i%len(data)] | 1
		}
	}
	in4, used4 := runner.Run(child)
	if used4.StructuralSignature() != used.StructuralSignature() {
		t.Fatalf("value mutation changed the structural signature")
	}
	if valid != nil {
		if err := valid(in4); err != nil {
			t.Fatalf("invalid input after value mutation: %v: %q", err, in4)
		}
	}
}

func fuzzSeeds(f *testing.F) {
	f.Add([]byte{}, false)
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0}, true)
	f.Add([]byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"), false)
	f.Add([]byte("a choice sequence of some length, with assorted bytes \x00\x01\x7f\x80\xfe"), true)
}

// FuzzSource fuzzes the choice source through a generator using every
// combinator.
func FuzzSource(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, dict bool) { checkGenerator(t, sink, nil, data, dict) })
}

func FuzzRaw(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, dict bool) {
		checkGenerator(t, Raw, nil, data, dict)
		if in, _ := Run(Raw, FromBytes(data), Options{}); !bytes.Equal(in, data) && len(data) <= DefaultMaxBytes {
			t.Fatalf("Raw(%q) = %q", data, in)
		}
	})
}

func FuzzJSON(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, dict bool) { checkGenerator(t, JSON, validJSON, data, dict) })
}

func FuzzXML(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, dict bool) { checkGenerator(t, XML, validXML, data, dict) })
}

func FuzzPNG(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, dict bool) { checkGenerator(t, PNG, validPNG, data, dict) })
}

func FuzzExpr(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, dict bool) { checkGenerator(t, Expr, validExpr, data, dict) })
}

func FuzzSQL(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, dict bool) { checkGenerator(t, SQL, validSQL, data, dict) })
}

// FuzzUnmarshal: decoding never panics; a decoded sequence re-encodes to an
// equal one and drives every generator deterministically.
func FuzzUnmarshal(f *testing.F) {
	for _, tc := range generatorCases {
		_, used := Run(tc.gen, FromBytes([]byte("seed bytes for "+tc.name)), Options{})
		enc, _ := used.MarshalBinary()
		f.Add(enc)
	}
	enc, _ := FromBytes([]byte("raw")).MarshalBinary()
	f.Add(enc)
	f.Add([]byte("wafer-seq\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var q Sequence
		if err := q.UnmarshalBinary(data); err != nil {
			return
		}
		enc, err := q.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var q2 Sequence
		if err := q2.UnmarshalBinary(enc); err != nil || !q2.Equal(&q) {
			t.Fatalf("re-encoding: %v", err)
		}
		_ = q.Types()
		for _, typ := range q.Types() {
			q.TypePositions(typ)
		}
		for _, tc := range generatorCases {
			a, ua := Run(tc.gen, &q, Options{})
			b, _ := Run(tc.gen, &q, Options{})
			if !bytes.Equal(a, b) {
				t.Fatalf("%s: not deterministic on a decoded sequence", tc.name)
			}
			if c, _ := Run(tc.gen, ua, Options{}); !bytes.Equal(a, c) {
				t.Fatalf("%s: replay differs on a decoded sequence", tc.name)
			}
		}
	})
}
