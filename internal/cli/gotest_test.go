package cli

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/generators"
	"github.com/wafer-fuzz/wafer/gofuzz"
)

// goFuzzFixture copies testdata/gofuzz (a module of fuzz tests) to a
// temporary directory, so that findings written into its testdata/fuzz
// stay out of the repository, and returns it. It skips without the go
// command, and in -short mode (each fuzz test is a go test -c build and a
// wazero compile).
func goFuzzFixture(t *testing.T) string {
	t.Helper()
	return copyGoFixture(t, "gofuzz")
}

// copyGoFixture copies testdata/NAME to a temporary directory and returns
// it, or skips as goFuzzFixture does.
func copyGoFixture(t *testing.T, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds Go fuzz tests for wasip1 (-short)")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command: Go fuzz tests need it to build")
	}
	src := filepath.Join(repoRoot, "testdata", name)
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// corpusFile writes values as a go test corpus file in dir.
func corpusFile(t *testing.T, dir, name string, values ...any) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, corpus.FormatGoCorpusValues(values), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every argument type arrives as written: a corpus file's values, run by
// wafer repro, reach the fuzz function (which prints them with %#v) equal
// to go's own formatting of them; the direct decoder (a literal) and the
// reflective one (a named function) alike.
func TestGoFuzzTestArgumentTypes(t *testing.T) {
	dir := goFuzzFixture(t)
	in := t.TempDir()
	all := []any{[]byte("\x00\xffz"), "show", true, byte(200), 'λ', math.MinInt64, int8(-128), int16(-300), int32(math.MaxInt32), int64(-1 << 40),
		uint(math.MaxUint64), uint8(255), uint16(65535), uint32(1 << 31), uint64(1<<64 - 1), float32(-0.5), math.Inf(-1)}
	named := []any{uint16(513), "show", []byte("x\xff")}
	for _, tc := range []struct {
		test   string
		values []any
	}{{"FuzzAll", all}, {"FuzzNamed", named}} {
		f := corpusFile(t, in, tc.test, tc.values...)
		r := wafer(t, dir, "repro", "./args:"+tc.test, f)
		want := "values: " + fmt.Sprintf("%#v", tc.values)
		if r.code != exitCrash || !strings.Contains(r.stdout, "failure: go-test-fail: args_test.go:") || !strings.Contains(r.stdout, want) {
			t.Errorf("%s: exit %d, want a go-test-fail crash with %q\nstdout:\n%s\nstderr:\n%s", tc.test, r.code, want, r.stdout, r.stderr)
		}
	}
}

