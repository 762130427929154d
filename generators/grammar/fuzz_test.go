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
	for _, p := range append(paths, more...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"grammar G;\ns : A* | B ;\nA : [a-z\\u0041]+ ;\nB : ~[\"] 'x'..'z' . ;\n",
		"lexer grammar L;\nA : 'a' -> skip ;\nmode M;\nB : 'b' -> popMode ;\n",
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
