package cli

import (
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
