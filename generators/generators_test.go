package generators

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestSameSequenceSameInput: running a generator twice on one sequence, with
// a fresh or a reused Runner, gives byte-identical inputs and equal used
// sequences; replaying the used sequence gives the same input again and an
// equal sequence (so a saved sequence reproduces its input).
func TestSameSequenceSameInput(t *testing.T) {
	for _, tc := range generatorCases {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 1))
			for _, opts := range []Options{{}, {Dictionary: testDict}} {
				runner := NewRunner(tc.gen, opts)
				for i := range 200 {
					seq := randomSeq(r)
					if i%10 == 0 {
						seq = nil
					}
					in1, used1 := Run(tc.gen, seq, opts)
					in2, used2 := runner.Run(seq)
					if !bytes.Equal(in1, in2) || !used1.Equal(used2) {
						t.Fatalf("seq %d: two runs differ:\n%q\n%q", i, in1, in2)
					}
					in3, used3 := runner.Run(used1)
					if !bytes.Equal(in1, in3) {
						t.Fatalf("seq %d: replay of the used sequence differs:\n%q\n%q", i, in1, in3)
					}
					if !used1.Equal(used3) {
						t.Fatalf("seq %d: replay recorded a different sequence", i)
					}
					// Zest's linear model: the used bytes without their
					// indexes give the same input too.
					if in4, _ := runner.Run(FromBytes(used1.Bytes())); !bytes.Equal(in1, in4) {
						t.Fatalf("seq %d: linear replay differs:\n%q\n%q", i, in1, in4)
					}
				}
			}
		})
	}
}

// TestValueMutationKeepsStructure: mutating only value choices (BeDivFuzz's
// v) never changes the structural choices or the structural signature, with
// and without a dictionary.
func TestValueMutationKeepsStructure(t *testing.T) {
	for _, tc := range generatorCases {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(2, 2))
			changed := 0
			for _, opts := range []Options{{}, {Dictionary: testDict}} {
				runner := NewRunner(tc.gen, opts)
				for i := range 300 {
					in, parent := runner.Run(randomSeq(r))
					sig := parent.StructuralSignature()
					child := parent.Clone()
					MutatePositions(r, child.Bytes(), child.KindPositions(Value), i%10 == 0)
					in2, used := runner.Run(child)
					if got := used.StructuralSignature(); got != sig {
						t.Fatalf("seq %d: signature %x, expected %x", i, got, sig)
					}
					if !bytes.Equal(used.KindBytes(Structural), parent.KindBytes(Structural)) {
						t.Fatalf("seq %d: structural bytes changed", i)
					}
					if !bytes.Equal(in, in2) {
						changed++
					}
				}
			}
			t.Logf("%s: %d of 600 value mutations changed the input", tc.name, changed)
		})
	}
}

// TestStructuralMutationChangesSignature: the signature follows the
// structural decisions, not the bytes behind them: a structural mutation
// changes it exactly when the decisions (read back from the structural
// choices through a decoding generator) change.
func TestStructuralMutationChangesSignature(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	runner := NewRunner(JSON, Options{})
	changed, same := 0, 0
	for i := range 300 {
		_, parent := runner.Run(randomSeq(r))
		child := parent.Clone()
		if MutatePositions(r, child.Bytes(), child.KindPositions(Structural), false) == 0 {
			continue
		}
		in1, _ := runner.Run(parent)
		in2, used := runner.Run(child)
		if used.StructuralSignature() == parent.StructuralSignature() {
			same++
			// same decisions: the same shape, so the same output up to
			// values; JSON's shape is its bracket and separator skeleton
			if skeleton(in1) != skeleton(in2) {
				t.Fatalf("seq %d: same signature, different shapes %q and %q", i, in1, in2)
			}
		} else {
			changed++
		}
	}
	if changed == 0 || same == 0 {
		t.Errorf("expected structural mutations that change the decisions and some that do not, got %d and %d", changed, same)
	}
}

// skeleton keeps JSON's structure characters outside strings and the kind
// of each scalar.
func skeleton(b []byte) string {
	var out []byte
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case in && c == '\\':
			i++
		case c == '"':
			if !in {
				out = append(out, 's')
			}
			in = !in
		case in:
		case strings.IndexByte("[]{},:", c) >= 0:
			out = append(out, c)
		case c == 'n' || c == 't' || c == 'f':
			out = append(out, c)
			for i+1 < len(b) && b[i+1] >= 'a' && b[i+1] <= 'z' {
				i++
			}
		case c == '-' || c >= '0' && c <= '9':
			dec := false
			for i+1 < len(b) && strings.IndexByte("0123456789.eE-+", b[i+1]) >= 0 {
				i++
				dec = dec || b[i] == '.'
			}
			if dec {
				out = append(out, 'd')
			} else {
				out = append(out, 'i')
			}
		}
	}
	return string(out)
}

