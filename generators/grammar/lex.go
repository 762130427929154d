package grammar

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Pos is a position in a grammar file: 1-based line and column (in
// bytes).
type Pos struct {
	Line, Col int
}

// Error is a grammar error at a position of a file.
type Error struct {
	File string
	Pos  Pos
	Msg  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Pos.Line, e.Pos.Col, e.Msg)
}

// tokKind is the kind of a token of the grammar notation.
type tokKind uint8

const (
	tEOF     tokKind = iota
	tID              // rule, token, label or keyword name
	tString          // 'literal' (text holds the decoded runes)
	tBracket         // [ ... ]: a character set or a rule argument (raw text)
	tAction          // { ... } (raw text)
	tPunct           // : ; | ( ) ? * + ~ . .. -> = += # , @ :: < > =
)

type token struct {
	kind tokKind
	text string // tID, tPunct: the text; tString: decoded; tBracket, tAction: the inside
	pos  Pos
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tString:
		return fmt.Sprintf("string %q", t.text)
	case tBracket:
		return "[" + t.text + "]"
	case tAction:
		return "action {...}"
	}
	return fmt.Sprintf("%q", t.text)
}

// scanner splits the text of a .g4 file into tokens.
type scanner struct {
	file string
	src  string
	off  int
	line int
	col  int
}

func (s *scanner) pos() Pos { return Pos{s.line, s.col} }

func (s *scanner) errf(p Pos, format string, a ...any) *Error {
	return &Error{File: s.file, Pos: p, Msg: fmt.Sprintf(format, a...)}
}

// adv moves past n bytes, counting lines.
func (s *scanner) adv(n int) {
	for i := 0; i < n && s.off < len(s.src); i++ {
		if s.src[s.off] == '\n' {
			s.line++
			s.col = 1
		} else {
			s.col++
		}
		s.off++
	}
}

func isIDStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIDPart(c byte) bool { return isIDStart(c) || c >= '0' && c <= '9' }

// tokens scans the whole file.
func (s *scanner) tokens() ([]token, error) {
	s.line, s.col = 1, 1
	var out []token
	for {
		t, err := s.next()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		if t.kind == tEOF {
			return out, nil
		}
	}
}

func (s *scanner) next() (token, error) {
	// Skip blanks and comments.
	for s.off < len(s.src) {
		c := s.src[s.off]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' {
			s.adv(1)
			continue
		}
		if strings.HasPrefix(s.src[s.off:], "//") {
			for s.off < len(s.src) && s.src[s.off] != '\n' {
				s.adv(1)
			}
			continue
		}
		if strings.HasPrefix(s.src[s.off:], "/*") {
			p := s.pos()
			end := strings.Index(s.src[s.off+2:], "*/")
			if end < 0 {
				return token{}, s.errf(p, "unterminated comment")
			}
			s.adv(end + 4)
			continue
		}
		break
	}
	p := s.pos()
	if s.off >= len(s.src) {
		return token{kind: tEOF, pos: p}, nil
	}
	c := s.src[s.off]
	switch {
	case isIDStart(c):
		i := s.off
		for i < len(s.src) && isIDPart(s.src[i]) {
			i++
		}
		t := token{kind: tID, text: s.src[s.off:i], pos: p}
		if !utf8.ValidString(t.text) {
			return token{}, s.errf(p, "invalid UTF-8 in a name")
		}
		s.adv(i - s.off)
		return t, nil
	case c >= '0' && c <= '9':
		i := s.off
		for i < len(s.src) && s.src[i] >= '0' && s.src[i] <= '9' {
			i++
		}
		t := token{kind: tID, text: s.src[s.off:i], pos: p}
		s.adv(i - s.off)
		return t, nil
	case c == '\'':
		return s.literal(p)
	case c == '[':
		i := s.off + 1
		for ; i < len(s.src) && s.src[i] != ']'; i++ {
			if s.src[i] == '\\' {
				i++
			}
		}
		if i >= len(s.src) {
			return token{}, s.errf(p, "unterminated [ ... ]: expected ]")
		}
		t := token{kind: tBracket, text: s.src[s.off+1 : i], pos: p}
		s.adv(i + 1 - s.off)
		return t, nil
	case c == '{':
		return s.action(p)
	}
	for _, op := range []string{"..", "->", "+=", "::", ":", ";", "|", "(", ")", "?", "*", "+", "~", ".", "=", "#", ",", "@", "<", ">", "$"} {
		if strings.HasPrefix(s.src[s.off:], op) {
			s.adv(len(op))
			return token{kind: tPunct, text: op, pos: p}, nil
		}
	}
	r, _ := utf8.DecodeRuneInString(s.src[s.off:])
	return token{}, s.errf(p, "unexpected character %q", r)
}

