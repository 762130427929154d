package grammar

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
)

// TestProfileRoundTrip: with a profile learned from generated sentences,
// each of those sentences still reads back into a sequence that
// regenerates it byte for byte, and what the profiled generator makes
// its lexer reads back as made (retokenize), over every grammar of
// retokenizeGrammars.
func TestProfileRoundTrip(t *testing.T) {
	for _, path := range retokenizeGrammars {
		t.Run(path, func(t *testing.T) {
			g := mustLoad(t, path)
			c := mustCompile(t, g, Options{})
			r := rand.New(rand.NewPCG(44, 1))
			var names []string
			var sample [][]byte
			for len(sample) < 40 {
				out, err := retokenize(c, randomSeq(r), generators.Options{})
				if err == nil {
					names = append(names, "s")
					sample = append(sample, out)
				}
			}
			ss, err := g.ReadSeeds(Options{}, names, sample)
			if err != nil {
				t.Fatal(err)
			}
			if len(ss.Parsed) != len(sample) {
				t.Fatalf("%d of %d generated sentences parse: %v", len(ss.Parsed), len(sample), ss.Failed)
			}
			ls, err := ss.Learned()
			if err != nil {
				t.Fatal(err)
			}
			if ls.Options.Profile == nil || ls.Options.Profile.Sentences() != len(sample) {
				t.Fatalf("the learned seeds' profile: %+v", ls.Options.Profile)
			}
			for _, s := range ls.Parsed {
				q, err := ls.ReadSeed(s, generators.Options{})
				if err != nil {
					t.Errorf("%q: %v", s, err)
					continue
				}
				if again, _ := generators.Run(ls.Generator, q, generators.Options{}); !bytes.Equal(again, s) {
					t.Errorf("%q regenerates with the profile as %q", s, again)
				}
			}
			lc := mustCompile(t, g, ls.Options)
			bad := 0
			for range 100 {
				if out, err := retokenize(lc, randomSeq(r), generators.Options{}); err != nil {
					bad++
					t.Logf("%q: %v", out, err)
				}
			}
			// the lexer's reading fails as often as without a profile
			// at most: a few sentences of the published grammars
			if bad > 10 {
				t.Errorf("%d of 100 profiled sentences are read otherwise by the lexer", bad)
			}
		})
	}
}

