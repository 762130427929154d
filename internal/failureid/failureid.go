// Package failureid computes the deduplication key of a failure from its
// kind, message and stack (docs/ALGORITHMS.md §7). It is the one computation
// of a failure's identity: runtime.Result.Identity keys a run by it, and
// corpus keys its crashes/ and hangs/ by it. It does not run targets or
// read files.
package failureid

import (
	"slices"
	"strings"
	"unicode"
)

// The failure kind names (runtime's Kind.String) an identity depends on:
// its frames are chosen differently, or its class is out-of-memory.
// runtime's TestFailureidKinds pins each against runtime's own name.
const (
	KindStackExhausted = "stack-exhausted" // runtime.KindStackExhausted
	KindOutOfMemory    = "out-of-memory"   // runtime.KindOutOfMemory
	KindMallocLimit    = "malloc-limit"    // runtime.KindMallocLimit
	KindFuel           = "fuel"            // runtime.KindFuel
	KindGoPanic        = "go-panic"        // runtime.KindGoPanic
	KindGoFatal        = "go-fatal"        // runtime.KindGoFatal
)

// allocatorFuncs and allocatorPrefixes name the allocators' own frames
// (C's malloc family and wasi-libc's dlmalloc and sbrk, C++'s operator
// new, Rust's and Go's allocators), which an out-of-memory failure's
// identity skips, as ClusterFuzz's crash state does: every allocation
// that runs out of memory passes through them, so the site that asked is
// the frame that tells two of them apart.
var allocatorFuncs = map[string]bool{
	"sbrk": true, "__sbrk": true, "malloc": true, "calloc": true, "realloc": true, "reallocarray": true,
	"aligned_alloc": true, "posix_memalign": true, "memalign": true, "valloc": true, "pvalloc": true,
	"strdup": true, "strndup": true, "dlmalloc": true, "dlcalloc": true, "dlrealloc": true, "dlmemalign": true,
	"dlposix_memalign": true, "internal_memalign": true, "sys_alloc": true, "tmalloc_large": true,
	"tmalloc_small": true, "prepend_alloc": true, "free": true, "dlfree": true, "cfree": true,
}

var allocatorPrefixes = []string{"operator new", "__rust_", "__rdl_", "__rg_", "alloc::", "dlmalloc::", "<dlmalloc::", "runtime."}

// Key is the deduplication key of a failure (docs/ALGORITHMS.md §7), a
// crash state as ClusterFuzz builds one: its class (FailureClass), the
// class of its message (MessageClass; none for an out-of-memory, whose
// messages say which of three places noticed it) and the top n frames of
// the target's own code (TargetFrames; n <= 0 means 3), innermost first,
// each in the canonical form runtime.FrameKey gives (frames are mapped to
// its character set here too, so names that reach this package another
// way still compare). Two failures with the same identity are the same
// bug as far as wafer knows. For a fuel hang the frames are the outermost
// ones of the target's code (outermost). For a Go panic raised again by a
// deferred function they start at the first panic's site (pastRepanic).
// For a stack overflow they start at the recursion (recursion): where an
// unbounded recursion runs out of stack depends on the input, which
// function of it, or which leaf it calls, takes the last frame.
func Key(kind, message string, frames []string, n int) string {
	if n <= 0 {
		n = 3
	}
	class := FailureClass(kind, message)
	msg := MessageClass(message)
	keys := make([]string, len(frames))
	for i, f := range frames {
		keys[i] = frameKey(frameName(f))
	}
	frames = keys
	switch {
	case class == KindStackExhausted:
		frames = TargetFrames(recursion(frames))
	case class == KindOutOfMemory:
		frames = TargetFrames(pastAllocator(frames))
		msg = ""
	case class == KindGoPanic || class == KindGoFatal:
		frames = TargetFrames(pastRepanic(frames))
	case class == KindFuel:
		frames = outermost(TargetFrames(frames), n)
	default:
		frames = TargetFrames(frames)
	}
	var b strings.Builder
	b.WriteString(class)
	b.WriteString("|")
	b.WriteString(msg)
	b.WriteString("|")
	for i, f := range frames {
		if i == n {
			break
		}
		if i > 0 {
			b.WriteString(";")
		}
		b.WriteString(f)
	}
	return b.String()
}

