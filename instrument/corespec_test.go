package instrument

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// coreSpecDir locates wazero's spec testsuite in the module cache without
// running the go tool.
func coreSpecDir(t testing.TB) string {
	t.Helper()
	cache := os.Getenv("GOMODCACHE")
	if cache == "" {
		gopath := os.Getenv("GOPATH")
		if gopath == "" {
			home, _ := os.UserHomeDir()
			gopath = filepath.Join(home, "go")
		}
		cache = filepath.Join(filepath.SplitList(gopath)[0], "pkg", "mod")
	}
	dir := filepath.Join(cache, "github.com", "tetratelabs", "wazero@v1.12.0", "internal", "integration_test", "spectest")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("wazero spec testsuite not found: %v", err)
	}
	return dir
}

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
	dir := coreSpecDir(t)
	scripts, _ := filepath.Glob(filepath.Join(dir, "*", "testdata", "*.json"))
	sort.Strings(scripts)
	var out []coreSpecFile
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
			valid := c.Type == "module" || c.Type == "assert_unlinkable" || c.Type == "assert_uninstantiable"
			if !valid && c.Type != "assert_malformed" && c.Type != "assert_invalid" {
				continue
			}
			out = append(out, coreSpecFile{path: filepath.Join(filepath.Dir(s), c.Filename), suite: suite, valid: valid, text: c.Text, malformed: c.Type == "assert_malformed"})
		}
	}
	return out
}

// coreSample returns every file with WAFER_FULL=1, else every k-th one.
func coreSample[T any](xs []T, k int) []T {
	if os.Getenv("WAFER_FULL") == "1" || testing.Short() && false {
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
