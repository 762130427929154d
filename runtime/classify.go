package runtime

import (
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tetratelabs/wazero/sys"

	"github.com/wafer-fuzz/wafer/instrument"
)

// trapKinds maps the text after "wasm error: " in wazero v1.12's trap errors
// to a kind. TestTrapMessages pins every entry against wazero itself.
var trapKinds = [...]struct {
	msg  string
	kind Kind
}{
	{"unreachable", KindUnreachable},
	{"out of bounds memory access", KindOutOfBoundsMemory},
	{"invalid table access", KindTableOutOfBounds},
	{"integer divide by zero", KindDivideByZero},
	{"integer overflow", KindIntegerOverflow},
	{"invalid conversion to integer", KindInvalidConversion},
	{"indirect call type mismatch", KindIndirectCallMismatch},
	{"null reference", KindNullReference},
	{"stack overflow", KindStackExhausted},
	{"unaligned atomic", KindUnalignedAtomic},
	{"uncaught exception", KindUncaughtException},
}

// runEnd is everything classify needs to know about how one call ended.
type runEnd struct {
	err      error    // from the wazero call; nil when it returned
	ret      uint32   // harness return value when err == nil (reactors)
	stderr   []byte   // tail of the target's stderr
	command  bool     // WASI command: exit codes decide valid/invalid
	invalid  []uint32 // exit codes that mean invalid
	fuelOut  bool     // the fuel global was negative after the call
	fuel     uint64   // the fuel budget, for the message
	timedOut bool     // the per-run wall-clock backstop fired
	oom      bool     // a memory.grow past the cap was refused during the run
	oomPages uint32   // the cap, for the message
	// mallocLimit is the size of a single memory.grow refused for being
	// larger than Config.MallocLimit (mallocMax), 0 for none.
	mallocLimit, mallocMax uint64
	// stackOverflow is the message of a stack overflow: the stack pointer
	// had left the stack (Layout.StackOverflow) by the time the call
	// trapped ("" when it had not).
	stackOverflow string
	// heap is the heap guard's error global after a trap
	// (instrument.Layout.HeapExport): kind << 32 | block size, or with
	// the heap check kind << 32 | access size << 40 | address; 0 for none.
	heap uint64
	// heapFile and heapLine are the source position of the access a heap
	// check stopped (Layout.HeapAtExport), "" and 0 when unknown.
	heapFile string
	heapLine uint32
	funcs    map[string]Frame
	// stderrMark is stderr from its last line that starts "panic: " or
	// "fatal error: " (wasip1.TailBuffer.Mark): a deep goroutine trace
	// pushes that line out of the tail. goTarget: a Go reactor.
	stderrMark []byte
	goTarget   bool
}

// heapFound is when the heap guard found the error of its error global
// v: a write past a block's end when the block was freed or reallocated,
// anything else at the faulting call or access.
func heapFound(v uint64) Found {
	switch v >> 32 & 0xff {
	case instrument.HeapOverflow:
		return FoundAtFree
	case instrument.HeapOverflowRealloc:
		return FoundAtRealloc
	}
	return FoundAtAccess
}

