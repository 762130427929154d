package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestPruneCache: a cache over its budget loses its oldest files until it
// takes half the budget; one within it is left alone.
func TestPruneCache(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "wazero-v1-amd64-linux")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Hour)
	for i := range 10 {
		p := filepath.Join(sub, fmt.Sprintf("f%d", i))
		if err := os.WriteFile(p, make([]byte, 100), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, base, base.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	left := func() []string {
		des, _ := os.ReadDir(sub)
		var names []string
		for _, d := range des {
			names = append(names, d.Name())
		}
		return names
	}
	pruneCache(dir, 1000) // 1,000 bytes: within budget
	if n := len(left()); n != 10 {
		t.Fatalf("within budget: expected 10 files, got %d", n)
	}
	pruneCache(dir, 800) // over: down to 400 bytes, the newest 4
	if got := left(); !slices.Equal(got, []string{"f6", "f7", "f8", "f9"}) {
		t.Fatalf("over budget: expected the newest 4 files, got %v", got)
	}
}
