package generators

// XML types (frame names), the depth limit, and alphabets.
var (
	tXMLElement = newType("xml.Element")
	tXMLAttr    = newType("xml.Attr")
	tXMLName    = newType("xml.Name")
	tXMLText    = newType("xml.Text")
	tXMLComment = newType("xml.Comment")
	tXMLCDATA   = newType("xml.CDATA")
	tXMLPI      = newType("xml.PI")
)

const (
	xmlDepth     = 5
	xmlNameStart = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
	xmlNameRest  = xmlNameStart + "0123456789-."
	xmlText      = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\t\n"
	xmlComment   = " !\"#$%&'()*+,./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\t\n"
	xmlCDATA     = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\^_`abcdefghijklmnopqrstuvwxyz{|}~\t\n"
	xmlPI        = " !\"#$%&'()*+,-./0123456789:;<=>@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"
)

// XML generates a well-formed XML 1.0 document: an optional declaration, one
// root element, elements nested at most 5 deep with up to 4 attributes
// (names made unique), text with character and entity escapes, comments,
// CDATA sections and processing instructions.
func XML(s *Source) []byte {
	b := make([]byte, 0, 128)
	if s.Bool() {
		b = append(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"...)
	}
	return xmlElement(s, b)
}

func xmlName(s *Source, b []byte) []byte {
	s.enterT(tXMLName)
	defer s.Leave()
	b = s.appendString(b, xmlNameStart, 1, 1)
	return s.appendString(b, xmlNameRest, 0, 8)
}

func xmlEscape(b, raw []byte, attr bool) []byte {
	for _, c := range raw {
		switch c {
		case '&':
			b = append(b, "&amp;"...)
		case '<':
			b = append(b, "&lt;"...)
		case '>':
			b = append(b, "&gt;"...)
		case '"':
			if attr {
				b = append(b, "&quot;"...)
			} else {
				b = append(b, c)
			}
		case '\t', '\n':
			if attr {
				b = append(b, "&#"...)
				b = append(b, "0123456789"[c/10], "0123456789"[c%10], ';')
			} else {
				b = append(b, c)
			}
		default:
			b = append(b, c)
		}
	}
	return b
}

func xmlElement(s *Source, b []byte) []byte {
	deep := s.depthT(tXMLElement) >= xmlDepth
	s.enterT(tXMLElement)
	defer s.Leave()
	b = append(b, '<')
	start := len(b)
	b = xmlName(s, b)
	var nameBuf [16]byte
	name := append(nameBuf[:0], b[start:]...)

	var attrBuf [4][2]int // start, end of each attribute name in b
	names := attrBuf[:0]
	na := s.beginList(0, 4)
	for range na {
		s.enterT(tXMLAttr)
		b = append(b, ' ')
		as := len(b)
		b = xmlName(s, b)
		// Attribute names must be unique: suffix a repeated name (output
		// only, no draw depends on it).
		for dup := true; dup; {
			dup = false
			for _, p := range names {
				if string(b[p[0]:p[1]]) == string(b[as:]) {
					b = append(b, 'x')
					dup = true
					break
				}
			}
		}
		names = append(names, [2]int{as, len(b)})
		b = append(b, '=', '"')
		var vb [32]byte
		b = xmlEscape(b, s.appendString(vb[:0], xmlText, 0, 16), true)
		b = append(b, '"')
		s.Leave()
	}
	s.endList()

	maxKids := 5
	if deep {
		maxKids = 0
	}
	nk := s.beginList(0, maxKids)
	if nk == 0 {
		s.endList()
		if s.Bool() {
			return append(b, "/>"...)
		}
		b = append(b, '>')
	} else {
		b = append(b, '>')
		for range nk {
			s.elem()
			b = xmlNode(s, b)
			s.Leave()
		}
		s.endList()
	}
	b = append(b, '<', '/')
	b = append(b, name...)
	return append(b, '>')
}

func xmlNode(s *Source, b []byte) []byte {
	var tb [32]byte
	switch s.Weighted(4, 3, 1, 1, 1) {
	case 0:
		s.enterT(tXMLText)
		b = xmlEscape(b, s.appendString(tb[:0], xmlText, 1, 24), false)
		s.Leave()
	case 1:
		b = xmlElement(s, b)
	case 2:
		s.enterT(tXMLComment)
		b = append(b, "<!--"...)
		b = append(b, s.appendString(tb[:0], xmlComment, 0, 24)...)
		b = append(b, "-->"...)
		s.Leave()
	case 3:
		s.enterT(tXMLCDATA)
		b = append(b, "<![CDATA["...)
		b = append(b, s.appendString(tb[:0], xmlCDATA, 0, 24)...)
		b = append(b, "]]>"...)
		s.Leave()
	default:
		s.enterT(tXMLPI)
		b = append(b, "<?pi-"...)
		b = xmlName(s, b)
		b = append(b, ' ')
		b = append(b, s.appendString(tb[:0], xmlPI, 0, 24)...)
		b = append(b, "?>"...)
		s.Leave()
	}
	return b
}
