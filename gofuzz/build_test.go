package gofuzz

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// modulesFixture copies testdata/gomods (modules with a replace
// directive, a vendor directory, a workspace) to a temporary directory;
// it skips without the go command.
func modulesFixture(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command: the build key is go list's")
	}
	src := filepath.Join("..", "testdata", "gomods")
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// The build key changes with every file that changes what go test would
// build: a replaced module's sources and go.mod, the vendor directory's
// sources and modules.txt, a workspace module's sources and the go.work;
// and with GOFLAGS and GOWORK. It stays while nothing changes.
func TestBuildKeyModules(t *testing.T) {
	root := modulesFixture(t)
	key := func(dir, pkg string) (string, error) {
		t.Helper()
		test, err := Find(t.Context(), "go", filepath.Join(root, dir), pkg, "FuzzLong")
		if err != nil {
			return "", err
		}
		k, _, err := buildKey(t.Context(), "go", test, shim(test, "", nil))
		return k, err
	}
	mustKey := func(dir, pkg string) string {
		t.Helper()
		k, err := key(dir, pkg)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	edit := func(file, old, new string) {
		t.Helper()
		path := filepath.Join(root, file)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), old) {
			t.Fatalf("%s: no %q", file, old)
		}
		if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		dir, pkg string
		edits    [][3]string // file, old, new
	}{
		{"replace", ".", [][3]string{{"dep/dep.go", "dep directory", "edited"}, {"dep/go.mod", "go 1.24", "go 1.21"}, {"replace/go.mod", "go 1.24", "go 1.22"}}},
		{"vendored", ".", [][3]string{{"vendored/vendor/example.com/wafer.fix/dep/dep.go", "vendor directory", "edited"}, {"vendored/vendor/modules.txt", "go 1.24", "go 1.21"}}},
		{"work", "./a", [][3]string{{"work/b/b.go", "workspace module b", "edited"}, {"work/go.work", "go 1.24", "go 1.24.0"}}},
	} {
		k := mustKey(tc.dir, tc.pkg)
		if again := mustKey(tc.dir, tc.pkg); again != k {
			t.Errorf("%s: key %s, then %s with no change", tc.dir, k, again)
		}
		for _, e := range tc.edits {
			edit(e[0], e[1], e[2])
			next := mustKey(tc.dir, tc.pkg)
			if next == k {
				t.Errorf("%s: key unchanged by the edit of %s", tc.dir, e[0])
			}
			k = next
		}
	}
	// the replacement instead of the vendor directory
	vendored := mustKey("vendored", ".")
	t.Setenv("GOFLAGS", "-mod=mod")
	if k := mustKey("vendored", "."); k == vendored {
		t.Errorf("vendored: key unchanged by GOFLAGS=-mod=mod")
	}
	t.Setenv("GOFLAGS", "")
	t.Setenv("GOWORK", "off")
	if _, err := key("work/a", "."); err == nil || !strings.Contains(err.Error(), "no required module provides package example.com/wafer.fix/b") || strings.Contains(err.Error(), "\n") {
		t.Errorf("GOWORK=off: %v, want one line: no module provides package b", err)
	}
}

