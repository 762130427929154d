package engine

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseDict(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
		err  string
	}{
		{"afl and libfuzzer forms", "# comment\n\nkw1=\"foo\"\n\"bar\"\n  kw_2@3 = \"b\\\"a\\\\z\"\n", []string{"foo", "bar", `b"a\z`}, ""},
		{"hex escapes", `"\x00\xFFa\x41"`, []string{"\x00\xffaA"}, ""},
		{"empty token", `x=""`, []string{""}, ""},
		{"crlf and trailing space", "\"a\" \r\n\"b\"\r\n", []string{"a", "b"}, ""},
		{"literal bytes kept", "\"a b\t\xff\"", []string{"a b\t\xff"}, ""},
		{"no quotes", "foo\n", nil, "line 1: expected a quoted value, got \"foo\""},
		{"no closing quote", "\n\"abc\n", nil, "line 2: expected closing quote"},
		{"bad escape", `"\n"`, nil, `line 1: expected \\, \" or \xNN, got \n`},
		{"bad hex", `"\x4g"`, nil, `line 1: expected two hex digits after \x, got "4g"`},
		{"short hex", `"\x4"`, nil, `line 1: expected two hex digits after \x, got "4\""`},
		{"hex at end", `"\x4`, nil, `line 1: expected two hex digits after \x`},
		{"trailing garbage", `"a" b`, nil, `line 1: expected end of line after closing quote, got "b"`},
		{"missing equals", `kw "a"`, nil, `line 1: expected name="value", got "kw \"a\""`},
		{"bad name", `k!w="a"`, nil, `line 1: expected a keyword name, got "k!w="`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDict([]byte(tc.in))
			if tc.err != "" {
				var de *DictError
				if !errors.As(err, &de) || err.Error() != tc.err || !strings.HasPrefix(tc.err, fmt.Sprintf("line %d: ", de.Line)) {
					t.Fatalf("expected error %q, got %v", tc.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("expected %q, got %q", tc.want, got)
			}
			for i := range got {
				if string(got[i]) != tc.want[i] {
					t.Fatalf("token %d: expected %q, got %q", i, tc.want[i], got[i])
				}
			}
		})
	}
}

// FuzzParseDict: the parser never panics, and whatever it accepts formats
// and parses back to the same tokens.
func FuzzParseDict(f *testing.F) {
	f.Add([]byte("kw=\"foo\"\n\"\\x00\\\\\\\"\"\n# c\n"))
	f.Add([]byte(`"a" b`))
	f.Add([]byte("\"\\x"))
	f.Add(FormatDict([][]byte{{0, 1, '"', '\\', 0x7f, 'a'}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		toks, err := ParseDict(data)
		if err != nil {
			return
		}
		again, err := ParseDict(FormatDict(toks))
		if err != nil {
			t.Fatalf("formatted dictionary does not parse: %v", err)
		}
		if len(again) != len(toks) {
			t.Fatalf("expected %d tokens, got %d", len(toks), len(again))
		}
		for i := range toks {
			if !bytes.Equal(toks[i], again[i]) {
				t.Fatalf("token %d: expected %q, got %q", i, toks[i], again[i])
			}
		}
	})
}
