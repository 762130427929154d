package runtime

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/wafer-fuzz/wafer/instrument"
)

// Repro runs the input file once on the module file, as `wafer repro` does,
// and returns a Result that owns its buffers (it stays valid after Repro
// returns). The module runs as its plain build (Preparation and
// instrument.Prepare: uninstrumented, repro needs no coverage); cfg is used as for New (harness, args, exit codes, memory cap,
// timeout). Start-up failures and unreadable files are errors.
//
// Exit-status convention for the command line (the cli applies it, see
// Outcome.ExitStatus): 0 for valid and invalid, non-zero for crash and hang.
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
	p, err := instrument.Prepare(wasm, Preparation(wasm, cfg))
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", wasmPath, err)
	}
	t, err := New(ctx, p.Wasm, p.SiteMap, cfg)
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

// ExitStatus is the process exit status `wafer repro` uses for an outcome:
// 0 for Valid and Invalid, 1 for Crash, 2 for Hang.
func (o Outcome) ExitStatus() int {
	switch o {
	case Crash:
		return 1
	case Hang:
		return 2
	}
	return 0
}

// WriteReport writes a human-readable report of r: the outcome, the failure
// kind and message, the stack (innermost first, with file:line when known)
// and the tails of stderr and stdout.
//
//	outcome: crash
//	failure: divide-by-zero: integer divide by zero
//	stack:
//	    divide_by_zero testdata/clib/fuzz.c:24
//	    LLVMFuzzerTestOneInput testdata/clib/fuzz.c:82
//	stderr (last 4096 bytes):
//	    ...
func WriteReport(w io.Writer, r Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "outcome: %s\n", r.Outcome)
	if f := r.Failure; f != nil {
		fmt.Fprintf(&b, "failure: %s: %s\n", f.Kind, f.Text())
		if len(f.Stack) > 0 {
			b.WriteString("stack:\n")
			for _, fr := range f.Stack {
				fmt.Fprintf(&b, "    %s\n", fr)
			}
		}
	}
	if r.ExitCode != 0 {
		fmt.Fprintf(&b, "exit code: %d\n", r.ExitCode)
	}
	if r.Fuel != 0 {
		fmt.Fprintf(&b, "fuel used: %d\n", r.Fuel)
	}
	tail := func(name string, p []byte) {
		if len(p) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s (tail):\n", name)
		for _, l := range lines(string(p)) {
			fmt.Fprintf(&b, "    %s\n", l)
		}
	}
	tail("stderr", r.Stderr)
	tail("stdout", r.Stdout)
	_, err := io.WriteString(w, b.String())
	return err
}

// Report is WriteReport into a string.
func Report(r Result) string {
	var b strings.Builder
	_ = WriteReport(&b, r)
	return b.String()
}