// heapFailure reads the heap guard's error global.
func heapFailure(v uint64) (Kind, string) {
	size := strconv.FormatUint(v&0xffffffff, 10)
	switch v >> 32 & 0xff {
	case instrument.HeapOverflow:
		return KindHeapOverflow, "a write past the end of a " + size + "-byte heap block, found when it was freed"
	case instrument.HeapOverflowRealloc:
		return KindHeapOverflow, "a write past the end of a " + size + "-byte heap block, found when it was reallocated"
	case instrument.HeapDoubleFree:
		return KindDoubleFree, "free of a heap block already freed"
	case instrument.HeapReallocFreed:
		return KindDoubleFree, "realloc of a heap block already freed"
	case instrument.HeapMallocLimit:
		if v&0xffffffff == 0xffffffff {
			return KindMallocLimit, "a single allocation of 4 GiB or more, over the malloc limit"
		}
		return KindMallocLimit, "a single allocation of " + size + " bytes, over the malloc limit"
	case instrument.HeapReadOverflow, instrument.HeapWriteOverflow, instrument.HeapReadFreed, instrument.HeapWriteFreed,
		instrument.HeapReadNull, instrument.HeapWriteNull:
		// kinds come in pairs, read then write
		kind := (v >> 32) & 0xff
		rw := "read"
		if (kind-instrument.HeapReadOverflow)&1 == 1 {
			rw = "write"
		}
		access := "a " + strconv.FormatUint((v>>40)&0xff, 10) + "-byte "
		if (v>>40)&0xff == 0 {
			access = "a bulk memory " // memory.copy or memory.fill: the first byte at fault
		}
		access += rw + " at 0x" + strconv.FormatUint(v&0xffffffff, 16)
		switch kind {
		case instrument.HeapReadFreed, instrument.HeapWriteFreed:
			return KindUseAfterFree, access + ", in a freed heap block"
		case instrument.HeapReadNull, instrument.HeapWriteNull:
			return KindNullDeref, access + ", in the null page: a null pointer dereferenced"
		}
		return KindHeapOverflow, access + ", outside every heap block (in a redzone)"
	}
	return KindTrap, "heap guard error " + strconv.FormatUint(v, 16)
}

// goStderr is the stderr text Go's panics and fatal errors are read from:
// from the last line that starts one, when there was one, else the tail.
func (e *runEnd) goStderr() []byte {
	if len(e.stderrMark) > 0 {
		return e.stderrMark
	}
	return e.stderr
}

// classify is the one place that turns how a call ended into an Outcome and
// a Failure. Order matters: hangs first (a fuel trap is an unreachable trap,
// a backstop closes the module with an exit error), then a stack
// overflow (the stack pointer out of its bounds: a stack-first module
// traps out of bounds wherever the wrapped pointer is first used), then
// the memory cap (what the target does after a refused
// grow is a consequence), then exits, then traps.
func classify(e runEnd) (Outcome, *Failure, uint32) {
	switch {
	case e.timedOut:
		return Hang, &Failure{Kind: KindTimeout, Message: "wall-clock timeout (backstop)", Stack: wasmStack(e.err, e.funcs)}, 0
	case e.fuelOut:
		return Hang, &Failure{Kind: KindFuel, Message: "out of fuel (budget " + strconv.FormatUint(e.fuel, 10) + ")", Stack: wasmStack(e.err, e.funcs)}, 0
	case e.heap != 0 && e.err != nil:
		k, msg := heapFailure(e.heap)
		stack := wasmStack(e.err, e.funcs)
		if e.heapFile != "" && len(stack) > 0 && e.heap>>32&0xff >= instrument.HeapReadOverflow {
			// the access's own line, where the frame has its function's
			stack[0].File, stack[0].Line = e.heapFile, int(e.heapLine)
		}
		return Crash, &Failure{Kind: k, Message: msg, Stack: stack, Found: heapFound(e.heap)}, 0
	case e.stackOverflow != "":
		return Crash, &Failure{Kind: KindStackExhausted, Message: e.stackOverflow, Stack: wasmStack(e.err, e.funcs)}, 0
	case e.mallocLimit > 0:
		return Crash, &Failure{Kind: KindMallocLimit, Message: "a single memory.grow of " + strconv.FormatUint(e.mallocLimit, 10) + " bytes, over the malloc limit of " + strconv.FormatUint(e.mallocMax, 10) + " bytes", Stack: wasmStack(e.err, e.funcs)}, 0
	case e.oom:
		return Crash, &Failure{Kind: KindOutOfMemory, Message: "memory.grow past the cap of " + strconv.FormatUint(uint64(e.oomPages), 10) + " pages", Stack: wasmStack(e.err, e.funcs)}, 0
	}
	if e.err == nil {
		if e.command {
			return Valid, nil, 0
		}
		if e.ret != 0 {
			return Invalid, nil, 0
		}
		return Valid, nil, 0
	}
	var exit *sys.ExitError
	if errors.As(e.err, &exit) {
		code := exit.ExitCode()
		if f := goFailure(e.goStderr(), code); f != nil {
			return Crash, f, code
		}
		if e.command {
			if code == 0 {
				return Valid, nil, 0
			}
			if slices.Contains(e.invalid, code) {
				return Invalid, nil, code
			}
		}
		msg := "exit code " + strconv.FormatUint(uint64(code), 10)
		if !e.command {
			msg = "reactor exited with code " + strconv.FormatUint(uint64(code), 10)
		}
		return Crash, &Failure{Kind: KindExit, Message: msg, Detail: lastLine(e.stderr), ExitCode: code}, code
	}
	// Go's c-shared runtime ends a panicking export with an unreachable trap
	// after printing the panic and its goroutine trace: the stderr text is
	// the better description. (Without the trace, "panic: " is some other
	// program's text, e.g. a C target's message before abort, unless the
	// target is a Go reactor: a fatal error such as runtime.Goexit's
	// deadlock prints no trace.)
	if f := goFailure(e.goStderr(), 2); f != nil && (e.goTarget || strings.Contains(string(e.goStderr()), "\ngoroutine ")) {
		f.ExitCode = 0
		if len(f.Stack) == 0 {
			f.Stack = wasmStack(e.err, e.funcs)
		}
		return Crash, f, 0
	}
	return Crash, trapFailure(e.err, e.stderr, e.funcs), 0
}

