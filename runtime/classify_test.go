package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
)

// nullRefWasm is a module exporting "null_ref", which does call_ref on a
// null typed function reference (wabt cannot write typed references yet):
// (type (func)) (func (export "null_ref") (call_ref 0 (ref.null 0))).
var nullRefWasm = []byte{
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
	0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type section: func() -> ()
	0x03, 0x02, 0x01, 0x00, // function section
	0x07, 0x0c, 0x01, 0x08, 'n', 'u', 'l', 'l', '_', 'r', 'e', 'f', 0x00, 0x00, // export
	0x0a, 0x08, 0x01, 0x06, 0x00, 0xd0, 0x00, 0x14, 0x00, 0x0b, // code: ref.null 0; call_ref 0
}

// TestTrapMessages pins each wazero v1.12 trap message: every export of
// testdata/traps/traps.wat raises one trap; classify must map wazero's
// exact text to the kind, and the top frame must be the trapping function.
func TestTrapMessages(t *testing.T) {
	ctx := context.Background()
	for _, engine := range []string{"compiler", "interpreter"} {
		t.Run(engine, func(t *testing.T) {
			rc := wazero.NewRuntimeConfig()
			if engine == "interpreter" {
				rc = wazero.NewRuntimeConfigInterpreter()
			}
			r := wazero.NewRuntimeWithConfig(ctx, rc.WithCoreFeatures(Features))
			defer r.Close(ctx)
			traps, err := r.Instantiate(ctx, fixture(t, "traps/traps.wasm"))
			if err != nil {
				t.Fatal(err)
			}
			null, err := r.InstantiateWithConfig(ctx, nullRefWasm, wazero.NewModuleConfig().WithName("null"))
			if err != nil {
				t.Fatal(err)
			}
			tests := []struct {
				export string
				first  string // wazero's first line, pinned
				kind   Kind
				top    string
			}{
				{"unreachable", "wasm error: unreachable", KindUnreachable, "$1"},
				{"oob", "wasm error: out of bounds memory access", KindOutOfBoundsMemory, "$2"},
				{"table", "wasm error: invalid table access", KindTableOutOfBounds, "$3"},
				{"null_elem", "wasm error: invalid table access", KindTableOutOfBounds, "$4"},
				{"div0", "wasm error: integer divide by zero", KindDivideByZero, "$5"},
				{"overflow", "wasm error: integer overflow", KindIntegerOverflow, "$6"},
				{"conversion", "wasm error: invalid conversion to integer", KindInvalidConversion, "$7"},
				{"mismatch", "wasm error: indirect call type mismatch", KindIndirectCallMismatch, "$8"},
				{"stack", "stack overflow", KindStackExhausted, ""},
				{"unaligned", "wasm error: unaligned atomic", KindUnalignedAtomic, "$10"},
				{"exception", "wasm error: uncaught exception", KindUncaughtException, "$11"},
				{"null_ref", "wasm error: null reference", KindNullReference, "$0"},
			}
			for _, tc := range tests {
				t.Run(tc.export, func(t *testing.T) {
					mod := traps
					if tc.export == "null_ref" {
						mod = null
					}
					_, err := mod.ExportedFunction(tc.export).Call(ctx)
					if err == nil {
						t.Fatal("expected a trap")
					}
					if engine == "interpreter" && tc.kind == KindStackExhausted {
						// The interpreter reports it like any trap.
						tc.first = "wasm error: stack overflow"
					}
					first, _, _ := strings.Cut(err.Error(), "\n")
					if first != tc.first {
						t.Fatalf("wazero message: expected %q, got %q", tc.first, first)
					}
					out, f, _ := classify(runEnd{err: err})
					if out != Crash || f == nil || f.Kind != tc.kind {
						t.Fatalf("expected crash %v, got %v %v", tc.kind, out, f)
					}
					if !errors.Is(f, tc.kind.Err()) {
						t.Fatalf("errors.Is(%v, %v) is false", f, tc.kind.Err())
					}
					if tc.top != "" && f.Top() != tc.top {
						t.Fatalf("top frame: expected %q, got %q (%v)", tc.top, f.Top(), f.Stack)
					}
				})
			}
		})
	}
}

