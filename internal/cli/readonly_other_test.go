//go:build !(linux && (amd64 || arm64))

package cli

import (
	"os"
	"testing"
)

// makeReadOnly makes dir refuse new files until the test ends (its
// permission bits); the test is skipped for root, whom they do not stop.
func makeReadOnly(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() == 0 {
		t.Skip("running as root: permission bits do not stop root's writes")
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
}
