package generators

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestReadJSONRoundTrip: every input JSON makes (with and without a
// dictionary) reads back into a sequence that makes it again, byte for
// byte.
func TestReadJSONRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 1))
	for _, opts := range []Options{{}, {Dictionary: testDict}} {
		runner := NewRunner(JSON, opts)
		for i := range 2000 {
			data := make([]byte, rng.IntN(600))
			for j := range data {
				data[j] = byte(rng.Uint32())
			}
			in, _ := runner.Run(FromBytes(data))
			seq, err := ReadJSON(in, opts)
			if err != nil {
				t.Fatalf("sentence %d %q: %v", i, in, err)
			}
			if again, _ := runner.Run(seq); !bytes.Equal(again, in) {
				t.Fatalf("sentence %d: %q regenerates as %q", i, in, again)
			}
			if again, _ := runner.Run(FromBytes(seq.Bytes())); !bytes.Equal(again, in) {
				t.Fatalf("sentence %d: %q regenerates linearly as %q", i, in, again)
			}
		}
	}
}

// TestReadJSONSameValue: inputs JSON writes otherwise (spaces, escapes,
// number spellings) read back into the same value, written JSON's way.
func TestReadJSONSameValue(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`null`, `null`},
		{` [ true , false ] `, `[true,false]`},
		{`{"a" : [1, 2.5e0, "x", null], "b": {"c": "\u00e9"}}`, `{"a":[1,2.5e0,"x",null],"b":{"c":"\u00e9"}}`},
		{`{"a":[1,2.5,"x",null,true],"b":{"c":"é"}}`, `{"a":[1,25.0e-1,"x",null,true],"b":{"c":"\u00e9"}}`},
		{`"\t\/\u001F\u0041\n\r"`, `"\u0009/\u001fA\n\u000d"`},
		{`-0`, `0`},
		{`1.0`, `1`},
		{`1e3`, `1000`},
		{`-0.5`, `-5.0e-1`},
		{`1.05`, `105.0e-2`},
		{`123456789.125`, `123456.789125e3`},
		{`9007199254740992`, `9007199254740992`},
		{`123456789012000e10`, `123456.789012e19`},
		{`1E+2`, `100`},
		{`3.25E-7`, `3.25E-7`},
		{`3.0250e-7`, `3025.0e-10`},
		{`[]`, `[]`},
		{`{}`, `{}`},
	} {
		seq, err := ReadJSON([]byte(tc.in), Options{})
		if err != nil {
			t.Errorf("ReadJSON(%s): %v", tc.in, err)
			continue
		}
		got, _ := Run(JSON, seq, Options{})
		if string(got) != tc.want {
			t.Errorf("ReadJSON(%s) regenerates %s, want %s", tc.in, got, tc.want)
		}
		if !sameJSON(t, []byte(tc.in), got) {
			t.Errorf("ReadJSON(%s) regenerates %s: another value", tc.in, got)
		}
	}
}

func TestReadJSONErrors(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		notMade  bool
	}{
		{``, "json: offset 0: expected a value, got end of input", false},
		{`nul`, "json: offset 0: expected null, got 'n'", false},
		{`[1,]`, "json: offset 3: expected a value, got ']'", false},
		{`[1 2]`, "json: offset 3: expected ',' or ']', got '2'", false},
		{`{"a" 1}`, "json: offset 5: expected ':', got '1'", false},
		{`{1:2}`, "json: offset 1: expected a member name, got '1'", false},
		{`"abc`, "json: offset 0: unterminated string", false},
		{`01`, `json: offset 0: expected a number (an integer part without leading zeros), got "01"`, false},
		{`-`, `json: offset 0: expected a number (an integer part without leading zeros), got "-"`, false},
		{`1.e`, "json: offset 2: expected fraction digits, got 'e'", false},
		{`"\x"`, `json: offset 1: expected an escape, got "\\x"`, false},
		{`1 2`, "json: offset 2: expected end of input, got '2'", false},
		{`"` + strings.Repeat("a", 25) + `"`, "json: offset 25: the generator does not make this input: strings hold at most 24 characters", true},
		{`"\u0100"`, "json: offset 1: the generator does not make this input: character U+0100 is not in the string alphabet", true},
		{`[1,2,3,4,5,6,7,8,9]`, "json: offset 17: the generator does not make this input: arrays and objects hold at most 8 elements", true},
		{`[[[[[[1]]]]]]`, "json: offset 5: the generator does not make this input: arrays and objects nest at most 5 deep", true},
		{`1e99`, "json: offset 0: the generator does not make this input: number 1e99 has no form JSON writes (I.F×10^E: I within ±10^6, F of at most 6 digits, E within ±30)", true},
		{`9007199254740993`, "json: offset 0: the generator does not make this input: number 9007199254740993 has no form JSON writes (I.F×10^E: I within ±10^6, F of at most 6 digits, E within ±30)", true},
		{`12345678901234567`, "json: offset 0: the generator does not make this input: number 12345678901234567 has no form JSON writes (I.F×10^E: I within ±10^6, F of at most 6 digits, E within ±30)", true},
	} {
		_, err := ReadJSON([]byte(tc.in), Options{})
		if err == nil || err.Error() != tc.want {
			t.Errorf("ReadJSON(%s) = %v, want %q", tc.in, err, tc.want)
			continue
		}
		if got := errors.Is(err, ErrNotGenerated); got != tc.notMade {
			t.Errorf("ReadJSON(%s): errors.Is(ErrNotGenerated) = %v", tc.in, got)
		}
	}
}

// TestLookupReader: json reads back, the others do not.
func TestLookupReader(t *testing.T) {
	for _, name := range Names() {
		_, ok := LookupReader(name)
		if ok != (name == "json") {
			t.Errorf("LookupReader(%q) = %v", name, ok)
		}
	}
}

// sameJSON reports whether a and b hold the same JSON value, numbers
// compared exactly.
func sameJSON(t testing.TB, a, b []byte) bool {
	t.Helper()
	decode := func(x []byte) any {
		d := json.NewDecoder(bytes.NewReader(x))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("decode %q: %v", x, err)
		}
		return exactNumbers(v)
	}
	return reflect.DeepEqual(decode(a), decode(b))
}

// exactNumbers replaces json.Numbers by their exact values as strings.
func exactNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		r, ok := new(big.Rat).SetString(string(x))
		if !ok {
			return string(x)
		}
		return r.RatString()
	case []any:
		for i := range x {
			x[i] = exactNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = exactNumbers(x[k])
		}
	}
	return v
}

// FuzzReadJSON: no panic on any input; an input read back regenerates,
// from its sequence, the same JSON value (encoding/json's reading,
// numbers exact), and reading that output gives it again byte for byte.
func FuzzReadJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x",null,true],"b":{"c":"\u00e9"}}`, `[1.05, -0, 1e3, "\t"]`, `"é\u00ff"`, `[[[[[0]]]]]`, `{"k":{"k":{"k":false}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		seq, err := ReadJSON(in, Options{})
		if err != nil {
			return
		}
		if !json.Valid(in) {
			t.Fatalf("invalid JSON %q read back", in)
		}
		out, _ := Run(JSON, seq, Options{})
		if !sameJSON(t, in, out) {
			t.Fatalf("%q regenerates %q: another value", in, out)
		}
		seq2, err := ReadJSON(out, Options{})
		if err != nil {
			t.Fatalf("output %q: %v", out, err)
		}
		if again, _ := Run(JSON, seq2, Options{}); !bytes.Equal(again, out) {
			t.Fatalf("output %q regenerates %q", out, again)
		}
	})
}
