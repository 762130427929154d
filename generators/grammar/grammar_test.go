package grammar

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	goparser "go/parser"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
)

// testDict has entries that some lexer rules of the test grammars match
// and some that none does.
var testDict = [][]byte{
	[]byte("SELECT"), []byte("12345"), []byte(`"quoted"`), []byte("x y"), []byte("\xff\xfe"),
	[]byte("Name_1"), []byte("true"), []byte("a\"b"), {0x2a, 0, 0, 0},
}

func mustLoad(t testing.TB, path string) *Grammar {
	t.Helper()
	g, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustGen(t testing.TB, g *Grammar, opts Options) generators.Generator {
	t.Helper()
	gen, err := g.Generator(opts)
	if err != nil {
		t.Fatal(err)
	}
	return gen
}

// randomSeq returns FromBytes of 0–511 random bytes.
func randomSeq(r *rand.Rand) *generators.Sequence {
	b := make([]byte, r.IntN(512))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return generators.FromBytes(b)
}

// validity returns the share of n random sequences whose sentence valid
// accepts (every second run with testDict), and the first rejected one.
func validity(t *testing.T, gen generators.Generator, n int, valid func([]byte) error) (float64, []byte, error) {
	r := rand.New(rand.NewPCG(26, 1))
	plain := generators.NewRunner(gen, generators.Options{})
	dict := generators.NewRunner(gen, generators.Options{Dictionary: testDict})
	ok := 0
	var bad []byte
	var badErr error
	for i := range n {
		runner := plain
		if i%2 == 1 {
			runner = dict
		}
		in, _ := runner.Run(randomSeq(r))
		if err := valid(in); err != nil {
			if bad == nil {
				bad, badErr = in, err
			}
			continue
		}
		ok++
	}
	return float64(ok) / float64(n), bad, badErr
}

func validJSON(b []byte) error {
	var v any
	return json.Unmarshal(b, &v)
}

func validCSV(b []byte) error {
	rd := csv.NewReader(bytes.NewReader(b))
	rd.FieldsPerRecord = -1
	_, err := rd.ReadAll()
	return err
}

// validGoList parses a Calc sentence as the elements of a Go composite
// literal.
func validGoList(b []byte) error {
	_, err := goparser.ParseExpr("[]any{" + string(b) + "}")
	return err
}

// TestValidity: ≥ 99 % of 10,000 random sequences give sentences the
// standard library parses: the shipped JSON grammar (encoding/json), and
// the test grammars in the style of published ones: CSV (encoding/csv)
// and Calc (go/parser). The shipped grammars for the example targets are
// measured against the targets themselves in engine (TestGrammarValidity).
func TestValidity(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 2000
	}
	for _, tc := range []struct {
		path  string
		valid func([]byte) error
	}{
		{"../grammars/JSON.g4", validJSON},
		{"testdata/CSV.g4", validCSV},
		{"testdata/Calc.g4", validGoList},
	} {
		t.Run(tc.path, func(t *testing.T) {
			gen := mustGen(t, mustLoad(t, tc.path), Options{})
			rate, bad, err := validity(t, gen, n, tc.valid)
			t.Logf("%s: %.2f%% of %d valid", tc.path, 100*rate, n)
			if bad != nil {
				t.Logf("first invalid: %v: %q", err, bad)
			}
			if rate < 0.99 {
				t.Errorf("validity %.2f%%, expected ≥ 99%%", 100*rate)
			}
		})
	}
}

// shipped are the grammars under generators/grammars.
var shipped = []string{"../grammars/JSON.g4", "../grammars/SQLite.g4", "../grammars/Expr.g4", "../grammars/INI.g4"}