// f.Add values and testdata/fuzz files are the campaign's seeds: with
// --runs 0 only they run, and FuzzNamed's testdata seed is its crash.
// The seeds are the warm-up inputs too; one that fails is left out of
// it, and its crash is found by its own run.
func TestGoFuzzTestSeeds(t *testing.T) {
	dir := goFuzzFixture(t)
	r := wafer(t, dir, "fuzz", "./args:FuzzNamed", "--runs", "0", "-o", t.TempDir())
	if r.code != exitCrash || !strings.Contains(r.stdout, "found crash: crash: go-test-fail") {
		t.Errorf("FuzzNamed's testdata seed: exit %d, want its crash\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "1 of 1 seed inputs (f.Add values, testdata/fuzz files, then the given ones) run as warm-up") {
		t.Errorf("FuzzNamed's seed is not its warm-up\nstderr:\n%s", r.stderr)
	}
	wasm, err := gofuzzWasm(t, dir, "./args", "FuzzAll")
	if err != nil {
		t.Fatal(err)
	}
	d, err := gofuzz.Describe(t.Context(), wasm, gofuzz.System{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Fields) != 17 || len(d.Seeds) != 1 {
		t.Fatalf("FuzzAll: %d fields, %d seeds; want 17 and its one f.Add", len(d.Fields), len(d.Seeds))
	}
	got := fmt.Sprintf("%#v", decodeTuple(d, d.Seeds[0]))
	want := fmt.Sprintf("%#v", []any{[]byte("b\x00"), "seed", true, byte(7), 'λ', -1, int8(-8), int16(-16), int32(-32), int64(-64),
		uint(1), uint8(8), uint16(16), uint32(32), uint64(1 << 63), float32(1.5), -2.25})
	if got != want {
		t.Errorf("f.Add seed decodes as\n%s\nwant\n%s", got, want)
	}
}

// The outcomes go test -fuzz gives: t.Fatal, t.Error and a helper's
// t.Fatalf fail (go-test-fail, with the test's message and line), a panic
// is a go-panic at the panicking function, t.Skip is invalid, in the
// fuzz function's body and in a closure it calls alike (the fuzz
// function runs on the export's goroutine here: no other skip in the
// package's test files).
func TestGoFuzzTestOutcomes(t *testing.T) {
	reproOutcomes(t, "./behave:FuzzBehave", [][2]string{
		{"ok", "valid"},
		{"skip", "invalid"},
		{"inner", "invalid"},
		{"fatal", `crash[^\n]*\n[^\n]*\n *failure: go-test-fail: behave_test.go:10: fatal here`},
		{"error", `failure: go-test-fail: behave_test.go:12: error here: 5\n *stack:\n *example.com/wafer.fix/gofuzz/behave.FuzzBehave.func1 `},
		{"sixsix", `failure: go-test-fail: behave_test.go:19: six bytes`},
		{"panic", `failure: go-panic: assignment to entry in nil map\n *stack:\n *example.com/wafer.fix/gofuzz/behave.Parse `},
	})
}

// reproOutcomes runs wafer repro on the fixture module's Go fuzz test
// spec with each case's input (its first string) and wants the second, a
// regular expression, in the output.
func reproOutcomes(t *testing.T, spec string, cases [][2]string) {
	t.Helper()
	dir := goFuzzFixture(t)
	in := t.TempDir()
	for _, tc := range cases {
		f := corpusFile(t, in, tc[0], []byte(tc[0]))
		r := wafer(t, dir, "repro", spec, f)
		if !regexp.MustCompile(tc[1]).MatchString(r.stdout) {
			t.Errorf("%q: want %q in\n%s\nstderr:\n%s", tc[0], tc[1], r.stdout, r.stderr)
		}
	}
}

// The warm-up before the snapshot leaves the heap room to grow to the
// collector's goal: testdata/gofuzz/heaproom's 16 MiB of pointer globals
// put its goal far past a fixed 4 MiB, and its fuzz test fails when
// allocating half of the room grows the heap (a run that grows memory
// costs a new instance).
func TestGoFuzzTestHeapRoom(t *testing.T) {
	dir := goFuzzFixture(t)
	f := corpusFile(t, t.TempDir(), "in", []byte("x"))
	if r := wafer(t, dir, "repro", "./heaproom:FuzzHeapRoom", f); r.code != 0 || !strings.Contains(r.stdout, ": valid") {
		t.Errorf("repro: exit %d, want valid:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// A helper's t.SkipNow (which the build does not rewrite) keeps the
// fuzz function on its T's goroutine: a skip there, and one in the fuzz
// function's body, are invalid, and t.Fatal still fails.
func TestGoFuzzTestSkipHelper(t *testing.T) {
	reproOutcomes(t, "./skiphelp:FuzzSkipHelper", [][2]string{
		{"ok", "valid"},
		{"skip", "invalid"},
		{"inner", "invalid"},
		{"fatal", `failure: go-test-fail: skiphelp_test.go:13: fatal here`},
	})
}

// A campaign finds the test's failures, writes each crash into the
// package's testdata/fuzz/FuzzXxx, and plain go test replays it natively
// with the same failure.
func TestGoFuzzTestFindingReplaysNatively(t *testing.T) {
	dir := goFuzzFixture(t)
	r := wafer(t, dir, "fuzz", "./ext:FuzzDouble", "--runs", "200000", "-o", t.TempDir())
	m := regexp.MustCompile(`go test -run=(FuzzDouble/[0-9a-f]{16}) \./ext`).FindStringSubmatch(r.stderr)
	if r.code != exitCrash || m == nil {
		t.Fatalf("exit %d, want a crash and its go test command\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	cmd := exec.Command("go", "test", "-run="+m[1], "./ext")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Double(1234) = 0") {
		t.Errorf("go test -run=%s: %v, want the failure Double(1234) = 0\n%s", m[1], err, out)
	}
}

// The typed strategies draw the arguments through generators.Tuple:
// zest finds the integer the function compares with (a dictionary
// constant) from its f.Add seed, read back into a choice sequence.
func TestGoFuzzTestTypedStrategy(t *testing.T) {
	dir := goFuzzFixture(t)
	r := wafer(t, dir, "fuzz", "./ext:FuzzDouble", "--strategy", "zest", "--runs", "100000", "--go-testdata=false", "-o", t.TempDir())
	if r.code != exitCrash || !strings.Contains(r.stdout, "Double(N) = N") {
		t.Errorf("exit %d, want the crash\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "not read back") {
		t.Errorf("the f.Add seed was not read back into a choice sequence:\n%s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ext", "testdata")); err == nil {
		t.Errorf("--go-testdata=false wrote into the package's testdata")
	}
}

func TestGoFuzzTestErrors(t *testing.T) {
	dir := goFuzzFixture(t)
	for _, tc := range []struct {
		spec, want string
	}{
		{"./behave:FuzzNope", "./behave: no fuzz test FuzzNope in example.com/wafer.fix/gofuzz/behave (fuzz tests there: FuzzBehave)"},
		{"./nowasi:FuzzF", "./nowasi: build constraints exclude all Go files"},
		{"./missing:FuzzF", "./missing: "},
	} {
		r := wafer(t, dir, "fuzz", tc.spec, "--runs", "1", "-o", t.TempDir())
		if r.code != exitError || !strings.Contains(r.stderr, tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("%s: exit %d, want one line with %q\nstderr:\n%s", tc.spec, r.code, tc.want, r.stderr)
		}
	}
}

// gofuzzWasm finds and builds a fuzz test of the fixture, to run alone
// (as wafer build does).
func gofuzzWasm(t *testing.T, dir, pkg, name string) ([]byte, error) {
	test, err := gofuzz.Find(t.Context(), "go", dir, pkg, name)
	if err != nil {
		return nil, err
	}
	path, err := gofuzz.Build(t.Context(), test, gofuzz.BuildOptions{Standalone: true})
	if err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

func decodeTuple(d *gofuzz.Description, in []byte) []any { return generators.DecodeTuple(d.Fields, in) }

// The README's Go fuzz test command, on the bundled example.
func TestReadmeGoFuzzTest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go fuzz test for wasip1 (-short)")
	}
	out := t.TempDir()
	r := wafer(t, repoRoot, "fuzz", "--runs", "3000", "--go-testdata=false", "-o", out, "./examples/gotest:FuzzJSON")
	if r.code != 0 || !strings.Contains(r.stdout, "gotest:FuzzJSON: 3000 executions") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// cov takes the same PKG:FuzzXxx: the campaign's build, which reads
	// ../gojson/seeds/object.json before f.Fuzz, replays the queue
	// without a crash.
	r = wafer(t, repoRoot, "cov", "-o", filepath.Join(t.TempDir(), "cov"), "./examples/gotest:FuzzJSON", out)
	if r.code != 0 || !strings.Contains(r.stdout, "examples/gotest:FuzzJSON: ") || !strings.Contains(r.stdout, " (0 crash, 0 hang)") {
		t.Errorf("cov: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}
