package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
)

// TestGrammarFlag: --grammar compiles a grammar file into the campaign's
// generator (--grammar-start picks the rule), refuses --generator beside
// it, and reports a bad grammar with its file, line and column.
func TestGrammarFlag(t *testing.T) {
	f := newFuzzFlags()
	if err := f.parse([]string{"--grammar", filepath.Join(repoRoot, "generators", "grammars", "Expr.g4"), "--grammar-start", "expr", "t.wasm"}); err != nil {
		t.Fatal(err)
	}
	gen, ok, err := f.grammar.generator()
	if err != nil || !ok {
		t.Fatalf("generator: %v %v", ok, err)
	}
	if in, _ := generators.Run(gen, generators.FromBytes([]byte("seed")), generators.Options{}); len(in) == 0 {
		t.Error("empty sentence")
	}
	if err := newFuzzFlags().parse([]string{"--grammar", "x.g4", "--generator", "json", "t.wasm"}); err == nil || !strings.Contains(err.Error(), "--grammar and --generator") {
		t.Errorf("both flags: got %v", err)
	}
	bad := filepath.Join(t.TempDir(), "Bad.g4")
	if err := os.WriteFile(bad, []byte("grammar Bad;\ns : t ;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f = newFuzzFlags()
	if err := f.parse([]string{"--grammar", bad, "t.wasm"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.grammar.generator(); err == nil || !strings.Contains(err.Error(), "Bad.g4:2:5: undefined rule t") {
		t.Errorf("bad grammar: got %v", err)
	}
	f = newFuzzFlags()
	if err := f.parse([]string{"--grammar", filepath.Join(repoRoot, "generators", "grammars", "Expr.g4"), "--grammar-start", "nope", "t.wasm"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.grammar.generator(); err == nil || !strings.Contains(err.Error(), "no rule nope") {
		t.Errorf("bad start: got %v", err)
	}
}

// TestGrammarSeeds: wafer fuzz --grammar with seeds starts from those
// that parse (a seed comes back into the queue byte for byte), names
// those that do not in one line and goes on; wafer gen --parse prints a
// seed's tree, and for a file that does not parse exits 1 naming its
// line and column and the tokens expected there.
func TestGrammarSeeds(t *testing.T) {
	tmp := t.TempDir()
	expr := filepath.Join(repoRoot, "generators", "grammars", "Expr.g4")
	seeds := filepath.Join(tmp, "seeds")
	if err := os.MkdirAll(seeds, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]string{"good": "12*(3+4)", "bad": "1+\n(2*", "worse": "1 $ 2"} {
		if err := os.WriteFile(filepath.Join(seeds, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(tmp, "out")
	r := wafer(t, tmp, "fuzz", "--grammar", expr, "-i", seeds, "--runs", "0", "--no-fsync", "-o", out, filepath.Join(exampleDir(t, "cexpr"), "cexpr.wasm"))
	notLanded(t, r)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, tail(r.stderr))
	}
	for _, want := range []string{"1 of 3 seed inputs parse", "2 seed inputs do not parse and are left out: bad, worse (the first: "} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr: expected %q in\n%s", want, tail(r.stderr))
		}
	}
	found := false
	for _, name := range files(t, filepath.Join(out, "queue")) {
		if b, _ := os.ReadFile(filepath.Join(out, "queue", name)); string(b) == "12*(3+4)" {
			found = true
		}
	}
	if !found {
		t.Errorf("the parsed seed is not in the queue: %v", files(t, filepath.Join(out, "queue")))
	}

	p := wafer(t, tmp, "gen", "--grammar", expr, "--parse", filepath.Join(seeds, "good"))
	if p.code != 0 || !strings.Contains(p.stdout, "parses (7 tokens); its choice sequence regenerates the same bytes") || !strings.Contains(p.stdout, "\n    expr\n") {
		t.Errorf("gen --parse good: %+v", p)
	}
	p = wafer(t, tmp, "gen", "--grammar", expr, "--parse", filepath.Join(seeds, "bad"))
	if want := "bad:2:4: input ends too early: expected "; p.code != 1 || !strings.Contains(p.stderr, want) {
		t.Errorf("gen --parse bad: exit %d, stderr %q; want exit 1 and %q", p.code, p.stderr, want)
	}
	p = wafer(t, tmp, "gen", "--grammar", expr, "--parse", filepath.Join(seeds, "good"), "--parse", filepath.Join(seeds, "worse"))
	if want := "1 of 2 files do not parse (the first: "; p.code != 1 || !strings.Contains(p.stderr, want) || !strings.Contains(p.stdout, "worse: does not parse: ") {
		t.Errorf("gen --parse good worse: %+v", p)
	}
	if p := wafer(t, tmp, "gen", "--generator", "xml", "--parse", "x"); p.code != 2 || !strings.Contains(p.stderr, "--parse needs --grammar or a generator that reads inputs back (json), got --generator xml") {
		t.Errorf("gen --generator xml --parse: %+v", p)
	}
}

// TestGeneratorSeeds: --generator json reads its seeds back; those it
// cannot make are named in one line and left out, never fatal.
func TestGeneratorSeeds(t *testing.T) {
	tmp := t.TempDir()
	seeds := filepath.Join(tmp, "seeds")
	if err := os.MkdirAll(seeds, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]string{
		"z-exact": `{"a":[1,true,"x"]}`,
		"spaced":  `[ 1.5 , null ]`,
		"long":    `"` + strings.Repeat("y", 30) + `"`,
		"broken":  `{"a":`,
	} {
		if err := os.WriteFile(filepath.Join(seeds, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(tmp, "out")
	r := wafer(t, tmp, "fuzz", "--generator", "json", "-i", seeds, "--runs", "0", "--no-fsync", "-o", out, filepath.Join(exampleDir(t, "gojson"), "gojson.wasm"))
	notLanded(t, r)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, tail(r.stderr))
	}
	for _, want := range []string{
		"--generator json: 2 of 4 seed inputs read back into choice sequences (1 regenerate byte for byte, the others as the same value)",
		"2 seed inputs the generator does not make are left out: broken, long (the first: ",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr: expected %q in\n%s", want, tail(r.stderr))
		}
	}
	queue := map[string]bool{}
	for _, name := range files(t, filepath.Join(out, "queue")) {
		b, _ := os.ReadFile(filepath.Join(out, "queue", name))
		queue[string(b)] = true
	}
	p := wafer(t, tmp, "gen", "--generator", "json", "--parse", filepath.Join(seeds, "z-exact"), "--parse", filepath.Join(seeds, "spaced"))
	if want := "spaced: read back (9 choices); its choice sequence regenerates the same value as\n[15.0e-1,null]\n"; p.code != 0 || !strings.Contains(p.stdout, want) || !strings.Contains(p.stdout, "z-exact: read back (") {
		t.Errorf("gen --generator json --parse: %+v, want %q", p, want)
	}
	p = wafer(t, tmp, "gen", "--generator", "json", "--parse", filepath.Join(seeds, "broken"))
	if want := "broken: json: offset 5: expected a value, got end of input"; p.code != 1 || !strings.Contains(p.stderr, want) {
		t.Errorf("gen --generator json --parse broken: %+v, want exit 1 and %q", p, want)
	}
	// the first seed run (in path order) is saved, as JSON writes it
	for _, want := range []string{`[15.0e-1,null]`} {
		if !queue[want] {
			t.Errorf("%s is not in the queue: %v", want, queue)
		}
	}
}