// One build serves a package's fuzz tests: FuzzAll and FuzzNamed of
// testdata/gofuzz/args share a go build (each its own file, for its
// UncountedSection), whose module describes the one
// Test.System names, and refuses to choose without it. A standalone
// build runs its test without the environment.
func TestBuildServesPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go fuzz test for wasip1 (-short)")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command: Go fuzz tests need it to build")
	}
	dir := filepath.Join("..", "testdata", "gofuzz")
	var log strings.Builder
	opts := BuildOptions{CacheDir: t.TempDir(), Log: &log}
	paths := map[string]string{}
	for _, name := range []string{"FuzzAll", "FuzzNamed"} {
		test, err := Find(t.Context(), "go", dir, "./args", name)
		if err != nil {
			t.Fatal(err)
		}
		if paths[name], err = Build(t.Context(), test, opts); err != nil {
			t.Fatal(err)
		}
	}
	// one go build; a file per test, its UncountedSection the test's
	if strings.Count(log.String(), "INFO: building") != 1 || paths["FuzzAll"] == paths["FuzzNamed"] || filepath.Dir(paths["FuzzAll"]) != filepath.Dir(paths["FuzzNamed"]) {
		t.Errorf("builds %v, log:\n%s\nwant one build for both, a file each", paths, log.String())
	}
	wasm, err := os.ReadFile(paths["FuzzAll"])
	if err != nil {
		t.Fatal(err)
	}
	for name, fields := range map[string]int{"FuzzAll": 17, "FuzzNamed": 3} {
		d, err := Describe(t.Context(), wasm, System{Env: []string{selectEnv + "=" + name}}, nil)
		if err != nil || len(d.Fields) != fields {
			t.Errorf("%s: %+v, %v; want %d fields", name, d, err, fields)
		}
	}
	checkUncounted(t, wasm)
	want := "a build of several fuzz tests (FuzzAll, FuzzNamed): WAFER_GO_FUZZ_TEST names the one to run"
	if _, err := Describe(t.Context(), wasm, System{}, nil); err == nil || err.Error() != want {
		t.Errorf("without %s: %v, want %q", selectEnv, err, want)
	}
	test, err := Find(t.Context(), "go", dir, "./args", "FuzzNamed")
	if err != nil {
		t.Fatal(err)
	}
	opts.Standalone = true
	path, err := Build(t.Context(), test, opts)
	if err != nil {
		t.Fatal(err)
	}
	if wasm, err = os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	if d, err := Describe(t.Context(), wasm, System{}, nil); err != nil || len(d.Fields) != 3 {
		t.Errorf("standalone FuzzNamed: %+v, %v; want its 3 fields", d, err)
	}
}

// checkUncounted: the build names, in its UncountedSection, regexp (which
// only testing imports) and not fmt (which args.go imports), and the
// patterns match functions of the build: with them, regexp's (and its
// types' equality functions) have no counters and fmt's have.
func checkUncounted(t *testing.T, wasm []byte) {
	t.Helper()
	sum, err := instrument.Summarize(wasm)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(sum.Uncounted, "regexp.*") || slices.Contains(sum.Uncounted, "fmt.*") {
		t.Errorf("uncounted %q: want regexp.* and not fmt.*", sum.Uncounted)
	}
	sites := func(skip []string) map[string]int {
		t.Helper()
		p, err := instrument.Prepare(wasm, instrument.Build{Instrument: &instrument.Options{Skip: skip}})
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, s := range p.SiteMap.Sites {
			pkg, _, _ := strings.Cut(strings.TrimPrefix(p.SiteMap.Funcs[s.Func].Name, "type:.eq."), ".")
			n[pkg]++
		}
		return n
	}
	all, skipped := sites(nil), sites(sum.Uncounted)
	if all["regexp"] == 0 || skipped["regexp"] != 0 || skipped["fmt"] == 0 {
		t.Errorf("regexp's sites %d, with the build's uncounted %d; fmt's %d; want some, none, some", all["regexp"], skipped["regexp"], skipped["fmt"])
	}
}

// The generated file reads the T's failed flag after each input
// (waferFuzzFailedFlag) instead of calling t.Failed, whose read lock
// writes to the T, and calls t.Failed only when testing has no such
// field: this test tells when a Go release renames it.
func TestTestingFailedFlag(t *testing.T) {
	f := reflect.ValueOf(t).Elem().FieldByName("failed")
	if !f.IsValid() || f.Kind() != reflect.Bool || !f.CanAddr() {
		t.Fatalf("testing.T's field failed: %v; the generated file would call t.Failed after every input", f)
	}
	if f.Bool() {
		t.Errorf("failed is set on a T that has not failed")
	}
}
