package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wafer build writes the module of a Go fuzz test, which then fuzzes as
// a plain .wasm (its description read from the module itself); a package
// that imports wafer's harness is refused with the reason.
func TestBuildGoFuzzTest(t *testing.T) {
	dir := goFuzzFixture(t)
	out := filepath.Join(t.TempDir(), "behave.wasm")
	if r := wafer(t, dir, "build", "-o", out, "./behave:FuzzBehave"); r.code != 0 {
		t.Fatalf("build: exit %d\n%s", r.code, r.stderr)
	}
	r := wafer(t, dir, "fuzz", out, "--runs", "0", "-o", t.TempDir())
	if r.code != 0 || !strings.Contains(r.stdout, "behave.wasm: 1 executions") { // its f.Add seed
		t.Errorf("fuzz %s --runs 0: exit %d\nstdout:\n%s\nstderr:\n%s", out, r.code, r.stdout, r.stderr)
	}
	r = wafer(t, repoRoot, "build", "-o", out, "./examples/gojson:FuzzJSON")
	if r.code != exitError || !strings.Contains(r.stderr, "imports github.com/wafer-fuzz/wafer/harness") {
		t.Errorf("build of a harness package: exit %d, want the harness named\n%s", r.code, r.stderr)
	}
	if r := wafer(t, dir, "build", "./behave:FuzzBehave"); r.code != exitUsage {
		t.Errorf("build without -o: exit %d, want %d", r.code, exitUsage)
	}
	if _, err := os.Stat(filepath.Join(dir, "behave", "testdata")); err == nil {
		t.Errorf("build wrote into the package's directory")
	}
}
