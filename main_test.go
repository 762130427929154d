package main_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// waferBin is the wafer binary TestMain builds once for every test here.
var waferBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wafer-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	waferBin = filepath.Join(dir, "wafer")
	build := exec.Command("go", "build", "-o", waferBin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one finished wafer process.
type result struct {
	code           int
	stdout, stderr string
}

// wafer runs the built binary in dir with args.
func wafer(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(waferBin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("wafer %v: %v", args, err)
	}
	return r
}

// repoDir is the repository root: tests run with the package dir as cwd.
func repoDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

func TestBadInvocation(t *testing.T) {
	tmp := t.TempDir()
	notWasm := filepath.Join(tmp, "notwasm.wasm")
	os.WriteFile(notWasm, []byte("hello, this is text"), 0o644)
	truncated := filepath.Join(tmp, "trunc.wasm")
	os.WriteFile(truncated, []byte("\x00asm"), 0o644)
	badVersion := filepath.Join(tmp, "v2.wasm")
	os.WriteFile(badVersion, []byte("\x00asm\x02\x00\x00\x00"), 0o644)
	// A module header that the decoder must reject: a section id past the end.
	malformed := filepath.Join(tmp, "malformed.wasm")
	os.WriteFile(malformed, []byte("\x00asm\x01\x00\x00\x00\x01\xff\xff\xff\xff\x0f"), 0o644)
	readonly := filepath.Join(tmp, "ro")
	os.Mkdir(readonly, 0o555)
	// A regular file where a directory is needed makes an output dir
	// unwritable even for root.
	blocker := filepath.Join(tmp, "blocker")
	os.WriteFile(blocker, nil, 0o644)
	unwritable := filepath.Join(blocker, "out")

	tests := []struct {
		name string
		args []string
		code int
		want string // substring of the one error line
	}{
		{"no args", nil, 2, "no command given"},
		{"unknown command", []string{"fuzzz"}, 2, `unknown command "fuzzz"`},
		{"unknown flag", []string{"fuzz", "--no-such-flag", notWasm}, 2, "unknown flag: --no-such-flag"},
		{"unknown libfuzzer flag", []string{notWasm, "-no_such_flag=1"}, 2, "unknown flag: --no_such_flag"},
		{"bad flag value", []string{"fuzz", "--runs", "many", notWasm}, 2, "invalid argument"},
		{"bad duration", []string{"fuzz", "--max-total-time", "soon", notWasm}, 2, "expected seconds or a duration"},
		{"fuzz missing target", []string{"fuzz"}, 2, "missing TARGET.wasm"},
		{"fuzz missing file", []string{"fuzz", filepath.Join(tmp, "nope.wasm")}, 1, "no such file or directory"},
		{"libfuzzer missing file", []string{filepath.Join(tmp, "nope.wasm"), "-runs=1"}, 1, "no such file or directory"},
		{"fuzz not wasm", []string{"fuzz", notWasm}, 1, "not a WebAssembly binary module"},
		{"fuzz truncated", []string{"fuzz", truncated}, 1, "not a WebAssembly binary module"},
		{"fuzz bad version", []string{"fuzz", badVersion}, 1, "unsupported WebAssembly version"},
		{"fuzz unwritable output", []string{"fuzz", "-o", unwritable, malformed}, 1, "output directory"},
		{"repro missing input", []string{"repro", malformed}, 2, "expected TARGET.wasm and at least one input"},
		{"repro not wasm", []string{"repro", notWasm, notWasm}, 1, "not a WebAssembly binary module"},
		{"minimize arity", []string{"minimize", malformed}, 2, "expected TARGET.wasm and one crash file"},
		{"merge no output", []string{"merge", malformed, tmp}, 2, "missing -o OUT_DIR"},
		{"merge unwritable", []string{"merge", "-o", unwritable, malformed, tmp}, 1, "output directory"},
		{"instrument no output", []string{"instrument", malformed}, 2, "missing -o OUT.wasm"},
		{"instrument missing file", []string{"instrument", "-o", filepath.Join(tmp, "x.wasm"), filepath.Join(tmp, "nope.wasm")}, 1, "no such file or directory"},
		{"instrument unwritable", []string{"instrument", "-o", filepath.Join(unwritable, "x.wasm"), malformed}, 1, "not a directory"},
		{"help unknown", []string{"help", "nope"}, 2, `unknown command "nope"`},
		{"version args", []string{"version", "x"}, 2, "takes no arguments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := wafer(t, tmp, tc.args...)
			if r.code != tc.code {
				t.Errorf("exit code: expected %d, got %d (stderr %q)", tc.code, r.code, r.stderr)
			}
			lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "wafer: ") {
				t.Errorf("stderr: expected one line starting with \"wafer: \", got %q", r.stderr)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr: expected it to contain %q, got %q", tc.want, r.stderr)
			}
			if strings.Contains(strings.ToLower(r.stdout+r.stderr), "panic") {
				t.Errorf("output mentions a panic: %q %q", r.stdout, r.stderr)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	for _, cmd := range []string{"fuzz", "repro", "minimize", "merge", "instrument", "version", "libfuzzer"} {
		t.Run(cmd, func(t *testing.T) {
			r := wafer(t, repoDir(t), "help", cmd)
			if r.code != 0 {
				t.Fatalf("exit code: expected 0, got %d (%s)", r.code, r.stderr)
			}
			if !strings.Contains(r.stdout, "usage: wafer") {
				t.Errorf("expected a usage line, got %q", r.stdout)
			}
			if cmd != "version" && !strings.Contains(r.stdout, "examples:") {
				t.Errorf("expected examples, got %q", r.stdout)
			}
		})
	}
	r := wafer(t, repoDir(t), "fuzz", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "--max-total-time") {
		t.Errorf("fuzz --help: expected exit 0 and the flag table, got %d %q", r.code, r.stdout)
	}
	r = wafer(t, repoDir(t), "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "wafer ") {
		t.Errorf("version: expected exit 0 and \"wafer ...\", got %d %q", r.code, r.stdout)
	}
}
