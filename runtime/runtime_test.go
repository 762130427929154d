package runtime

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wafer-fuzz/wafer/instrument"
)

// testTimeout is the wall-clock backstop of the tests that run an
// uninstrumented module (no fuel): only their endless-loop inputs reach
// it, and every other input runs in microseconds, so a valid run would
// have to wait this long for a core to be misread as a hang. It is the
// margin for a loaded machine (two test binaries on two cores), paid once
// per loop input.
const testTimeout = 2 * time.Second

func TestLibFuzzerCrashKinds(t *testing.T) {
	tg := load(t, "clib/clib.wasm", meta{}, Config{Timeout: testTimeout})
	if tg.Harness() != HarnessLibFuzzer {
		t.Fatalf("harness: expected libfuzzer, got %v", tg.Harness())
	}
	w := worker(t, tg)
	tests := []struct {
		name, in string
		out      Outcome
		kind     Kind
		top      string
		file     string // suffix of the top frame's file, "" to skip
	}{
		{"valid", "V", Valid, KindNone, "", ""},
		{"invalid", "X", Invalid, KindNone, "", ""},
		{"empty", "", Invalid, KindNone, "", ""},
		{"oob", "O", Crash, KindOutOfBoundsMemory, "read_bad_pointer", "clib/fuzz.c"},
		{"div0", "D", Crash, KindDivideByZero, "divide_by_zero", "clib/fuzz.c"},
		{"overflow", "F", Crash, KindIntegerOverflow, "overflow_divide", "clib/fuzz.c"},
		{"conversion", "N", Crash, KindInvalidConversion, "bad_conversion", "clib/fuzz.c"},
		{"mismatch", "M", Crash, KindIndirectCallMismatch, "call_mismatch", "clib/fuzz.c"},
		{"table", "T", Crash, KindTableOutOfBounds, "call_bad_index", "clib/fuzz.c"},
		{"unreachable", "U", Crash, KindUnreachable, "hit_trap", "clib/fuzz.c"},
		{"abort", "A", Crash, KindAbort, "abort", ""},
		{"stack", "S", Crash, KindStackExhausted, "", ""}, // wazero gives no trace
		{"shadow stack", "R", Crash, KindStackExhausted, "recurse_frames", "clib/fuzz.c"},
		{"hang", "L", Hang, KindTimeout, "", ""},
		{"valid after failures", "P hi", Valid, KindNone, "", ""},
		{"LLVMFuzzerInitialize ran", "Q", Valid, KindNone, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, w, tc.in)
			if r.Outcome != tc.out {
				t.Fatalf("outcome: expected %v, got %v (%v)", tc.out, r.Outcome, r.Failure)
			}
			if tc.out == Valid || tc.out == Invalid {
				if r.Failure != nil {
					t.Fatalf("expected no failure, got %v", r.Failure)
				}
				return
			}
			f := r.Failure
			if f.Kind != tc.kind {
				t.Fatalf("kind: expected %v, got %v (%s)", tc.kind, f.Kind, f.Message)
			}
			if f.Top() != tc.top {
				t.Fatalf("top frame: expected %q, got %q (%v)", tc.top, f.Top(), f.Stack)
			}
			if tc.file != "" && !strings.HasSuffix(f.Stack[0].File, tc.file) {
				t.Fatalf("top frame file: expected ...%s, got %v", tc.file, f.Stack[0])
			}
			if tc.file != "" && f.Stack[0].Line == 0 {
				t.Fatalf("top frame line: expected a line, got %v", f.Stack[0])
			}
		})
	}
	if r := run(t, w, "Phello"); string(r.Stdout) != "clib says hello\n" {
		t.Fatalf("stdout: expected %q, got %q", "clib says hello\n", r.Stdout)
	}
	if r := run(t, w, "A"); r.Failure.Text() != "abort: clib: about to abort" || r.Failure.Message != "abort" {
		t.Fatalf("abort: expected the message \"abort\" and stderr's last line as its detail, got %q, %q", r.Failure.Message, r.Failure.Detail)
	}
	if r := run(t, w, "L"); r.Failure.Message != "wall-clock timeout (backstop)" || !errors.Is(r.Failure, ErrHang) {
		t.Fatalf("backstop: got %v", r.Failure)
	}
}

