package main_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fixtureGoVersion is the toolchain the checked-in Go fixtures were built
// with. Go builds with -trimpath and the same toolchain are reproducible, so
// TestGoFixturesRebuild compares bytes only with this toolchain; every
// fixture built by `go build` carries the string (runtime.Version), which
// the test checks, so this constant cannot drift from the files.
const fixtureGoVersion = "go1.26.8"

// goFixture is a checked-in file a build script makes with the go command:
// line is the script's command for it, run in the script's directory
// (every script starts with `cd "$(dirname "$0")"`), and vars the value of
// a loop variable it uses ("p" → "gocalc" for "$p").
type goFixture struct {
	script string
	line   string
	vars   map[string]string
	// also lists files the command writes beside its output (by base
	// name, in the output's directory), compared too.
	also []string
}

// goFixtures are the repository's Go fixtures: the Go harness examples and
// test programs built for wasip1, and internal/wasip1's instrumented C
// program, written by a Go program through the instrument package.
// TestGoFixturesCovered fails on a go command in a build.sh not listed here.
var goFixtures = []goFixture{
	{script: "examples/gojson/build.sh", line: "GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -trimpath -buildvcs=false -buildmode=c-shared -o gojson.wasm ."},
	{script: "examples/gopng/build.sh", line: "GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -trimpath -buildvcs=false -buildmode=c-shared -o gopng.wasm ."},
	{script: "examples/goparser/build.sh", line: "GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -trimpath -buildvcs=false -buildmode=c-shared -o goparser.wasm ."},
	{script: "examples/gostdin/build.sh", line: "GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -trimpath -buildvcs=false -o gostdin.wasm ."},
	{script: "testdata/build.sh", line: "(cd gohuge && GOOS=wasip1 GOARCH=wasm go build -trimpath -buildvcs=false -buildmode=c-shared -o gohuge.wasm .)"},
	{script: "testdata/build.sh", line: "(cd goalloc && GOOS=wasip1 GOARCH=wasm go build -trimpath -buildvcs=false -buildmode=c-shared -o goalloc.wasm .)"},
	{script: "testdata/build.sh", line: "(cd goreactor && GOOS=wasip1 GOARCH=wasm go build -trimpath -buildvcs=false -buildmode=c-shared -o goreactor.wasm .)"},
	{script: "testdata/build.sh", line: "(cd gocmd && GOOS=wasip1 GOARCH=wasm go build -trimpath -buildvcs=false -o gocmd.wasm .)"},
	{script: "testdata/goxhtml/build.sh", line: "GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -trimpath -buildvcs=false -buildmode=c-shared -o goxhtml.wasm ."},
	{script: "testdata/gonames/build.sh", line: "GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -trimpath -buildvcs=false -buildmode=c-shared -o go-names.wasm ."},
	{script: "instrument/testdata/programs/build.sh", line: `(cd "$p" && GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -trimpath -buildvcs=false -o "$p.wasm" .)`, vars: map[string]string{"p": "gocalc"}},
	{script: "instrument/testdata/programs/build.sh", line: `(cd "$p" && GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -trimpath -buildvcs=false -o "$p.wasm" .)`, vars: map[string]string{"p": "gobig"}},
	{script: "internal/wasip1/testdata/build.sh", line: `(cd gocmd && GOOS=wasip1 GOARCH=wasm go build -trimpath -buildvcs=false -ldflags="-s -w -buildid=" -o ../gocmd.wasm .)`},
	{script: "internal/wasip1/testdata/build.sh", line: `(cd goreactor && GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -buildvcs=false -ldflags="-s -w -buildid=" -o ../goreactor.wasm .)`},
	{script: "internal/wasip1/testdata/build.sh", line: "go run ./instrumentgen ccmd.wasm ccmd.inst.wasm", also: []string{"ccmd.inst.base"}},
}

// goCommand is a fixture's command line taken apart.
type goCommand struct {
	dir  string   // where it runs, from the repository root
	env  []string // its NAME=value prefixes
	args []string // the go command's arguments
	out  int      // index in args of the output path
}

// parse takes f.line apart: an optional `(cd dir && … )`, the NAME=value
// prefixes, then `go build … -o out …` or `go run … out` (instrumentgen's
// output is its last argument). Words are split at spaces; double quotes
// group and are removed; "$v" and $v are replaced from f.vars.
func (f goFixture) parse() (goCommand, error) {
	c := goCommand{dir: filepath.Dir(f.script)}
	line := f.line
	for k, v := range f.vars {
		line = strings.ReplaceAll(line, "$"+k, v)
	}
	if strings.HasPrefix(line, "(") {
		inner, ok := strings.CutSuffix(line[1:], ")")
		cd, rest, ok2 := strings.Cut(inner, " && ")
		if !ok || !ok2 || !strings.HasPrefix(cd, "cd ") {
			return c, fmt.Errorf("expected (cd dir && command), got %q", f.line)
		}
		c.dir = filepath.Join(c.dir, strings.Trim(strings.TrimPrefix(cd, "cd "), `"`))
		line = rest
	}
	words, err := shellWords(line)
	if err != nil {
		return c, fmt.Errorf("%q: %w", f.line, err)
	}
	for len(words) > 0 && strings.Contains(words[0], "=") {
		c.env = append(c.env, words[0])
		words = words[1:]
	}
	if len(words) < 3 || words[0] != "go" {
		return c, fmt.Errorf("expected a go command, got %q", f.line)
	}
	c.args = words[1:]
	switch c.args[0] {
	case "build":
		c.out = slices.Index(c.args, "-o") + 1
		if c.out == 0 || c.out == len(c.args) {
			return c, fmt.Errorf("expected -o out in %q", f.line)
		}
	case "run":
		c.out = len(c.args) - 1
	default:
		return c, fmt.Errorf("expected go build or go run, got %q", f.line)
	}
	return c, nil
}

