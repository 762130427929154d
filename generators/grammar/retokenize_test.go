package grammar

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
)

// retokenizeGrammars are the grammars of the re-tokenising property: the
// shipped ones and test grammars using modes (pushed, popped and set),
// more across modes, type(), islands, hidden channels and skip rules, and
// alternatives with different commands.
var retokenizeGrammars = append(append([]string{}, shipped...),
	"testdata/Calc.g4",
	"testdata/CSV.g4",
	"testdata/split/KVParser.g4",
	"testdata/modes/MarkupParser.g4",
	"testdata/modes/TemplateParser.g4",
)

// retokenize generates a sentence with its tokens and reads it back with
// the grammar's lexer from the default mode; it returns nil when the
// lexer gives the same visible tokens (types and texts) in the same
// order, else the difference.
func retokenize(c *gen, seq *generators.Sequence, opts generators.Options) ([]byte, error) {
	var out []byte
	var made []genToken
	generators.Run(func(s *generators.Source) []byte {
		out, made = c.sentence(s, true)
		return out
	}, seq, opts)
	toks, _, err := c.g.lx.tokenize(out, nil, true)
	if err != nil {
		return out, err
	}
	var got []genToken
	for _, t := range toks {
		if t.hidden() {
			continue
		}
		got = append(got, genToken{typ: t.typ(), text: string(out[t.pieces[0].start:t.pieces[len(t.pieces)-1].end])})
	}
	for i := range max(len(got), len(made)) {
		switch {
		case i >= len(got):
			return out, fmt.Errorf("token %d: made %s %q, the lexer reads no more", i, made[i].typ, made[i].text)
		case i >= len(made):
			return out, fmt.Errorf("token %d: the lexer reads %s %q after the last one made", i, got[i].typ, got[i].text)
		case got[i] != made[i]:
			return out, fmt.Errorf("token %d: made %s %q, the lexer reads %s %q", i, made[i].typ, made[i].text, got[i].typ, got[i].text)
		}
	}
	return out, nil
}

// TestRetokenize: sentences read back with the grammar's own lexer (as
// ANTLR's runs: longest match, first rule on ties, modes, more, skip and
// channels) give the tokens the generator made, for all but at most 0.5 %
// of 1,000 random sequences (300 with -short; every second one with a
// dictionary) on each grammar of retokenizeGrammars. The misses are
// tokens whose rule overlaps an earlier one (INI's INT and POSITIVE)
// when all maxTokenTries derivations fall in the overlap.
func TestRetokenize(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 300
	}
	for _, p := range retokenizeGrammars {
		t.Run(p, func(t *testing.T) {
			c, err := mustLoad(t, p).compile(Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(44, 1))
			bad := 0
			for i := range n {
				opts := generators.Options{}
				if i%2 == 1 {
					opts.Dictionary = testDict
				}
				out, err := retokenize(c, randomSeq(r), opts)
				if err != nil {
					if bad < 3 {
						t.Logf("%q: %v", out, err)
					}
					bad++
				}
			}
			t.Logf("%s: %d of %d sentences read back as made", p, n-bad, n)
			if bad > n/200 {
				t.Errorf("%d of %d sentences read otherwise, expected at most %d", bad, n, n/200)
			}
		})
	}
}

