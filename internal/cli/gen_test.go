package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGen: wafer gen writes one sentence to stdout or N files to a
// directory; the same seed gives the same sentences and another seed
// others; --generator works as --grammar does; bad invocations and bad
// grammars are reported (a grammar's error with its file, line and
// column).
func TestGen(t *testing.T) {
	dir := t.TempDir()
	markup := filepath.Join(repoRoot, "generators", "grammar", "testdata", "modes", "MarkupParser.g4")
	one := wafer(t, dir, "gen", "--grammar", markup, "--seed", "3")
	if one.code != 0 || !strings.HasPrefix(one.stdout, "<") {
		t.Fatalf("gen -n 1: %+v", one)
	}
	if again := wafer(t, dir, "gen", "--grammar", markup, "--seed", "3"); again.stdout != one.stdout {
		t.Errorf("same seed, other sentence: %q vs %q", again.stdout, one.stdout)
	}
	read := func(out string) []string {
		var got []string
		for i := range 20 {
			b, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("%06d", i)))
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(b))
		}
		return got
	}
	if r := wafer(t, dir, "gen", "--grammar", markup, "-n", "20", "--seed", "5", "-o", "a"); r.code != 0 || r.stdout != "20 sentences in a\n" {
		t.Fatalf("gen -n 20: %+v", r)
	}
	wafer(t, dir, "gen", "--grammar", markup, "-n", "20", "--seed", "5", "-o", "b")
	wafer(t, dir, "gen", "--grammar", markup, "-n", "20", "--seed", "6", "-o", "c")
	a, b, c := read(filepath.Join(dir, "a")), read(filepath.Join(dir, "b")), read(filepath.Join(dir, "c"))
	distinct := map[string]bool{}
	same := 0
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("sentence %d differs with the same seed: %q vs %q", i, a[i], b[i])
		}
		if a[i] == c[i] {
			same++
		}
		distinct[a[i]] = true
	}
	if same == len(a) || len(distinct) < 10 {
		t.Errorf("seeds 5 and 6 agree on %d of %d sentences; %d distinct", same, len(a), len(distinct))
	}
	// --grammar-wide-chars: names from the whole of ~[ <>] on every token
	// (1), or only from its printable part (negative).
	names := filepath.Join(dir, "Names.g4")
	if err := os.WriteFile(names, []byte("grammar Names;\ns : (N ' ')+ ;\nN : ~[ <>]+ ;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wafer(t, dir, "gen", "--grammar", names, "-n", "20", "--seed", "1", "--grammar-wide-chars", "1", "-o", "wide")
	wafer(t, dir, "gen", "--grammar", names, "-n", "20", "--seed", "1", "--grammar-wide-chars", "-1", "-o", "narrow")
	nonASCII := func(texts []string) (n int) {
		for _, s := range texts {
			n += len(s) - len(strings.Map(func(r rune) rune {
				if r < 0x80 {
					return r
				}
				return -1
			}, s))
		}
		return n
	}
	if w, n := nonASCII(read(filepath.Join(dir, "wide"))), nonASCII(read(filepath.Join(dir, "narrow"))); w == 0 || n != 0 {
		t.Errorf("--grammar-wide-chars: %d bytes beyond ASCII at 1 (want some), %d at -1 (want none)", w, n)
	}
	if r := wafer(t, dir, "gen", "--generator", "json", "--seed", "2"); r.code != 0 || r.stdout == "" {
		t.Errorf("--generator json: %+v", r)
	}
	bad := filepath.Join(dir, "Bad.g4")
	if err := os.WriteFile(bad, []byte("grammar Bad;\ns : A ;\nA : 'a' -> pushMode(M) ;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"gen"}, 2, "expected --grammar FILE or --generator NAME"},
		{[]string{"gen", "--grammar", markup, "--generator", "json"}, 2, "got both"},
		{[]string{"gen", "--grammar", markup, "-n", "2"}, 2, "-n 2 needs -o DIR"},
		{[]string{"gen", "--grammar", markup, "-n", "0"}, 2, "expected at least 1"},
		{[]string{"gen", "--generator", "nope"}, 2, `expected one of`},
		{[]string{"gen", "--grammar", bad}, 1, "Bad.g4:3:12: lexer rule A switches to mode M, which no lexer rule is in"},
		{[]string{"gen", "--grammar", markup, "--grammar-start", "nope"}, 1, "no rule nope"},
	} {
		r := wafer(t, dir, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, r.code, r.stderr, tc.code, tc.want)
		}
	}
}

// TestGenGrammarProfile: --grammar-profile learns from the files of a
// directory that parse, says how many, and its sentences take the
// sample's texts and shapes far more often than uniform draws do; a
// directory where nothing parses is an error naming it.
func TestGenGrammarProfile(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "Cmd.g4")
	if err := os.WriteFile(g, []byte("grammar Cmd;\ns : cmd (';' cmd)* ;\ncmd : 'get' ID | 'put' ID NUM | 'del' ID ;\nID : [a-z]+ ;\nNUM : [0-9]+ ;\nWS : ' ' -> skip ;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sample := filepath.Join(dir, "sample")
	os.MkdirAll(sample, 0o755)
	for i, s := range []string{"put apple 1;get apple", "put pear 22;get pear", "get apple", "not a command"} {
		if err := os.WriteFile(filepath.Join(sample, fmt.Sprint(i)), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	count := func(out string) (fruit, del int) {
		for i := range 200 {
			b, err := os.ReadFile(filepath.Join(dir, out, fmt.Sprintf("%06d", i)))
			if err != nil {
				t.Fatal(err)
			}
			fruit += strings.Count(string(b), "apple") + strings.Count(string(b), "pear")
			del += strings.Count(string(b), "del")
		}
		return
	}
	r := wafer(t, dir, "gen", "--grammar", g, "--grammar-profile", sample, "-n", "200", "-o", "learned")
	if r.code != 0 || !strings.Contains(r.stderr, "learned from 3 of 4 files") {
		t.Fatalf("--grammar-profile: %+v", r)
	}
	wafer(t, dir, "gen", "--grammar", g, "-n", "200", "-o", "uniform")
	lf, ld := count("learned")
	uf, ud := count("uniform")
	if lf < 100 || uf > 5 || ld*2 > ud {
		t.Errorf("the sample's names: %d with its profile, %d without; 'del', which it never has: %d with, %d without", lf, uf, ld, ud)
	}
	none := filepath.Join(dir, "none")
	os.MkdirAll(none, 0o755)
	os.WriteFile(filepath.Join(none, "x"), []byte("???"), 0o644)
	if r := wafer(t, dir, "gen", "--grammar", g, "--grammar-profile", none); r.code == 0 || !strings.Contains(r.stderr, "--grammar-profile "+none+": none of its 1 files parse") {
		t.Errorf("a profile directory where nothing parses: %+v", r)
	}
}
