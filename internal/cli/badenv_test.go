package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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

// startWafer starts the built binary with args in dir and waits until
// its stderr contains want (failing the test, the process killed, after
// a minute without it).
func startWafer(t *testing.T, bin, dir, want string, args ...string) (*exec.Cmd, *syncBuffer, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var stdout bytes.Buffer
	stderr := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	for deadline := time.Now().Add(time.Minute); !strings.Contains(stderr.String(), want); {
		if time.Now().After(deadline) {
			t.Fatalf("no %q within a minute:\n%s", want, tail(stderr.String()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cmd, stderr, &stdout
}

// exitCode waits for cmd and returns its exit status.
func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// TestBadEnvProcess runs the built binary: a campaign killed with
// SIGKILL leaves its lock file behind, which must not block the next
// campaign on the directory; a SIGTERM while the campaign shrinks its
// crash at the end keeps the crash as found and exits with the crash's
// status, and the crash reproduces.
func TestBadEnvProcess(t *testing.T) {
	bin := buildWafer(t)
	t.Run("kill -9 leaves a stale lock", func(t *testing.T) {
		tlv := filepath.Join(exampleDir(t, "tlv"), "tlv.wasm")
		tmp := t.TempDir()
		out := filepath.Join(tmp, "out")
		cmd, _, _ := startWafer(t, bin, tmp, `"execs"`, "fuzz", "--keep-going", "--no-fsync", "--max-total-time", "300", "-o", out, tlv)
		r := wafer(t, tmp, "fuzz", "--runs", "100", "-o", out, tlv)
		if r.code != 1 || !strings.Contains(r.stderr, fmt.Sprintf("output directory %s is in use by another wafer campaign (process %d holds %s)", out, cmd.Process.Pid, filepath.Join(out, ".wafer", "lock"))) {
			t.Fatalf("held: expected exit 1 naming the directory, the process and the lock, got %d:\n%s", r.code, r.stderr)
		}
		if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
			t.Fatalf("the first campaign stopped when the second was refused: %v", err)
		}
		cmd.Process.Kill()
		cmd.Wait()
		if _, err := os.Stat(filepath.Join(out, ".wafer", "lock")); err != nil {
			t.Fatalf("expected the killed campaign's lock file left behind: %v", err)
		}
		queued := len(files(t, filepath.Join(out, "queue")))
		r = wafer(t, tmp, "fuzz", "--keep-going", "--runs", "1000", "-o", out, tlv)
		if r.code != 0 && r.code != 77 {
			t.Fatalf("after kill -9: expected the next campaign to run, got %d:\n%s", r.code, r.stderr)
		}
		if n := len(files(t, filepath.Join(out, "queue"))); n < queued {
			t.Errorf("expected the %d queue entries of the killed campaign kept, got %d", queued, n)
		}
	})
	t.Run("SIGTERM while shrinking", func(t *testing.T) {
		// testdata/hostile recurses until the stack is exhausted on "C":
		// each run takes long, so shrinking 100 KB takes minutes.
		hostile := filepath.Join(repoRoot, "testdata", "hostile", "hostile.wasm")
		tmp := t.TempDir()
		seed := append([]byte("C"), bytes.Repeat([]byte("padding "), 12800)...)
		os.WriteFile(filepath.Join(tmp, "seed"), seed, 0o644)
		out := filepath.Join(tmp, "out")
		cmd, stderr, stdout := startWafer(t, bin, tmp, "INFO: shrinking 1 crash,", "fuzz", "--no-fsync", "-o", out, hostile, "seed")
		cmd.Process.Signal(syscall.SIGTERM)
		if code := exitCode(t, cmd); code != 77 {
			t.Fatalf("expected the crash's exit status 77, got %d:\n%s", code, tail(stderr.String()))
		}
		if !strings.Contains(stdout.String(), "stopped by crash; queue 1, 1 bug") {
			t.Errorf("expected the summary of the crash, got:\n%s", stdout.String())
		}
		crashes := files(t, filepath.Join(out, "crashes"))
		if len(crashes) != 1 {
			t.Fatalf("expected the crash saved, got %v", crashes)
		}
		crash := filepath.Join(out, "crashes", crashes[0])
		if b, err := os.ReadFile(crash); err != nil || !bytes.Equal(b, seed) {
			t.Fatalf("expected the crash kept as found (%d bytes), got %d bytes (%v)", len(seed), len(b), err)
		}
		if r := wafer(t, tmp, "repro", hostile, crash); r.code != 77 || !strings.Contains(r.stdout+r.stderr, "stack-exhausted") {
			t.Fatalf("repro: expected the crash again (77), got %d:\n%s%s", r.code, r.stdout, r.stderr)
		}
		// A resume (replaying its queue only: hostile's other inputs are
		// slow) knows the crash it holds.
		r := wafer(t, tmp, "fuzz", "--runs", "0", "--no-fsync", "-o", out, hostile)
		if r.code != 0 || !strings.Contains(r.stdout, "1 bug (1 crash state, 0 new)") {
			t.Fatalf("resume: expected it to run (0) and count the crash it holds, got %d:\n%s%s", r.code, r.stdout, tail(r.stderr))
		}
	})
}
