package grammar

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func mustRead(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestErrors: bad grammars give an *Error naming the file, line and
// column of the problem and saying what is wrong.
func TestErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"grammar G;\ns : a ;\n", "g.g4:2:5: undefined rule a (referenced in rule s)"},
		{"grammar G;\ns : 'x' T ;\n", "g.g4:2:9: undefined token T (referenced in rule s)"},
		{"grammar G;\ne : e '+' e ;\n", "g.g4:2:1: rule e cannot derive a finite sentence: every alternative refers to e itself (left recursion that cannot terminate"},
		{"grammar G;\ns : a ;\na : b 'x' ;\nb : a | s ;\n", "g.g4:2:1: rule s cannot derive a finite sentence: every alternative needs a, which cannot end"},
		{"grammar G;\ns : 'x'\n", "g.g4:3:1: expected \";\" at the end of rule s, got end of file"},
		{"grammar G;\ns : [a-z] ;\n", "g.g4:2:5: a character set [...] is allowed only in a lexer rule"},
		{"grammar G;\nA : [z-a] ;\n", "g.g4:2:6: empty range 'z'-'a'"},
		{"grammar G;\nA : 'a\\qb' ;\n", "g.g4:2:7: invalid escape \\q"},
		{"grammar G;\nA : 'abc ;\n", "g.g4:2:5: unterminated string literal"},
		{"grammar G;\ns : A ;\nA : 'a' {x = 1; ;\n", "g.g4:3:9: unterminated action"},
		{"grammar G;\nA : [\\p{Nope}] ;\n", "g.g4:2:6: unknown Unicode property \\p{Nope}"},
		{"grammar G;\nfragment s : 'x' ;\n", "g.g4:2:10: fragment s: only lexer rules"},
		{"grammar G;\ns : F ;\nfragment F : 'x' ;\n", "g.g4:2:5: parser rule s refers to fragment F"},
		{"grammar G;\ns : 'x' ;\ns : 'y' ;\n", "g.g4:3:1: rule s is defined twice (first at 2:1)"},
		{"lexer grammar L;\ns : 'x' ;\n", "g.g4:2:1: parser rule s in a lexer grammar"},
		{"grammar G;\nA : 'a' -> ;\n", "g.g4:2:12: expected a lexer command"},
		{"G;\n", "g.g4:1:1: expected a grammar declaration"},
		{"grammar G;\ns : 'x' ) ;\n", "g.g4:2:9: expected \";\" at the end of rule s, got \")\""},
		{"grammar G;\ns : ('x' ;\n", "g.g4:2:10: expected \")\" to close the ( at 2:5"},
		{"grammar G;\ns : 'x' ;\n/* open", "g.g4:3:1: unterminated comment"},
		{"grammar G;\ns : '' ;\n", "g.g4:2:5: empty string literal"},
		{"grammar G;\ns : 'a'..'z' ;\n", "g.g4:2:5: a character range is allowed only in a lexer rule"},
		{"grammar G;\nA : 'ab'..'z' ;\n", "g.g4:2:5: a range 'a'..'z' needs one character on each side"},
		{"grammar G;\ns : 'x' ;\n\xff", "g.g4:3:1: invalid UTF-8"},
		{"grammar G;\nA : B ;\nB : A ;\n", "g.g4:2:1: rule A cannot derive a finite sentence"},
		{"lexer grammar L;\nA : 'a' -> pushback ;\n", "g.g4:2:12: unknown lexer command pushback (ANTLR's are skip, more, popMode, channel(C), type(T), mode(M), pushMode(M))"},
		{"lexer grammar L;\nA : 'a' -> pushMode(NOPE) ;\n", "g.g4:2:12: lexer rule A switches to mode NOPE, which no lexer rule is in"},
		{"lexer grammar L;\nA : 'a' -> popMode(X) ;\n", "g.g4:2:19: lexer command popMode takes no argument"},
		{"lexer grammar L;\nA : 'a' -> type ;\n", "g.g4:2:12: lexer command type needs an argument: type(...)"},
		{"lexer grammar L;\nA : 'a' -> type(B) ;\n", "g.g4:2:1: lexer rule A: type(B) names no token"},
	} {
		_, err := Parse("g.g4", []byte(tc.src))
		var ge *Error
		if !errors.As(err, &ge) {
			t.Errorf("%q: expected an *Error, got %v", tc.src, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q:\n got %s\nwant %s...", tc.src, err, tc.want)
		}
	}
}

// TestGeneratorErrors: an unknown or ungeneratable start rule.
func TestGeneratorErrors(t *testing.T) {
	g, err := Parse("g.g4", []byte("grammar G;\ns : A ;\nA : 'a' ;\nfragment F : 'f' ;\nWS : ' ' -> skip ;\n"))
	if err != nil {
		t.Fatal(err)
	}
	for start, want := range map[string]string{
		"nope": "grammar G: no rule nope to start from",
		"F":    "grammar G: cannot start from F, a fragment or skipped token",
		"WS":   "grammar G: cannot start from WS, a fragment or skipped token",
	} {
		if _, err := g.Generator(Options{Start: start}); err == nil || err.Error() != want {
			t.Errorf("Start %q: got %v, want %s", start, err, want)
		}
	}
	if _, err := Load("testdata/missing.g4"); err == nil || !strings.Contains(err.Error(), "read grammar testdata/missing.g4") {
		t.Errorf("missing file: got %v", err)
	}
}
