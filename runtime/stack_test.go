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

// TestStackDepth: a run of an LLVM-built target covers the stack depth
// sites of every step up to the depth its stack reached
// (instrument.Options.StackDepth), in every reset mode and run after run:
// testdata/stack's 100 levels of at least 256 bytes ("r") reach the step
// of 25.6 KB or more, and deeper than its 16-byte-aligned frames allow
// only up to 100 levels of 400; an input that does not recurse ("x")
// stays shallow.
func TestStackDepth(t *testing.T) {
	for _, fx := range []string{"stack/stack.wasm", "stack/first.wasm"} {
		for _, mode := range []Reset{Restore, Fresh, Persistent} {
			tg := loadInstrumented(t, fx, fullOpts, Config{Reset: mode})
			lay := tg.meta.layout
			if lay.StackMinExport == "" || lay.DepthSite+instrument.DepthSites != lay.Counters {
				t.Fatalf("%s: expected %d stack depth sites at the end of %d, got layout %+v", fx, instrument.DepthSites, lay.Counters, lay)
			}
			w := worker(t, tg)
			// steps returns the deepest step a run covered, after checking
			// that it covered every one below and only them, once.
			steps := func(in string) []int {
				t.Helper()
				var set []int
				ctrs := run(t, w, in).Counters[lay.DepthSite:]
				for i, c := range ctrs {
					if c != 0 && (c != 1 || i != len(set)) {
						t.Fatalf("%s %v %q: depth step %d counted %d after %d steps", fx, mode, in, i, c, len(set))
					}
					if c != 0 {
						set = append(set, i)
					}
				}
				if len(set) > 0 {
					return set[len(set)-1:]
				}
				return nil
			}
			for round := range 3 {
				deep, shallow := steps("r"), steps("x")
				if round == 0 {
					t.Logf("%s %v: depth steps of \"r\" %v, of \"x\" %v", fx, mode, deep, shallow)
				}
				lo, hi := instrument.DepthStep(100*256), instrument.DepthStep(101*400)
				if len(deep) != 1 || deep[0] < lo || deep[0] > hi {
					t.Errorf("%s %v round %d: \"r\": expected one depth step in [%d, %d], got %v", fx, mode, round, lo, hi, deep)
				}
				if len(shallow) > 1 || len(shallow) == 1 && shallow[0] >= instrument.DepthStep(256) {
					t.Errorf("%s %v round %d: \"x\": expected at most one step below %d, got %v", fx, mode, round, instrument.DepthStep(256), shallow)
				}
			}
		}
	}
}

// TestStackCheck: testdata/depth's stack lies above its static data
// (wasm-ld's default layout). Built with instrument.Options.StackCheck,
// an overflow traps as the stack pointer crosses into that data, in the
// function whose frame did not fit; built without, the pointer runs on
// over the data, wraps around and traps only then.
func TestStackCheck(t *testing.T) {
	deep := "<" + strings.Repeat("a><", 400)
	for _, check := range []bool{true, false} {
		opts := fullOpts
		opts.StackCheck = check
		tg := loadInstrumented(t, "depth/nest.wasm", opts, Config{})
		lay := tg.meta.layout
		if lay.StackLow == 0 {
			t.Fatalf("expected static data below the stack, got the stack [%#x, %#x]", lay.StackLow, lay.StackHigh)
		}
		res := run(t, worker(t, tg), deep)
		f := res.Failure
		if res.Outcome != Crash || f == nil || f.Kind != KindStackExhausted || len(f.Stack) == 0 {
			t.Fatalf("check %v: expected a stack overflow, got %v %+v", check, res.Outcome, f)
		}
		var sp uint32
		if _, err := fmt.Sscanf(f.Message, "stack overflow: the stack pointer %v", &sp); err != nil {
			t.Fatalf("check %v: message %q: %v", check, f.Message, err)
		}
		caught := sp < lay.StackLow && sp >= lay.StackLow-512 // one frame below
		if caught != check {
			t.Errorf("check %v: the pointer trapped at %#x (the stack [%#x, %#x]): expected caught at the crossing %v", check, sp, lay.StackLow, lay.StackHigh, check)
		}
		if top := f.Stack[0].Func; top != "element" && top != "read_name" {
			t.Errorf("check %v: expected the overflow in element or read_name, got %s", check, top)
		}
	}
}
