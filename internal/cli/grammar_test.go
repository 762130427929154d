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