// TestDeterministic: the same sequence gives a byte-identical sentence, on
// a fresh runner and on the recorded sequence of the draws made; and the
// sequence recorded is equal when replayed.
func TestDeterministic(t *testing.T) {
	for _, p := range append(shipped, "testdata/Calc.g4", "testdata/CSV.g4") {
		gen := mustGen(t, mustLoad(t, p), Options{})
		r := rand.New(rand.NewPCG(3, 3))
		for i := range 300 {
			seq := randomSeq(r)
			opts := generators.Options{}
			if i%2 == 0 {
				opts.Dictionary = testDict
			}
			a, used := generators.Run(gen, seq, opts)
			b, _ := generators.NewRunner(gen, opts).Run(seq)
			c, used2 := generators.Run(gen, used, opts)
			if !bytes.Equal(a, b) || !bytes.Equal(a, c) {
				t.Fatalf("%s: run %d: different sentences for the same sequence:\n%q\n%q\n%q", p, i, a, b, c)
			}
			if !used.Equal(used2) {
				t.Fatalf("%s: run %d: replaying the recorded sequence recorded a different one", p, i)
			}
		}
	}
}

// TestValueMutationKeepsStructure: rewriting every value byte of a
// recorded sequence (BeDivFuzz's exploitation) never changes its
// structural signature or structural bytes, while the sentence does
// change in most runs.
func TestValueMutationKeepsStructure(t *testing.T) {
	for _, p := range append(shipped, "testdata/Calc.g4") {
		gen := mustGen(t, mustLoad(t, p), Options{})
		r := rand.New(rand.NewPCG(5, 5))
		changed, runs := 0, 300
		for i := range runs {
			opts := generators.Options{}
			if i%2 == 0 {
				opts.Dictionary = testDict
			}
			in, used := generators.Run(gen, randomSeq(r), opts)
			vals := used.KindBytes(generators.Value)
			for j := range vals {
				vals[j] = byte(r.Uint32())
			}
			mut := used.Clone()
			if err := mut.SetKindBytes(generators.Value, vals); err != nil {
				t.Fatal(err)
			}
			out, used2 := generators.Run(gen, mut, opts)
			if used2.StructuralSignature() != used.StructuralSignature() ||
				!bytes.Equal(used2.KindBytes(generators.Structural), used.KindBytes(generators.Structural)) {
				t.Fatalf("%s: run %d: a value mutation changed the structure:\n%q\n%q", p, i, in, out)
			}
			if !bytes.Equal(in, out) {
				changed++
			}
		}
		if changed < runs/2 {
			t.Errorf("%s: value mutations changed only %d of %d sentences", p, changed, runs)
		}
	}
}

// TestExecutionIndexing: in a sentence of several repeated elements,
// changing a structural draw inside the first element (the repetition
// count of its words) leaves the elements after it unchanged: their draws
// are found at their own execution indexes, not shifted.
func TestExecutionIndexing(t *testing.T) {
	g, err := Parse("items.g4", []byte(`grammar Items;
list : item+ EOF ;
item : '(' WORD* ')' NUM ;
WORD : [a-z]+ ;
NUM : [0-9] [0-9] [0-9] ;
WS : ' ' -> skip ;
`))
	if err != nil {
		t.Fatal(err)
	}
	gen := mustGen(t, g, Options{})
	r := rand.New(rand.NewPCG(9, 9))
	tested := 0
	for range 400 {
		in, used := generators.Run(gen, randomSeq(r), generators.Options{})
		items := strings.Split(string(in), ")")
		if len(items) < 3 {
			continue
		}
		// The structural draw of the first item's WORD* count.
		target := -1
		for i := range used.NumChoices() {
			c := used.Choice(i)
			if c.Kind == generators.Structural && len(c.Types) == 2 && c.Types[1] == "item" {
				target = i
				break
			}
		}
		if target < 0 {
			t.Fatalf("no structural draw typed [list item] in %q", in)
		}
		mut := used.Clone()
		c := mut.Choice(target)
		mut.Bytes()[c.Offset] ^= 1 // another count (Pick over 5 counts)
		out, _ := generators.Run(gen, mut, generators.Options{})
		first := strings.Index(string(in), ")")
		firstOut := strings.Index(string(out), ")")
		if string(in[:first]) == string(out[:firstOut]) {
			continue // same count after all
		}
		tested++
		// The rest after the first item's ")": its NUM and the later items.
		if string(in[first:]) != string(out[firstOut:]) {
			t.Fatalf("changing the first item's word count changed later items:\n%q\n%q", in, out)
		}
	}
	if tested < 50 {
		t.Fatalf("only %d sentences had a first item whose count changed", tested)
	}
	t.Logf("%d mutated first items, later items unchanged", tested)
}

