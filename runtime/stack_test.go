package runtime

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStackOverflow: testdata/stack recurses 100 levels on "r" (legal)
// and 100,000 on "R" (past its 64 KiB stack). Built stack first or with
// no static data below the stack, the overflow wraps the stack pointer
// around and traps out of bounds: wafer reports it as a stack overflow
// in the recursing function, instrumented (a campaign's build) and plain
// (wafer repro); the legal recursion is valid.
func TestStackOverflow(t *testing.T) {
	dir := t.TempDir()
	for _, fx := range []string{"stack/stack.wasm", "stack/first.wasm"} {
		w := worker(t, loadInstrumented(t, fx, fullOpts, Config{}))
		for _, in := range []string{"r", "R"} {
			res := run(t, w, in)
			check := func(how string, res Result) {
				t.Helper()
				if in == "r" {
					if res.Outcome != Valid {
						t.Errorf("%s %s %q: expected valid, got %v %v", fx, how, in, res.Outcome, res.Failure)
					}
					return
				}
				f := res.Failure
				if res.Outcome != Crash || f == nil || f.Kind != KindStackExhausted || !strings.HasPrefix(f.Message, "stack overflow: the stack pointer") || len(f.Stack) == 0 || f.Stack[0].Func != "recurse" {
					t.Errorf("%s %s %q: expected a stack overflow in recurse, got %v %+v", fx, how, in, res.Outcome, f)
				}
			}
			check("instrumented", res)
			p := filepath.Join(dir, in)
			if err := os.WriteFile(p, []byte(in), 0o644); err != nil {
				t.Fatal(err)
			}
			plain, err := Repro(context.Background(), filepath.Join("..", "testdata", fx), p, testConfig(t, Config{}))
			if err != nil {
				t.Fatal(err)
			}
			check("plain", plain)
		}
	}
}