func TestGoReactor(t *testing.T) {
	tg := load(t, "goreactor/goreactor.wasm", meta{}, Config{Timeout: testTimeout})
	if tg.Harness() != HarnessGo {
		t.Fatalf("harness: expected go, got %v", tg.Harness())
	}
	w := worker(t, tg)
	tests := []struct {
		name, in string
		out      Outcome
		kind     Kind
		msg, top string
	}{
		{"valid", "V", Valid, KindNone, "", ""},
		{"error", "X", Invalid, KindNone, "", ""},
		{"empty", "", Invalid, KindNone, "", ""},
		{"panic", "Pboom", Crash, KindGoPanic, "wafer fixture panic: boom", "main.panicWithMessage"},
		{"index", "I", Crash, KindGoPanic, "runtime error: index out of range [73] with length 1", "main.indexOutOfRange"},
		{"nil map", "M", Crash, KindGoPanic, "assignment to entry in nil map", "main.nilMapWrite"},
		{"deadlock", "D", Crash, KindGoFatal, "all goroutines are asleep - deadlock!", "main.deadlock"},
		// 300 frames of trace push the panic line out of stderr's tail
		{"deep panic", "R", Crash, KindGoPanic, "wafer fixture deep panic", "main.deep"},
		// a fatal error that prints no goroutine trace
		{"Goexit", "G", Crash, KindGoFatal, "no goroutines (main called runtime.Goexit) - deadlock!", ""},
		{"loop", "L", Hang, KindTimeout, "wall-clock timeout (backstop)", ""},
		{"valid again", "V", Valid, KindNone, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, w, tc.in)
			if r.Outcome != tc.out {
				t.Fatalf("outcome: expected %v, got %v (%v)", tc.out, r.Outcome, r.Failure)
			}
			if r.Failure == nil {
				if tc.kind != KindNone {
					t.Fatal("expected a failure")
				}
				return
			}
			if r.Failure.Kind != tc.kind || r.Failure.Message != tc.msg {
				t.Fatalf("failure: expected %v %q, got %v %q", tc.kind, tc.msg, r.Failure.Kind, r.Failure.Message)
			}
			if tc.top != "" && r.Failure.Top() != tc.top {
				t.Fatalf("top frame: expected %q, got %v", tc.top, r.Failure.Stack)
			}
			if tc.top != "" && !strings.HasSuffix(r.Failure.Stack[0].File, "goreactor/main.go") {
				t.Fatalf("top frame file: got %v", r.Failure.Stack[0])
			}
		})
	}
}

func TestCommand(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		in       string
		out      Outcome
		kind     Kind
		stdout   string
		top, msg string
	}{
		{"stdin", nil, "hello", Valid, KindNone, "gocmd read 5 bytes\n", "", ""},
		{"file", []string{"@@"}, "hello!", Valid, KindNone, "gocmd read 6 bytes\n", "", ""},
		{"invalid exit", nil, "X", Invalid, KindNone, "gocmd read 1 bytes\n", "", ""},
		{"crash exit", nil, "E", Crash, KindExit, "gocmd read 1 bytes\n", "", "exit code 1: gocmd: fatal input"},
		{"panic", []string{"@@"}, "P1", Crash, KindGoPanic, "gocmd read 2 bytes\n", "main.explode", `gocmd panic on "P1"`},
		{"hostile file system", []string{"@@"}, "R", Valid, KindNone, "gocmd read 1 bytes\n" +
			"read /etc/passwd: failed\nread ../../../etc/passwd: failed\nread /input/../../etc/passwd: failed\n" +
			"write /input: failed\ncreate: failed\n", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg := load(t, "gocmd/gocmd.wasm", meta{}, Config{Args: tc.args, InvalidExitCodes: []uint32{3}, Timeout: 5 * time.Second})
			if tg.Harness() != HarnessCommand {
				t.Fatalf("harness: expected command, got %v", tg.Harness())
			}
			w := worker(t, tg)
			for i := range 2 { // twice: a command gets a new instance per run
				r := run(t, w, tc.in)
				if r.Outcome != tc.out || string(r.Stdout) != tc.stdout {
					t.Fatalf("run %d: expected %v %q, got %v %q (%v, stderr %q)", i, tc.out, tc.stdout, r.Outcome, r.Stdout, r.Failure, r.Stderr)
				}
				if tc.kind == KindNone {
					continue
				}
				if r.Failure.Kind != tc.kind || r.Failure.Text() != tc.msg || r.Failure.Top() != tc.top {
					t.Fatalf("failure: expected %v %q %q, got %v %q %v", tc.kind, tc.msg, tc.top, r.Failure.Kind, r.Failure.Text(), r.Failure.Stack)
				}
			}
		})
	}
}