// TestSignatureOfDecisions: structural bytes that decode to the same
// decisions share a signature; others do not.
func TestSignatureOfDecisions(t *testing.T) {
	gen := func(s *Source) []byte {
		a := s.Pick(3)
		n := s.Len(0, 3)
		return []byte{byte(a), byte(n), byte(s.Int(0, 9))}
	}
	sig := func(st, v []byte) uint64 {
		_, q := Run(gen, FromStreams(st, v), Options{})
		return q.StructuralSignature()
	}
	base := sig([]byte{1, 0, 0}, []byte{5})
	if got := sig([]byte{4, 0, 0}, []byte{5}); got != base {
		t.Errorf("Pick 4%%3 == 1%%3: expected the same signature, got %#x and %#x", got, base)
	}
	if got := sig([]byte{1, 0, 0}, []byte{7}); got != base {
		t.Errorf("another value: expected the same signature, got %#x and %#x", got, base)
	}
	if got := sig([]byte{2, 0, 0}, []byte{5}); got == base {
		t.Errorf("another alternative: expected another signature, got the same %#x", got)
	}
	if got := sig([]byte{1, 1, 1}, []byte{5}); got == base {
		t.Errorf("another count: expected another signature, got the same %#x", got)
	}
}

// records generates a list of records, each a structural count of value
// integers, and returns the input and each record's text.
func records(s *Source) []byte {
	var b []byte
	List(s, 3, 8, func(s *Source) struct{} {
		Call(s, "record", func(s *Source) struct{} {
			n := s.Len(0, 6)
			for range n {
				b = strconv.AppendInt(b, int64(s.Int(0, 1000)), 10)
				b = append(b, ',')
			}
			return struct{}{}
		})
		b = append(b, ';')
		return struct{}{}
	})
	return b
}

// TestExecutionIndexing: changing the structure of one list element (its
// count of values) leaves every later element, and the recorded choices of
// every other element, unchanged. The same mutation replayed linearly (the
// bytes without their indexes, as Zest's untyped parameters) shifts later
// elements, which shows what the index buys.
func TestExecutionIndexing(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	runner := NewRunner(records, Options{})
	shifted, trials := 0, 0
	for i := 0; trials < 200 && i < 10000; i++ {
		in, parent := runner.Run(randomSeq(r))
		elems := bytes.Split(in, []byte{';'})
		// The k-th structural choice annotated "record" is element k's count.
		var counts []int
		for _, c := range parent.TypeChoices("record") {
			if parent.Choice(c).Kind == Structural {
				counts = append(counts, c)
			}
		}
		if len(counts) < 2 {
			continue
		}
		k := r.IntN(len(counts) - 1)
		child := parent.Clone()
		cb := child.Choice(counts[k]).Bytes
		old := slices.Clone(cb)
		for j := range cb {
			cb[j] = byte(r.Uint32())
		}
		if bytes.Equal(old, cb) {
			continue
		}
		trials++
		in2, used := runner.Run(child)
		elems2 := bytes.Split(in2, []byte{';'})
		if len(elems2) != len(elems) {
			t.Fatalf("seq %d: %d elements, expected %d", i, len(elems2), len(elems))
		}
		for e := k + 1; e < len(elems); e++ {
			if !bytes.Equal(elems[e], elems2[e]) {
				t.Fatalf("seq %d: mutating element %d changed element %d: %q → %q", i, k, e, elems[e], elems2[e])
			}
		}
		// Every choice recorded in both runs outside element k keeps its bytes.
		byKey := map[uint64][]byte{}
		for j := range parent.NumChoices() {
			c := parent.Choice(j)
			byKey[c.Index] = c.Bytes
		}
		for j := range used.NumChoices() {
			c := used.Choice(j)
			if p, ok := byKey[c.Index]; ok && j != counts[k] && !bytes.Equal(p, c.Bytes) {
				t.Fatalf("seq %d: choice %d (index %x) changed: %x → %x", i, j, c.Index, p, c.Bytes)
			}
		}
		in3, _ := runner.Run(FromBytes(child.Bytes()))
		if e3 := bytes.Split(in3, []byte{';'}); len(e3) != len(elems) || !slices.EqualFunc(e3[k+1:], elems[k+1:], bytes.Equal) {
			shifted++
		}
	}
	if trials < 100 {
		t.Fatalf("only %d trials", trials)
	}
	t.Logf("%d structural mutations of one element: later elements unchanged in all; linear replay shifted later elements in %d", trials, shifted)
	if shifted == 0 {
		t.Errorf("linear replay never shifted later elements: the test does not exercise indexing")
	}
}