// shellWords splits s at spaces, keeping double-quoted text together
// without its quotes.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	in, quoted := false, false
	for _, r := range s {
		switch {
		case r == '"':
			quoted, in = !quoted, true
		case r == ' ' && !quoted:
			if in {
				words = append(words, w.String())
				w.Reset()
			}
			in = false
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("unclosed quote")
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}

// skipOrFailInCI skips the test with the reason, or fails it when the
// environment has CI=true, where the check must run.
func skipOrFailInCI(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format+" (required with CI=true)", args...)
	}
	t.Skipf(format+" (fails with CI=true)", args...)
}

// TestGoFixturesRebuild rebuilds every Go fixture into a temporary
// directory with its build script's command and compares the bytes with
// the checked-in file: a fixture left stale by a change to its source, to
// the harness package or to instrument fails, naming the script to run.
// It needs the go command at fixtureGoVersion (other toolchains make other
// bytes) and is slow, so it does not run under -short.
func TestGoFixturesRebuild(t *testing.T) {
	if testing.Short() {
		t.Skip("rebuilds the Go fixtures (minutes): not under -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		skipOrFailInCI(t, "no go command to rebuild the Go fixtures: %v", err)
	}
	env := fixtureEnv()
	cmd := exec.CommandContext(t.Context(), "go", "env", "GOVERSION")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go env GOVERSION: %v", err)
	}
	if v := strings.TrimSpace(string(out)); v != fixtureGoVersion {
		skipOrFailInCI(t, "the go command is %s; the fixtures were built with %s, so they rebuild identically only with it", v, fixtureGoVersion)
	}
	for _, f := range goFixtures {
		c, err := f.parse()
		if err != nil {
			t.Fatalf("%s: %v", f.script, err)
		}
		name := filepath.Join(c.dir, c.args[c.out])
		t.Run(filepath.ToSlash(name), func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			args := slices.Clone(c.args)
			args[c.out] = filepath.Join(tmp, filepath.Base(name))
			cmd := exec.CommandContext(t.Context(), "go", args...)
			cmd.Dir = c.dir
			cmd.Env = append(slices.Clone(env), c.env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s (in %s): %v\n%s", f.line, c.dir, err, out)
			}
			files := []string{name}
			for _, a := range f.also {
				files = append(files, filepath.Join(filepath.Dir(name), a))
			}
			for _, file := range files {
				want, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(filepath.Join(tmp, filepath.Base(file)))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s is stale: it differs from a rebuild (%d bytes, checked in %d); rebuild it with %s (%q)",
						file, len(got), len(want), f.script, f.line)
				}
				if c.args[0] == "build" && !bytes.Contains(want, []byte(fixtureGoVersion)) {
					t.Errorf("%s does not hold %q: built by another toolchain than fixtureGoVersion", file, fixtureGoVersion)
				}
			}
		})
	}
}

// fixtureEnv is the environment of a fixture's go command: the test's,
// less the settings that change what the go command builds (the scripts
// set those they need), with GOFLAGS replaced (-buildvcs=false, as the
// scripts' own flags) and GOTOOLCHAIN=local, so no other toolchain is
// fetched.
func fixtureEnv() []string {
	drop := []string{"GOOS", "GOARCH", "GOWASM", "CGO_ENABLED", "GOEXPERIMENT", "GOFLAGS", "GOTOOLCHAIN"}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(drop, k) {
			env = append(env, kv)
		}
	}
	return append(env, "GOFLAGS=-buildvcs=false", "GOTOOLCHAIN=local")
}

// TestGoFixturesCovered: every go command in a build.sh of the repository
// is a line of goFixtures, as its script writes it, and every goFixtures
// line is in its script, so a new Go fixture or a changed command is
// rebuilt by TestGoFixturesRebuild as the script builds it.
func TestGoFixturesCovered(t *testing.T) {
	listed := map[string]bool{}
	for _, f := range goFixtures {
		b, err := os.ReadFile(f.script)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(scriptLines(b), f.line) {
			t.Errorf("%s has no line %q", f.script, f.line)
		}
		if _, err := f.parse(); err != nil {
			t.Errorf("%s: %v", f.script, err)
		}
		listed[f.script+": "+f.line] = true
	}
	var scripts int
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() != "build.sh" {
			return nil
		}
		scripts++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, l := range scriptLines(b) {
			if (strings.Contains(l, "go build") || strings.Contains(l, "go run")) && !listed[filepath.ToSlash(path)+": "+l] {
				t.Errorf("%s: %q builds a Go fixture goFixtures does not list", path, l)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if scripts == 0 {
		t.Fatal("no build.sh found")
	}
}

// scriptLines returns a script's lines, trimmed, without comments.
func scriptLines(b []byte) []string {
	var out []string
	for l := range strings.SplitSeq(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}
