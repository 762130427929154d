package engine

import (
	"bytes"
	"fmt"
)

// ParseDict parses a dictionary in the AFL/libFuzzer format: one token per
// line as `"value"` or `name="value"` (AFL's `name@level="value"` too; the
// level is ignored), blank lines and lines starting with `#` skipped. Inside
// the quotes `\\`, `\"` and `\xNN` are escapes; other bytes are literal.
// Its error is a *DictError: "line 3: expected closing quote".
func ParseDict(data []byte) ([][]byte, error) {
	var toks [][]byte
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		tok, err := parseDictLine(line)
		if err != nil {
			return nil, &DictError{Line: n + 1, Err: err}
		}
		toks = append(toks, tok)
	}
	return toks, nil
}

// DictError is ParseDict's error: the 1-based line of the dictionary and
// what is wrong with it.
type DictError struct {
	Line int
	Err  error
}

func (e *DictError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *DictError) Unwrap() error { return e.Err }

func parseDictLine(line []byte) ([]byte, error) {
	q := bytes.IndexByte(line, '"')
	if q < 0 {
		return nil, fmt.Errorf("expected a quoted value, got %q", truncate(line))
	}
	if q > 0 {
		name := bytes.TrimSpace(line[:q])
		if len(name) == 0 || name[len(name)-1] != '=' {
			return nil, fmt.Errorf("expected name=\"value\", got %q", truncate(line))
		}
		for _, c := range name[:len(name)-1] {
			if !(c == '_' || c == '@' || c == '-' || c == '.' || c == ' ' || c == '\t' ||
				'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
				return nil, fmt.Errorf("expected a keyword name, got %q", truncate(name))
			}
		}
	}
	var tok []byte
	i := q + 1
	for {
		if i >= len(line) {
			return nil, fmt.Errorf("expected closing quote")
		}
		c := line[i]
		switch c {
		case '"':
			if rest := bytes.TrimSpace(line[i+1:]); len(rest) != 0 {
				return nil, fmt.Errorf("expected end of line after closing quote, got %q", truncate(rest))
			}
			if tok == nil {
				tok = []byte{}
			}
			return tok, nil
		case '\\':
			if i+1 >= len(line) {
				return nil, fmt.Errorf("expected escape after backslash")
			}
			switch e := line[i+1]; e {
			case '\\', '"':
				tok = append(tok, e)
				i += 2
			case 'x':
				if i+3 >= len(line) {
					return nil, fmt.Errorf("expected two hex digits after \\x")
				}
				h, ok1 := unhex(line[i+2])
				l, ok2 := unhex(line[i+3])
				if !ok1 || !ok2 {
					return nil, fmt.Errorf("expected two hex digits after \\x, got %q", line[i+2:i+4])
				}
				tok = append(tok, h<<4|l)
				i += 4
			default:
				return nil, fmt.Errorf("expected \\\\, \\\" or \\xNN, got \\%c", e)
			}
		default:
			tok = append(tok, c)
			i++
		}
	}
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func truncate(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}

// FormatDict writes tokens in the format ParseDict reads, one `"value"` a
// line, escaping quotes, backslashes and non-printable bytes.
func FormatDict(toks [][]byte) []byte {
	var b bytes.Buffer
	const hexd = "0123456789abcdef"
	for _, t := range toks {
		b.WriteByte('"')
		for _, c := range t {
			switch {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c < 0x20 || c >= 0x7f:
				b.WriteString(`\x`)
				b.WriteByte(hexd[c>>4])
				b.WriteByte(hexd[c&15])
			default:
				b.WriteByte(c)
			}
		}
		b.WriteString("\"\n")
	}
	return b.Bytes()
}