// TestExtension: past the end of a sequence, draws come from a PRNG seeded
// by the sequence: deterministic, recorded in the used sequence, and
// different for different sequences; the used sequence is cut to what was
// consumed.
func TestExtension(t *testing.T) {
	for _, tc := range generatorCases {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(5, 5))
			distinct := map[string]bool{}
			for range 100 {
				prefix := make([]byte, r.IntN(8))
				for j := range prefix {
					prefix[j] = byte(r.Uint32())
				}
				a, ua := Run(tc.gen, FromBytes(prefix), Options{})
				b, ub := Run(tc.gen, FromBytes(prefix), Options{})
				if !bytes.Equal(a, b) || !ua.Equal(ub) {
					t.Fatalf("prefix %x: extension not deterministic", prefix)
				}
				if ua.Len() < len(prefix) && tc.name != "raw" && !bytes.HasPrefix(prefix, ua.Bytes()) {
					t.Fatalf("prefix %x: used %x is not a prefix", prefix, ua.Bytes())
				}
				distinct[string(a)] = true
			}
			if len(distinct) < 50 {
				t.Errorf("only %d distinct inputs from 100 sequences", len(distinct))
			}
			long := make([]byte, 20000)
			for j := range long {
				long[j] = byte(r.Uint32())
			}
			_, used := Run(tc.gen, FromBytes(long), Options{})
			if tc.name != "raw" && used.Len() >= len(long) {
				t.Errorf("used %d bytes of %d: not cut to what was consumed", used.Len(), len(long))
			}
			if n := used.KindLen(Value); n > DefaultMaxBytes {
				t.Errorf("recorded %d value bytes, cap is %d", n, DefaultMaxBytes)
			}
		})
	}
}

// TestMaxBytes: draws past the cap read zeros, are not recorded, and the
// run stays deterministic.
func TestMaxBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for _, tc := range generatorCases {
		opts := Options{MaxBytes: 16}
		for range 50 {
			seq := randomSeq(r)
			a, ua := Run(tc.gen, seq, opts)
			b, _ := Run(tc.gen, ua, opts)
			if !bytes.Equal(a, b) {
				t.Fatalf("%s: replay under a cap differs", tc.name)
			}
			for _, k := range []Kind{Structural, Value} {
				if ua.KindLen(k) > 16 {
					t.Fatalf("%s: %d %v bytes recorded, cap 16", tc.name, ua.KindLen(k), k)
				}
			}
			if tc.valid != nil {
				if err := tc.valid(a); err != nil {
					t.Fatalf("%s: capped input invalid: %v: %q", tc.name, err, a)
				}
			}
		}
	}
}

func TestRaw(t *testing.T) {
	tests := []struct {
		name string
		seq  *Sequence
		want []byte
	}{
		{"bytes", FromBytes([]byte("hello")), []byte("hello")},
		{"empty", FromBytes(nil), []byte{}},
		{"withbytes-longer", func() *Sequence {
			_, u := Run(Raw, FromBytes([]byte("abc")), Options{})
			return u.WithBytes([]byte("abcdef"))
		}(), []byte("abcdef")},
		{"withbytes-shorter", func() *Sequence {
			_, u := Run(Raw, FromBytes([]byte("abc")), Options{})
			return u.WithBytes([]byte("a"))
		}(), []byte("a")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, used := Run(Raw, tc.seq, Options{})
			if !bytes.Equal(got, tc.want) {
				t.Fatalf("got %q, expected %q", got, tc.want)
			}
			if used.NumChoices() != 1 || used.Choice(0).Kind != Value || !bytes.Equal(used.Bytes(), tc.want) {
				t.Fatalf("used: %d choices, bytes %q", used.NumChoices(), used.Bytes())
			}
		})
	}
	a, _ := Run(Raw, nil, Options{})
	b, _ := Run(Raw, &Sequence{}, Options{})
	if !bytes.Equal(a, b) || len(a) > 256 {
		t.Fatalf("zero sequence: %q vs %q", a, b)
	}
}

// TestZeroBytes: all-zero choices mean "the smallest, the first
// alternative, stop": every generator terminates with a small input.
func TestZeroBytes(t *testing.T) {
	for _, tc := range generatorCases {
		in, _ := Run(tc.gen, FromBytes(make([]byte, 4096)), Options{})
		if tc.valid != nil {
			if err := tc.valid(in); err != nil {
				t.Errorf("%s: %v: %q", tc.name, err, in)
			}
		}
		if len(in) > 4200 {
			t.Errorf("%s: %d bytes from zeros", tc.name, len(in))
		}
	}
}

// TestConcurrentRuns: runners in several goroutines may run the same
// Sequence at once (Run only reads it); run under -race.
func TestConcurrentRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 16))
	_, shared := Run(JSON, randomSeq(r), Options{})
	child := shared.Clone()
	MutateBytes(r, child.Bytes(), false)
	want, _ := Run(JSON, child, Options{})
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runner := NewRunner(JSON, Options{})
			for range 200 {
				in, _ := runner.Run(child)
				_ = child.WithBytes(child.Bytes())
				_ = child.Clone()
				if !bytes.Equal(in, want) {
					errs <- string(in)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatalf("concurrent run gave %q, expected %q", e, want)
	}
}
