package generators

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SeedReader reads an input back into the choice sequence from which a
// generator makes it, under opts (the campaign's dictionary and
// probabilities). An input the generator cannot make is an error; one
// it makes only with other bytes (other spacing, escapes or number
// spelling) is read as the sequence of the same value, which the
// generator then writes its own way.
type SeedReader func(input []byte, opts Options) (*Sequence, error)

// Draw bytes the readers write: a Weighted alternative, a Len count
// over 0-8, a string's head and length, an integer past the dictionary
// and boundary selectors.
const (
	jsonStrMax  = 24 // jsonString's longest string
	jsonListMax = 8  // beginList's largest count in jsonValue
	notDict     = 0  // str.head byte: not a dictionary entry (below 256-DictProb)
	uniformSel  = 0xff
)

// jsonAlt are the first draw values of jsonValue's alternatives
// (cumulative weights 1, 2, 4, 4, 3, 3), deep or not.
var jsonAlt = [...]byte{0, 1, 3, 7, 11, 14}

// ReadJSON is JSON's SeedReader: it parses input as one JSON value
// (RFC 8259; spaces between tokens allowed) and returns the draws from
// which JSON writes that value, replayed once to record them. JSON
// writes no spaces, integers in [-2^53, 2^53], decimals as I.FeE
// (I within ±10^6, F in [0, 999999], E within ±30), strings of at most 24
// characters of its alphabet with its own escapes, and arrays and
// objects of at most 8 elements nested at most 5 deep: a value outside
// those (a longer string, a character past U+00FF, a number with more
// digits) is an error wrapping ErrNotGenerated; a syntax error names
// the byte offset. Byte for byte exactly when input is written as JSON
// writes it.
func ReadJSON(input []byte, opts Options) (*Sequence, error) {
	r := jsonReader{in: input}
	r.space()
	if err := r.value(0); err != nil {
		return nil, err
	}
	r.space()
	if r.pos < len(r.in) {
		return nil, r.errorf("expected end of input, got %s", r.got())
	}
	out, seq := Run(JSON, FromBytes(r.draws), opts)
	if !bytes.Equal(out, r.want) {
		return nil, fmt.Errorf("json: %w: its draws make %d other bytes under these options (a dictionary entry, or past %d bytes of draws)", ErrNotGenerated, len(out), opts.MaxBytes)
	}
	return seq, nil
}

// jsonReader parses one JSON document and writes the draws JSON needs
// for it, and the bytes JSON then writes.
type jsonReader struct {
	in    []byte
	pos   int
	draws []byte
	want  []byte
}

func (r *jsonReader) errorf(format string, args ...any) error {
	return fmt.Errorf("json: offset %d: "+format, append([]any{r.pos}, args...)...)
}

// notMade is an error at the current offset for a value JSON cannot
// write.
func (r *jsonReader) notMade(format string, args ...any) error {
	return fmt.Errorf("json: offset %d: %w: "+format, append([]any{r.pos, ErrNotGenerated}, args...)...)
}

func (r *jsonReader) got() string {
	if r.pos >= len(r.in) {
		return "end of input"
	}
	return strconv.QuoteRune(rune(r.in[r.pos]))
}

