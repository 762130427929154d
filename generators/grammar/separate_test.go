package grammar

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/wafer-fuzz/wafer/generators"
)

// sentences generates n sentences of a combined grammar given as text.
func sentences(t *testing.T, src string, n int) []string {
	t.Helper()
	g, err := Parse("t.g4", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	gen, err := g.Generator(Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(44, 2))
	out := make([]string, n)
	for i := range out {
		b, _ := generators.Run(gen, randomSeq(r), generators.Options{})
		out[i] = string(b)
	}
	return out
}

// TestSeparatorWords: touching word characters get whitespace although
// the grammar's lexer reads them apart (Lua's 2and).
func TestSeparatorWords(t *testing.T) {
	for _, s := range sentences(t, "grammar G; s : (INT ID)+ ; INT : [0-9]+ ; ID : [a-z]+ ; WS : ' ' -> skip ;", 200) {
		for _, w := range strings.Split(s, " ") {
			if strings.IndexAny(w, "0123456789") >= 0 && strings.IndexAny(w, "abcdefghijklmnopqrstuvwxyz") >= 0 {
				t.Fatalf("%q: digits and letters touch in %q", s, w)
			}
		}
	}
}

// TestSeparatorMerge: two whitespace tokens that only a comment-like
// skipped text could keep apart are written as one (XML's misc* of
// SEA_WS and its DTD rule), never with that text.
func TestSeparatorMerge(t *testing.T) {
	seen := false
	for _, s := range sentences(t, "grammar G; s : (SP | X)* EOF ; SP : ' '+ ; X : 'x' ; D : '<!' .*? '>' -> skip ;", 300) {
		if strings.Contains(s, "<!") {
			t.Fatalf("%q: a comment-like separator", s)
		}
		seen = seen || strings.Contains(s, "  ")
	}
	if !seen {
		t.Error("no sentence with two spaces in a row: the test does not reach the merge")
	}
}

// TestGatedAlternatives: an alternative behind a semantic predicate or
// ending the input is taken only when nothing else is possible.
func TestGatedAlternatives(t *testing.T) {
	for _, s := range sentences(t, "grammar G; s : (e A)+ ; e : B | {this.p()}? C | EOF ; A : 'a' ; B : 'b' ; C : 'c' ;", 200) {
		if strings.Contains(s, "c") || strings.Contains(s, "aa") || strings.HasPrefix(s, "a") {
			t.Fatalf("%q: a gated alternative taken", s)
		}
	}
}

// TestGatedCycle: a rule whose only way out of a cycle is gated still
// ends once the size limit is reached (HyperTalk.g4 of grammars-v4 overflowed
// the stack: the ungated alternative, preferred, led round the cycle).
func TestGatedCycle(t *testing.T) {
	g, err := Parse("t.g4", []byte("grammar G; s : A A a ; a : B a | {this.p()}? ; A : 'a' ; B : 'b' ;"))
	if err != nil {
		t.Fatal(err)
	}
	gen, err := g.Generator(Options{MaxSize: 1}) // minimal derivations from the first token on
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(44, 3))
	for range 50 {
		b, _ := generators.Run(gen, randomSeq(r), generators.Options{})
		if s := string(b); !strings.HasPrefix(s, "aa") || strings.Trim(s[2:], "b") != "" {
			t.Fatalf("%q: not a sentence of the grammar", s)
		}
	}
}

// TestOffside: INDENT and DEDENT declared without a rule indent the lines
// of a block one level deeper than the line opening it.
func TestOffside(t *testing.T) {
	src := `grammar P;
tokens { INDENT, DEDENT }
file : stmt+ EOF ;
stmt : X NEWLINE | IF ':' NEWLINE INDENT stmt+ DEDENT ;
IF : 'if' ; X : 'x' ;
NEWLINE : '\n' ' '* ;
WS : ' '+ -> skip ;
`
	nested := false
	for _, s := range sentences(t, src, 200) {
		// each line's indentation: 4 spaces more after a line ending in
		// ':', else at most that of the line before
		prev := -1
		opens := false
		for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
			ind := len(line) - len(strings.TrimLeft(line, " "))
			switch {
			case ind%4 != 0,
				opens && ind != prev+4,
				!opens && prev >= 0 && ind > prev:
				t.Fatalf("%q: line %q indented %d after %d", s, line, ind, prev)
			}
			nested = nested || ind >= 8
			prev, opens = ind, strings.HasSuffix(line, ":")
		}
	}
	if !nested {
		t.Error("no block nested two deep")
	}
}

// TestPredicatedLexerAlternative: the lexer reads an alternative behind a
// predicate only when its rule has no other (Python3Lexer's NEWLINE :
// {this.atStartOfInput()}? SPACES | '\n' SPACES?), so a space between two
// names is a skipped separator, not that rule's token: the sentences read
// back as made, and two names are kept apart by a space (not written as
// one name for want of a separator).
func TestPredicatedLexerAlternative(t *testing.T) {
	g, err := Parse("t.g4", []byte("grammar G; s : (ID | NL)+ ; NL : ({this.p()}? ' '+ | '\\n' ' '*) ; ID : [a-z]+ ; WS : ' '+ -> skip ;"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := g.compile(Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(44, 5))
	spaced := false
	for range 200 {
		out, err := retokenize(c, randomSeq(r), generators.Options{})
		if err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		spaced = spaced || twoNames.Match(out)
	}
	if !spaced {
		t.Error("no two names apart in any sentence")
	}
}

var twoNames = regexp.MustCompile(`[a-z] +[a-z]`)

// TestUnencodableSets: a lexer alternative of surrogates only (JavaLexer's
// [\uD800-\uDBFF] [\uDC00-\uDFFF], for UTF-16 input) is never generated:
// UTF-8 cannot encode it and ANTLR's lexer, reading code points, never
// matches it.
func TestUnencodableSets(t *testing.T) {
	g, err := Parse("t.g4", []byte("grammar G; s : ID+ ; ID : ([a-z] | [\\uD800-\\uDBFF] [\\uDC00-\\uDFFF])+ ; WS : ' ' -> skip ;"))
	if err != nil {
		t.Fatal(err)
	}
	gen, err := g.Generator(Options{WideChars: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(44, 3))
	for range 200 {
		b, _ := generators.Run(gen, randomSeq(r), generators.Options{})
		if !utf8.Valid(b) || strings.ContainsRune(string(b), utf8.RuneError) {
			t.Fatalf("%q: a surrogate written", b)
		}
	}
}

// TestWideCharacters: a wide token's characters beyond printable ASCII are
// mostly graphic (a letter of another script, a symbol), though most code
// points of the whole range are not: a quarter of its draws come from the
// set's graphic part. (Drawing from the whole range alone gave three
// others for one graphic.)
func TestWideCharacters(t *testing.T) {
	g, err := Parse("t.g4", []byte("grammar G; s : ID+ ; ID : ~[ ]+ ; WS : ' ' -> skip ;"))
	if err != nil {
		t.Fatal(err)
	}
	gen, err := g.Generator(Options{WideChars: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(44, 4))
	var graphic, other int
	for range 300 {
		b, _ := generators.Run(gen, randomSeq(r), generators.Options{})
		for _, c := range string(b) {
			switch {
			case c < 0x80:
			case unicode.IsGraphic(c):
				graphic++
			default:
				other++
			}
		}
	}
	if graphic+other < 100 || graphic <= other {
		t.Errorf("%d graphic and %d other characters beyond ASCII, expected more graphic", graphic, other)
	}
}
