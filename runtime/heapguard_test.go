package runtime

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// TestHeapGuard: with the guard, heap overflows and double frees of a C
// target crash, classified, at the free that found them, with the caller
// that did it below; without it they pass unseen (or upset dlmalloc). Every allocator entry
// point still does its job (input 'W' checks them all and returns -1 if
// one misbehaved), with and without.
func TestHeapGuard(t *testing.T) {
	const fixture = "heapguard/guard.wasm"
	tests := []struct {
		in     string
		kind   Kind
		frames []string // innermost first
		msg    string
		found  Found
	}{
		{"O0123456789X", KindHeapOverflow, []string{"free", "overflow_write"}, "a write past the end of a 10-byte heap block, found when it was freed", FoundAtFree},
		{"D", KindDoubleFree, []string{"free", "double_free"}, "free of a heap block already freed", FoundAtAccess},
		{"R", KindHeapOverflow, []string{"realloc", "realloc_overflow"}, "a write past the end of a 16-byte heap block, found when it was reallocated", FoundAtRealloc},
		{"F", KindDoubleFree, []string{"realloc", "realloc_freed"}, "realloc of a heap block already freed", FoundAtAccess},
		{"A", KindHeapOverflow, []string{"free", "aligned_overflow"}, "a write past the end of a 64-byte heap block, found when it was freed", FoundAtFree},
	}
	for _, mode := range []Reset{Restore, Fresh, Persistent} {
		w := worker(t, loadInstrumented(t, fixture, fullOpts, Config{Reset: mode, Fuel: 1 << 24}))
		plain := worker(t, loadInstrumented(t, fixture, instrument.Options{Fuel: true, DirtyPages: true}, Config{Reset: mode, Fuel: 1 << 24}))
		for _, tc := range tests {
			r := run(t, w, tc.in)
			if r.Outcome != Crash || r.Failure.Message != tc.msg || r.Failure.Found != tc.found {
				t.Fatalf("%v %q: expected a crash %q found at %v, got %v %v (at %v)", mode, tc.in, tc.msg, tc.found, r.Outcome, r.Failure, r.Failure.Found)
			}
			expectFailure(t, fmt.Sprintf("%v %q", mode, tc.in), r.Failure, tc.kind, tc.frames)
			// (a free of a freed block may upset dlmalloc itself)
			if r := run(t, plain, tc.in); r.Outcome == Crash && (r.Failure.Kind == KindHeapOverflow || r.Failure.Kind == KindDoubleFree) {
				t.Fatalf("%v %q without the guard: got %v", mode, tc.in, r.Failure)
			}
			// the next run starts clean: the error global is reset
			if r := run(t, w, "Wabc"); r.Outcome != Valid {
				t.Fatalf("%v: after %q, a correct run: expected valid, got %v %v", mode, tc.in, r.Outcome, r.Failure)
			}
		}
		for _, in := range []string{"W", "Wx", "W" + string(make([]byte, 5000))} {
			for _, x := range []*Worker{w, plain} {
				if r := run(t, x, in); r.Outcome != Valid {
					t.Fatalf("%v: %d-byte workout: expected valid, got %v %v", mode, len(in), r.Outcome, r.Failure)
				}
			}
		}
	}
}

// TestHeapGuardDifferential: on the third-party examples that have a libc
// allocator (SQLite, Zstandard's decoder, a Rust crate through its std
// allocator), the guarded build, and the build with the heap check too,
// give every seed, and every seed with a byte changed, the outcome and
// output of the unguarded one.
func TestHeapGuardDifferential(t *testing.T) {
	for _, ex := range []string{"csqlite", "czstd", "rustini"} {
		for _, check := range []bool{false, true} {
			name := ex
			if check {
				name += "/check"
			}
			t.Run(name, func(t *testing.T) { heapDifferential(t, ex, check) })
		}
	}
}

func heapDifferential(t *testing.T, ex string, check bool) {
	path := "../examples/" + ex + "/" + ex + ".wasm"
	opts := fullOpts
	opts.HeapGuard = false
	plain := worker(t, loadInstrumented(t, path, opts, Config{MaxInputLen: DefaultMaxInputLen}))
	opts = fullOpts
	opts.HeapCheck = check
	tg := loadInstrumented(t, path, opts, Config{MaxInputLen: DefaultMaxInputLen})
	if tg.meta.layout.HeapExport == "" || (tg.meta.layout.ShadowBytes != 0) != check {
		t.Fatalf("expected the allocator found, the heap check %v: layout %+v", check, tg.meta.layout)
	}
	guarded := worker(t, tg)
	seeds, err := filepath.Glob("../examples/" + ex + "/seeds/*")
	if err != nil || len(seeds) == 0 {
		t.Fatalf("no seeds: %v", err)
	}
	runs := 0
	for _, s := range seeds {
		in, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for i := -1; i < min(len(in), 64); i++ {
			x := bytes.Clone(in)
			if i >= 0 {
				x[i] ^= 0x5a
			}
			a, b := run(t, plain, string(x)), run(t, guarded, string(x))
			if a.Outcome != b.Outcome || !bytes.Equal(a.Stdout, b.Stdout) || !bytes.Equal(a.Stderr, b.Stderr) {
				t.Fatalf("%s, byte %d changed: unguarded %v %v %q, guarded %v %v %q", s, i, a.Outcome, a.Failure, a.Stdout, b.Outcome, b.Failure, b.Stdout)
			}
			runs++
		}
	}
	t.Logf("%d inputs, the same outcome and output", runs)
}
