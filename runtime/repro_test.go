package runtime

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRepro(t *testing.T) {
	dir := t.TempDir()
	wasm := filepath.Join("..", "testdata", "clib", "clib.wasm")
	tests := []struct {
		name, input string
		status      int
		report      []string // lines the report must contain
	}{
		{"crash", "D", 1, []string{
			"outcome: crash",
			"failure: divide-by-zero: integer divide by zero",
			"stack:",
			"    divide_by_zero testdata/clib/fuzz.c:",
			"    LLVMFuzzerTestOneInput testdata/clib/fuzz.c:",
		}},
		{"abort with stderr", "A", 1, []string{
			"failure: abort: abort: clib: about to abort",
			"stderr (tail):",
			"    clib: about to abort",
		}},
		{"valid with stdout", "Phi", 0, []string{"outcome: valid", "stdout (tail):", "    clib says hi"}},
		{"invalid", "X", 0, []string{"outcome: invalid"}},
		{"hang", "L", 2, []string{"outcome: hang", "failure: timeout: wall-clock timeout (backstop)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := filepath.Join(dir, tc.name)
			if err := os.WriteFile(in, []byte(tc.input), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := Repro(context.Background(), wasm, in, testConfig(t, Config{Timeout: testTimeout}))
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Outcome.ExitStatus(); got != tc.status {
				t.Fatalf("exit status: expected %d, got %d", tc.status, got)
			}
			rep := Report(res)
			for _, want := range tc.report {
				if !strings.Contains(rep, want) {
					t.Errorf("report lacks %q:\n%s", want, rep)
				}
			}
		})
	}
	if _, err := Repro(context.Background(), filepath.Join(dir, "missing.wasm"), wasm, Config{}); err == nil {
		t.Fatal("expected an error for a missing module")
	}
	bad := filepath.Join(dir, "bad.wasm")
	os.WriteFile(bad, []byte("\x00asm\x01\x00\x00\x00\x05"), 0o644)
	if _, err := Repro(context.Background(), bad, wasm, testConfig(t, Config{})); err == nil || !strings.Contains(err.Error(), "bad.wasm: section memory: offset 0x9") {
		t.Fatalf("expected a format error naming the file, section and offset, got %v", err)
	}
}
