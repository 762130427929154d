package generators

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestMarshalRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, tc := range generatorCases {
		t.Run(tc.name, func(t *testing.T) {
			for i := range 50 {
				seq := randomSeq(r)
				if i == 0 {
					seq = FromBytes(nil)
				}
				in, used := Run(tc.gen, seq, Options{Dictionary: testDict})
				for _, q := range []*Sequence{seq, used, used.WithBytes(append(slices.Clone(used.Bytes()), 1, 2, 3))} {
					enc, err := q.MarshalBinary()
					if err != nil {
						t.Fatal(err)
					}
					var got Sequence
					if err := got.UnmarshalBinary(enc); err != nil {
						t.Fatalf("seq %d: %v", i, err)
					}
					if !got.Equal(q) {
						t.Fatalf("seq %d: round trip differs", i)
					}
					if got.StructuralSignature() != q.StructuralSignature() || got.Hash() != q.Hash() {
						t.Fatalf("seq %d: hashes differ after round trip", i)
					}
				}
				var dec Sequence
				enc, _ := used.MarshalBinary()
				if err := dec.UnmarshalBinary(enc); err != nil {
					t.Fatal(err)
				}
				if in2, _ := Run(tc.gen, &dec, Options{Dictionary: testDict}); !bytes.Equal(in, in2) {
					t.Fatalf("seq %d: decoded sequence gives another input", i)
				}
			}
		})
	}
}

func TestUnmarshalErrors(t *testing.T) {
	_, used := Run(JSON, FromBytes([]byte("some bytes for json")), Options{})
	good, _ := used.MarshalBinary()
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "bad choice sequence: offset 0x0: magic: expected 10 bytes, got 0"},
		{"magic", []byte("wafer-seq\x03\x00\x00\x00"), `bad choice sequence: offset 0x0: expected magic "wafer-seq\x02", got "wafer-seq\x03"`},
		{"signature flag", []byte("wafer-seq\x02\x00\x00\x00\x07"), "bad choice sequence: offset 0xd: signature flag: expected 0 or 1, got 7"},
		{"truncated", good[:len(good)-1], "bad choice sequence: offset 0x"},
		{"trailing", append(slices.Clone(good), 0), "bad choice sequence: offset 0x"},
		{"kind", []byte("wafer-seq\x01\x00\x00\x01\x05\x01\x00\x00"), "bad choice sequence: offset 0xf: choice kind: expected 0 or 1, got 5"},
		{"stack name", []byte("wafer-seq\x01\x00\x01\x00\x00"), "bad choice sequence: offset 0xd: stack name: expected a type, got none"},
		{"count", []byte("wafer-seq\x01\x05"), "bad choice sequence: offset 0xa: type count: expected at most 1, got 5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var q Sequence
			err := q.UnmarshalBinary(tc.in)
			if err == nil {
				t.Fatal("expected an error, got nil")
			}
			if !errors.Is(err, ErrFormat) {
				t.Errorf("error %v does not wrap ErrFormat", err)
			}
			if got := err.Error(); len(got) < len(tc.want) || got[:len(tc.want)] != tc.want {
				t.Errorf("got %q, expected prefix %q", got, tc.want)
			}
		})
	}
}

// TestViews: the split (s, v) view, positions and type annotations agree
// with the choices.
func TestViews(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for range 100 {
		_, q := Run(JSON, randomSeq(r), Options{})
		s, v := q.KindBytes(Structural), q.KindBytes(Value)
		if len(s)+len(v) != q.Len() {
			t.Fatalf("|s|+|v| = %d+%d, expected %d", len(s), len(v), q.Len())
		}
		for _, k := range []Kind{Structural, Value} {
			pos := q.KindPositions(k)
			want := q.KindBytes(k)
			if len(pos) != len(want) {
				t.Fatalf("%v: %d positions, %d bytes", k, len(pos), len(want))
			}
			for i, p := range pos {
				if q.Bytes()[p] != want[i] {
					t.Fatalf("%v: position %d holds %x, expected %x", k, p, q.Bytes()[p], want[i])
				}
			}
		}
		// SetKindBytes writes back only its kind.
		c := q.Clone()
		nv := bytes.Repeat([]byte{0xAB}, len(v))
		if err := c.SetKindBytes(Value, nv); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(c.KindBytes(Structural), s) || !bytes.Equal(c.KindBytes(Value), nv) {
			t.Fatal("SetKindBytes touched the other kind")
		}
		if err := c.SetKindBytes(Value, nv[:len(nv)/2]); len(nv) > 1 && err == nil {
			t.Fatal("SetKindBytes accepted a short slice")
		}
		// Types: every choice is annotated with json.Value; positions agree.
		types := q.Types()
		if !slices.Contains(types, "json.Value") {
			t.Fatalf("types %v lack json.Value", types)
		}
		for _, typ := range types {
			idx := q.TypeChoices(typ)
			n := 0
			for _, i := range idx {
				ch := q.Choice(i)
				if !slices.Contains(ch.Types, typ) {
					t.Fatalf("choice %d (types %v) listed under %s", i, ch.Types, typ)
				}
				n += len(ch.Bytes)
			}
			if got := len(q.TypePositions(typ)); got != n {
				t.Fatalf("%s: %d positions, expected %d", typ, got, n)
			}
		}
		if len(q.TypeChoices("json.Value")) != q.NumChoices() {
			t.Fatal("a JSON choice lacks the json.Value annotation")
		}
		if q.TypeChoices("no.such.type") != nil {
			t.Fatal("unknown type has choices")
		}
	}
}

