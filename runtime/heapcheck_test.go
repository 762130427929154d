package runtime

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// checkOpts is fullOpts with the heap check.
var checkOpts = func() instrument.Options {
	o := fullOpts
	o.HeapCheck = true
	return o
}()

// TestHeapCheck: with the heap check, reads and writes outside a live
// heap block crash where they happen, classified, with the function that
// made them on top: past either end of a block, into a freed one, past
// the end of the input (the input buffer is described as a block of the
// input's length), and in libc's wordwise strlen on a string without an
// end. The top frame has the access's source line. Without the check
// they all pass. Correct uses of the allocator and
// of libc's string functions on blocks of every length up to 40 pass
// with and without, in every reset mode, and after each crash.
func TestHeapCheck(t *testing.T) {
	const fixture = "heapcheck/check.wasm"
	tests := []struct {
		in     string
		kind   Kind
		frames []string // innermost first
		msg    string   // the message's start
		line   int      // of the access in check.c (0: not checked)
	}{
		{"r", KindHeapOverflow, []string{"read_past"}, "a 1-byte read at 0x", 22},
		{"u", KindHeapOverflow, []string{"read_before"}, "a 1-byte read at 0x", 0},
		{"w", KindHeapOverflow, []string{"write_past"}, "a 4-byte write at 0x", 36},
		{"f", KindUseAfterFree, []string{"read_freed"}, "a 4-byte read at 0x", 44},
		{"g", KindUseAfterFree, []string{"write_freed"}, "a 4-byte write at 0x", 0},
		{"i", KindHeapOverflow, []string{"input_past"}, "a 1-byte read at 0x", 55},
		{"i2345678", KindHeapOverflow, []string{"input_past"}, "a 1-byte read at 0x", 55},
		{"s", KindHeapOverflow, []string{"strlen", "strlen_unterminated"}, "a 4-byte read at 0x", 0},
	}
	workouts := []string{"W", "Wx", "W1234567", "W" + strings.Repeat("y", 4000)}
	for _, mode := range []Reset{Restore, Fresh, Persistent} {
		tg := loadInstrumented(t, fixture, checkOpts, Config{Reset: mode, Fuel: 1 << 26})
		if tg.meta.layout.ShadowBytes == 0 {
			t.Fatal("no shadow: expected the allocator found")
		}
		w := worker(t, tg)
		plain := worker(t, loadInstrumented(t, fixture, fullOpts, Config{Reset: mode, Fuel: 1 << 26}))
		for _, tc := range tests {
			r := run(t, w, tc.in)
			if r.Outcome != Crash || !strings.HasPrefix(r.Failure.Message, tc.msg) {
				t.Fatalf("%v %q: expected a crash %q..., got %v %v", mode, tc.in, tc.msg, r.Outcome, r.Failure)
			}
			expectFailure(t, fmt.Sprintf("%v %q", mode, tc.in), r.Failure, tc.kind, tc.frames)
			// the access's own line, not its function's first
			if top := r.Failure.Stack[0]; tc.line != 0 && (top.Line != tc.line || !strings.HasSuffix(top.File, "check.c")) {
				t.Fatalf("%v %q: expected the access at check.c:%d, got %s:%d", mode, tc.in, tc.line, top.File, top.Line)
			}
			if r := run(t, plain, tc.in); r.Outcome == Crash {
				t.Fatalf("%v %q without the check: got %v", mode, tc.in, r.Failure)
			}
			for _, in := range workouts {
				if r := run(t, w, in); r.Outcome != Valid {
					t.Fatalf("%v: after %q, a %d-byte workout: expected valid, got %v %v", mode, tc.in, len(in), r.Outcome, r.Failure)
				}
			}
		}
		for _, in := range workouts {
			if r := run(t, plain, in); r.Outcome != Valid {
				t.Fatalf("%v: %d-byte workout without the check: expected valid, got %v %v", mode, len(in), r.Outcome, r.Failure)
			}
		}
	}
}

// expectFailure fails t unless f is of kind, matches its sentinel error
// and has frames (innermost first) on top of its stack; what names the
// run.
func expectFailure(t *testing.T, what string, f *Failure, kind Kind, frames []string) {
	t.Helper()
	if f == nil || f.Kind != kind || !errors.Is(f, kind.Err()) {
		t.Fatalf("%s: expected %v, got %v", what, kind, f)
	}
	for i, name := range frames {
		if i >= len(f.Stack) || f.Stack[i].Func != name {
			t.Fatalf("%s: expected frames %v, got %v", what, frames, f.Stack)
		}
	}
}