// TestFakeInstrumented checks counters, reset modes, dirty pages, globals
// and fuel on testdata/fake, laid out as instrument's output.
func TestFakeInstrumented(t *testing.T) {
	type step struct {
		in       string
		out      Outcome
		counters string // expected counters as bytes
	}
	tests := []struct {
		name  string
		reset Reset
		steps []step
	}{
		{"restore", Restore, []step{
			{"a", Valid, "\x01\x01\x00\x00"},
			{"a", Valid, "\x01\x01\x00\x00"},
			{"W", Valid, "\x01\x01\x00\x01"}, // writes target page 1, marked dirty, reads it back
			{"a", Valid, "\x01\x01\x00\x00"}, // page 1 restored: counter 3 stays 0
			{"G", Valid, "\x01\x01\x00\x00"}, // memory grew: next run re-instantiates
			{"a", Valid, "\x01\x01\x00\x00"},
			{"T", Crash, "\x01\x01\x00\x00"},
			{"a", Valid, "\x01\x01\x00\x00"},
			{"X", Invalid, "\x01\x01\x00\x00"},
		}},
		{"fresh", Fresh, []step{
			{"a", Valid, "\x01\x01\x00\x00"},
			{"W", Valid, "\x01\x01\x00\x01"},
			{"a", Valid, "\x01\x01\x00\x00"},
		}},
		{"persistent", Persistent, []step{
			{"a", Valid, "\x01\x01\x00\x00"},
			{"a", Valid, "\x01\x00\x01\x00"}, // state survives
			{"G", Valid, "\x01\x00\x01\x00"}, // memory grows (and moves): the counters view follows
			{"a", Valid, "\x01\x00\x01\x00"},
			{"W", Valid, "\x01\x00\x01\x01"},
			{"a", Valid, "\x01\x00\x01\x01"}, // and so does page 1
			{"T", Crash, "\x01\x00\x01\x00"},
			{"a", Valid, "\x01\x01\x00\x00"}, // the crashed instance was replaced
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The state byte counts runs: the empty run would be the first.
			w := worker(t, load(t, "fake/fake.wasm", fakeMeta(), Config{Reset: tc.reset, MaxInputLen: 1024, NoEmptyRun: true}))
			for i, s := range tc.steps {
				r := run(t, w, s.in)
				if r.Outcome != s.out || string(r.Counters) != s.counters {
					t.Fatalf("step %d %q: expected %v %x, got %v %x (%v)", i, s.in, s.out, s.counters, r.Outcome, r.Counters, r.Failure)
				}
			}
		})
	}
}

func TestFuel(t *testing.T) {
	tg := load(t, "fake/fake.wasm", fakeMeta(), Config{Fuel: 5000, MaxInputLen: 1024})
	if tg.backstop != 0 {
		t.Fatalf("backstop: expected off with fuel, got %v", tg.backstop)
	}
	w := worker(t, tg)
	r := run(t, w, "L")
	if r.Outcome != Hang || r.Failure.Kind != KindFuel || r.Fuel != 5000 {
		t.Fatalf("expected fuel hang using 5000, got %v %v fuel %d", r.Outcome, r.Failure, r.Fuel)
	}
	if !errors.Is(r.Failure, ErrHang) {
		t.Fatal("a fuel hang must match ErrHang")
	}
	r = run(t, w, "a")
	if r.Outcome != Valid || r.Fuel != 1 {
		t.Fatalf("expected valid using 1 fuel, got %v fuel %d", r.Outcome, r.Fuel)
	}
	// A trap with fuel left is a crash, not a hang.
	if r := run(t, w, "T"); r.Outcome != Crash || r.Failure.Kind != KindUnreachable {
		t.Fatalf("expected unreachable crash, got %v %v", r.Outcome, r.Failure)
	}
}

