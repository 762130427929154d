//go:build unix

package corpus

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadSeedsSpecialFiles: in a corpus directory, links back to a
// directory are not followed (two of them to "." made the walk take 2^32
// steps), a link to a file is read, and a named pipe is skipped with a
// message instead of blocking the read forever.
func TestReadSeedsSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644))
	must(os.Symlink(".", filepath.Join(dir, "a")))
	must(os.Symlink(".", filepath.Join(dir, "b")))
	must(os.Symlink("f", filepath.Join(dir, "g")))
	must(syscall.Mkfifo(filepath.Join(dir, "p"), 0o644))
	seeds, skipped, err := ReadSeeds(context.Background(), nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(seeds) != 2 || string(seeds[0].Data) != "x" || string(seeds[1].Data) != "x" {
		t.Fatalf("expected f and the link g to it, got %d seeds", len(seeds))
	}
	if skipped == nil || !strings.Contains(skipped.Error(), filepath.Join(dir, "p")) {
		t.Fatalf("expected the named pipe reported, got %v", skipped)
	}
}