// trapFailure classifies a trap error by its "wasm error: " line.
func trapFailure(err error, stderr []byte, funcs map[string]Frame) *Failure {
	text := err.Error()
	first, _, _ := strings.Cut(text, "\n")
	f := &Failure{Kind: KindTrap, Message: first, Stack: wasmStack(err, funcs)}
	// wazero prefixes traps with "wasm error: ", except a stack overflow,
	// which it returns bare (and without a stack trace).
	msg := strings.TrimPrefix(first, "wasm error: ")
	for _, t := range trapKinds {
		if msg == t.msg {
			f.Kind, f.Message = t.kind, msg
			break
		}
	}
	// C keeps large locals on a shadow stack in linear memory: unbounded
	// recursion runs the stack pointer below 0 and the next frame store
	// traps out of bounds, before wazero's own stack overflows. wazero cuts
	// the trace at 30 frames; a cut trace whose innermost function recurs
	// throughout is that, not a wild pointer.
	if f.Kind == KindOutOfBoundsMemory && recursive(f.Stack) && strings.Contains(text, "omitted frames") {
		f.Kind = KindStackExhausted
		f.Message = "out of bounds memory access (shadow stack exhausted by recursion in " + f.Stack[0].Func + ")"
	}
	// wasi-libc's abort() is __builtin_trap(): an unreachable trap whose
	// innermost frame is abort (assert reaches it through __assert_fail).
	if f.Kind == KindUnreachable && len(f.Stack) > 0 && f.Stack[0].Func == "abort" {
		f.Kind = KindAbort
		f.Message, f.Detail = "abort", lastLine(stderr)
	}
	// Rust built with panic=abort (its wasm32 targets) prints the panic
	// and traps in its panic runtime: the message and location are on
	// stderr, and the frames the target's code called it from come after
	// std's and core's.
	if f.Kind == KindUnreachable {
		if msg, ok := rustPanic(stderr); ok {
			f.Kind, f.Message = KindRustPanic, msg
			for len(f.Stack) > 1 && isRustPanicMachinery(f.Stack[0].Func) {
				f.Stack = f.Stack[1:]
			}
		}
	}
	return f
}

// rustPanic finds a Rust panic on stderr, "thread 'main' panicked at
// 'msg', src/lib.rs:3:5" (Rust up to 1.72) or "thread 'main' panicked at
// src/lib.rs:3:5:" with the message on the next line (1.73 on), and
// returns "msg (src/lib.rs:3:5)".
func rustPanic(stderr []byte) (string, bool) {
	ls := lines(string(stderr))
	for i, l := range ls {
		_, rest, ok := strings.Cut(l, "' panicked at ")
		if !ok || !strings.HasPrefix(l, "thread '") {
			continue
		}
		if quoted, ok := strings.CutPrefix(rest, "'"); ok {
			if j := strings.LastIndex(quoted, "', "); j >= 0 {
				return quoted[:j] + " (" + quoted[j+3:] + ")", true
			}
			return strings.TrimSuffix(quoted, "'"), true
		}
		loc := strings.TrimSuffix(rest, ":")
		if i+1 < len(ls) && ls[i+1] != "" {
			return ls[i+1] + " (" + loc + ")", true
		}
		return "panic (" + loc + ")", true
	}
	return "", false
}

