package runtime

import (
	"testing"

	"github.com/wafer-fuzz/wafer/internal/failureid"
)

// TestFrameKey: every way a stack names one function gives one key: Go's
// panic trace with and without arguments and offsets (a Go module's Wasm
// stack has the same names: wafer reads them from Go's table), C from the
// name section and DWARF, C++ and Rust mangled (name section) and
// demangled (DWARF, the demangler's output), with parameter lists,
// offsets and hashes.
func TestFrameKey(t *testing.T) {
	groups := []struct {
		lang  string
		names []string
	}{
		{"go method", []string{"example.com/img.(*buffer).fill", "example.com/img.(*buffer).fill(0x1400010, 0x20)", "example.com/img.(*buffer).fill(...) +0x1a"}},
		{"go value method", []string{"image/png.FormatError.Error", "image/png.FormatError.Error({0x1, 0x2})"}},
		{"go func", []string{"main.decode", "main.decode(0xc000, 0x4, 0x4)"}},
		{"go closure", []string{"encoding/json.(*decodeState).object.func1", "encoding/json.(*decodeState).object.func1(...)"}},
		{"go generic", []string{"example.com/m.Map[...]", "example.com/m.Map[...](0x1)"}},
		{"go escaped path", []string{"gopkg.in/yaml%2ev2.(*parser).parse", "gopkg.in/yaml%2ev2.(*parser).parse(0x256410)"}},
		{"go name section", []string{"example.com_img.__buffer_.fill"}}, // no Go table: the linker's spelling, another key
		{"c", []string{"parse_header", "parse_header "}},
		{"c++", []string{"_ZN3tlv6Parser4readEPKhm", "tlv::Parser::read", "tlv::Parser::read(unsigned char const*, unsigned long)"}},
		{"c++ const", []string{"_ZNK3tlv6Parser4sizeEv", "tlv::Parser::size() const", "tlv::Parser::size"}},
		{"rust", []string{"_ZN8rust_ini5parse17h0123456789abcdefE", "rust_ini::parse", "rust_ini::parse::h0123456789abcdef", "_RNvCs1234_8rust_ini5parse"}},
	}
	keys := map[string]string{}
	for _, g := range groups {
		want := FrameKey(g.names[0])
		for _, n := range g.names[1:] {
			if got := FrameKey(n); got != want {
				t.Errorf("%s: FrameKey(%q) = %q, FrameKey(%q) = %q", g.lang, n, got, g.names[0], want)
			}
		}
		if other, ok := keys[want]; ok {
			t.Errorf("%s and %s share the key %q", g.lang, other, want)
		}
		keys[want] = g.lang
		if FrameKey(want) != want {
			t.Errorf("%s: FrameKey is not idempotent on %q", g.lang, want)
		}
	}
	for name, want := range map[string]string{
		"example.com/img.(*buffer).fill(...) +0x1a": "example.com/img.(*buffer).fill", // as Go prints it
		"tlv::Parser::size() const":                 "tlv__Parser__size",              // C++ as before
		"rust_ini::parse::h0123456789abcdef":        "rust_ini__parse",
		"(anonymous namespace)::run(char const*)":   "_anonymous_namespace___run",
	} {
		if got := FrameKey(name); got != want {
			t.Errorf("FrameKey(%q): expected %q, got %q", name, want, got)
		}
	}
}

// FuzzFrameKey: FrameKey never panics, is idempotent (but on a key that is
// itself a valid mangled symbol, "\xa4Z1A0" giving "_Z1A0"), and its keys
// are failureid.KeyChars': a Go name's characters, or only ASCII letters,
// digits, '_' and '.'.
func FuzzFrameKey(f *testing.F) {
	for _, s := range []string{"example.com/img.(*buffer).fill", "_ZN8rust_ini5parse17h0123456789abcdefE", "f(", ")", "a::h0123456789abcdef", "_R"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := FrameKey(s)
		if demangled(k) == k && FrameKey(k) != k {
			t.Fatalf("not idempotent: %q → %q → %q", s, k, FrameKey(k))
		}
		if failureid.KeyChars(k) != k {
			t.Fatalf("%q → %q, not in KeyChars' set", s, k)
		}
	})
}