// TestDictionary: a lexer rule takes the dictionary's entries it matches
// (about a quarter of its tokens when it matches some), never others.
func TestDictionary(t *testing.T) {
	g, err := Parse("words.g4", []byte(`grammar Words;
s : (ID | INT)+ EOF ;
ID : [A-Za-z_] [A-Za-z_0-9]* ;
INT : [0-9]+ ;
WS : ' ' -> skip ;
`))
	if err != nil {
		t.Fatal(err)
	}
	gen := mustGen(t, g, Options{})
	runner := generators.NewRunner(gen, generators.Options{Dictionary: testDict})
	r := rand.New(rand.NewPCG(11, 11))
	seen := map[string]int{}
	tokens := 0
	for range 2000 {
		in, _ := runner.Run(randomSeq(r))
		for _, w := range strings.Fields(string(in)) {
			tokens++
			seen[w]++
		}
	}
	for _, w := range []string{"SELECT", "12345", "Name_1", "true"} {
		if seen[w] < 20 {
			t.Errorf("dictionary entry %q taken %d times in %d tokens", w, seen[w], tokens)
		}
	}
	for _, w := range []string{`"quoted"`, "a\"b", "\xff\xfe"} {
		if seen[w] > 0 {
			t.Errorf("%q, which no lexer rule matches as a whole entry, appeared %d times", w, seen[w])
		}
	}
}

