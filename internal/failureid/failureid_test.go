package failureid

import (
	"slices"
	"strings"
	"testing"
)

func TestKey(t *testing.T) {
	// failure is the input of Key other than n.
	type failure struct {
		kind, msg string
		frames    []string
	}
	tests := []struct {
		name      string
		kind, msg string
		frames    []string
		n         int
		sameAs    failure // another failure (other numbers, offsets, arguments, runtime frames) with the same identity
		want      string
	}{
		{name: "numbers", kind: "panic", msg: "panic: runtime error: index out of range [5] with length 3\ngoroutine 1 [running]:", frames: []string{"main.parse", "main.fuzz", "harness.run", "runtime.main"},
			sameAs: failure{"panic", "panic: runtime error: index out of range [12] with length 40", []string{"main.parse+0x10", "main.fuzz(0x1)", "harness.run", "other.caller"}},
			want:   "panic|panic: runtime error: index out of range [N] with length N|main.parse;main.fuzz;harness.run"},
		{name: "hex and args", kind: "oob", msg: "  \nwasm error: out of bounds memory access at 0x1f0a", frames: []string{"f(0x1, 0x2)", "g+0x1a"}, n: 1,
			sameAs: failure{"oob", "wasm error: out of bounds memory access at 0xdead", []string{"f+0x2", "h"}},
			want:   "oob|wasm error: out of bounds memory access at 0x?|f"},
		{name: "no frames", kind: "hang", sameAs: failure{kind: "hang", msg: "\n  \n"}, want: "hang||"},
		// A Go method's receiver is part of its name: two methods of one
		// package are two frames (they read as "pkg." both).
		{name: "go methods", kind: "go-panic", msg: "nil pointer dereference", frames: []string{"golang.org/x/net/html.(*parser).parseCurrentToken", "golang.org/x/net/html.(*parser).parse(0x256410)", "main.fuzz({0x380000, 0x1e, 0x1e})"},
			sameAs: failure{"go-panic", "nil pointer dereference", []string{"golang.org/x/net/html.(*parser).parseCurrentToken(0x1)", "golang.org/x/net/html.(*parser).parse(0x999)", "main.fuzz({0x1, 0x2, 0x3})", "main.main"}},
			want:   "go-panic|nil pointer dereference|golang.org/x/net/html.(*parser).parseCurrentToken;golang.org/x/net/html.(*parser).parse;main.fuzz"},
		// Raised again by a deferred function: the identity is the first
		// panic's site, past "panic" and the runtime's frames.
		{name: "go re-panic", kind: "go-panic", msg: "attempted to parse unknown event: none", frames: []string{"gopkg.in/yaml%2ev2.handleErr", "panic", "runtime.goPanicIndex", "gopkg.in/yaml%2ev2.(*parser).parse", "gopkg.in/yaml%2ev2.unmarshal", "main.fuzz"},
			// the same first panic, not raised again
			sameAs: failure{"go-panic", "attempted to parse unknown event: none", []string{"runtime.goPanicIndex", "gopkg.in/yaml%2ev2.(*parser).parse", "gopkg.in/yaml%2ev2.unmarshal", "main.fuzz"}},
			want:   "go-panic|attempted to parse unknown event: none|gopkg.in/yaml%2ev2.(*parser).parse;gopkg.in/yaml%2ev2.unmarshal;main.fuzz"},
		// A fuel hang: the outermost frames above the harness, wherever
		// in the loop the fuel ran out.
		{name: "fuel hang", kind: "fuel", msg: "out of fuel (budget 268435456)", frames: []string{"weezl::decode::Decoder::has_ended", "gif::reader::ReadDecoder<R>::decode_next", "gif::reader::Decoder<R>::read_next_frame", "fuzz_gif", "LLVMFuzzerTestOneInput"},
			// the fuel ran out deeper in the same loop, another budget
			sameAs: failure{"fuel", "out of fuel (budget 1000)", []string{"weezl::decode::Decoder::decode_bytes", "weezl::decode::Decoder::inner", "gif::reader::ReadDecoder<R>::decode_next", "gif::reader::Decoder<R>::read_next_frame", "fuzz_gif", "LLVMFuzzerTestOneInput"}},
			want:   "fuel|out of fuel (budget N)|gif__reader__ReadDecoder_R___decode_next;gif__reader__Decoder_R___read_next_frame;fuzz_gif"},
		{name: "fuel hang, go", kind: "fuel", msg: "out of fuel", frames: []string{"image/bmp.decode", "main.fuzz", "github.com/wafer-fuzz/wafer/harness.TestOneInput", "github.com/wafer-fuzz/wafer/harness.testOneInput"},
			sameAs: failure{"fuel", "out of fuel", []string{"image/bmp.decode+0x30", "main.fuzz", "github.com/wafer-fuzz/wafer/harness.TestOneInput"}},
			want:   "fuel|out of fuel|image/bmp.decode;main.fuzz"},
		// Go's name section spelling (a module without Go's table) keeps
		// the runtime's and the harness's frames out too.
		{name: "go, the linker's spelling", kind: "fuel", msg: "out of fuel", frames: []string{"internal_runtime_maps.__Map_.getWithKey", "image_bmp.decode", "main.fuzz", "github.com_wafer_fuzz_wafer_harness.testOneInput"},
			// the fuel ran out in another runtime function
			sameAs: failure{"fuel", "out of fuel", []string{"runtime.mallocgc", "image_bmp.decode", "main.fuzz", "github.com_wafer_fuzz_wafer_harness.testOneInput"}},
			want:   "fuel|out of fuel|image_bmp.decode;main.fuzz"},
		{name: "go runtime frames", kind: "go-panic", msg: "boom", frames: []string{"internal/runtime/maps.(*Map).getWithKey", "example.com/wafer.fix/go-names/inner/pkg.(*Decoder).ReadChunk", "main.fuzz", "github.com/wafer-fuzz/wafer/harness.testOneInput"},
			// another runtime frame on top, arguments and offsets
			sameAs: failure{"go-panic", "boom", []string{"runtime.panicmem", "example.com/wafer.fix/go-names/inner/pkg.(*Decoder).ReadChunk(0x1, 0x2)", "main.fuzz+0x1f", "github.com/wafer-fuzz/wafer/harness.testOneInput"}},
			want:   "go-panic|boom|example.com/wafer.fix/go-names/inner/pkg.(*Decoder).ReadChunk;main.fuzz"},
		{name: "c++", kind: "abort", msg: "abort", frames: []string{"ns::Parser::next(int) const", "(anonymous namespace)::run(char const*, unsigned long)", "std::__2::vector<int>::at(unsigned long)"},
			sameAs: failure{"abort", "abort", []string{"std::__2::basic_string<char>::size() const", "ns::Parser::next(int) const", "(anonymous namespace)::run(char const*, unsigned long)"}},
			want:   "abort|abort|ns__Parser__next;_anonymous_namespace___run"},
		// The language runtimes' frames, libc's string functions and the
		// harness glue are not the target's: the top three frames are
		// the target's own, wherever the runtime's were.
		{name: "past the runtime", kind: "go-panic", msg: "boom", frames: []string{"runtime.memmove", "example.com/img.(*buffer).fill", "runtime.growslice", "example.com/img.decode", "io.ReadAll", "main.LLVMFuzzerTestOneInput", "LLVMFuzzerTestOneInput"},
			sameAs: failure{"go-panic", "boom", []string{"runtime.memclrNoHeapPointers", "example.com/img.(*buffer).fill", "example.com/img.decode", "runtime.mapaccess1", "io.ReadAll", "main.LLVMFuzzerTestOneInput"}},
			want:   "go-panic|boom|example.com/img.(*buffer).fill;example.com/img.decode;io.ReadAll"},
		{name: "past libc and rust", kind: "heap-buffer-overflow", msg: "a 1-byte read", frames: []string{"memcpy", "core::slice::copy_from_slice", "rust_ini::parse", "wafer.heap.check", "rust_ini::fuzz", "LLVMFuzzerTestOneInput"},
			sameAs: failure{"heap-buffer-overflow", "a 8-byte read", []string{"memmove", "rust_ini::parse", "rust_ini::fuzz", "LLVMFuzzerTestOneInput"}},
			want:   "heap-buffer-overflow|a N-byte read|rust_ini__parse;rust_ini__fuzz"},
		// only glue: kept, so the identity is not empty
		{name: "only glue", kind: "unreachable", msg: "unreachable", frames: []string{"abort", "LLVMFuzzerTestOneInput"},
			sameAs: failure{"unreachable", "unreachable", []string{"abort+0x3", "LLVMFuzzerTestOneInput(0x10, 0x20)"}},
			want:   "unreachable|unreachable|abort;LLVMFuzzerTestOneInput"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Key(tc.kind, tc.msg, tc.frames, tc.n); got != tc.want {
				t.Fatalf("expected %q, got %q", tc.want, got)
			}
			// The sameAs failure is another failure, not a copy of
			// this row, and it gets this row's identity.
			s := tc.sameAs
			if s.kind == tc.kind && s.msg == tc.msg && slices.Equal(s.frames, tc.frames) {
				t.Fatalf("sameAs repeats the row's own failure")
			}
			if got := Key(s.kind, s.msg, s.frames, tc.n); got != tc.want {
				t.Fatalf("sameAs %+v: expected the row's identity %q, got %q", s, tc.want, got)
			}
		})
	}
	// A stack overflow's identity starts at its recursion, whatever leaf
	// took the last frame; without a repeated function, at the top.
	so := func(frames ...string) string {
		return Key("stack-exhausted", "stack overflow: the stack pointer 0xffffff00 left the stack [0x0, 0x10000]", frames, 3)
	}
	deep := so("printf_core", "vfprintf", "snprintf", "do_dump", "do_dump", "do_dump", "do_dump", "json_dumps")
	if deep != so("jsonp_malloc", "do_dump", "do_dump", "do_dump", "json_dumps") || deep != so("do_dump", "do_dump", "do_dump") ||
		!strings.HasSuffix(deep, "|do_dump;do_dump;do_dump") {
		t.Errorf("stack overflows of one recursion: expected one identity ending in its frames, got %q", deep)
	}
	if got := so("a", "b", "c", "d"); !strings.HasSuffix(got, "|a;b;c") {
		t.Errorf("stack overflow without a repeated frame: expected the top frames, got %q", got)
	}
	if got := so("leaf", "f", "g", "f", "g"); !strings.HasSuffix(got, "|f;g;f") {
		t.Errorf("mutual recursion: expected it from its innermost frame, got %q", got)
	}
	// An out-of-memory failure's identity starts past the allocator: the
	// site that asked for the memory tells two apart.
	oom := func(frames ...string) string {
		return Key("out-of-memory", "memory.grow past the cap of 32768 pages", frames, 3)
	}
	inA := oom("sbrk", "dlmalloc", "malloc", "parse_a", "LLVMFuzzerTestOneInput")
	if inA != oom("sbrk", "dlmalloc", "calloc", "parse_a", "LLVMFuzzerTestOneInput") || inA == oom("sbrk", "dlmalloc", "malloc", "parse_b", "LLVMFuzzerTestOneInput") ||
		!strings.HasSuffix(inA, "||parse_a") {
		t.Errorf("out of memory: expected the identity to start at the caller of malloc, got %q", inA)
	}
	if got := oom("operator new(unsigned long)", "std::vector<int>::reserve", "parse"); !strings.HasSuffix(got, "||parse") {
		t.Errorf("out of memory in C++: got %q", got)
	}
	if got := oom("malloc"); !strings.HasSuffix(got, "|malloc") {
		t.Errorf("out of memory with only allocator frames: expected them kept, got %q", got)
	}
	// Quoted strings are input: one class whatever they hold (escaped
	// quotes included, an unclosed one to the end).
	for _, tc := range []struct{ msg, want string }{
		{`marshal not idempotent: "key: |4\n" != "key: |\n"`, `marshal not idempotent: "?" != "?"`},
		{`re-unmarshal of "a \"b\" c" failed: yaml: line 3: bad`, `re-unmarshal of "?" failed: yaml: line N: bad`},
		{`did not find expected '-' indicator`, `did not find expected '-' indicator`},
		{`cut "short`, `cut "?"`},
	} {
		if got := MessageClass(tc.msg); got != tc.want {
			t.Errorf("MessageClass(%q) = %q, expected %q", tc.msg, got, tc.want)
		}
	}
	a := Key("panic", "index out of range [5] with length 3", []string{"f"}, 3)
	b := Key("panic", "index out of range [7] with length 2", []string{"f"}, 3)
	c := Key("panic", "index out of range [7] with length 2", []string{"g"}, 3)
	if a != b || a == c {
		t.Fatalf("expected a == b != c, got %q %q %q", a, b, c)
	}
}

