package wafertest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/generators"
	"github.com/wafer-fuzz/wafer/wafertest"
)

// fakeT records what Fuzz reports, as a test's *testing.T would show it.
type fakeT struct {
	name   string
	ctx    context.Context
	errors []string
	fatal  string
	logs   []string
}

func (f *fakeT) Helper()                  {}
func (f *fakeT) Name() string             { return f.name }
func (f *fakeT) Context() context.Context { return f.ctx }
func (f *fakeT) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeT) Logf(format string, args ...any) {
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}

// Fatalf ends the goroutine, as testing.T's does.
func (f *fakeT) Fatalf(format string, args ...any) {
	f.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls Fuzz with a fakeT named name on its own goroutine (Fatalf
// ends it) and returns what it recorded.
func run(t *testing.T, name, wasm string, opts wafertest.Options) *fakeT {
	ft := &fakeT{name: name, ctx: t.Context()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		wafertest.Fuzz(ft, wasm, opts)
	}()
	<-done
	if ft.fatal != "" {
		t.Fatalf("Fuzz: fatal: %s", ft.fatal)
	}
	return ft
}

func abs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestRegression: a crasher saved under testdata/wafer/<TestName>/ fails
// a plain run of the test with the failure, the Wasm stack with source
// lines and the commands that reproduce it; another test's corpus is its
// own; removing the crasher makes the test pass; one in Go's
// testdata/fuzz/<TestName>/ format fails it too.
func TestRegression(t *testing.T) {
	tlv := abs(t, "../examples/tlv/tlv.wasm")
	crash, err := os.ReadFile("../examples/tlv/testdata/crash-padded")
	if err != nil {
		t.Fatal(err)
	}
	valid, err := os.ReadFile("../examples/tlv/seeds/valid")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	t.Setenv(wafertest.EnvFuzz, "")
	if ft := run(t, "TestTLV", tlv, wafertest.Options{}); len(ft.errors) != 0 {
		t.Fatalf("no corpus: expected a pass, got %q", ft.errors)
	}
	dir := wafertest.CorpusDir("TestTLV")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"crash-1": crash, "valid": valid} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ft := run(t, "TestTLV", tlv, wafertest.Options{})
	if len(ft.errors) != 1 {
		t.Fatalf("a crasher in %s: expected one failure, got %d: %q", dir, len(ft.errors), ft.errors)
	}
	msg := ft.errors[0]
	for _, want := range []string{
		filepath.Join(dir, "crash-1") + ": crash",
		"failure: divide-by-zero",
		"parse_tlv examples/tlv/tlv.c:", // the stack with source lines
		"go test -run '^TestTLV$' .",
		"wafer repro " + tlv + " " + filepath.Join(dir, "crash-1"),
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("expected %q in the failure, got:\n%s", want, msg)
		}
	}
	if ft := run(t, "TestOther", tlv, wafertest.Options{}); len(ft.errors) != 0 {
		t.Errorf("another test's corpus: expected a pass, got %q", ft.errors)
	}
	// A sub-test's corpus is a directory in its parent's: the sub-test
	// replays it, the parent does not.
	sub := wafertest.CorpusDir("TestParent/case_1")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "crash-2"), crash, 0o644); err != nil {
		t.Fatal(err)
	}
	if ft := run(t, "TestParent/case_1", tlv, wafertest.Options{}); len(ft.errors) != 1 || !strings.Contains(ft.errors[0], "go test -run '^TestParent$/^case_1$' .") {
		t.Errorf("a sub-test's crasher: expected its failure, got %q", ft.errors)
	}
	if ft := run(t, "TestParent", tlv, wafertest.Options{}); len(ft.errors) != 0 {
		t.Errorf("the parent of a sub-test with a crasher: expected a pass, got %q", ft.errors)
	}
	if err := os.Remove(filepath.Join(dir, "crash-1")); err != nil {
		t.Fatal(err)
	}
	if ft := run(t, "TestTLV", tlv, wafertest.Options{}); len(ft.errors) != 0 {
		t.Fatalf("the crasher removed: expected a pass, got %q", ft.errors)
	}
	goDir := filepath.Join("testdata", "fuzz", "TestTLV")
	if err := os.MkdirAll(goDir, 0o755); err != nil {
		t.Fatal(err)
	}
	goFile := "go test fuzz v1\n[]byte(" + strconv.Quote(string(crash)) + ")\n"
	if err := os.WriteFile(filepath.Join(goDir, "0123abcd"), []byte(goFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if ft := run(t, "TestTLV", tlv, wafertest.Options{}); len(ft.errors) != 1 || !strings.Contains(ft.errors[0], "failure: divide-by-zero") {
		t.Fatalf("a crasher in Go's format in %s: expected the failure, got %q", goDir, ft.errors)
	}
}

// TestFuzzSavesFinding: with WAFER_FUZZ=1 a campaign from the test's
// corpus finds tlv's planted division by zero, saves the input under
// testdata/wafer/<TestName>/ and fails the test; the next plain run
// replays it and fails the same way.
func TestFuzzSavesFinding(t *testing.T) {
	tlv := abs(t, "../examples/tlv/tlv.wasm")
	valid, err := os.ReadFile("../examples/tlv/seeds/valid")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	t.Setenv(wafertest.EnvFuzz, "1")
	ft := run(t, "TestTLV", tlv, wafertest.Options{Seed: 1, Runs: 20_000, Seeds: [][]byte{valid}})
	if len(ft.errors) != 1 || !strings.Contains(ft.errors[0], "failure: divide-by-zero") || !strings.Contains(ft.errors[0], "go test -run '^TestTLV$' .") {
		t.Fatalf("expected the planted crash reported, got %q (log %q)", ft.errors, ft.logs)
	}
	saved, err := os.ReadDir(wafertest.CorpusDir("TestTLV"))
	if err != nil || len(saved) != 1 || !strings.HasPrefix(saved[0].Name(), "crash-") {
		t.Fatalf("expected one crash-<sha1> file saved, got %v, %v", saved, err)
	}
	t.Setenv(wafertest.EnvFuzz, "")
	if ft := run(t, "TestTLV", tlv, wafertest.Options{}); len(ft.errors) != 1 || !strings.Contains(ft.errors[0], "failure: divide-by-zero") {
		t.Fatalf("the saved finding replayed: expected the same failure, got %q", ft.errors)
	}
}

// jsonValue is a user generator: a JSON value at most depth levels deep,
// objects and arrays in typed frames.
func jsonValue(s *generators.Source) []byte { return appendJSON(nil, s, 3) }

func appendJSON(b []byte, s *generators.Source, depth int) []byte {
	n := 4
	if depth > 0 {
		n = 6
	}
	switch s.Pick(n) {
	case 0:
		return append(b, "null"...)
	case 1:
		return strconv.AppendBool(b, s.Bool())
	case 2:
		return strconv.AppendInt(b, int64(s.Int(-1000, 1000)), 10)
	case 3:
		return strconv.AppendQuote(b, s.String("abc xyz", 0, 8))
	case 4:
		return generators.Call(s, "array", func(s *generators.Source) []byte {
			b = append(b, '[')
			generators.Repeat(s, 0, 4, func(s *generators.Source, i int) {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendJSON(b, s, depth-1)
			})
			return append(b, ']')
		})
	}
	return generators.Call(s, "object", func(s *generators.Source) []byte {
		b = append(b, '{')
		generators.Repeat(s, 0, 4, func(s *generators.Source, i int) {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendQuote(b, s.String("abcxyz", 1, 6))
			b = append(b, ':')
			b = appendJSON(b, s, depth-1)
		})
		return append(b, '}')
	})
}

// TestFuzzGenerator: a generator written in this file drives zest on the
// gojson example through Fuzz: every input it makes is valid JSON, the
// target's round trip holds, and the campaign keeps new inputs.
func TestFuzzGenerator(t *testing.T) {
	gojson := abs(t, "../examples/gojson/gojson.wasm")
	t.Chdir(t.TempDir())
	ft := run(t, "TestJSON", gojson, wafertest.Options{Generator: jsonValue, Strategy: "zest", Seed: 1, Runs: 3_000, Fuzz: true})
	if len(ft.errors) != 0 {
		t.Fatalf("expected no failure, got %q", ft.errors)
	}
	if len(ft.logs) != 1 || !strings.HasPrefix(ft.logs[0], "wafertest: 3000 executions") || strings.Contains(ft.logs[0], " 0 new inputs") {
		t.Fatalf("expected 3000 executions with new inputs kept, got %q", ft.logs)
	}
}