// literal scans a 'quoted' literal and decodes its escapes.
func (s *scanner) literal(p Pos) (token, error) {
	var b strings.Builder
	i := s.off + 1
	for {
		if i >= len(s.src) || s.src[i] == '\n' {
			return token{}, s.errf(p, "unterminated string literal: expected '")
		}
		c := s.src[i]
		if c == '\'' {
			break
		}
		if c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		r, n, msg := unescape(s.src[i:], false)
		if msg != "" {
			s.adv(i - s.off)
			return token{}, s.errf(s.pos(), "%s", msg)
		}
		b.WriteRune(r)
		i += n
	}
	text := b.String()
	if !utf8.ValidString(text) {
		return token{}, s.errf(p, "invalid UTF-8 in a string literal")
	}
	s.adv(i + 1 - s.off)
	return token{kind: tString, text: text, pos: p}, nil
}

// unescape decodes the escape at the start of src (src[0] == '\\') and
// returns the rune, the bytes it took, or a message. In a set, \- and \]
// are escapes too.
func unescape(src string, inSet bool) (rune, int, string) {
	if len(src) < 2 {
		return 0, 0, "unterminated escape"
	}
	switch c := src[1]; c {
	case 'n':
		return '\n', 2, ""
	case 'r':
		return '\r', 2, ""
	case 't':
		return '\t', 2, ""
	case 'b':
		return '\b', 2, ""
	case 'f':
		return '\f', 2, ""
	case '\\', '\'', '"':
		return rune(c), 2, ""
	case 'u':
		if len(src) > 2 && src[2] == '{' {
			end := strings.IndexByte(src, '}')
			if end < 0 || end == 3 || end > 10 {
				return 0, 0, `bad \u{...} escape: expected 1 to 6 hex digits and }`
			}
			v, ok := hexValue(src[3:end])
			if !ok || v > utf8.MaxRune {
				return 0, 0, `bad \u{...} escape: expected 1 to 6 hex digits and }`
			}
			return rune(v), end + 1, ""
		}
		if len(src) < 6 {
			return 0, 0, `bad \u escape: expected 4 hex digits`
		}
		v, ok := hexValue(src[2:6])
		if !ok {
			return 0, 0, `bad \u escape: expected 4 hex digits`
		}
		return rune(v), 6, ""
	default:
		if inSet && (c == '-' || c == ']' || c == '[' || c == '^') {
			return rune(c), 2, ""
		}
		if c < utf8.RuneSelf {
			return 0, 0, fmt.Sprintf("invalid escape \\%c", c)
		}
		r, _ := utf8.DecodeRuneInString(src[1:])
		return 0, 0, fmt.Sprintf("invalid escape \\%c", r)
	}
}

func hexValue(h string) (int, bool) {
	v := 0
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c >= '0' && c <= '9':
			v = v*16 + int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v*16 + int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v*16 + int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// action scans a { ... } block: nested braces, with strings, characters
// and comments inside skipped.
func (s *scanner) action(p Pos) (token, error) {
	depth := 0
	i := s.off
	for i < len(s.src) {
		c := s.src[i]
		switch {
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				t := token{kind: tAction, text: s.src[s.off+1 : i], pos: p}
				s.adv(i + 1 - s.off)
				return t, nil
			}
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(s.src) && s.src[j] != c && s.src[j] != '\n' {
				if s.src[j] == '\\' {
					j++
				}
				j++
			}
			i = j
		case strings.HasPrefix(s.src[i:], "//"):
			for i < len(s.src) && s.src[i] != '\n' {
				i++
			}
			continue
		case strings.HasPrefix(s.src[i:], "/*"):
			end := strings.Index(s.src[i+2:], "*/")
			if end < 0 {
				i = len(s.src)
				continue
			}
			i += end + 3
		}
		i++
	}
	return token{}, s.errf(p, "unterminated action: expected } to close the { here")
}
