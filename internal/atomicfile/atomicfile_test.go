package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrite: the file holds the data, an overwrite replaces it whole, no
// temporary file stays behind, and a missing directory is an error naming
// the path that leaves nothing.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	for _, data := range []string{"first", "second, longer than the first"} {
		if err := Write(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != data {
			t.Fatalf("read %q, %v; expected %q", got, err, data)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("expected only out.txt in the directory, got %d entries", len(entries))
	}
	bad := filepath.Join(dir, "missing", "x")
	if err := Write(bad, []byte("x")); err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("expected an error naming %s, got %v", bad, err)
	}
}

// TestWriteMode: the mode given is the file's, whatever the umask, and an
// overwrite with another mode changes it.
func TestWriteMode(t *testing.T) {
	if os.PathSeparator != '/' {
		t.Skip("permission bits are POSIX's")
	}
	path := filepath.Join(t.TempDir(), "run")
	for _, mode := range []os.FileMode{0o755, 0o600} {
		if err := WriteMode(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm() != mode {
			t.Fatalf("mode %v, %v; expected %v", st.Mode().Perm(), err, mode)
		}
	}
}