func TestChoiceAnnotations(t *testing.T) {
	g := func(s *Source) []byte {
		a := s.Draw(Structural, 1)
		var b []byte
		Call(s, "outer", func(s *Source) int {
			b = s.Draw(Value, 2)
			Call(s, "inner", func(s *Source) int { return s.Pick(3) })
			return 0
		})
		return append(slices.Clone(a), b...)
	}
	_, q := Run(g, nil, Options{})
	want := []struct {
		kind  Kind
		types []string
		n     int
	}{
		{Structural, nil, 1},
		{Value, []string{"outer"}, 2},
		{Structural, []string{"outer", "inner"}, 1},
	}
	if q.NumChoices() != len(want) {
		t.Fatalf("%d choices, expected %d", q.NumChoices(), len(want))
	}
	seen := map[uint64]bool{}
	for i, w := range want {
		c := q.Choice(i)
		if c.Kind != w.kind || !slices.Equal(c.Types, w.types) || len(c.Bytes) != w.n || !c.Indexed {
			t.Errorf("choice %d: %v %v %d bytes, expected %v %v %d", i, c.Kind, c.Types, len(c.Bytes), w.kind, w.types, w.n)
		}
		if seen[c.Index] {
			t.Errorf("choice %d: index %x repeated", i, c.Index)
		}
		seen[c.Index] = true
	}
	if got := q.Types(); !slices.Equal(got, []string{"inner", "outer"}) {
		t.Errorf("Types() = %v", got)
	}
}

func TestWithBytes(t *testing.T) {
	_, q := Run(func(s *Source) []byte {
		s.Draw(Value, 2)
		s.Draw(Structural, 3)
		return nil
	}, nil, Options{})
	tests := []struct {
		name    string
		b       []byte
		lens    []int
		indexed []bool
	}{
		{"same", []byte("abcde"), []int{2, 3}, []bool{true, true}},
		{"shorter", []byte("abc"), []int{2, 1}, []bool{true, true}},
		{"shortest", []byte("a"), []int{1}, []bool{true}},
		{"longer", []byte("abcdefg"), []int{2, 3, 2}, []bool{true, true, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := q.WithBytes(tc.b)
			if !bytes.Equal(w.Bytes(), tc.b) {
				t.Fatalf("bytes %q", w.Bytes())
			}
			var lens []int
			var idx []bool
			for i := range w.NumChoices() {
				lens = append(lens, len(w.Choice(i).Bytes))
				idx = append(idx, w.Choice(i).Indexed)
			}
			if !slices.Equal(lens, tc.lens) || !slices.Equal(idx, tc.indexed) {
				t.Fatalf("lengths %v indexed %v, expected %v %v", lens, idx, tc.lens, tc.indexed)
			}
		})
	}
}

// TestManyTypes: annotations stay right past the small-table limits of the
// type interning (17 names, 33 stacks).
func TestManyTypes(t *testing.T) {
	names := make([]string, 40)
	for i := range names {
		names[i] = "T" + string(rune('a'+i%26)) + string(rune('0'+i/26))
	}
	var k int
	var nest func(s *Source, d int, path []string, want *[][]string, k *int)
	nest = func(s *Source, d int, path []string, want *[][]string, k *int) {
		if d == 3 {
			s.Draw(Value, 1)
			*want = append(*want, slices.Clone(path))
			return
		}
		for range 4 {
			n := names[*k%len(names)]
			*k++
			s.Enter(n)
			nest(s, d+1, append(path, n), want, k)
			s.Leave()
		}
	}
	var want [][]string
	_, q := Run(func(s *Source) []byte { want, k = want[:0], 0; nest(s, 0, nil, &want, &k); return nil }, nil, Options{})
	if q.NumChoices() != len(want) {
		t.Fatalf("%d choices, expected %d", q.NumChoices(), len(want))
	}
	for i, w := range want {
		if got := q.Choice(i).Types; !slices.Equal(got, w) {
			t.Fatalf("choice %d: types %v, expected %v", i, got, w)
		}
	}
	if n := len(q.Types()); n != len(names) {
		t.Fatalf("%d types, expected %d", n, len(names))
	}
	enc, _ := q.MarshalBinary()
	var d Sequence
	if err := d.UnmarshalBinary(enc); err != nil || !d.Equal(q) {
		t.Fatalf("round trip: %v", err)
	}
}
