package runtime

import (
	"fmt"
	"io"
	"strings"
)

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
