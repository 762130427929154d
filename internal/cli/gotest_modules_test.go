package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// A fuzz test runs against the packages go test would build it with: a
// module required through a replace directive (its directory), a
// vendored one (vendor/, by default and with GOFLAGS=-mod=vendor),
// another module of the workspace. Each fixture's fuzz function fails on
// inputs over 8 bytes with the name of the dependency's copy it was
// built with. (gofuzz's TestBuildKeyModules checks that edits of those
// copies, GOFLAGS=-mod=mod and GOWORK=off change the build.)
func TestGoFuzzTestModules(t *testing.T) {
	root := copyGoFixture(t, "gomods")
	for _, tc := range []struct {
		name, dir, spec, env, want string
	}{
		{"replace", "replace", ".:FuzzLong", "", "dep directory"},
		{"vendor", "vendored", ".:FuzzLong", "", "vendor directory"},
		{"mod=vendor", "vendored", ".:FuzzLong", "GOFLAGS=-mod=vendor", "vendor directory"},
		{"workspace", "work", "./a:FuzzLong", "", "workspace module b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if k, v, ok := strings.Cut(tc.env, "="); ok {
				t.Setenv(k, v)
			}
			r := wafer(t, filepath.Join(root, tc.dir), "fuzz", tc.spec, "--runs", "100000", "--go-testdata=false", "-o", t.TempDir())
			if r.code != exitCrash || !strings.Contains(r.stdout, "long input ("+tc.want+")") {
				t.Errorf("exit %d, want the crash with %q\nstdout:\n%s\nstderr:\n%s", r.code, tc.want, r.stdout, r.stderr)
			}
		})
	}
}

// With GOWORK=off, a workspace's fuzz test that imports another of its
// modules fails to build, as under go test: one line naming the package.
func TestGoFuzzTestWorkspaceOff(t *testing.T) {
	root := copyGoFixture(t, "gomods")
	t.Setenv("GOWORK", "off")
	r := wafer(t, filepath.Join(root, "work", "a"), "fuzz", ".:FuzzLong", "--runs", "1", "-o", t.TempDir())
	want := "no required module provides package example.com/wafer.fix/b"
	if r.code != exitError || !strings.Contains(r.stderr, want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
		t.Errorf("exit %d, want one line with %q\nstderr:\n%s", r.code, want, r.stderr)
	}
}
