package runtime

import (
	"strconv"
	"strings"
)

// demangleRust turns a legacy-mangled Rust symbol into its path:
// "_ZN3std9panicking11begin_panic17h0123456789abcdefE" is
// "std::panicking::begin_panic" (the hash is dropped, "$LT$"-style and
// "$u7b$" escapes decoded, ".." read as "::"). Anything else, including
// C++ names that need more of the Itanium grammar than Rust uses (the
// length-prefixed identifiers of one nested name) and Rust's v0 scheme
// ("_R..."), is returned as it is.
func demangleRust(s string) string {
	rest, ok := strings.CutPrefix(s, "_ZN")
	if !ok {
		return s
	}
	var parts []string
	for !strings.HasPrefix(rest, "E") {
		n := 0
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		size, err := strconv.Atoi(rest[:n])
		if n == 0 || err != nil || size == 0 || size > len(rest)-n {
			return s
		}
		parts = append(parts, rest[n:n+size])
		rest = rest[n+size:]
	}
	if rest != "E" || len(parts) == 0 {
		return s
	}
	if last := parts[len(parts)-1]; len(parts) > 1 && isRustHash(last) {
		parts = parts[:len(parts)-1]
	}
	for i, p := range parts {
		p, ok := unescapeRust(p)
		if !ok {
			return s
		}
		parts[i] = p
	}
	return strings.Join(parts, "::")
}

// isRustHash: "h" and 16 hex digits, the disambiguator legacy mangling
// appends.
func isRustHash(p string) bool {
	if len(p) != 17 || p[0] != 'h' {
		return false
	}
	for _, c := range p[1:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

var rustEscapes = map[string]string{
	"SP": "@", "BP": "*", "RF": "&", "LT": "<", "GT": ">", "LP": "(", "RP": ")", "C": ",",
}

// unescapeRust decodes one identifier: "$LT$", "$u7b$" and the like, ".."
// for "::" and a leading "_$" for "$".
func unescapeRust(p string) (string, bool) {
	if strings.HasPrefix(p, "_$") {
		p = p[1:]
	}
	if !strings.ContainsAny(p, "$.") {
		return p, true
	}
	var b strings.Builder
	for len(p) > 0 {
		switch {
		case strings.HasPrefix(p, ".."):
			b.WriteString("::")
			p = p[2:]
		case p[0] == '$':
			end := strings.IndexByte(p[1:], '$')
			if end < 0 {
				return "", false
			}
			esc := p[1 : 1+end]
			if r, ok := rustEscapes[esc]; ok {
				b.WriteString(r)
			} else if hex, ok := strings.CutPrefix(esc, "u"); ok {
				v, err := strconv.ParseUint(hex, 16, 32)
				if err != nil {
					return "", false
				}
				b.WriteRune(rune(v))
			} else {
				return "", false
			}
			p = p[2+end:]
		default:
			b.WriteByte(p[0])
			p = p[1:]
		}
	}
	return b.String(), true
}
