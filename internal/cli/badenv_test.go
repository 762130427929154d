package cli

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// snapshot maps every file under dir to its bytes.
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		m[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func sameFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for p, x := range a {
		if y, ok := b[p]; !ok || !bytes.Equal(x, y) {
			return false
		}
	}
	return true
}

// TestReadOnlyOutput: resuming a campaign whose output directory, or one
// of its subdirectories, is read-only fails at start with exit status 1
// and one line naming the directory that is not writable, and writes
// nothing.
func TestReadOnlyOutput(t *testing.T) {
	tlv := filepath.Join(exampleDir(t, "tlv"), "tlv.wasm")
	for _, sub := range []string{"", "queue", filepath.Join(".wafer", "meta", "crashes")} {
		t.Run("out/"+sub, func(t *testing.T) {
			tmp := t.TempDir()
			out := filepath.Join(tmp, "out")
			if r := wafer(t, tmp, "fuzz", "--runs", "300", "--no-fsync", "-o", out, tlv); r.code != 0 && r.code != 77 {
				t.Fatalf("first session: expected it to run, got %d\n%s", r.code, r.stderr)
			}
			before := snapshot(t, out)
			ro := filepath.Join(out, sub)
			makeReadOnly(t, ro)
			r := wafer(t, tmp, "fuzz", "--runs", "300", "--no-fsync", "-o", out, tlv)
			want := "wafer: output directory: " + ro + ": not writable: "
			if r.code != 1 || !strings.HasPrefix(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 {
				t.Fatalf("expected exit 1 and one line %q..., got %d:\n%s", want, r.code, r.stderr)
			}
			if !sameFiles(before, snapshot(t, out)) {
				t.Error("expected nothing written to the output directory")
			}
		})
	}
}
