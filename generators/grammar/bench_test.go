package grammar

import (
	"math/rand/v2"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
)

// BenchmarkGenerate runs each shipped grammar's generator, and the
// built-in JSON generator for comparison, on 256 prepared random
// sequences (one Runner, as a worker has):
//
//	go test ./generators/grammar -run '^$' -bench Generate -count 6
func BenchmarkGenerate(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	seqs := make([]*generators.Sequence, 256)
	for i := range seqs {
		seqs[i] = randomSeq(r)
	}
	cases := []struct {
		name string
		gen  generators.Generator
	}{{"builtin-json", generators.JSON}}
	for _, p := range shipped {
		cases = append(cases, struct {
			name string
			gen  generators.Generator
		}{p[len("../grammars/"):], mustGen(b, mustLoad(b, p), Options{})})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			runner := generators.NewRunner(c.gen, generators.Options{})
			n, i := 0, 0
			for b.Loop() {
				in, _ := runner.Run(seqs[i%len(seqs)])
				n += len(in)
				i++
			}
			b.ReportMetric(float64(n)/float64(i), "bytes/sentence")
		})
	}
}

// TestMatches: the matcher behind dictionary feeding and separator choice
// accepts exactly the strings a lexer rule derives.
func TestMatches(t *testing.T) {
	g, err := Parse("m.g4", []byte(`lexer grammar M;
NUM : '-'? DIGIT+ ('.' DIGIT+)? ;
ID : [a-zA-Z_\u00e9] [a-zA-Z_0-9]* ;
STR : '"' (~["\\] | '\\' .)* '"' ;
KW : 'select' | 'from' ;
fragment DIGIT : '0'..'9' ;
WS : [ \t]+ -> skip ;
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rule, text string
		want       bool
	}{
		{"NUM", "12", true}, {"NUM", "-3.25", true}, {"NUM", "3.", false}, {"NUM", "", false}, {"NUM", "1e3", false},
		{"ID", "é_1", true}, {"ID", "1a", false}, {"ID", "a b", false},
		{"STR", `"a\"b"`, true}, {"STR", `"a"b"`, false}, {"STR", `""`, true},
		{"KW", "select", true}, {"KW", "selectfrom", false},
		{"WS", " \t ", true}, {"WS", "", false},
	} {
		if got := matches(g.byName[tc.rule], []rune(tc.text)); got != tc.want {
			t.Errorf("%s matches %q: got %v, want %v", tc.rule, tc.text, got, tc.want)
		}
	}
}