func TestFrameName(t *testing.T) {
	tests := []struct{ in, want string }{
		{".main.fuzz(i32,i32) i32", "main.fuzz"},
		{".abort()", "abort"},
		{".main.(*T).f(i32)", "main.(*T).f"},
		{".$12(i64) (i32,i32)", "$12"},
		{"mod.f(externref,funcref,v128) f64", "mod.f"},
	}
	for _, tc := range tests {
		if got := frameName(tc.in); got != tc.want {
			t.Errorf("frameName(%q): expected %q, got %q", tc.in, tc.want, got)
		}
	}
}

func TestGoStack(t *testing.T) {
	stderr := "panic: runtime error: index out of range [5] with length 3\n\n" +
		"goroutine 1 [running]:\n" +
		"panic({0x1, 0x2})\n\truntime/panic.go:10 +0x1\n" +
		"runtime.goPanicIndex(0x5, 0x3)\n\truntime/panic.go:20\n" +
		"main.parse({0x280000, 0x1, 0x1})\n\tgithub.com/x/y/main.go:44 +0xb\n" +
		"main.main()\n\tgithub.com/x/y/main.go:10\n"
	f := goFailure([]byte(stderr), 2)
	if f == nil || f.Kind != KindGoPanic {
		t.Fatalf("expected go-panic, got %v", f)
	}
	if f.Message != "runtime error: index out of range [5] with length 3" {
		t.Fatalf("message: got %q", f.Message)
	}
	want := []Frame{{"main.parse", "github.com/x/y/main.go", 44}, {"main.main", "github.com/x/y/main.go", 10}}
	if len(f.Stack) != 2 || f.Stack[0] != want[0] || f.Stack[1] != want[1] {
		t.Fatalf("stack: expected %v, got %v", want, f.Stack)
	}
	if f := goFailure([]byte("fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:\nmain.f()\n\ta.go:1\n"), 2); f == nil || f.Kind != KindGoFatal || f.Top() != "main.f" {
		t.Fatalf("fatal: got %v", f)
	}
	if f := goFailure([]byte("no go here\n"), 2); f != nil {
		t.Fatalf("expected nil, got %v", f)
	}
}

func TestSplitSource(t *testing.T) {
	tests := []struct {
		in   string
		file string
		line int
	}{
		{"testdata/clib/fuzz.c:18:9", "testdata/clib/fuzz.c", 18},
		{"github.com/x/main.go:44", "github.com/x/main.go", 44},
		{"libc-bottom-half/sources/abort.c:5:5 (inlined)", "libc-bottom-half/sources/abort.c", 5},
		{"nofile", "nofile", 0},
		{"a.c:x", "a.c:x", 0},
	}
	for _, tc := range tests {
		if f, l := splitSource(tc.in); f != tc.file || l != tc.line {
			t.Errorf("splitSource(%q): expected %q %d, got %q %d", tc.in, tc.file, tc.line, f, l)
		}
	}
}

// TestPanicTextWithoutGo: a C target that prints "panic: ..." and aborts
// is a C abort, not a Go panic: Go's panics come with a goroutine trace.
func TestPanicTextWithoutGo(t *testing.T) {
	trap := errors.New("wasm error: unreachable\nwasm stack trace:\n\t.abort()\n\t.parse(i32) i32")
	out, f, _ := classify(runEnd{err: trap, stderr: []byte("panic: bad state\n")})
	if out != Crash || f.Kind != KindAbort || f.Text() != "abort: panic: bad state" || f.Message != "abort" || f.Top() != "abort" {
		t.Errorf("got %v %v %q (message %q) at %q; want a C abort whose stderr is its detail", out, f.Kind, f.Text(), f.Message, f.Top())
	}
	goPanic := "panic: boom\n\ngoroutine 1 [running]:\nmain.f()\n\tmain.go:3 +0x1\n"
	if _, f, _ := classify(runEnd{err: trap, stderr: []byte(goPanic)}); f.Kind != KindGoPanic || f.Top() != "main.f" {
		t.Errorf("a Go panic: got %v at %q", f.Kind, f.Top())
	}
}

// TestWasmStackCut: wazero cuts a trace at 30 frames and says so on a
// last line that is not a frame.
func TestWasmStackCut(t *testing.T) {
	trace := "wasm error: out of bounds memory access\nwasm stack trace:\n\t.f(i32) i32\n\t.g()\n\t... maybe followed by omitted frames"
	st := wasmStack(errors.New(trace), nil)
	if len(st) != 2 || st[0].Func != "f" || st[1].Func != "g" {
		t.Fatalf("expected the frames f and g, got %v", st)
	}
}
