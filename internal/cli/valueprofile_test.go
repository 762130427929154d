package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFuzzValueProfile: the fuzz command wires --value-profile: the hash
// puzzle (a djb2 hash of four input bytes against a constant, which
// input-to-state cannot help with) crashes within 100,000 runs with it,
// and not without it; the final stats count the features apart.
func TestFuzzValueProfile(t *testing.T) {
	tmp := t.TempDir()
	seed := filepath.Join(tmp, "seed")
	if err := os.WriteFile(seed, []byte(strings.Repeat("x", 64)), 0o644); err != nil {
		t.Fatal(err)
	}
	wasm, err := filepath.Abs(filepath.Join(repoRoot, "testdata", "puzzles", "hash_O0.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flag     string
		code     int
		features bool
	}{{"--value-profile", 77, true}, {"--value-profile=false", 0, false}} {
		r := wafer(t, tmp, "fuzz", tc.flag, "--runs", "100000", "--seed", "1", "--no-shrink", "-o", filepath.Join(tmp, tc.flag), wasm, seed)
		if r.code != tc.code {
			t.Errorf("%s: exit %d, want %d\n%s", tc.flag, r.code, tc.code, r.stderr)
		}
		if got := strings.Contains(r.stderr, `"value_features":`); got != tc.features {
			t.Errorf("%s: value_features in the stats: %v, want %v", tc.flag, got, tc.features)
		}
	}
}

// TestLibFuzzerValueProfile: libFuzzer's -use_value_profile=1 is
// --value-profile: the hash puzzle crashes within 100,000 runs with it and
// not with -use_value_profile=0, and --value-profile=false overrides it.
func TestLibFuzzerValueProfile(t *testing.T) {
	tmp := t.TempDir()
	wasm, err := filepath.Abs(filepath.Join(repoRoot, "testdata", "puzzles", "hash_O0.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		flags []string
		code  int
	}{
		{[]string{"-use_value_profile=1"}, 77},
		{[]string{"-use_value_profile=0"}, 0},
		{[]string{"-use_value_profile=1", "--value-profile=false"}, 0},
	} {
		corpus := filepath.Join(tmp, fmt.Sprint(i))
		if err := os.MkdirAll(corpus, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(corpus, "seed"), []byte(strings.Repeat("x", 64)), 0o644); err != nil {
			t.Fatal(err)
		}
		args := append([]string{wasm, corpus, "-runs=100000", "-seed=1", "-artifact_prefix=" + corpus + "/"}, tc.flags...)
		r := wafer(t, tmp, args...)
		if r.code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s", tc.flags, r.code, tc.code, r.stderr)
		}
	}
}