// TestLimits: a grammar whose sentences are unbounded yields, for every
// sequence, one within the depth limit; past the size limit it closes
// with shortest derivations; a start rule deeper than the limit still
// ends.
func TestLimits(t *testing.T) {
	g, err := Parse("nest.g4", []byte(`grammar Nest;
e : '(' e ')' | '[' e (',' e)* ']' | 'x' ;
deep : '<' deep2 '>' ;
deep2 : '<' deep3 '>' ;
deep3 : '<' 'y' '>' ;
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, depth := range []int{1, 3, 8} {
		gen := mustGen(t, g, Options{MaxDepth: depth, MaxSize: 50, NoSeparator: true})
		r := rand.New(rand.NewPCG(uint64(depth), 1))
		maxNest, maxLen := 0, 0
		for range 2000 {
			in, _ := generators.Run(gen, randomSeq(r), generators.Options{})
			d, nest := 0, 0
			for _, c := range in {
				switch c {
				case '(', '[':
					d++
					nest = max(nest, d)
				case ')', ']':
					d--
				}
			}
			if d != 0 {
				t.Fatalf("unbalanced sentence %q", in)
			}
			maxNest, maxLen = max(maxNest, nest), max(maxLen, len(in))
		}
		// Rule e at depth 1 may open depth-1 more levels before 'x'.
		if maxNest > depth-1 && !(depth == 1 && maxNest == 0) {
			t.Errorf("MaxDepth %d: nesting %d", depth, maxNest)
		}
		t.Logf("MaxDepth %d: deepest nesting %d, longest sentence %d bytes", depth, maxNest, maxLen)
	}
	gen := mustGen(t, g, Options{Start: "deep", MaxDepth: 1})
	if in, _ := generators.Run(gen, nil, generators.Options{}); string(in) != "<<<y>>>" {
		t.Errorf("start deeper than MaxDepth: got %q", in)
	}
}

// TestSplitGrammar: a parser grammar with tokenVocab reads its lexer
// grammar, which imports another (the importer's rule wins) and has a
// mode; Parse refuses the import with a message pointing at Load.
var kvPair = regexp.MustCompile(`^[a-z]+=[0-9]+$`)

func TestSplitGrammar(t *testing.T) {
	g := mustLoad(t, "testdata/split/KVParser.g4")
	gen := mustGen(t, g, Options{})
	r := rand.New(rand.NewPCG(2, 2))
	nonEmpty := 0
	for range 200 {
		in, _ := generators.Run(gen, randomSeq(r), generators.Options{})
		for _, pair := range strings.Split(string(in), ";") {
			pair = strings.Join(strings.Fields(pair), "")
			if pair == "" {
				continue
			}
			nonEmpty++
			if !kvPair.MatchString(pair) {
				t.Fatalf("bad pair %q in %q", pair, in)
			}
		}
	}
	if nonEmpty == 0 {
		t.Fatal("no pairs generated")
	}
	_, err := Parse("KVLexer.g4", mustRead(t, "testdata/split/KVLexer.g4"))
	var ge *Error
	if !errors.As(err, &ge) || !strings.Contains(err.Error(), "KVLexer.g4:7:8: import KVCommon: Parse reads one file; use Load") {
		t.Errorf("Parse with an import: got %v", err)
	}
	lx := mustLoad(t, "testdata/split/KVLexer.g4")
	lgen := mustGen(t, lx, Options{})
	if in, _ := generators.Run(lgen, randomSeq(r), generators.Options{}); len(in) == 0 {
		t.Error("a lexer grammar generated nothing")
	}
}

// TestKinds: a choice among literals is a value draw, a choice among
// alternatives with structure and a repetition count are structural, and
// the types of a draw are the rules on the stack.
func TestKinds(t *testing.T) {
	g, err := Parse("k.g4", []byte(`grammar K;
s : op op item* ;
op : '+' | '-' | '*' ;
item : '(' s ')' | N ;
N : [0-9] ;
`))
	if err != nil {
		t.Fatal(err)
	}
	gen := mustGen(t, g, Options{MaxDepth: 4})
	r := rand.New(rand.NewPCG(8, 8))
	for range 200 {
		_, used := generators.Run(gen, randomSeq(r), generators.Options{})
		for i := range used.NumChoices() {
			c := used.Choice(i)
			top := c.Types[len(c.Types)-1]
			want := map[string]generators.Kind{"op": generators.Value, "N": generators.Value, "s": generators.Structural, "item": generators.Structural}[top]
			if c.Kind != want {
				t.Fatalf("a draw typed %v is %v, want %v", c.Types, c.Kind, want)
			}
			if c.Types[0] != "s" {
				t.Fatalf("types %v do not start at the start rule", c.Types)
			}
		}
	}
}

// TestDictionaryOwner: an entry goes only to the rule ANTLR's lexer would
// give it: none for a parser rule's literal, else the first lexer rule
// matching it whole; an identifier rule after a keyword rule never gets
// the keyword, and a skipped rule's text goes to nobody.
func TestDictionaryOwner(t *testing.T) {
	g, err := Parse("kw.g4", []byte(`grammar KW;
s : (ID | NUM | 'select')+ EOF ;
WS : ' '+ -> skip ;
FROM : 'from' ;
NUM : [0-9]+ ;
ID : [a-z0-9 ]+ ;
`))
	if err != nil {
		t.Fatal(err)
	}
	dict := [][]byte{[]byte("select"), []byte("from"), []byte("42"), []byte("name"), []byte("  ")}
	c, err := g.compile(Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := c.matchesFor(dict)
	got := map[string][]string{}
	for _, md := range g.lx.modes {
		for _, a := range md.alts {
			for _, e := range m.entries[a.id] {
				got[a.rule.name] = append(got[a.rule.name], string(e))
			}
		}
	}
	want := map[string][]string{"FROM": {"from"}, "NUM": {"42"}, "ID": {"name"}}
	if len(got) != len(want) {
		t.Fatalf("owners %v, want %v", got, want)
	}
	for k, v := range want {
		if strings.Join(got[k], ",") != strings.Join(v, ",") {
			t.Errorf("%s gets %v, want %v", k, got[k], v)
		}
	}
}
