package instrument

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// wazeroModule is the module whose zip ships the spec testsuite, in
// internal/integration_test/spectest.
const wazeroModule = "github.com/tetratelabs/wazero"

// SpecSuiteDir returns wazero's spec testsuite directory, for the spec
// tests of both test packages (instrument and instrument_test). It asks the
// go command where the required wazero is (`go list -m`, run in this
// package's directory) and falls back to its path in the module cache
// (GOMODCACHE, else the first GOPATH entry's pkg/mod, else ~/go/pkg/mod).
// When the suite is not there, the test fails if the environment has
// CI=true (CI claims these tests run) and is skipped with the reason
// otherwise.
func SpecSuiteDir(t testing.TB) string {
	t.Helper()
	dir, err := findSpecSuite(t)
	if err == nil {
		return dir
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("wazero's spec testsuite is required with CI=true: %v", err)
	}
	t.Skipf("wazero's spec testsuite not found, spec tests skipped (they fail with CI=true): %v", err)
	return ""
}

// findSpecSuite locates the suite (SpecSuiteDir), or says where it looked.
func findSpecSuite(t testing.TB) (string, error) {
	sub := filepath.Join("internal", "integration_test", "spectest")
	var tried []string
	out, err := exec.CommandContext(t.Context(), "go", "list", "-m", "-f", "{{.Dir}}", wazeroModule).Output()
	switch mod := strings.TrimSpace(string(out)); {
	case err != nil:
		tried = append(tried, fmt.Sprintf("go list -m %s: %v", wazeroModule, err))
	case mod == "":
		tried = append(tried, fmt.Sprintf("go list -m %s: module not downloaded", wazeroModule))
	default:
		dir := filepath.Join(mod, sub)
		if _, err := os.Stat(dir); err == nil {
			return dir, nil
		}
		tried = append(tried, dir+": not found")
	}
	// The fallback: the version go.mod requires, in the module cache
	// (wazero's path has no upper-case letter to escape).
	version, err := requiredVersion(wazeroModule)
	if err != nil {
		return "", fmt.Errorf("%s; %w", strings.Join(tried, "; "), err)
	}
	cache := os.Getenv("GOMODCACHE")
	if cache == "" {
		gopath := os.Getenv("GOPATH")
		if gopath == "" {
			home, _ := os.UserHomeDir()
			gopath = filepath.Join(home, "go")
		}
		cache = filepath.Join(filepath.SplitList(gopath)[0], "pkg", "mod")
	}
	dir := filepath.Join(cache, filepath.FromSlash(wazeroModule)+"@"+version, sub)
	if _, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("%s; %s: not found", strings.Join(tried, "; "), dir)
	}
	return dir, nil
}

// requiredVersion returns the version of module mod that the go.mod of
// the module holding the working directory requires.
func requiredVersion(mod string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			for line := range strings.SplitSeq(string(b), "\n") {
				f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
				if len(f) >= 2 && f[0] == mod {
					return f[1], nil
				}
			}
			return "", fmt.Errorf("%s: no requirement of %s", filepath.Join(dir, "go.mod"), mod)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// The spec files wazero v1.12.0's suite references (coreSpecFiles), counted
// by `go test -v -run TestSpecRoundTrip|TestSpecMalformed ./instrument`
// with WAFER_FULL=1: 2,856 modules the scripts expect to be valid (module,
// assert_unlinkable, assert_uninstantiable) and 4,977 they expect to be
// rejected (assert_malformed, assert_invalid). coreSpecFiles fails below
// them: a loader that finds fewer files is broken, not done.
const (
	specValidFiles    = 2856
	specRejectedFiles = 4977
)

type coreSpecFile struct {
	path      string
	suite     string // v1, v2, threads, ...
	valid     bool   // a module the script expects to decode and validate
	text      string // the expected error of assert_malformed/assert_invalid
	malformed bool
}

// coreSpecFiles lists every .wasm file referenced by a spec script, with
// whether the script expects it to be a valid module.
func coreSpecFiles(t testing.TB) []coreSpecFile {
	t.Helper()
	dir := SpecSuiteDir(t)
	scripts, _ := filepath.Glob(filepath.Join(dir, "*", "testdata", "*.json"))
	sort.Strings(scripts)
	var out []coreSpecFile
	var valid, rejected int
	for _, s := range scripts {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		var script struct {
			Commands []struct {
				Type       string `json:"type"`
				Filename   string `json:"filename"`
				ModuleType string `json:"module_type"`
				Text       string `json:"text"`
			} `json:"commands"`
		}
		if err := json.Unmarshal(b, &script); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		suite := filepath.Base(filepath.Dir(filepath.Dir(s)))
		for _, c := range script.Commands {
			if c.Filename == "" || filepath.Ext(c.Filename) != ".wasm" {
				continue
			}
			isValid := c.Type == "module" || c.Type == "assert_unlinkable" || c.Type == "assert_uninstantiable"
			if !isValid && c.Type != "assert_malformed" && c.Type != "assert_invalid" {
				continue
			}
			out = append(out, coreSpecFile{path: filepath.Join(filepath.Dir(s), c.Filename), suite: suite, valid: isValid, text: c.Text, malformed: c.Type == "assert_malformed"})
			if isValid {
				valid++
			} else {
				rejected++
			}
		}
	}
	if valid < specValidFiles || rejected < specRejectedFiles {
		t.Fatalf("%s: found %d valid and %d rejected spec modules in %d scripts, expected at least %d and %d",
			dir, valid, rejected, len(scripts), specValidFiles, specRejectedFiles)
	}
	return out
}

// coreSample returns every file with WAFER_FULL=1, else every k-th one
// (every 4k-th under -short).
func coreSample[T any](xs []T, k int) []T {
	if coreMode() == "full" {
		return xs
	}
	if testing.Short() {
		k *= 4
	}
	var out []T
	for i := 0; i < len(xs); i += k {
		out = append(out, xs[i])
	}
	return out
}

// coreMode names coreSample's choice: "full" (WAFER_FULL=1), "short"
// (-short) or "sampled"; today's figures are recorded per mode.
func coreMode() string {
	switch {
	case os.Getenv("WAFER_FULL") == "1":
		return "full"
	case testing.Short():
		return "short"
	}
	return "sampled"
}
