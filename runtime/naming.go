package runtime

import (
	"strings"

	"github.com/wafer-fuzz/wafer/internal/failureid"
)

// FrameKey is the canonical name of a stack frame's function, the one a
// failure's identity compares, whichever path produced the stack: Go's
// panic trace ("example.com/img.(*buffer).fill(0x1, 0x2)"), the Wasm
// stack of a Go module (wafer names its functions from Go's own table,
// instrument.Func), a C++ or Rust symbol mangled or demangled
// ("_ZN8rust_ini5parse17h0123456789abcdefE" and "rust_ini::parse"), or
// a DWARF name. It is the demangled name without a parameter list, a
// code offset, a trailing " const" or a Rust hash, in the character set
// failureid.KeyChars gives: a Go name stays as Go prints it
// ("example.com/img.(*buffer).fill"), another has every byte that is not
// a letter, a digit, '_' or '.' replaced by '_' ("rust_ini__parse"). The
// mapping is many-to-one ("a::b" and "a__b" meet), and it is the
// identity's business only: reports show the names as the stack had
// them.
func FrameKey(name string) string {
	name = strings.TrimSpace(name)
	if strings.HasPrefix(name, "_Z") || strings.HasPrefix(name, "_R") || strings.HasPrefix(name, "__Z") {
		name = demangled(name)
	}
	if i := strings.Index(name, "+0x"); i > 0 {
		name = strings.TrimSpace(name[:i]) // a Go trace's "f(...) +0x1a"
	}
	name = strings.TrimSuffix(name, " const")
	name = cutParams(name)
	name = cutRustHash(name)
	return failureid.KeyChars(name)
}

// cutParams cuts a parameter list at the end of a name ("f(int, char)",
// a Go trace's "main.f(0x1, 0x2)"), but not a Go receiver in the middle
// ("pkg.(*T).m" ends in a name).
func cutParams(name string) string {
	if !strings.HasSuffix(name, ")") {
		return name
	}
	depth := 0
	for i := len(name) - 1; i > 0; i-- {
		switch name[i] {
		case ')':
			depth++
		case '(':
			if depth--; depth == 0 {
				if name[i-1] == '.' {
					return name // "pkg.(*T)": a receiver, not a list
				}
				return name[:i]
			}
		}
	}
	return name
}

// cutRustHash drops the "::h<16 hex digits>" a legacy Rust symbol ends
// with when the demangler kept it.
func cutRustHash(name string) string {
	i := strings.LastIndex(name, "::h")
	if i < 0 || len(name)-i-3 != 16 {
		return name
	}
	for _, c := range name[i+3:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return name
		}
	}
	return name[:i]
}
