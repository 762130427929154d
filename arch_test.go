package main_test

import (
	"errors"
	"go/build"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/wafer-fuzz/wafer"

// allowed is the import table of wafer's architecture (README.md,
// "Finding your way in the code"): for every package of the module, by its path in the
// repository, the wafer packages it may import. An edge not listed is a
// design bug, and so is a package not listed: a new package states its
// place here. "." is the command's main, which only calls internal/cli;
// internal/cli is the CLI, which goes through the public package campaign
// (and the output formats), never engine or runtime. Every other internal
// package is ground floor (groundFloor): it imports no wafer package above
// it (other ground-floor helpers only), and any package may import it.
var allowed = map[string][]string{
	"instrument":                 {"instrument/internal/leb128"},
	"instrument/internal/leb128": {},
	"generators":                 {},
	"generators/grammar":         {"generators"},
	"corpus":                     {},
	"runtime":                    {"instrument"},
	"engine":                     {"runtime", "corpus", "generators", "instrument"},
	"evalstats":                  {"corpus"},
	"plot":                       {"corpus"},
	"covreport":                  {"instrument"},
	"campaign":                   {"instrument", "runtime", "engine", "corpus", "generators"},
	"wafertest":                  {"campaign", "corpus", "generators"},
	"gofuzz":                     {"corpus", "generators", "instrument"},
	"harness":                    {},
	"internal/cli":               {"campaign", "corpus", "generators", "generators/grammar", "gofuzz", "covreport", "evalstats", "plot"},
	".":                          {"internal/cli"},
}

// groundFloor reports whether the package at dir is a ground-floor
// helper: under internal/ and not the CLI.
func groundFloor(dir string) bool {
	return strings.HasPrefix(dir, "internal/") && dir != "internal/cli"
}

// allowedUnder gives the rule for a folder of packages: the bundled
// examples are targets (they may use the harness package only), and the
// evaluation programs under eval/ may use any product package but the CLI,
// and are imported by nothing of the product.
var allowedUnder = map[string]func(imp string) bool{
	"examples": func(imp string) bool { return imp == "harness" },
	"eval":     func(imp string) bool { return imp != "internal/cli" && imp != "." },
}

// packages lists the module's packages by their path in the repository:
// every folder with a non-test Go file, leaving out testdata and hidden
// folders as the go command does.
func packages(t *testing.T) map[string]*build.Package {
	t.Helper()
	pkgs := map[string]*build.Package{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if p != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		bp, err := build.ImportDir(p, 0)
		if err != nil {
			var none *build.NoGoError
			if errors.As(err, &none) {
				return nil
			}
			return err
		}
		pkgs[filepath.ToSlash(p)] = bp
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

func TestImportDirection(t *testing.T) {
	pkgs := packages(t)
	for _, want := range []string{".", "campaign", "engine", "runtime", "instrument", "internal/cli", "internal/wasip1"} {
		if pkgs[want] == nil {
			t.Fatalf("package %s not found: the walk is broken", want)
		}
	}
	for dir, p := range pkgs {
		ok, listed := allowed[dir]
		rule := func(imp string) bool { return slices.Contains(ok, imp) || groundFloor(imp) }
		if groundFloor(dir) {
			listed, rule = true, groundFloor // only its own floor
		}
		if !listed {
			top := strings.SplitN(dir, "/", 2)[0]
			r, under := allowedUnder[top]
			if !under {
				t.Errorf("package %s is not in arch_test.go's table: say what it may import", dir)
				continue
			}
			rule = r
		}
		for _, imp := range p.Imports {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			rel := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
			if rel == "" {
				rel = "."
			}
			if !rule(rel) {
				t.Errorf("%s imports %s: not allowed by the import table", dir, path.Clean(rel))
			}
		}
	}
}

// TestNothingImportsEval: the evaluation programs are never part of the
// product: no package outside eval/ and the examples'
// benchmarks imports them.
func TestNothingImportsEval(t *testing.T) {
	for dir, p := range packages(t) {
		if dir == "eval" || strings.HasPrefix(dir, "eval/") {
			continue
		}
		for _, imp := range p.Imports {
			if imp == module+"/eval" || strings.HasPrefix(imp, module+"/eval/") {
				t.Errorf("%s imports %s", dir, imp)
			}
		}
	}
}
