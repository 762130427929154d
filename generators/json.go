package generators

import "strconv"

// JSON types (frame names), the depth limit of nested arrays and objects,
// and the alphabet of string contents (escaped on output).
var (
	tJSONValue  = newType("json.Value")
	tJSONArray  = newType("json.Array")
	tJSONObject = newType("json.Object")
	tJSONMember = newType("json.Member")
	tJSONNumber = newType("json.Number")
	tJSONString = newType("json.String")
)

const (
	jsonDepth    = 5
	jsonAlphabet = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~" +
		"\t\n\r\x00\x01\x1f\x7f\x80\xe9\xff"
)

// JSON generates one JSON value (RFC 8259): null, booleans, integers and
// decimals with exponents, strings with escapes, arrays and objects nested
// at most 5 deep. Every output is valid JSON.
func JSON(s *Source) []byte { return jsonValue(s, make([]byte, 0, 64)) }

func jsonValue(s *Source, b []byte) []byte {
	deep := s.depthT(tJSONValue) >= jsonDepth
	s.enterT(tJSONValue)
	defer s.Leave()
	w := [...]int{1, 2, 4, 4, 3, 3}
	if deep {
		w[4], w[5] = 0, 0
	}
	switch s.Weighted(w[:]...) {
	case 0:
		return append(b, "null"...)
	case 1:
		if s.Bool() {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case 2:
		return jsonNumber(s, b)
	case 3:
		return jsonString(s, b)
	case 4:
		s.enterT(tJSONArray)
		b = append(b, '[')
		n := s.beginList(0, 8)
		for i := range n {
			s.elem()
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonValue(s, b)
			s.Leave()
		}
		s.endList()
		s.Leave()
		return append(b, ']')
	default:
		s.enterT(tJSONObject)
		b = append(b, '{')
		n := s.beginList(0, 8)
		for i := range n {
			s.enterT(tJSONMember)
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonString(s, b)
			b = append(b, ':')
			b = jsonValue(s, b)
			s.Leave()
		}
		s.endList()
		s.Leave()
		return append(b, '}')
	}
}

func jsonNumber(s *Source, b []byte) []byte {
	s.enterT(tJSONNumber)
	defer s.Leave()
	if s.Pick(2) == 0 {
		return strconv.AppendInt(b, s.Int64(-1<<53, 1<<53), 10)
	}
	b = strconv.AppendInt(b, s.Int64(-1e6, 1e6), 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, s.Int64(0, 999999), 10)
	b = append(b, "eE"[s.Int(0, 1)])
	return strconv.AppendInt(b, s.Int64(-30, 30), 10)
}

const hexDigits = "0123456789abcdef"

func jsonString(s *Source, b []byte) []byte {
	s.enterT(tJSONString)
	defer s.Leave()
	var buf [32]byte
	raw := s.appendString(buf[:0], jsonAlphabet, 0, 24)
	b = append(b, '"')
	for _, c := range raw {
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c < 0x20 || c >= 0x7f:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