func TestStartupErrors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		wasm []byte
		cfg  Config
		want string // substring of the error
	}{
		{"trap in _initialize", fixture(t, "hostile/initrap.wasm"), Config{}, "start-up: _initialize failed: unreachable: unreachable"},
		{"unknown import", fixture(t, "fake/imports.wasm"), Config{}, "unsupported import: function env.get_secret"},
		{"imported global", fixture(t, "fake/importglobal.wasm"), Config{}, "unsupported import: global env.g"},
		{"no harness", fixture(t, "fake/noharness.wasm"), Config{}, "no harness export: expected LLVMFuzzerTestOneInput (with malloc) or _start"},
		{"forced command", fixture(t, "clib/clib.wasm"), Config{Harness: HarnessCommand}, "no harness export: expected _start"},
		{"forced libfuzzer", fixture(t, "gocmd/gocmd.wasm"), Config{Harness: HarnessLibFuzzer}, "no harness export: expected LLVMFuzzerTestOneInput"},
		{"no allocator", fixture(t, "clib/clib.wasm"), Config{Malloc: "my_alloc"}, "no allocator export: expected my_alloc beside LLVMFuzzerTestOneInput"},
		{"memory over the cap", fixture(t, "goreactor/goreactor.wasm"), Config{MaxMemoryPages: 8}, "exceeds the cap of 8 pages"},
		{"malformed", []byte("\x00asm\x01\x00\x00\x00\x01\xff"), Config{}, "decode module: section type: offset 0x9: unexpected end of section size"},
		{"not wasm", []byte("hello"), Config{}, "decode module: offset 0x0: bad magic: expected 00 61 73 6d, got 68 65 6c 6c"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg, err := New(ctx, &instrument.Prepared{Wasm: tc.wasm}, testConfig(t, tc.cfg))
			if err == nil {
				defer tg.Close(ctx)
				_, err = tg.NewWorker(ctx)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("expected error containing %q, got %v", tc.want, err)
			}
		})
	}
	// The initialisation trap names the frame.
	tg := load(t, "hostile/initrap.wasm", meta{}, Config{})
	if _, err := tg.NewWorker(ctx); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("expected the trapping constructor in the error, got %v", err)
	}
}

func TestHostile(t *testing.T) {
	marker := "wafer-hostile-created"
	before := hostState(t, marker)
	tg := load(t, "hostile/hostile.wasm", meta{}, Config{MaxMemoryPages: 64, Timeout: testTimeout})
	w := worker(t, tg)
	tests := []struct {
		name, in string
		out      Outcome
		kind     Kind
		stdout   []string // substrings
		nostdout []string
	}{
		{"read passwd", "R", Valid, KindNone, []string{"read /etc/passwd: failed"}, []string{"root:"}},
		{"create files", "W", Valid, KindNone, []string{"create /tmp/wafer-hostile-created: failed", "create wafer-hostile-created: failed"}, []string{": ok"}},
		{"sockets and env", "S", Valid, KindNone, []string{"sock_accept(0): errno=58", "sock_accept(3): errno=58", "environ: 0 vars"}, []string{"errno=0 "}},
		{"allocate past the cap", "A", Crash, KindOutOfMemory, nil, nil},
		{"recurse forever", "C", Crash, KindStackExhausted, nil, nil},
		{"loop forever", "L", Hang, KindTimeout, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, w, tc.in)
			if r.Outcome != tc.out {
				t.Fatalf("outcome: expected %v, got %v (%v) stdout %q", tc.out, r.Outcome, r.Failure, r.Stdout)
			}
			if tc.kind != KindNone && r.Failure.Kind != tc.kind {
				t.Fatalf("kind: expected %v, got %v", tc.kind, r.Failure)
			}
			for _, s := range tc.stdout {
				if !bytes.Contains(r.Stdout, []byte(s)) {
					t.Errorf("stdout: expected %q in %q", s, r.Stdout)
				}
			}
			for _, s := range tc.nostdout {
				if bytes.Contains(r.Stdout, []byte(s)) {
					t.Errorf("stdout: unexpected %q in %q", s, r.Stdout)
				}
			}
		})
	}
	if after := hostState(t, marker); after != before {
		t.Fatalf("host changed: before %q, after %q", before, after)
	}
}

