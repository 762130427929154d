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
// grammar it accepts yields a generator that makes finite sentences.
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
		return
	}
	r := rand.New(rand.NewPCG(uint64(len(src)), 1))
	for range 4 {
		b := make([]byte, r.IntN(64))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		generators.Run(gen, generators.FromBytes(b), generators.Options{Dictionary: testDict})
	}
}

// FuzzGenerate: any choice sequence, as raw bytes, yields a sentence of
// the shipped JSON grammar that encoding/json accepts, the same one twice.
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
		in, _ := generators.Run(gen, generators.FromBytes(b), generators.Options{Dictionary: testDict})
		again, _ := generators.Run(gen, generators.FromBytes(b), generators.Options{Dictionary: testDict})
		if !bytes.Equal(in, again) {
			t.Fatalf("two sentences for one sequence: %q, %q", in, again)
		}
		if err := validJSON(in); err != nil {
			t.Fatalf("%v: %q", err, in)
		}
	})
}
