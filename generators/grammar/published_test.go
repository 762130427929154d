package grammar

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
)

// TestPublishedGrammars reads every .g4 file under the directory named by
// WAFER_GRAMMARS_V4 (a checkout of github.com/antlr/grammars-v4; skipped
// when unset) that is a combined or parser grammar, builds its generator
// and runs it on 20 random sequences. It logs how many load, and the
// reasons of those that do not, grouped by message; it fails only on a
// panic. The repository holds none of those grammars.
func TestPublishedGrammars(t *testing.T) {
	root := os.Getenv("WAFER_GRAMMARS_V4")
	if root == "" {
		t.Skip("set WAFER_GRAMMARS_V4 to a checkout of antlr/grammars-v4")
	}
	var files []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".g4") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	reasons := map[string][]string{}
	ok, total := 0, 0
	norm := regexp.MustCompile(`[0-9]+|"[^"]*"|\([^)]*\)|[A-Za-z_]+[0-9A-Za-z_]* [A-Za-z_]+[0-9A-Za-z_]* \(referenced`)
	r := rand.New(rand.NewPCG(4, 4))
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if strings.Contains(string(src), "lexer grammar") {
			continue
		}
		total++
		g, err := Load(f)
		if err == nil {
			var gen generators.Generator
			gen, err = g.Generator(Options{})
			if err == nil {
				for range 20 {
					b := make([]byte, r.IntN(256))
					for i := range b {
						b[i] = byte(r.Uint32())
					}
					generators.Run(gen, generators.FromBytes(b), generators.Options{})
				}
				ok++
				continue
			}
		}
		msg := err.Error()
		if i := strings.Index(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
		if i := strings.Index(msg, ": "); i >= 0 && strings.Count(msg[:i], ":") >= 1 {
			msg = msg[i+2:]
		}
		key := norm.ReplaceAllString(msg, "_")
		if len(key) > 90 {
			key = key[:90]
		}
		rel, _ := filepath.Rel(root, f)
		reasons[key] = append(reasons[key], rel+": "+err.Error())
	}
	t.Logf("%d of %d combined and parser grammars load and generate", ok, total)
	// Published grammars whose format the standard library parses: the
	// share of 2,000 sentences it accepts.
	for _, tc := range []struct {
		suffix string
		valid  func([]byte) error
	}{
		{"json/JSON.g4", func(b []byte) error {
			if !json.Valid(b) {
				return errors.New("json.Valid: false")
			}
			return nil
		}},
		{"json/JSON.g4", validJSON},
		{"csv/CSV.g4", validCSV},
	} {
		for _, f := range files {
			if !strings.HasSuffix(f, "/"+tc.suffix) {
				continue
			}
			g, err := Load(f)
			if err != nil {
				t.Errorf("%s: %v", f, err)
				break
			}
			rate, bad, err := validity(t, mustGen(t, g, Options{}), 2000, tc.valid)
			t.Logf("%s: %.2f%% of 2,000 sentences valid (first invalid: %v %.80q)", tc.suffix, 100*rate, err, bad)
			break
		}
	}
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(reasons[keys[i]]) > len(reasons[keys[j]]) })
	for _, k := range keys {
		t.Logf("%4d  %s  (e.g. %s)", len(reasons[k]), k, reasons[k][0])
	}
}

// TestPublishedRetokenize logs, for grammars of antlr/grammars-v4 (the
// checkout WAFER_GRAMMARS_V4 names; skipped when unset), how many of 300
// sentences their own lexer reads otherwise than the generator made them
// (TestRetokenize's check). It fails only on a grammar that no longer
// loads: the counts measure the grammars (actions, predicates, tokens an
// earlier rule always beats), recorded in docs/EVALUATION.md.
func TestPublishedRetokenize(t *testing.T) {
	root := os.Getenv("WAFER_GRAMMARS_V4")
	if root == "" {
		t.Skip("set WAFER_GRAMMARS_V4 to a checkout of antlr/grammars-v4")
	}
	for _, p := range []string{"xml/XMLParser.g4", "json/JSON.g4", "sql/sqlite/SQLiteParser.g4", "toml/TomlParser.g4", "csv/CSV.g4",
		"golang/GoParser.g4", "lua/LuaParser.g4", "wat/WatParser.g4", "java/java/JavaParser.g4", "c/CParser.g4",
		"javascript/javascript/JavaScriptParser.g4", "python/python3/Python3Parser.g4"} {
		c, err := mustLoad(t, filepath.Join(root, p)).compile(Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(44, 1))
		bad := 0
		var first error
		for range 300 {
			if _, err := retokenize(c, randomSeq(r), generators.Options{}); err != nil {
				if first == nil {
					first = err
				}
				bad++
			}
		}
		t.Logf("%s: %d of 300 read otherwise (first: %v)", p, bad, first)
	}
}
