package runtime

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	type heapCase struct {
		in     string
		kind   Kind
		frames []string // innermost first
		msg    string   // the message's start
		line   string   // on the access's line in check.c ("": not checked)
	}
	common := []heapCase{
		{"r", KindHeapOverflow, []string{"read_past"}, "a 1-byte read at 0x", "one byte past the end"},
		{"u", KindHeapOverflow, []string{"read_before"}, "a 1-byte read at 0x", ""},
		{"w", KindHeapOverflow, []string{"write_past"}, "a 4-byte write at 0x", "never freed"},
		{"f", KindUseAfterFree, []string{"read_freed"}, "a 4-byte read at 0x", "((int *)keep(p))[1]"},
		{"g", KindUseAfterFree, []string{"write_freed"}, "a 4-byte write at 0x", ""},
		{"a", KindUseAfterFree, []string{"read_reused"}, "a 4-byte read at 0x", "p is freed"},
		{"n", KindNullDeref, []string{"null_field"}, "a 4-byte read at 0x4, in the null page", "p->b == 99"},
		{"i", KindHeapOverflow, []string{"input_past"}, "a 1-byte read at 0x", "the byte after the input"},
		{"i2345678", KindHeapOverflow, []string{"input_past"}, "a 1-byte read at 0x", "the byte after the input"},
		{"s", KindHeapOverflow, []string{"strlen", "strlen_unterminated"}, "a 4-byte read at 0x", ""},
	}
	fixtures := []struct {
		path  string
		tests []heapCase
	}{
		// memcpy and memset are libc's loops
		{"heapcheck/check.wasm", append(common,
			heapCase{"c0123456789ab", KindHeapOverflow, []string{"memcpy", "copy_past"}, "a 1-byte write at 0x", ""},
			heapCase{"m", KindHeapOverflow, []string{"memset", "fill_past"}, "a ", ""},
			heapCase{"C", KindUseAfterFree, []string{"memcpy", "copy_freed"}, "a 1-byte read at 0x", ""})},
		// they are memory.copy and memory.fill
		{"heapcheck/bulk.wasm", append(common,
			heapCase{"c0123456789ab", KindHeapOverflow, []string{"copy_past"}, "a bulk memory write at 0x", "11 bytes into 10"},
			heapCase{"m", KindHeapOverflow, []string{"fill_past"}, "a bulk memory write at 0x", "17 bytes into 16"},
			heapCase{"C", KindUseAfterFree, []string{"copy_freed"}, "a bulk memory read at 0x", "from the freed block"})},
		// linked with --stack-first: the stack's bottom at 0 is the
		// null page (instrument's stackFirstNullBound), so the null
		// pointer's field is a null-deref here too
		{"heapcheck/first.wasm", append(common,
			heapCase{"c0123456789ab", KindHeapOverflow, []string{"memcpy", "copy_past"}, "a 1-byte write at 0x", ""},
			heapCase{"C", KindUseAfterFree, []string{"memcpy", "copy_freed"}, "a 1-byte read at 0x", ""})},
	}
	workouts := []string{"W", "Wx", "W1234567", "W" + strings.Repeat("y", 4000)}
	for _, fx := range fixtures {
		for _, mode := range []Reset{Restore, Fresh, Persistent} {
			tg := loadInstrumented(t, fx.path, checkOpts, Config{Reset: mode, Fuel: 1 << 26})
			if tg.meta.layout.ShadowBytes == 0 {
				t.Fatal("no shadow: expected the allocator found")
			}
			w := worker(t, tg)
			plain := worker(t, loadInstrumented(t, fx.path, fullOpts, Config{Reset: mode, Fuel: 1 << 26}))
			for _, tc := range fx.tests {
				what := fmt.Sprintf("%s %v %q", fx.path, mode, tc.in)
				r := run(t, w, tc.in)
				if r.Outcome != Crash || !strings.HasPrefix(r.Failure.Message, tc.msg) || r.Failure.Found != FoundAtAccess {
					t.Fatalf("%s: expected a crash %q... found at the access, got %v %v (at %v)", what, tc.msg, r.Outcome, r.Failure, r.Failure.Found)
				}
				expectFailure(t, what, r.Failure, tc.kind, tc.frames)
				// the access's own line, not its function's first
				if top := r.Failure.Stack[0]; tc.line != "" && (top.Line != lineOf(t, "heapcheck/check.c", tc.line) || !strings.HasSuffix(top.File, "check.c")) {
					t.Fatalf("%s: expected the access at check.c:%d, got %s:%d", what, lineOf(t, "heapcheck/check.c", tc.line), top.File, top.Line)
				}
				if r := run(t, plain, tc.in); r.Outcome == Crash && r.Failure.Kind != KindHeapOverflow {
					// (the guard alone sees copy_past's write at the free)
					t.Fatalf("%s without the check: got %v", what, r.Failure)
				}
				for _, in := range workouts {
					if r := run(t, w, in); r.Outcome != Valid {
						t.Fatalf("%s: then a %d-byte workout: expected valid, got %v %v", what, len(in), r.Outcome, r.Failure)
					}
				}
			}
			for _, in := range workouts {
				if r := run(t, plain, in); r.Outcome != Valid {
					t.Fatalf("%s %v: %d-byte workout without the check: expected valid, got %v %v", fx.path, mode, len(in), r.Outcome, r.Failure)
				}
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

// lineOf returns the number of the line of testdata file rel that holds
// text.
func lineOf(t *testing.T, rel, text string) int {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("%s: no line holds %q", rel, text)
	return 0
}