// isRustPanicMachinery: frames of Rust's panic runtime and of the standard
// library functions that panic on the caller's behalf (unwrap, indexing,
// arithmetic checks), demangled.
func isRustPanicMachinery(f string) bool {
	for _, p := range []string{"std::", "core::", "alloc::", "panic_abort::", "__rust_", "rust_panic", "rust_begin_unwind", "<core::", "<std::", "<alloc::"} {
		if strings.HasPrefix(f, p) {
			return true
		}
	}
	return false
}

// recursive reports whether the innermost function fills at least half of
// a long stack.
func recursive(st []Frame) bool {
	if len(st) < 16 {
		return false
	}
	n := 0
	for _, f := range st {
		if f.Func == st[0].Func {
			n++
		}
	}
	return 2*n >= len(st)
}

// wasmStack parses wazero's "wasm stack trace:" lines into frames. A frame
// line is "\t<module>.<func>(<params>) <results>", optionally followed by
// "\t\t<file>:<line>:<col>" source lines when wazero read DWARF; file:line
// from the SiteMap (funcs) wins over DWARF when present.
func wasmStack(err error, funcs map[string]Frame) []Frame {
	if err == nil {
		return nil
	}
	_, trace, ok := strings.Cut(err.Error(), "wasm stack trace:\n")
	if !ok {
		return nil
	}
	var frames []Frame
	for _, l := range strings.Split(trace, "\n") {
		switch {
		case strings.HasPrefix(l, "\t\t"):
			if len(frames) == 0 || frames[len(frames)-1].File != "" {
				continue
			}
			src := strings.TrimSpace(l)
			// "0x32d: file.c:5:5": drop the code offset.
			if i := strings.Index(src, ": "); i > 0 && strings.HasPrefix(src, "0x") {
				src = src[i+2:]
			}
			file, line := splitSource(src)
			frames[len(frames)-1].File, frames[len(frames)-1].Line = file, line
		case strings.HasPrefix(l, "\t..."):
			// "... maybe followed by omitted frames": wazero's note that it
			// cut the trace (at 30 frames), not a frame
		case strings.HasPrefix(l, "\t"):
			name := frameName(l[1:])
			fr := Frame{Func: demangled(name)}
			if sf, ok := funcs[name]; ok {
				fr.File, fr.Line = sf.File, sf.Line
				if sf.Func != "" && sf.Func != name {
					fr.Func = demangled(sf.Func) // an unnamed function's name from DWARF, a Go function's from Go's table
				}
			}
			frames = append(frames, fr)
		default:
			if len(frames) > 0 {
				return frames
			}
		}
	}
	return frames
}

// frameName strips the module name and the signature from a wazero frame:
// ".main.(*T).f(i32,i32) i32" → "main.(*T).f". Our instances are anonymous,
// so the module name is empty and the line starts with '.'.
func frameName(s string) string {
	s = strings.TrimPrefix(s, ".")
	if m := sigRE.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return s
}

// sigRE matches wazero's frame signature: name(params) [result|(results)].
var sigRE = regexp.MustCompile(`^(.*?)\((?:(?:i32|i64|f32|f64|v128|funcref|externref|exnref|anyref|ref),?)*\)(?: [a-z0-9]+| \([a-z0-9,]*\))?$`)

// splitSource parses "file:line:col" or "file:line" (the file may contain
// colons); a trailing " (inlined)" is dropped.
func splitSource(s string) (string, int) {
	s = strings.TrimSuffix(s, " (inlined)")
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil {
		return s, 0
	}
	// The last number may be the column: take the one before if it is a
	// number too.
	if j := strings.LastIndexByte(s[:i], ':'); j >= 0 {
		if m, err := strconv.Atoi(s[j+1 : i]); err == nil {
			return s[:j], m
		}
	}
	return s[:i], n
}

