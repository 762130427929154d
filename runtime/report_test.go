package runtime

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// Repro runs the input file once on the module file's plain build
// (Preparation, instrument.Prepare: uninstrumented), on a fresh instance, and returns a Result that owns its buffers: the tests'
// shortcut (campaign.Reproducer is wafer's repro). cfg is used as for New.
// Start-up failures and unreadable files are errors.
func Repro(ctx context.Context, wasmPath, inputPath string, cfg Config) (Result, error) {
	wasm, err := os.ReadFile(wasmPath)
	if err != nil {
		return Result{}, err
	}
	input, err := os.ReadFile(inputPath)
	if err != nil {
		return Result{}, err
	}
	if cfg.MaxInputLen < len(input) {
		cfg.MaxInputLen = len(input)
	}
	cfg.Reset = Fresh
	s, err := instrument.Summarize(wasm)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", wasmPath, err)
	}
	p, err := instrument.Prepare(wasm, Preparation(s, cfg))
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", wasmPath, err)
	}
	t, err := New(ctx, p, cfg)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", wasmPath, err)
	}
	defer t.Close(ctx)
	w, err := t.NewWorker(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", wasmPath, err)
	}
	defer w.Close(ctx)
	res, err := w.Run(ctx, input)
	if err != nil {
		return Result{}, err
	}
	res.Counters = append([]byte(nil), res.Counters...)
	res.Stdout = append([]byte(nil), res.Stdout...)
	res.Stderr = append([]byte(nil), res.Stderr...)
	return res, nil
}

func TestReport(t *testing.T) {
	dir := t.TempDir()
	wasm := filepath.Join("..", "testdata", "clib", "clib.wasm")
	tests := []struct {
		name, input string
		outcome     Outcome
		report      []string // lines the report must contain
	}{
		{"crash", "D", Crash, []string{
			"outcome: crash",
			"failure: divide-by-zero: integer divide by zero",
			"stack:",
			"    divide_by_zero testdata/clib/fuzz.c:",
			"    LLVMFuzzerTestOneInput testdata/clib/fuzz.c:",
		}},
		{"abort with stderr", "A", Crash, []string{
			"failure: abort: abort: clib: about to abort",
			"stderr (tail):",
			"    clib: about to abort",
		}},
		{"valid with stdout", "Phi", Valid, []string{"outcome: valid", "stdout (tail):", "    clib says hi"}},
		{"invalid", "X", Invalid, []string{"outcome: invalid"}},
		{"hang", "L", Hang, []string{"outcome: hang", "failure: timeout: wall-clock timeout (backstop)"}},
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
			if res.Outcome != tc.outcome {
				t.Fatalf("outcome: expected %s, got %s", tc.outcome, res.Outcome)
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