// TestLexer: the lexer reads texts as ANTLR's does.
func TestLexer(t *testing.T) {
	markup := mustLoad(t, "testdata/modes/MarkupParser.g4")
	for _, tc := range []struct {
		name string
		g    *Grammar
		text string
		want string // visible tokens TYPE:text, space-separated; ! and the message on an error
	}{
		{"first rule wins a tie", lexerOf(t, "IF : 'if' ; ID : [a-z]+ ; WS : ' ' -> skip ;"), "if iff", "IF:if ID:iff"},
		{"longest match", lexerOf(t, "A : 'a' ; AA : 'aa' ; WS : ' ' -> skip ;"), "aaa a", "AA:aa A:a A:a"},
		{"non-greedy stops at its first match", lexerOf(t, "C : '/*' .*? '*/' ; S : '/' ; T : '*' ; X : [a-z] ;"), "/*a*/b*/", "C:/*a*/ X:b T:* S:/"},
		{"back to the last accept", lexerOf(t, "A : 'ab' ; B : 'abcd' ; C : 'c' ; E : 'e' ;"), "abce", "A:ab C:c E:e"},
		{"EOF in a rule", lexerOf(t, "ID : [a-z]+ ; LC : '#' ~[\\n]* ('\\n' | EOF) -> skip ;"), "ab#x\ncd#y", "ID:ab ID:cd"},
		{"alternatives with different commands", lexerOf(t, "tokens { X, // a comment, with a comma\n TAB /* another */ } ID : [a-z]+ ; WS : ' ' -> skip | '\\t' -> type(TAB) ;"), "a\tb c", "ID:a TAB:\t ID:b ID:c"},
		{"case-insensitive literals", lexerOf(t, "options { caseInsensitive = true; } SELECT : 'select' ; ID : [a-z]+ ; WS : ' ' -> skip ;"), "SeLeCt Selects", "SELECT:SeLeCt ID:Selects"},
		{"popMode with nothing pushed", lexerOf(t, "A : 'a' -> popMode ;"), "a", "! popMode with no mode pushed"},
		{"no rule matches", lexerOf(t, "A : 'a' ;"), "ab", "A:a ! no lexer rule matches 'b'"},
		{"modes, more and channels", markup, `<?pi x?><a b='c' d=e><!--n-->t&amp;</a>`,
			"PROC:<?pi x?> OPEN:< NAME:a NAME:b EQ:= STRING:'c' NAME:d EQ:= STRING:e CLOSE:> TEXT:t ENTITY:&amp; OPEN_END:</ NAME:a CLOSE:>"},
	} {
		toks, _, err := tc.g.lx.tokenize([]byte(tc.text), nil, true)
		var got []string
		for _, tk := range toks {
			if !tk.hidden() {
				got = append(got, tk.typ()+":"+tc.text[tk.pieces[0].start:tk.pieces[len(tk.pieces)-1].end])
			}
		}
		if err != nil {
			got = append(got, "! "+err.(*lexError).msg)
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("%s: %q reads\n %s\nwant\n %s", tc.name, tc.text, s, tc.want)
		}
	}
}

func lexerOf(t *testing.T, rules string) *Grammar {
	t.Helper()
	g, err := Parse("l.g4", []byte("lexer grammar L;\n"+rules+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestLexerEmptyLoop: empty matches switching modes back and forth end in
// an error instead of a loop.
func TestLexerEmptyLoop(t *testing.T) {
	g := lexerOf(t, "A : 'a' ; B : -> mode(M) ;\nmode M;\nC : -> mode(DEFAULT_MODE) ;")
	toks, _, err := g.lx.tokenize([]byte("ab"), nil, true)
	if err == nil || !strings.Contains(err.Error(), "again and again") {
		t.Fatalf("got %d tokens, error %v", len(toks), err)
	}
}

// TestLexerRecursionBound: a rule nested in itself through many
// references (exponential when inlined) still gets a lexer, shallower:
// one level of nesting reads.
func TestLexerRecursionBound(t *testing.T) {
	alts := strings.Repeat(" | G", 29)
	g := lexerOf(t, "G : '(' (G"+alts+")* ')' | 'x' ;")
	toks, _, err := g.lx.tokenize([]byte("(xx)x"), nil, true)
	if err != nil || len(toks) != 2 || toks[0].typ() != "G" || toks[0].pieces[0].end != 4 {
		t.Fatalf("got %d tokens, error %v", len(toks), err)
	}
	if n := len(g.lx.dfa(0).nfa); n > 2*maxNFAStates {
		t.Errorf("NFA of %d states", n)
	}
}
