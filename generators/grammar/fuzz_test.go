package grammar

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
)

// FuzzParse: the reader never panics; a grammar it refuses gets an *Error
// whose position lies inside the text (line ≤ lines+1, column ≥ 1); a
// grammar it accepts yields a generator, unless it has nothing to generate
// (the one documented refusal), that makes finite, non-nil, deterministic
// sentences (checkRun).
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob("../grammars/*.g4")
	more, _ := filepath.Glob("testdata/*.g4")
	modes, _ := filepath.Glob("testdata/modes/*Lexer.g4")
	for _, p := range append(append(paths, more...), modes...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"grammar G;\ns : A* | B ;\nA : [a-z\\u0041]+ ;\nB : ~[\"] 'x'..'z' . ;\n",
		"lexer grammar L;\nA : 'a' -> skip ;\nmode M;\nB : 'b' -> popMode ;\n",
		"lexer grammar L;\nA : '<' -> pushMode(M) ;\nT : ~'<'+ ;\nmode M;\nB : '>' -> popMode ;\nC : '\"' -> more, mode(S) ;\nmode S;\nD : '\"' -> type(T), mode(M) ;\nE : . -> more ;\n",
		"grammar G;\ns : e EOF ;\ne : e '*' e | '(' e ')' | INT ;\nINT : '0' | [1-9] [0-9]* ;\nWS : [ \\t]+ -> channel(HIDDEN) ;\n",
		"grammar G; options { k = v; } tokens { T } @header { } s : x+=A? y=B*? (C | D)+? ~A ; A:'a'; B:'b'; C:'c'; D:'d';",
		// nothing to generate: the generator's documented refusal
		"lexer grammar L;\nfragment D : [0-9] ;\nWS : ' ' -> skip ;\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkParse)
}

// checkParse is FuzzParse's check of one input.
func checkParse(t *testing.T, src []byte) {
	g, err := Parse("f.g4", src)
	if err != nil {
		var ge *Error
		if !errors.As(err, &ge) {
			t.Fatalf("error without a position: %v", err)
		}
		lines := bytes.Count(src, []byte("\n")) + 1
		if ge.Pos.Line < 1 || ge.Pos.Line > lines || ge.Pos.Col < 1 || ge.File != "f.g4" {
			t.Fatalf("position %d:%d outside the text (%d lines): %v", ge.Pos.Line, ge.Pos.Col, lines, err)
		}
		return
	}
	gen, err := g.Generator(Options{MaxSize: 60})
	if err != nil {
		// The one documented refusal with the default start: a lexer
		// grammar without a token to generate.
		if want := "grammar " + g.name + ": no token to generate"; err.Error() != want || g.first != nil || g.hasToken() {
			t.Fatalf("unexpected generator error: %v", err)
		}
		return
	}
	r := rand.New(rand.NewPCG(uint64(len(src)), 1))
	for range 4 {
		b := make([]byte, r.IntN(64))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		checkRun(t, gen, b)
	}
}

// hasToken reports whether g has a lexer rule a lexer-grammar generator can
// emit (neither a fragment nor skipped).
func (g *Grammar) hasToken() bool {
	for _, r := range g.rules {
		if r.lexer && !r.fragment && !r.hidden {
			return true
		}
	}
	return false
}

// checkRun runs gen on the choice sequence b twice and on the sequence the
// first run used, and returns the sentence: the three runs must give the
// same non-nil sentence, and the two runs from b equal used sequences
// (generators.Runner.Run's promise).
func checkRun(t *testing.T, gen generators.Generator, b []byte) []byte {
	t.Helper()
	opts := generators.Options{Dictionary: testDict}
	in, used := generators.Run(gen, generators.FromBytes(b), opts)
	again, usedAgain := generators.Run(gen, generators.FromBytes(b), opts)
	if in == nil {
		t.Fatalf("nil sentence for %x", b)
	}
	if !bytes.Equal(in, again) {
		t.Fatalf("two sentences for one sequence: %q, %q", in, again)
	}
	if !used.Equal(usedAgain) {
		t.Fatalf("two used sequences for one sequence %x", b)
	}
	if replay, _ := generators.Run(gen, used, opts); !bytes.Equal(replay, in) {
		t.Fatalf("replaying the used sequence: expected %q, got %q", in, replay)
	}
	return in
}

// FuzzGenerate: any choice sequence, as raw bytes, yields a non-nil
// sentence of the shipped JSON grammar that encoding/json accepts, the same
// one twice and again from the sequence the run used (checkRun).
func FuzzGenerate(f *testing.F) {
	g, err := Load("../grammars/JSON.g4")
	if err != nil {
		f.Fatal(err)
	}
	gen, err := g.Generator(Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte{})
	f.Add([]byte("\x00\x01\x02\xff\xfe"))
	f.Add(bytes.Repeat([]byte{0xff}, 300))
	f.Fuzz(func(t *testing.T, b []byte) {
		in := checkRun(t, gen, b)
		if err := validJSON(in); err != nil {
			t.Fatalf("%v: %q", err, in)
		}
	})
}

// FuzzTokenize: the lexer never panics; its pieces are non-empty and
// follow one another from the start of the text to its end or to the
// error's offset; and a piece it says is decided when the text stops at
// a cut is the piece it reads there in the whole text (what the
// generator's separators rely on).
func FuzzTokenize(f *testing.F) {
	markup := mustLoad(f, "testdata/modes/MarkupParser.g4")
	template := mustLoad(f, "testdata/modes/TemplateParser.g4")
	calc := mustLoad(f, "testdata/Calc.g4")
	for _, s := range []string{
		"<?pi x?><a b='c' d=e><!--n-->t&amp;<![CDATA[x]]></a>",
		"{{ f(\"a\\\"b\", 1) + x // c\n}} text {# note #}",
		"A1 ** -2 /* c */ , \"s\" // x",
		"",
	} {
		f.Add(byte(len(s)/2), []byte(s))
	}
	f.Fuzz(func(t *testing.T, cut byte, text []byte) {
		for _, g := range []*Grammar{markup, template, calc} {
			whole, _, werr := g.lx.tokenize(text, nil, true)
			end := checkPieces(t, whole)
			if werr != nil {
				if le, ok := werr.(*lexError); !ok || le.pos < end || le.pos > len(text) {
					t.Fatalf("error %v after pieces ending at %d", werr, end)
				}
			} else if end != len(text) {
				t.Fatalf("pieces end at %d of %d with no error", end, len(text))
			}
			k := int(cut) % (len(text) + 1)
			part, _, _ := g.lx.tokenize(text[:k], nil, false)
			checkPieces(t, part)
			var all []piece
			for _, tk := range whole {
				all = append(all, tk.pieces...)
			}
			i := 0
			for _, tk := range part {
				for _, p := range tk.pieces {
					if !p.decided {
						return // what follows depends on the rest of the text
					}
					if i >= len(all) || all[i] != (piece{alt: p.alt, start: p.start, end: p.end, decided: true}) {
						t.Fatalf("piece %d decided at cut %d as %s [%d,%d), the whole text reads otherwise", i, k, p.alt.typ, p.start, p.end)
					}
					i++
				}
			}
		}
	})
}

// checkPieces checks that the pieces are non-empty and contiguous from 0,
// and returns where they end.
func checkPieces(t *testing.T, toks []lexToken) int {
	end := 0
	for _, tk := range toks {
		for _, p := range tk.pieces {
			if p.start != end || p.end <= p.start {
				t.Fatalf("piece [%d,%d) after %d", p.start, p.end, end)
			}
			end = p.end
		}
	}
	return end
}
