package failureid

import (
	"strings"
	"testing"
)

func TestKey(t *testing.T) {
	tests := []struct {
		name      string
		kind, msg string
		frames    []string
		n         int
		sameAs    [3]any // kind, msg, frames of another failure with the same identity
		want      string
	}{
		{name: "numbers", kind: "panic", msg: "panic: runtime error: index out of range [5] with length 3\ngoroutine 1 [running]:", frames: []string{"main.parse", "main.fuzz", "harness.run", "runtime.main"},
			want: "panic|panic: runtime error: index out of range [N] with length N|main.parse;main.fuzz;harness.run"},
		{name: "hex and args", kind: "oob", msg: "  \nwasm error: out of bounds memory access at 0x1f0a", frames: []string{"f(0x1, 0x2)", "g+0x1a"}, n: 1,
			want: "oob|wasm error: out of bounds memory access at 0x?|f"},
		{name: "no frames", kind: "hang", want: "hang||"},
		// A Go method's receiver is part of its name: two methods of one
		// package are two frames (they read as "pkg." both).
		{name: "go methods", kind: "go-panic", msg: "nil pointer dereference", frames: []string{"golang.org/x/net/html.(*parser).parseCurrentToken", "golang.org/x/net/html.(*parser).parse(0x256410)", "main.fuzz({0x380000, 0x1e, 0x1e})"},
			want: "go-panic|nil pointer dereference|golang.org/x/net/html.(*parser).parseCurrentToken;golang.org/x/net/html.(*parser).parse;main.fuzz"},
		// Raised again by a deferred function: the identity is the first
		// panic's site, past "panic" and the runtime's frames.
		{name: "go re-panic", kind: "go-panic", msg: "attempted to parse unknown event: none", frames: []string{"gopkg.in/yaml%2ev2.handleErr", "panic", "runtime.goPanicIndex", "gopkg.in/yaml%2ev2.(*parser).parse", "gopkg.in/yaml%2ev2.unmarshal", "main.fuzz"},
			want: "go-panic|attempted to parse unknown event: none|gopkg.in/yaml%2ev2.(*parser).parse;gopkg.in/yaml%2ev2.unmarshal;main.fuzz"},
		// A fuel hang: the outermost frames above the harness, wherever
		// in the loop the fuel ran out.
		{name: "fuel hang", kind: "fuel", msg: "out of fuel (budget 268435456)", frames: []string{"weezl::decode::Decoder::has_ended", "gif::reader::ReadDecoder<R>::decode_next", "gif::reader::Decoder<R>::read_next_frame", "fuzz_gif", "LLVMFuzzerTestOneInput"},
			want: "fuel|out of fuel (budget N)|gif::reader::ReadDecoder<R>::decode_next;gif::reader::Decoder<R>::read_next_frame;fuzz_gif"},
		{name: "fuel hang, go", kind: "fuel", msg: "out of fuel", frames: []string{"image/bmp.decode", "main.fuzz", "github.com/wafer-fuzz/wafer/harness.TestOneInput", "github.com/wafer-fuzz/wafer/harness.testOneInput"},
			want: "fuel|out of fuel|image/bmp.decode;main.fuzz"},
		{name: "c++", kind: "abort", msg: "abort", frames: []string{"ns::Parser::next(int) const", "(anonymous namespace)::run(char const*, unsigned long)", "std::__2::vector<int>::at(unsigned long)"},
			want: "abort|abort|ns::Parser::next;(anonymous namespace)::run;std::__2::vector<int>::at"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Key(tc.kind, tc.msg, tc.frames, tc.n); got != tc.want {
				t.Fatalf("expected %q, got %q", tc.want, got)
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
		!strings.HasSuffix(inA, "|parse_a;LLVMFuzzerTestOneInput") {
		t.Errorf("out of memory: expected the identity to start at the caller of malloc, got %q", inA)
	}
	if got := oom("operator new(unsigned long)", "std::vector<int>::reserve", "parse"); !strings.HasSuffix(got, "|std::vector<int>::reserve;parse") {
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