// hostState lists the marker files a hostile target might have created
// (other engineers share /tmp, so only the marker is checked).
func hostState(t *testing.T, marker string) string {
	var b strings.Builder
	wd, _ := os.Getwd()
	for _, dir := range []string{os.TempDir(), "/tmp", wd, "/"} {
		if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
			b.WriteString(filepath.Join(dir, marker) + " ")
		}
	}
	return b.String()
}

func TestInputTooLong(t *testing.T) {
	w := worker(t, load(t, "clib/clib.wasm", meta{}, Config{MaxInputLen: 8}))
	if _, err := w.Run(context.Background(), make([]byte, 9)); err == nil {
		t.Fatal("expected an error for a 9-byte input with MaxInputLen 8")
	}
	if r := run(t, w, "12345678"); r.Outcome != Valid {
		t.Fatalf("expected valid, got %v", r.Outcome)
	}
}

func TestCanceledContext(t *testing.T) {
	w := worker(t, load(t, "clib/clib.wasm", meta{}, Config{Timeout: 5 * time.Second}))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	if _, err := w.Run(ctx, []byte("L")); !errors.Is(err, context.Canceled) {
		t.Fatalf("expected context.Canceled, got %v", err)
	}
	if r := run(t, w, "V"); r.Outcome != Valid {
		t.Fatalf("after cancel: expected valid, got %v", r.Outcome)
	}
}

func TestSharedMemory(t *testing.T) {
	for _, mode := range []Reset{Restore, Persistent} {
		t.Run(mode.String(), func(t *testing.T) {
			w := worker(t, load(t, "fake/shared.wasm", meta{}, Config{Reset: mode, MaxInputLen: 64}))
			for i, want := range []Outcome{Valid, Valid, Valid} {
				if r := run(t, w, "G"); r.Outcome != want {
					t.Fatalf("run %d: expected %v, got %v (%v)", i, want, r.Outcome, r.Failure)
				}
			}
			// Persistent: after 3 grows memory is at its maximum of 4 pages.
			want := Valid
			if mode == Persistent {
				want = Invalid
			}
			if r := run(t, w, "G"); r.Outcome != want {
				t.Fatalf("last run: expected %v, got %v", want, r.Outcome)
			}
		})
	}
}

// TestRunAllocs: a valid run allocates nothing in restore and persistent
// modes (the hot path of a campaign).
func TestRunAllocs(t *testing.T) {
	for _, mode := range []Reset{Restore, Persistent} {
		w := worker(t, loadInstrumented(t, "clib/clib.wasm", fullOpts, Config{Reset: mode, MaxInputLen: 64}))
		in := []byte("V")
		ctx := context.Background()
		if a := testing.AllocsPerRun(100, func() { w.Run(ctx, in) }); a != 0 {
			t.Errorf("%v: expected 0 allocs per run, got %v", mode, a)
		}
	}
}