// goFailure recognises a Go program's death on stderr: "panic: msg" or
// "fatal error: msg" followed by "goroutine N [...]:" traces, or a Go
// fuzz test's "--- FAIL: " report, exit code 2.
func goFailure(stderr []byte, code uint32) *Failure {
	if code != 2 || len(stderr) == 0 {
		return nil
	}
	s := string(stderr)
	kind, msg := KindNone, ""
	ls := lines(s)
	for i, l := range ls {
		if m, ok := strings.CutPrefix(l, "panic: "); ok && kind == KindNone {
			kind, msg = KindGoPanic, m
		} else if m, ok := strings.CutPrefix(l, "fatal error: "); ok && kind == KindNone {
			kind, msg = KindGoFatal, m
		} else if strings.HasPrefix(l, "--- FAIL: ") && kind == KindNone {
			// a Go fuzz test's failure (package gofuzz's report): the
			// message is the test's first log line
			kind, msg = KindGoTestFail, testLogLine(ls[i+1:])
		}
	}
	if kind == KindNone {
		return nil
	}
	msg = strings.TrimSuffix(msg, " [recovered]")
	msg = strings.TrimSuffix(msg, " [recovered, repanicked]")
	return &Failure{Kind: kind, Message: msg, Stack: goStack(s), ExitCode: code}
}

// testLogLine is the first line of a failed test's log (the lines after
// "--- FAIL: "), "" when it logged nothing.
func testLogLine(ls []string) string {
	for _, l := range ls {
		if strings.HasPrefix(l, "goroutine ") {
			break
		}
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "--- FAIL: ") {
			return t
		}
	}
	return ""
}

// goStack parses the first goroutine trace: pairs of "pkg.func(args)" and
// "\tfile:line +0x.." lines. Runtime frames of the panic machinery
// (panic, runtime.gopanic, runtime.panicIndex...) are dropped so the top
// frame is where the target failed; the harness frames are kept.
func goStack(s string) []Frame {
	i := strings.Index(s, "\ngoroutine ")
	if i < 0 {
		return nil
	}
	ls := lines(s[i+1:])
	var frames []Frame
	for k := 1; k < len(ls); k++ {
		l := ls[k]
		if l == "" {
			break
		}
		if strings.HasPrefix(l, "\t") {
			if len(frames) > 0 && frames[len(frames)-1].File == "" {
				src := strings.TrimSpace(l)
				if sp := strings.IndexByte(src, ' '); sp >= 0 {
					src = src[:sp]
				}
				frames[len(frames)-1].File, frames[len(frames)-1].Line = splitSource(src)
			}
			continue
		}
		name := l
		if p := strings.LastIndexByte(name, '('); p > 0 {
			name = name[:p]
		}
		name = strings.TrimPrefix(name, "created by ")
		frames = append(frames, Frame{Func: name})
	}
	for len(frames) > 1 && isPanicMachinery(frames[0].Func) {
		frames = frames[1:]
	}
	return frames
}

func isPanicMachinery(f string) bool {
	switch f {
	case "panic", "runtime.gopanic", "runtime.goPanicIndex", "runtime.goPanicIndexU",
		"runtime.panicmem", "runtime.sigpanic", "runtime.throw", "runtime.fatal", "runtime.fatalthrow":
		return true
	}
	return strings.HasPrefix(f, "runtime.panic") || strings.HasPrefix(f, "runtime.goPanic") ||
		strings.HasPrefix(f, "runtime.mapassign") || strings.HasPrefix(f, "internal/runtime/maps.")
}

func lastLine(b []byte) string {
	ls := lines(string(b))
	for i := len(ls) - 1; i >= 0; i-- {
		if t := strings.TrimSpace(ls[i]); t != "" {
			if len(t) > 200 {
				t = t[:200]
			}
			return t
		}
	}
	return ""
}
