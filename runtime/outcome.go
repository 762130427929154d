package runtime

import (
	"errors"
	"strconv"
	"strings"

	"github.com/wafer-fuzz/wafer/internal/enumname"
)

// Outcome is how one execution ended.
type Outcome uint8

const (
	// Valid: the harness accepted the input (returned 0, or exit code 0).
	Valid Outcome = iota
	// Invalid: the harness rejected the input (non-zero return, or one of
	// Config.InvalidExitCodes).
	Invalid
	// Crash: the target trapped, panicked, aborted, exited abnormally or
	// exceeded the memory cap. Result.Failure says how.
	Crash
	// Hang: the target ran out of fuel, or the wall-clock backstop fired.
	Hang
)

var outcomeNames = enumname.New[Outcome]("Outcome", "outcome", "valid", "invalid", "crash", "hang")

func (o Outcome) String() string { return outcomeNames.String(o) }

// Failed reports whether o is a crash or a hang.
func (o Outcome) Failed() bool { return o == Crash || o == Hang }

// Kind classifies a failure: one kind per Wasm trap, plus the ways a
// target fails outside the Wasm semantics (Go panic, C abort, exit code,
// memory cap) and the two kinds of hang.
type Kind uint8

const (
	KindNone Kind = iota
	// Wasm traps (wazero's "wasm error: ..." messages).
	KindUnreachable          // "unreachable"
	KindOutOfBoundsMemory    // "out of bounds memory access"
	KindTableOutOfBounds     // "invalid table access" (index out of range or null element)
	KindDivideByZero         // "integer divide by zero"
	KindIntegerOverflow      // "integer overflow" (INT_MIN/-1, trunc of a too-large float)
	KindInvalidConversion    // "invalid conversion to integer" (trunc of NaN)
	KindIndirectCallMismatch // "indirect call type mismatch"
	KindNullReference        // "null reference"
	KindStackExhausted       // "stack overflow", or the stack pointer of LLVM's stack in linear memory out of its bounds
	KindUnalignedAtomic      // "unaligned atomic"
	KindUncaughtException    // "uncaught exception"
	KindTrap                 // any other trap or host-function panic
	// Failures outside the Wasm semantics.
	KindGoPanic     // Go "panic: ..." on stderr, exit code 2
	KindGoFatal     // Go "fatal error: ..." (deadlock, runtime out of memory), exit code 2
	KindRustPanic   // Rust "thread '...' panicked at ..." on stderr, then a trap (panic=abort)
	KindAbort       // C abort(): an unreachable trap inside abort, or assert
	KindExit        // an exit code that is neither valid nor invalid
	KindOutOfMemory // memory.grow past Config.MaxMemoryPages
	// The heap guard's findings (instrument.Options.HeapGuard).
	KindHeapOverflow // an access outside a heap block (the heap check), or a write past its end found when it was freed or reallocated
	KindDoubleFree   // a free or realloc of a block already freed
	KindUseAfterFree // a read or write of a freed heap block (the heap check)
	KindNullDeref    // a read or write of the null page (below the static data, or the stack's bottom when it comes first): a null pointer dereferenced (the heap check)
	// Hangs.
	KindFuel    // the instrumented fuel counter ran out (deterministic)
	KindTimeout // the wall-clock backstop fired (not deterministic)
	// KindMallocLimit: one memory.grow asked for more than
	// Config.MallocLimit (libFuzzer's -malloc_limit_mb), at the
	// allocating call.
	KindMallocLimit
	// KindGoTestFail: a Go fuzz test's t.Fatal, t.Error or t.Fail, as a
	// test built by package gofuzz reports it on stderr ("--- FAIL: ...",
	// the test's log, the goroutine trace), exit code 2.
	KindGoTestFail
)

