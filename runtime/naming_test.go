package runtime

import "testing"

// TestFrameKey: every way a stack names one function gives one key: Go's
// panic trace and a Go module's name section, C from the name section
// and DWARF, C++ and Rust mangled (name section) and demangled (DWARF,
// the demangler's output), with parameter lists, offsets and hashes.
func TestFrameKey(t *testing.T) {
	groups := []struct {
		lang  string
		names []string
	}{
		{"go method", []string{"example.com/img.(*buffer).fill", "example.com_img.__buffer_.fill", "example.com/img.(*buffer).fill(0x1400010, 0x20)", "example.com/img.(*buffer).fill(...) +0x1a"}},
		{"go value method", []string{"image/png.FormatError.Error", "image_png.FormatError.Error"}},
		{"go func", []string{"main.decode", "main.decode(0xc000, 0x4, 0x4)"}},
		{"go closure", []string{"encoding/json.(*decodeState).object.func1", "encoding_json.__decodeState_.object.func1"}},
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
	if got := FrameKey("example.com/img.(*buffer).fill"); got != "example.com_img.__buffer_.fill" {
		t.Errorf("Go's linker spelling: got %q", got)
	}
}

// FuzzFrameKey: FrameKey never panics, is idempotent (but on a key that is
// itself a valid mangled symbol, "\xa4Z1A0" giving "_Z1A0"), and its keys
// have only letters, digits, '_' and '.'.
func FuzzFrameKey(f *testing.F) {
	for _, s := range []string{"example.com/img.(*buffer).fill", "_ZN8rust_ini5parse17h0123456789abcdefE", "f(", ")", "a::h0123456789abcdef", "_R"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := FrameKey(s)
		if demangled(k) == k && FrameKey(k) != k {
			t.Fatalf("not idempotent: %q → %q → %q", s, k, FrameKey(k))
		}
		for _, c := range []byte(k) {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
				t.Fatalf("%q → %q has %q", s, k, c)
			}
		}
	})
}
