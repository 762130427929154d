// Package failureid computes the deduplication key of a failure from its
// kind, message and stack (ALGORITHMS.md §7). It is the one computation
// of a failure's identity: runtime.Result.Identity keys a run by it, and
// corpus keys its crashes/ and hangs/ by it. It does not run targets or
// read files.
package failureid

import (
	"slices"
	"strings"
)

// Kind names (runtime's Kind.String) whose identity frames are chosen
// differently.
const (
	stackOverflowKind = "stack-exhausted" // KindStackExhausted
	outOfMemoryKind   = "out-of-memory"   // KindOutOfMemory
	fuelKind          = "fuel"            // KindFuel
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
	"tmalloc_small": true, "prepend_alloc": true,
}

var allocatorPrefixes = []string{"operator new", "__rust_", "__rdl_", "__rg_", "alloc::", "dlmalloc::", "<dlmalloc::", "runtime."}

// Key is the deduplication key of a failure (ALGORITHMS.md §7): its
// kind, the class of its message (MessageClass) and the top n frames of
// its stack (function names, innermost first; n <= 0 means 3). Two
// failures with the same identity are the same bug as far as wafer knows.
// For a fuel hang they are the outermost ones above the harness
// (outermost). For a Go panic raised again by a deferred function they
// start at the first panic's site (pastRepanic). For a stack overflow
// they start at the recursion (recursion): where an unbounded recursion
// runs out of stack depends on the input, which function of it, or which
// leaf it calls, takes the last frame.
func Key(kind, message string, frames []string, n int) string {
	if n <= 0 {
		n = 3
	}
	switch {
	case kind == stackOverflowKind:
		frames = recursion(frames)
	case kind == outOfMemoryKind:
		frames = pastAllocator(frames)
	case strings.HasPrefix(kind, "go-"):
		frames = pastRepanic(frames)
	case kind == fuelKind:
		frames = outermost(frames, n)
	}
	var b strings.Builder
	b.WriteString(kind)
	b.WriteString("|")
	b.WriteString(MessageClass(message))
	b.WriteString("|")
	for i, f := range frames {
		if i == n {
			break
		}
		if i > 0 {
			b.WriteString(";")
		}
		b.WriteString(frameName(f))
	}
	return b.String()
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