var kindNames = enumname.New[Kind]("Kind", "failure kind", []string{
	KindNone:                 "none",
	KindUnreachable:          "unreachable",
	KindOutOfBoundsMemory:    "out-of-bounds-memory",
	KindTableOutOfBounds:     "table-out-of-bounds",
	KindDivideByZero:         "divide-by-zero",
	KindIntegerOverflow:      "integer-overflow",
	KindInvalidConversion:    "invalid-conversion",
	KindIndirectCallMismatch: "indirect-call-mismatch",
	KindNullReference:        "null-reference",
	KindStackExhausted:       "stack-exhausted",
	KindUnalignedAtomic:      "unaligned-atomic",
	KindUncaughtException:    "uncaught-exception",
	KindTrap:                 "trap",
	KindGoPanic:              "go-panic",
	KindGoFatal:              "go-fatal",
	KindRustPanic:            "rust-panic",
	KindAbort:                "abort",
	KindExit:                 "exit",
	KindOutOfMemory:          "out-of-memory",
	KindHeapOverflow:         "heap-buffer-overflow",
	KindDoubleFree:           "double-free",
	KindUseAfterFree:         "heap-use-after-free",
	KindNullDeref:            "null-deref",
	KindFuel:                 "fuel",
	KindTimeout:              "timeout",
	KindMallocLimit:          "malloc-limit",
	KindGoTestFail:           "go-test-fail",
}...)

func (k Kind) String() string { return kindNames.String(k) }

// Sentinel errors, one per failure kind, so callers can branch with
// errors.Is on a *Failure.
var (
	ErrUnreachable          = errors.New("unreachable")
	ErrOutOfBoundsMemory    = errors.New("out of bounds memory access")
	ErrTableOutOfBounds     = errors.New("invalid table access")
	ErrDivideByZero         = errors.New("integer divide by zero")
	ErrIntegerOverflow      = errors.New("integer overflow")
	ErrInvalidConversion    = errors.New("invalid conversion to integer")
	ErrIndirectCallMismatch = errors.New("indirect call type mismatch")
	ErrNullReference        = errors.New("null reference")
	ErrStackExhausted       = errors.New("call stack exhausted")
	ErrUnalignedAtomic      = errors.New("unaligned atomic")
	ErrUncaughtException    = errors.New("uncaught exception")
	ErrTrap                 = errors.New("trap")
	ErrGoPanic              = errors.New("go panic")
	ErrGoFatal              = errors.New("go fatal error")
	ErrRustPanic            = errors.New("rust panic")
	ErrAbort                = errors.New("abort")
	ErrExit                 = errors.New("abnormal exit")
	ErrOutOfMemory          = errors.New("memory limit exceeded")
	ErrHeapOverflow         = errors.New("heap buffer overflow")
	ErrDoubleFree           = errors.New("double free")
	ErrUseAfterFree         = errors.New("heap use after free")
	ErrNullDeref            = errors.New("null pointer dereference")
	ErrMallocLimit          = errors.New("malloc limit exceeded")
	ErrGoTestFail           = errors.New("go test failed")
	// ErrHang matches both kinds of hang (fuel and timeout).
	ErrHang = errors.New("hang")
)

var kindErrs = [...]error{
	KindUnreachable:          ErrUnreachable,
	KindOutOfBoundsMemory:    ErrOutOfBoundsMemory,
	KindTableOutOfBounds:     ErrTableOutOfBounds,
	KindDivideByZero:         ErrDivideByZero,
	KindIntegerOverflow:      ErrIntegerOverflow,
	KindInvalidConversion:    ErrInvalidConversion,
	KindIndirectCallMismatch: ErrIndirectCallMismatch,
	KindNullReference:        ErrNullReference,
	KindStackExhausted:       ErrStackExhausted,
	KindUnalignedAtomic:      ErrUnalignedAtomic,
	KindUncaughtException:    ErrUncaughtException,
	KindTrap:                 ErrTrap,
	KindGoPanic:              ErrGoPanic,
	KindGoFatal:              ErrGoFatal,
	KindRustPanic:            ErrRustPanic,
	KindAbort:                ErrAbort,
	KindExit:                 ErrExit,
	KindOutOfMemory:          ErrOutOfMemory,
	KindHeapOverflow:         ErrHeapOverflow,
	KindDoubleFree:           ErrDoubleFree,
	KindUseAfterFree:         ErrUseAfterFree,
	KindNullDeref:            ErrNullDeref,
	KindFuel:                 ErrHang,
	KindTimeout:              ErrHang,
	KindMallocLimit:          ErrMallocLimit,
	KindGoTestFail:           ErrGoTestFail,
}

