package main_test

import (
	"go/build"
	"path"
	"strings"
	"testing"
)

const module = "github.com/wafer-fuzz/wafer"

// allowed is the import table of STYLE.md ("Layout and dependencies") and
// ARCHITECTURE.md: the wafer packages each package may import. An edge
// not listed is a design bug. "." is the root, the CLI: it goes through
// the public package campaign (and the output formats: corpus, covreport,
// evalstats, plot; generators for --generator's names), never engine or
// runtime.
var allowed = map[string][]string{
	"instrument": {},
	"generators": {},
	// generators/grammar compiles ANTLR 4 grammars to generators.
	"generators/grammar": {"generators"},
	"corpus":             {},
	"runtime":            {"instrument"},
	"engine":             {"runtime", "corpus", "generators", "instrument"},
	"evalstats":          {"corpus"},
	"plot":               {"corpus"},
	"covreport":          {"instrument"},
	"campaign":           {"instrument", "runtime", "engine", "corpus", "generators"},
	"wafertest":          {"campaign", "corpus", "generators"},
	".":                  {"campaign", "corpus", "generators", "covreport", "evalstats", "plot"},
}

func TestImportDirection(t *testing.T) {
	for pkg, ok := range allowed {
		p, err := build.Import(path.Join(module, pkg), ".", 0)
		if err != nil {
			t.Logf("%s: %v (package not present yet)", pkg, err)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			rel := strings.TrimPrefix(imp, module+"/")
			top := strings.SplitN(rel, "/", 2)[0]
			if top == "internal" || top == pkg || strings.HasPrefix(rel, pkg+"/internal") || (pkg == "." && imp == module) {
				continue
			}
			found := false
			for _, a := range ok {
				if a == top {
					found = true
				}
			}
			if !found {
				t.Errorf("%s imports %s: not allowed by STYLE.md", pkg, path.Clean(rel))
			}
		}
	}
}