// TestInterpreter: the same classification on wazero's interpreter.
func TestInterpreter(t *testing.T) {
	w := worker(t, load(t, "clib/clib.wasm", meta{}, Config{Interpreter: true, Timeout: testTimeout}))
	tests := []struct {
		in   string
		kind Kind
		top  string
	}{
		{"D", KindDivideByZero, "divide_by_zero"},
		{"O", KindOutOfBoundsMemory, "read_bad_pointer"},
		{"A", KindAbort, "abort"},
		{"M", KindIndirectCallMismatch, "call_mismatch"},
		{"L", KindTimeout, ""},
	}
	for _, tc := range tests {
		r := run(t, w, tc.in)
		if r.Failure == nil || r.Failure.Kind != tc.kind || r.Failure.Top() != tc.top {
			t.Errorf("%q: expected %v at %q, got %v %v", tc.in, tc.kind, tc.top, r.Outcome, r.Failure)
		}
	}
	if r := run(t, w, "V"); r.Outcome != Valid {
		t.Fatalf("expected valid, got %v", r.Outcome)
	}
}

// TestWarmUp: warm-up inputs run at initialisation, before the snapshot,
// so a first-use cache is built once instead of in every restored run.
func TestWarmUp(t *testing.T) {
	cold := worker(t, loadInstrumented(t, "goreactor/goreactor.wasm", fullOpts, Config{MaxInputLen: 64}))
	warm := worker(t, loadInstrumented(t, "goreactor/goreactor.wasm", fullOpts, Config{MaxInputLen: 64, WarmUp: [][]byte{[]byte("C")}}))
	var coldFuel, warmFuel uint64
	for i := range 3 {
		rc, rw := run(t, cold, "Cx"), run(t, warm, "Cx")
		if rc.Outcome != Valid || rw.Outcome != Valid {
			t.Fatalf("run %d: expected valid, got %v and %v", i, rc.Outcome, rw.Outcome)
		}
		if i > 0 && (rc.Fuel != coldFuel || rw.Fuel != warmFuel) {
			t.Fatalf("run %d: fuel changed between restored runs: %d→%d, %d→%d", i, coldFuel, rc.Fuel, warmFuel, rw.Fuel)
		}
		coldFuel, warmFuel = rc.Fuel, rw.Fuel
	}
	if warmFuel*10 > coldFuel {
		t.Fatalf("expected the warm run to skip building the cache: fuel %d warm vs %d cold", warmFuel, coldFuel)
	}
	// A warm-up input that crashes or hangs is left out, by every
	// instance alike: the runs are those of a worker warmed up without it.
	ctx := context.Background()
	tg := loadInstrumented(t, "goreactor/goreactor.wasm", fullOpts, Config{MaxInputLen: 64, WarmUp: [][]byte{[]byte("Pwarm"), []byte("C"), []byte("L")}})
	w, err := tg.NewWorker(ctx)
	if err != nil {
		t.Fatalf("expected the failing warm-up inputs left out, got %v", err)
	}
	defer w.Close(ctx)
	if got := w.WarmUpFailed(); !slices.Equal(got, []bool{true, false, true}) {
		t.Fatalf("expected warm-up inputs 0 and 2 to fail, got %v", got)
	}
	for i := range 3 {
		if r := run(t, w, "Cx"); r.Outcome != Valid || r.Fuel != warmFuel {
			t.Fatalf("run %d: expected the warm run (valid, fuel %d), got %v with fuel %d", i, warmFuel, r.Outcome, r.Fuel)
		}
	}
	if r := run(t, w, "Pwarm"); r.Outcome != Crash {
		t.Fatalf("expected the crashing input to crash as a run, got %v", r.Outcome)
	}
}

// TestStartupHint: a Go program built as a command traps in
// runtime.notInitialized when its exports run first; the start-up error
// says how to build it instead. Other failures get no hint.
func TestStartupHint(t *testing.T) {
	goCmd := &Failure{Kind: KindUnreachable, Stack: []Frame{{Func: "runtime.abort"}, {Func: "runtime.notInitialized"}, {Func: "malloc"}}}
	if h := startupHint(goCmd); !strings.Contains(h, "-buildmode=c-shared") {
		t.Fatalf("expected a hint to build a reactor, got %q", h)
	}
	if h := startupHint(&Failure{Kind: KindUnreachable, Stack: []Frame{{Func: "abort"}, {Func: "LLVMFuzzerInitialize"}}}); h != "" {
		t.Fatalf("expected no hint, got %q", h)
	}
}