// Err is the sentinel of k (nil for KindNone).
func (k Kind) Err() error {
	if int(k) < len(kindErrs) {
		return kindErrs[k]
	}
	return nil
}

// Hang reports whether k is a kind of hang.
func (k Kind) Hang() bool { return k == KindFuel || k == KindTimeout }

// Frame is one stack frame of a failure, innermost first.
type Frame struct {
	Func string // function name (Wasm name section, or Go function)
	File string // source file, "" when unknown
	Line int    // source line, 0 when unknown
}

func (f Frame) String() string {
	if f.File == "" {
		return f.Func
	}
	return f.Func + " " + f.File + ":" + strconv.Itoa(f.Line)
}

// Failure describes a crash or hang. It is an error whose errors.Is matches
// the sentinel of its Kind.
type Failure struct {
	Kind    Kind
	Message string // one line: the trap, panic message, exit code...
	// Detail is the target's own last stderr line, for KindAbort and
	// KindExit (an assertion's text, or whatever the program printed
	// last). It is shown after Message but is not part of the message a
	// failure is identified by: a program that prints something about its
	// input before it aborts would make every input a new failure.
	Detail string
	Stack  []Frame // innermost first; may be empty (exit codes, hangs without a trap)
	// ExitCode is the exit code for KindExit, KindGoPanic and KindGoFatal.
	ExitCode uint32
	// Found is when the failure was found: at the faulting instruction
	// (FoundAtAccess, the zero value: every failure but two), or, for a
	// KindHeapOverflow the heap guard met without the heap check, later,
	// when the block was freed or reallocated.
	Found Found
}

// Found is when a failure was found (Failure.Found).
type Found uint8

const (
	// FoundAtAccess: at the instruction or call at fault (a trap, a panic,
	// the heap check stopping an access, a double free...).
	FoundAtAccess Found = iota
	// FoundAtFree: a write past a heap block's end, found when the block
	// was freed (its redzone no longer intact).
	FoundAtFree
	// FoundAtRealloc: the same, found when the block was reallocated.
	FoundAtRealloc
)

var foundNames = enumname.New[Found]("Found", "found", "access", "free", "realloc")

func (f Found) String() string { return foundNames.String(f) }

func (f *Failure) Error() string { return f.Kind.String() + ": " + f.Text() }

// Text is Message, followed by Detail when there is one.
func (f *Failure) Text() string {
	if f.Detail == "" {
		return f.Message
	}
	return f.Message + ": " + f.Detail
}

// Unwrap returns the sentinel of the failure's kind.
func (f *Failure) Unwrap() error { return f.Kind.Err() }

// Top is the innermost frame's function name, "" without a stack.
func (f *Failure) Top() string {
	if f == nil || len(f.Stack) == 0 {
		return ""
	}
	return f.Stack[0].Func
}

// Result is what one execution produced.
type Result struct {
	Outcome Outcome
	// Counters is a zero-copy view of this run's hit counters (one byte per
	// site of the SiteMap), valid until the next Run on the same Worker.
	// Empty for uninstrumented modules.
	Counters []byte
	// Failure is set for Crash and Hang.
	Failure *Failure
	// Fuel is the fuel this run consumed (0 when the module has no fuel).
	Fuel uint64
	// Stdout and Stderr are the tails (Config.OutputTail bytes) of what the
	// target wrote; they alias worker buffers valid until the next Run.
	Stdout, Stderr []byte
	// ExitCode is the exit code of a command target (or of a reactor that
	// exited), 0 otherwise.
	ExitCode uint32
}

// lines splits s into lines without the trailing empty one.
func lines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