func mustCompile(t *testing.T, g *Grammar, opts Options) *gen {
	t.Helper()
	c, err := g.compile(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestProfileFollowsSample: the profiled generator takes alternatives,
// repetition counts and token texts about as often as the sample did,
// and still sometimes those it never did (every choice keeps a weight);
// without a profile the draws are uniform.
func TestProfileFollowsSample(t *testing.T) {
	// 30 sentences of three items each: 'a', then a name, then 'a'
	g, ls := learnFrom(t, `grammar P;
s : item (',' item)* ';' ;
item : 'a' | 'b' | ID | NUM ;
ID : [a-z]+ ;
NUM : [0-9]+ ;
WS : ' ' -> skip ;
`, func(i int) string { return "a," + []string{"zeta", "kappa"}[i%2] + ",a;" })
	count := func(gen generators.Generator) (items, as, names, known, three int) {
		r := rand.New(rand.NewPCG(1, 2))
		for range 2000 {
			out, _ := generators.Run(gen, randomSeq(r), generators.Options{})
			parts := strings.Split(strings.TrimSuffix(string(out), ";"), ",")
			if len(parts) == 3 {
				three++
			}
			for _, p := range parts {
				items++
				switch {
				case p == "a":
					as++
				case p == "zeta" || p == "kappa":
					known++
					names++
				case p != "b" && p != "" && p[0] >= 'a' && p[0] <= 'z':
					names++
				}
			}
		}
		return
	}
	items, as, names, known, three := count(ls.Generator)
	t.Logf("profiled: %d items, %d a, %d names (%d known), %d of 2000 with three", items, as, names, known, three)
	// the sample: 2 of 3 items 'a', 1 of 3 a name; every sentence three
	if f := float64(as) / float64(items); f < 0.5 || f > 0.8 {
		t.Errorf("profiled: 'a' is %.2f of the items, the sample's 0.67", f)
	}
	if f := float64(three) / 2000; f < 0.6 {
		t.Errorf("profiled: %.2f of the sentences have three items, all of the sample's", f)
	}
	if names == 0 || float64(known)/float64(names) < 0.15 {
		t.Errorf("profiled: %d of %d names are the sample's", known, names)
	}
	if as == items {
		t.Errorf("profiled: only 'a': smoothing keeps the other alternatives")
	}
	items, as, _, _, three = count(mustGenerator(t, g, Options{}))
	if f := float64(as) / float64(items); f < 0.15 || f > 0.35 {
		t.Errorf("uniform: 'a' is %.2f of the items, expected about 0.25", f)
	}
	if f := float64(three) / 2000; f > 0.4 {
		t.Errorf("uniform: %.2f of the sentences have three items", f)
	}

	// a profile belongs to its grammar
	other, err := Parse("Q.g4", []byte("grammar Q;\ns : 'q' ;\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Generator(ls.Options); err == nil || !strings.Contains(err.Error(), "profile learned with grammar P") {
		t.Errorf("a profile of another grammar: %v", err)
	}
}

func mustGenerator(t *testing.T, g *Grammar, opts Options) generators.Generator {
	t.Helper()
	gen, err := g.Generator(opts)
	if err != nil {
		t.Fatal(err)
	}
	return gen
}

// TestProfileContexts: a choice is learned where it is made, by the two
// references that called its rule (the same rule takes other choices on
// the left and on the right of '=', in the first and in the second
// pair), and a token's text by its place in a list (the first name of
// the sample's lists is always "alpha", the others never).
func TestProfileContexts(t *testing.T) {
	g, ls := learnFrom(t, `grammar C;
s : pair ';' pair ';' names ;
pair : key '=' key ;
key : 'x' | 'y' | 'z' ;
names : NAME+ ;
NAME : [a-z]+ ;
WS : ' ' -> skip ;
`, func(i int) string { return "x=y;z=x;alpha " + []string{"beta", "gamma delta"}[i%2] })
	count := func(gen generators.Generator) (pairs, first, later, laterAlpha int) {
		r := rand.New(rand.NewPCG(3, 4))
		for range 1000 {
			out, _ := generators.Run(gen, randomSeq(r), generators.Options{})
			if bytes.HasPrefix(out, []byte("x=y;z=x;")) {
				pairs++
			}
			_, list, _ := bytes.Cut(out, []byte("=x;"))
			names := strings.Fields(string(list))
			if len(names) > 0 && names[0] == "alpha" {
				first++
			}
			for _, n := range names[min(1, len(names)):] {
				later++
				if n == "alpha" {
					laterAlpha++
				}
			}
		}
		return
	}
	pairs, first, later, laterAlpha := count(ls.Generator)
	t.Logf("profiled: %d of 1000 with the sample's pairs, %d first names alpha, %d of %d later ones", pairs, first, laterAlpha, later)
	// by the caller rule alone, key would be x half the time wherever it
	// stands: the four keys as in the sample about 1/16 of the time
	if pairs < 700 {
		t.Errorf("profiled: %d of 1000 sentences begin with the sample's pairs", pairs)
	}
	if first < 800 {
		t.Errorf("profiled: %d of 1000 lists begin with alpha, as every list of the sample", first)
	}
	if later == 0 || laterAlpha*5 > later {
		t.Errorf("profiled: %d of %d names after the first are alpha, none of the sample's", laterAlpha, later)
	}
	pairs, first, _, _ = count(mustGenerator(t, g, Options{}))
	if pairs > 50 || first > 50 {
		t.Errorf("uniform: %d sentences with the sample's pairs, %d lists begin with alpha", pairs, first)
	}
}

// learnFrom parses the grammar src and returns it and its seeds learned
// from the 30 sentences sentence(0..29), all of which must parse.
func learnFrom(t *testing.T, src string, sentence func(i int) string) (*Grammar, *Seeds) {
	t.Helper()
	g, err := Parse("T.g4", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var sample [][]byte
	for i := range 30 {
		sample = append(sample, []byte(sentence(i)))
	}
	ss, err := g.ReadSeeds(Options{}, nil, sample)
	if err != nil || len(ss.Parsed) != len(sample) {
		t.Fatalf("sample: %v %v", err, ss.Failed)
	}
	ls, err := ss.Learned()
	if err != nil {
		t.Fatal(err)
	}
	return g, ls
}