// TestOutOfMemoryOneClass: a Go huge allocation fails as a makeslice
// panic, as the runtime's fatal out of memory or as memory.grow past the
// cap depending on its size; each puts different runtime frames on top
// (the Wasm stack names its frames as the Go trace does: wafer reads them
// from Go's table). With the target's frames the same it
// is one identity; at another allocating site it is another.
func TestOutOfMemoryOneClass(t *testing.T) {
	panicked := Key("go-panic", "runtime error: makeslice: len out of range", []string{
		"runtime.panicmakeslicelen", "runtime.makeslice", "example.com/img.(*buffer).fill", "example.com/img.Decode", "main.fuzz", "github.com/wafer-fuzz/wafer/harness.testOneInput"}, 3)
	fatal := Key("go-fatal", "runtime: out of memory", []string{
		"runtime.throw", "runtime.(*mcache).allocLarge", "runtime.mallocgcLarge", "runtime.mallocgc", "runtime.makeslice",
		"example.com/img.(*buffer).fill", "example.com/img.Decode", "main.fuzz"}, 3)
	grown := Key("out-of-memory", "memory.grow past the cap of 32768 pages", []string{
		"runtime.sbrk", "runtime.(*mheap).grow", "runtime.mallocgcLarge", "runtime.mallocgc", "runtime.makeslice",
		"example.com/img.(*buffer).fill", "example.com/img.Decode", "main.fuzz", "github.com/wafer-fuzz/wafer/harness.testOneInput", "LLVMFuzzerTestOneInput"}, 3)
	if panicked != fatal || fatal != grown {
		t.Fatalf("one huge allocation, three identities:\n%s\n%s\n%s", panicked, fatal, grown)
	}
	if want := "out-of-memory||example.com/img.(*buffer).fill;example.com/img.Decode;main.fuzz"; grown != want {
		t.Fatalf("expected %q, got %q", want, grown)
	}
	other := Key("out-of-memory", "memory.grow past the cap of 32768 pages", []string{"runtime.mallocgc", "runtime.makeslice", "example.com/img.readPalette", "main.fuzz"}, 3)
	if other == grown {
		t.Fatal("two allocating sites, one identity")
	}
	// other panics keep their class and message
	if got := FailureClass("go-panic", "runtime error: index out of range [3] with length 2"); got != "go-panic" {
		t.Fatalf("an index panic's class: %q", got)
	}
}

// TestKeyChars: a Go name as Go prints it is kept; any other name has its
// bytes outside [A-Za-z0-9_.] replaced, as identities always had them.
func TestKeyChars(t *testing.T) {
	for name, want := range map[string]string{
		"example.com/wafer.fix/go-names/inner/pkg.(*Decoder).ReadChunk": "example.com/wafer.fix/go-names/inner/pkg.(*Decoder).ReadChunk",
		"gopkg.in/yaml%2ev2.(*parser).parse":                            "gopkg.in/yaml%2ev2.(*parser).parse",
		"example.com/m.Map[...]":                                        "example.com/m.Map[...]",
		"example.com/m.T.M-fm":                                          "example.com/m.T.M-fm",
		"main.Größe":                                                    "main.Größe",
		"parse_tlv":                                                     "parse_tlv",
		"tlv::Parser::read":                                             "tlv__Parser__read",
		"std::__1::vector<int>::at":                                     "std____1__vector_int___at",
		"type:.eq.main.T":                                               "type_.eq.main.T",
		"$12":                                                           "_12",
	} {
		if got := KeyChars(name); got != want {
			t.Errorf("KeyChars(%q): expected %q, got %q", name, want, got)
		}
	}
}