// FailureClass is the class of a failure for its identity: its kind, but
// for running out of memory, which is one class (out-of-memory) however
// it was noticed: memory.grow past the cap (kind out-of-memory), one
// allocation past the malloc limit (kind malloc-limit), the Go
// runtime's "fatal error: runtime: out of memory", a Go make whose length
// the runtime refused ("makeslice: len out of range", "makeslice: cap out
// of range", "growslice: len out of range": a size no allocator could
// serve) and Rust's "memory allocation of N bytes failed".
func FailureClass(kind, message string) string {
	switch {
	case kind == KindOutOfMemory, kind == KindMallocLimit:
		return KindOutOfMemory
	case kind == KindGoFatal && strings.Contains(message, "out of memory"):
		return KindOutOfMemory
	case kind == KindGoPanic && (strings.Contains(message, "makeslice: len out of range") ||
		strings.Contains(message, "makeslice: cap out of range") || strings.Contains(message, "growslice: len out of range")):
		return KindOutOfMemory
	case strings.HasPrefix(message, "memory allocation of ") && strings.Contains(message, " failed"):
		return KindOutOfMemory
	}
	return kind
}

// frameKey maps a frame name to runtime.FrameKey's character set
// (KeyChars), without the demangling, which the stack's producer did.
func frameKey(f string) string { return KeyChars(f) }

// KeyChars maps a function's name (demangled, without an offset or a
// parameter list) to the character set of identities. A name written in
// the characters of a Go name as Go prints it (letters, digits and
// "_./()*[]-~%") is kept as it is: "example.com/m/pkg.(*T).Read",
// "gopkg.in/yaml%2ev2.(*parser).parse", "pkg.Map[...]". In any other
// name, C++'s and Rust's demangled ones among them, every byte that is
// not an ASCII letter, digit, '_' or '.' becomes '_' ("ns::f" is
// "ns__f", "(anonymous namespace)::run" "_anonymous_namespace___run").
func KeyChars(name string) string {
	goName := true
	for _, r := range name {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_./()*[]-~%", r)) {
			goName = false
			break
		}
	}
	if goName {
		return name
	}
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	return string(b)
}