func (r *jsonReader) space() {
	for r.pos < len(r.in) {
		switch r.in[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

func (r *jsonReader) literal(word string) error {
	if !bytes.HasPrefix(r.in[r.pos:], []byte(word)) {
		return r.errorf("expected %s, got %s", word, r.got())
	}
	r.pos += len(word)
	r.want = append(r.want, word...)
	return nil
}

// value reads one value at nesting depth (the jsonValue frames around
// it).
func (r *jsonReader) value(depth int) error {
	if r.pos >= len(r.in) {
		return r.errorf("expected a value, got end of input")
	}
	deep := depth >= jsonDepth
	switch c := r.in[r.pos]; {
	case c == 'n':
		r.draws = append(r.draws, jsonAlt[0])
		return r.literal("null")
	case c == 't':
		r.draws = append(r.draws, jsonAlt[1], 1)
		return r.literal("true")
	case c == 'f':
		r.draws = append(r.draws, jsonAlt[1], 0)
		return r.literal("false")
	case c == '-' || c >= '0' && c <= '9':
		r.draws = append(r.draws, jsonAlt[2])
		return r.number()
	case c == '"':
		r.draws = append(r.draws, jsonAlt[3])
		return r.str()
	case c == '[' || c == '{':
		if deep {
			return r.notMade("arrays and objects nest at most %d deep", jsonDepth)
		}
		if c == '[' {
			r.draws = append(r.draws, jsonAlt[4])
		} else {
			r.draws = append(r.draws, jsonAlt[5])
		}
		return r.list(c, depth)
	}
	return r.errorf("expected a value, got %s", r.got())
}

// list reads an array or object whose opening byte is open.
func (r *jsonReader) list(open byte, depth int) error {
	close := byte(']')
	if open == '{' {
		close = '}'
	}
	r.pos++
	r.want = append(r.want, open)
	// Len(0, 8): a bit width of 4 (all of the span's bits), then the count,
	// written once the elements are counted
	at := len(r.draws)
	r.draws = append(r.draws, 4, 0)
	r.space()
	n := 0
	if r.pos < len(r.in) && r.in[r.pos] == close {
		r.pos++
		r.want = append(r.want, close)
		return nil
	}
	for {
		if n == jsonListMax {
			return r.notMade("arrays and objects hold at most %d elements", jsonListMax)
		}
		if n > 0 {
			r.want = append(r.want, ',')
		}
		if open == '{' {
			if r.pos >= len(r.in) || r.in[r.pos] != '"' {
				return r.errorf("expected a member name, got %s", r.got())
			}
			if err := r.str(); err != nil {
				return err
			}
			r.space()
			if r.pos >= len(r.in) || r.in[r.pos] != ':' {
				return r.errorf("expected ':', got %s", r.got())
			}
			r.pos++
			r.want = append(r.want, ':')
			r.space()
		}
		if err := r.value(depth + 1); err != nil {
			return err
		}
		n++
		r.draws[at+1] = byte(n)
		r.space()
		if r.pos >= len(r.in) {
			return r.errorf("expected ',' or %q, got end of input", close)
		}
		switch r.in[r.pos] {
		case ',':
			r.pos++
			r.space()
		case close:
			r.pos++
			r.want = append(r.want, close)
			return nil
		default:
			return r.errorf("expected ',' or %q, got %s", close, r.got())
		}
	}
}

// str reads a string: the draws of jsonString (a head that is no
// dictionary entry, the length, an alphabet index per character), each
// character being the code point of one alphabet byte.
func (r *jsonReader) str() error {
	start := r.pos
	r.pos++ // '"'
	r.draws = append(r.draws, notDict, 0, 0)
	// valueLen(0, 24): a bit width of 5, then the length
	at := len(r.draws)
	r.draws = append(r.draws, 5, 0)
	r.want = append(r.want, '"')
	n := 0
	for {
		if r.pos >= len(r.in) {
			r.pos = start
			return r.errorf("unterminated string")
		}
		at0 := r.pos
		c := rune(r.in[r.pos])
		switch {
		case c == '"':
			r.pos++
			r.draws[at+1] = byte(n)
			r.want = append(r.want, '"')
			return nil
		case c < 0x20:
			return r.errorf("expected a character, got control character %#02x", c)
		case c == '\\':
			var err error
			if c, err = r.escape(); err != nil {
				return err
			}
		case c >= utf8.RuneSelf:
			var size int
			c, size = utf8.DecodeRune(r.in[r.pos:])
			if c == utf8.RuneError && size == 1 {
				return r.errorf("expected UTF-8, got byte %#02x", r.in[r.pos])
			}
			r.pos += size
		default:
			r.pos++
		}
		i := -1
		if c < 0x100 {
			i = strings.IndexByte(jsonAlphabet, byte(c))
		}
		if i < 0 {
			r.pos = at0
			return r.notMade("character %U is not in the string alphabet", c)
		}
		if n == jsonStrMax {
			r.pos = at0
			return r.notMade("strings hold at most %d characters", jsonStrMax)
		}
		n++
		r.draws = append(r.draws, byte(i))
		r.want = appendJSONChar(r.want, byte(c))
	}
}

// escape reads a backslash escape and returns its code point.
func (r *jsonReader) escape() (rune, error) {
	if r.pos+1 >= len(r.in) {
		return 0, r.errorf("expected an escape, got end of input")
	}
	e := r.in[r.pos+1]
	r.pos += 2
	switch e {
	case '"', '\\', '/':
		return rune(e), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		if r.pos+4 > len(r.in) {
			return 0, r.errorf("expected 4 hex digits, got end of input")
		}
		v, err := strconv.ParseUint(string(r.in[r.pos:r.pos+4]), 16, 16)
		if err != nil {
			return 0, r.errorf("expected 4 hex digits, got %q", r.in[r.pos:r.pos+4])
		}
		r.pos += 4
		return rune(v), nil
	}
	r.pos -= 2
	return 0, r.errorf("expected an escape, got %q", []byte{'\\', e})
}

// appendJSONChar writes c as jsonString does.
func appendJSONChar(b []byte, c byte) []byte {
	switch {
	case c == '"' || c == '\\':
		return append(b, '\\', c)
	case c == '\n':
		return append(b, '\\', 'n')
	case c < 0x20 || c >= 0x7f:
		return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
	}
	return append(b, c)
}

// jsonNumberText splits a JSON number at r.pos into its sign, integer
// digits, fraction digits, exponent letter and exponent text (sign
// included), and moves past it.
func (r *jsonReader) numberText() (neg bool, whole, frac string, e byte, exp string, err error) {
	in, p := r.in, r.pos
	digits := func() string {
		s := p
		for p < len(in) && in[p] >= '0' && in[p] <= '9' {
			p++
		}
		return string(in[s:p])
	}
	if p < len(in) && in[p] == '-' {
		neg = true
		p++
	}
	if whole = digits(); whole == "" || len(whole) > 1 && whole[0] == '0' {
		return false, "", "", 0, "", r.errorf("expected a number (an integer part without leading zeros), got %q", in[r.pos:p])
	}
	if p < len(in) && in[p] == '.' {
		p++
		if frac = digits(); frac == "" {
			r.pos = p
			return false, "", "", 0, "", r.errorf("expected fraction digits, got %s", r.got())
		}
	}
	if p < len(in) && (in[p] == 'e' || in[p] == 'E') {
		e = in[p]
		p++
		s := p
		if p < len(in) && (in[p] == '+' || in[p] == '-') {
			p++
		}
		if digits() == "" {
			r.pos = p
			return false, "", "", 0, "", r.errorf("expected exponent digits, got %s", r.got())
		}
		exp = string(in[s:p])
	}
	r.pos = p
	return neg, whole, frac, e, exp, nil
}

// JSON's number ranges (jsonNumber).
const (
	jsonIntMax  = 1 << 53
	jsonWholeM  = 1000000
	jsonFracMax = 999999
	jsonExpMax  = 30
)

// number reads a number: as written when JSON writes it so, else as the
// integer or decimal JSON writes for the same value.
func (r *jsonReader) number() error {
	start := r.pos
	neg, whole, frac, e, exp, err := r.numberText()
	if err != nil {
		return err
	}
	text := string(r.in[start:r.pos])
	canon := func(s string, lo, hi int64) (int64, bool) {
		v, err := strconv.ParseInt(s, 10, 64)
		return v, err == nil && v >= lo && v <= hi && strconv.FormatInt(v, 10) == s
	}
	sign := ""
	if neg {
		sign = "-"
	}
	if frac == "" && e == 0 {
		if v, ok := canon(text, -jsonIntMax, jsonIntMax); ok {
			r.integer(v)
			return nil
		}
	} else if frac != "" && e != 0 {
		i, ok1 := canon(sign+whole, -jsonWholeM, jsonWholeM)
		f, ok2 := canon(frac, 0, jsonFracMax)
		x, ok3 := canon(exp, -jsonExpMax, jsonExpMax)
		if ok1 && ok2 && ok3 {
			r.decimal(i, f, e == 'E', x)
			return nil
		}
	}
	// The value: digits d times 10^p, d without leading or trailing zeros.
	d := strings.TrimLeft(whole+frac, "0")
	p := -len(frac)
	if exp != "" {
		x, err := strconv.ParseInt(exp, 10, 32)
		if err != nil || x > 1000 || x < -1000 {
			r.pos = start
			return r.notMade("number %s is past JSON's range", text)
		}
		p += int(x)
	}
	for len(d) > 1 && d[len(d)-1] == '0' {
		d = d[:len(d)-1]
		p++
	}
	if d == "" {
		r.integer(0)
		return nil
	}
	if p >= 0 && len(d)+p <= 16 {
		v, _ := strconv.ParseInt(d+strings.Repeat("0", p), 10, 64)
		if neg {
			v = -v
		}
		if v >= -jsonIntMax && v <= jsonIntMax {
			r.integer(v)
			return nil
		}
	}
	// I.F x 10^E with F of k digits (k = 0: F is 0 and I is d with j
	// zeros appended), the first that fits
	for k := 0; k <= min(6, len(d)); k++ {
		for j := 0; j <= 6; j++ {
			if k > 0 && j > 0 {
				break
			}
			wi, fi := d[:len(d)-k]+strings.Repeat("0", j), d[len(d)-k:]
			if fi == "" {
				fi = "0"
			}
			if wi == "" {
				wi = "0"
			}
			i, err1 := strconv.ParseInt(wi, 10, 64)
			f, err2 := strconv.ParseInt(fi, 10, 64)
			x := p + k - j
			if err1 != nil || err2 != nil || i > jsonWholeM || f > jsonFracMax || fi[0] == '0' && fi != "0" ||
				x < -jsonExpMax || x > jsonExpMax || neg && i == 0 {
				continue
			}
			if neg {
				i = -i
			}
			r.decimal(i, f, false, int64(x))
			return nil
		}
	}
	r.pos = start
	return r.notMade("number %s has no form JSON writes (I.F×10^E: I within ±10^6, F of at most 6 digits, E within ±%d)", text, jsonExpMax)
}

// integer writes jsonNumber's integer draws for v.
func (r *jsonReader) integer(v int64) {
	r.draws = append(r.draws, 0)
	r.draws = appendIntDraw(r.draws, -jsonIntMax, jsonIntMax, v)
	r.want = strconv.AppendInt(r.want, v, 10)
}

// decimal writes jsonNumber's decimal draws for I.F e/E X.
func (r *jsonReader) decimal(i, f int64, bigE bool, x int64) {
	r.draws = append(r.draws, 1)
	r.draws = appendIntDraw(r.draws, -jsonWholeM, jsonWholeM, i)
	r.draws = appendIntDraw(r.draws, 0, jsonFracMax, f)
	e := byte('e')
	if bigE {
		r.draws = append(r.draws, 1)
		e = 'E'
	} else {
		r.draws = append(r.draws, 0)
	}
	r.draws = appendIntDraw(r.draws, -jsonExpMax, jsonExpMax, x)
	r.want = strconv.AppendInt(r.want, i, 10)
	r.want = append(r.want, '.')
	r.want = strconv.AppendInt(r.want, f, 10)
	r.want = append(r.want, e)
	r.want = strconv.AppendInt(r.want, x, 10)
}

// appendIntDraw appends the draw bytes from which Int64(lo, hi) returns v
// (lo ≤ v ≤ hi, a span of at least 16 and below 2^64-1): a selector past
// the dictionary and boundary shares, then v-lo.
func appendIntDraw(dst []byte, lo, hi, v int64) []byte {
	n := bytesFor(uint64(hi) - uint64(lo))
	dst = append(dst, uniformSel)
	return binary.LittleEndian.AppendUint64(dst, uint64(v)-uint64(lo))[:len(dst)+n]
}
