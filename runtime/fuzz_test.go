package runtime

import (
	"errors"
	"strings"
	"testing"
)

// FuzzClassify: any trap text and stderr classify without panicking, and
// a crash always has a kind.
func FuzzClassify(f *testing.F) {
	f.Add("wasm error: out of bounds memory access\nwasm stack trace:\n\t.f(i32) i32\n\t\t0x10: a.c:1:2\n\t.g()", "")
	f.Add("wasm error: unreachable\nwasm stack trace:\n\t.abort()\n\t.main()", "Assertion failed: x\n")
	f.Add("wasm error: unreachable", "panic: boom\n\ngoroutine 1 [running]:\nmain.f()\n\tmain.go:3 +0x1\n")
	f.Add("stack overflow", "fatal error: x\n\ngoroutine 1 [running]:\n")
	f.Add("wasm error: unreachable\nwasm stack trace:\n\t.__rust_start_panic(i32) i32\n\t.f()", "thread '<unnamed>' panicked at lib.rs:1:2:\nboom\n")
	f.Fuzz(func(t *testing.T, text, stderr string) {
		out, fl, _ := classify(runEnd{err: errors.New(text), stderr: []byte(stderr)})
		if out != Crash || fl == nil || fl.Kind == KindNone {
			t.Fatalf("expected a classified crash, got %v %v", out, fl)
		}
		goFailure([]byte(stderr), 2)
	})
}

// FuzzDemangled: any name demangles without panicking, and only mangled
// names (_Z..., _R...) change.
func FuzzDemangled(f *testing.F) {
	f.Add("_ZN3std9panicking11begin_panic17h0123456789abcdefE")
	f.Add("_ZNSt3__16vectorIiNS_9allocatorIiEEE9push_backERKi")
	f.Add("_RNvCs1234_7rustini5parse")
	f.Add("malloc")
	f.Fuzz(func(t *testing.T, s string) {
		if got := demangled(s); got != s && !strings.HasPrefix(s, "_Z") && !strings.HasPrefix(s, "_R") {
			t.Fatalf("demangled(%q) = %q: not a mangled name", s, got)
		}
	})
}