// TargetFrames returns the frames of the target's own code: frames less
// the language runtimes' (Go's runtime, Rust's core, std and alloc and
// its panic machinery, C++'s std and ABI support), the allocators'
// (allocatorFuncs), libc's memory and string functions, wafer's wrappers
// (the heap guard's, "wafer." and ".unguarded") and the harness glue
// (LLVMFuzzerTestOneInput and Go's export trampolines, WASI's entry
// points, wafer's Go harness). Frames are canonical keys. When every
// frame is one of those, frames is returned as it is.
func TargetFrames(frames []string) []string {
	var out []string
	for _, f := range frames {
		if IsTargetFrame(f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return frames
	}
	return out
}

// IsTargetFrame reports whether the frame key f is the target's own code
// (TargetFrames).
func IsTargetFrame(f string) bool {
	if glueFuncs[f] || allocatorFuncs[f] || libcFuncs[f] {
		return false
	}
	for _, p := range runtimePrefixes {
		if strings.HasPrefix(f, p) {
			return false
		}
	}
	return !strings.HasSuffix(f, ".LLVMFuzzerTestOneInput") && !strings.HasSuffix(f, ".unguarded")
}

// glueFuncs are the harness's and the toolchains' entry frames.
var glueFuncs = map[string]bool{
	"LLVMFuzzerTestOneInput": true, "LLVMFuzzerInitialize": true, "_start": true, "_initialize": true,
	"__main_void": true, "__main_argc_argv": true, "__original_main": true,
	"panic": true, "wasm_pc_f_loop": true, "wasm_pc_f_loop_export": true, "_rt0_wasm_wasip1_lib": true, "_rt0_wasm_wasip1": true,
	"abort": true, "__assert_fail": true, "__cxa_throw": true,
}

// libcFuncs are libc's memory and string functions: a bad pointer or
// length passed to them is the caller's bug.
var libcFuncs = map[string]bool{
	"memcpy": true, "memmove": true, "memset": true, "memcmp": true, "bcmp": true, "memchr": true, "memrchr": true,
	"strlen": true, "strnlen": true, "strcmp": true, "strncmp": true, "strcpy": true, "strncpy": true, "stpcpy": true,
	"__stpcpy": true, "stpncpy": true, "__stpncpy": true, "strcat": true, "strncat": true, "strchr": true, "__strchrnul": true,
	"strchrnul": true, "strrchr": true, "strstr": true, "strspn": true, "strcspn": true, "strcasecmp": true, "strncasecmp": true,
	"strtok": true, "wmemcpy": true, "wmemset": true, "wcslen": true, "__memcpy_fwd": true,
}

// runtimePrefixes start the keys of language runtime and wafer frames.
var runtimePrefixes = []string{
	"runtime.", "internal/runtime/", "internal_runtime_", "github.com/wafer-fuzz/wafer/harness.", "github.com_wafer_fuzz_wafer_harness.", "wafer.",
	"core__", "std__", "alloc__", "_core__", "_std__", "_alloc__", "__rust_", "__rdl_", "__rg_", "rust_panic",
	"rust_begin_unwind", "panic_abort__", "dlmalloc__", "_dlmalloc__", "operator_new", "operator_delete",
	"__cxa_", "__cxxabiv1", "__gxx_", "__libc_", "__wasi_",
}

// recursion returns frames from the innermost one whose function occurs
// again further out (a recursion's frames, not the leaves it was calling
// when the stack ran out), or frames itself when no function repeats.
func recursion(frames []string) []string {
	count := make(map[string]int, len(frames))
	for _, f := range frames {
		count[frameName(f)]++
	}
	for i, f := range frames {
		if count[frameName(f)] > 1 {
			return frames[i:]
		}
	}
	return frames
}

// harnessFrames are the entry frames below a target's own code: the
// libFuzzer export, WASI's command start, wafer's Go harness.
var harnessFrames = []string{"LLVMFuzzerTestOneInput", "_start", "__main_void", "__main_argc_argv", "__original_main", "github.com/wafer-fuzz/wafer/harness."}

// outermost returns the n outermost frames of a fuel hang above the
// harness's entry frames, innermost first. Where the fuel runs out inside
// an endless loop is any point of the loop or of what it calls (one gif
// decoder loop gave six "unique" hangs by their top frames); the frames
// that hold the loop are the stable part of the stack.
func outermost(frames []string, n int) []string {
	end := len(frames)
	for end > 0 && slices.ContainsFunc(harnessFrames, func(h string) bool {
		name := frameName(frames[end-1])
		return name == h || strings.HasSuffix(h, ".") && strings.HasPrefix(name, h)
	}) {
		end--
	}
	if end == 0 {
		return frames
	}
	return frames[max(0, end-n):end]
}

// pastRepanic returns the frames of a Go panic's first site: those past
// the innermost "panic" frame (runtime.gopanic) and the runtime's frames
// after it, or frames itself when there is none. A library that recovers
// and panics again (yaml's handleErr) puts its deferred function and
// "panic" above the site where the first panic happened, and every
// failure it re-raises would share those two frames.
func pastRepanic(frames []string) []string {
	for i := len(frames) - 2; i >= 0; i-- {
		if frameName(frames[i]) != "panic" {
			continue
		}
		rest := frames[i+1:]
		for len(rest) > 1 && strings.HasPrefix(frameName(rest[0]), "runtime.") {
			rest = rest[1:]
		}
		return rest
	}
	return frames
}

// pastAllocator returns frames from the first one that is not an
// allocator's own (allocatorFuncs), or frames itself when all are.
func pastAllocator(frames []string) []string {
	for i, f := range frames {
		name := frameName(f)
		if !allocatorFuncs[name] && !slices.ContainsFunc(allocatorPrefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			return frames[i:]
		}
	}
	return frames
}

// frameName cuts the offset and the argument list from a frame
// ("f+0x1a", "main.f(0x1, 0x2)" and "ns::f(int) const" give the bare
// function name). Only a list at the end is cut: a Go method's receiver,
// "pkg.(*T).m", is part of its name.
func frameName(f string) string {
	f = strings.TrimSpace(f)
	if i := strings.Index(f, "+0x"); i > 0 {
		f = strings.TrimSpace(f[:i])
	}
	f = strings.TrimSuffix(f, " const")
	if !strings.HasSuffix(f, ")") {
		return f
	}
	depth := 0
	for i := len(f) - 1; i > 0; i-- {
		switch f[i] {
		case ')':
			depth++
		case '(':
			if depth--; depth == 0 {
				return f[:i]
			}
		}
	}
	return f
}

// MessageClass reduces an error message to its class: the first non-empty
// line, with hexadecimal numbers replaced by "0x?", decimal numbers by "N"
// and double-quoted strings by "?" (a harness's panic message often quotes
// the input), cut to 160 bytes. "index out of range [5] with length 3" and
// "index out of range [7] with length 2" are one class, and so are
// `marshal not idempotent: "a: |4" != "a: |"` and the same with other text.
func MessageClass(msg string) string {
	line := ""
	for l := range strings.SplitSeq(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	var b strings.Builder
	for i := 0; i < len(line) && b.Len() < 160; {
		c := line[i]
		switch {
		case c == '0' && i+1 < len(line) && (line[i+1] == 'x' || line[i+1] == 'X') && i+2 < len(line) && isHex(line[i+2]):
			i += 2
			for i < len(line) && isHex(line[i]) {
				i++
			}
			b.WriteString("0x?")
		case c >= '0' && c <= '9':
			for i < len(line) && line[i] >= '0' && line[i] <= '9' {
				i++
			}
			b.WriteString("N")
		case c == '"':
			// a quoted string (Go's %q, Rust's {:?}): usually the input
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' {
					i++
				}
			}
			i++
			b.WriteString(`"?"`)
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
