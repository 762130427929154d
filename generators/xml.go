package generators

import "strconv"

// XML types (frame names), the depth limit, and alphabets.
var (
	tXMLElement = newType("xml.Element")
	tXMLAttr    = newType("xml.Attr")
	tXMLName    = newType("xml.Name")
	tXMLText    = newType("xml.Text")
	tXMLComment = newType("xml.Comment")
	tXMLCDATA   = newType("xml.CDATA")
	tXMLPI      = newType("xml.PI")
	tXMLDoctype = newType("xml.Doctype")
	tXMLEntity  = newType("xml.Entity")
	tXMLNS      = newType("xml.Namespace")
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

// XML generates a well-formed XML 1.0 document: an optional declaration,
// an optional DOCTYPE for the root with an internal DTD subset (ELEMENT,
// ATTLIST and internal general ENTITY declarations), one root element,
// elements nested at most 5 deep with up to 4 attributes (names made
// unique), namespace declarations (xmlns and xmlns:nK, each prefix bound to
// its own URI) and element names using the prefixes in scope, text with
// predefined, decimal and hexadecimal character references and (rarely)
// references to the DTD's entities, comments, CDATA sections and
// processing instructions. A reference to a DTD entity is well-formed XML,
// but parsers that ignore the DTD reject it (Go's encoding/xml unless its
// Decoder.Entity holds the entity): about one document in a hundred has one.
func XML(s *Source) []byte {
	b := make([]byte, 0, 128)
	if s.Bool() {
		b = append(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"...)
	}
	x := &xmlDoc{}
	if s.Decide(0.3) {
		// the root's name comes first: the DOCTYPE names it
		var nb [16]byte
		x.root = xmlName(s, nb[:0])
		b = xmlDoctype(s, b, x)
	}
	return xmlElement(s, b, x)
}

// xmlDoc is what the document's parts share: the root's name (when a
// DOCTYPE named it), the number of DTD entities e0.., the namespace
// prefixes in scope and the next prefix number.
type xmlDoc struct {
	root     []byte
	entities int
	prefixes []int
	nextNS   int
}

// xmlDoctype appends <!DOCTYPE root [...]> with up to four markup
// declarations and up to three entities.
func xmlDoctype(s *Source, b []byte, x *xmlDoc) []byte {
	s.enterT(tXMLDoctype)
	defer s.Leave()
	b = append(b, "<!DOCTYPE "...)
	b = append(b, x.root...)
	if !s.Decide(0.8) {
		return append(b, ">\n"...)
	}
	b = append(b, " ["...)
	nd := s.beginList(0, 4)
	for range nd {
		s.elem()
		b = append(b, "\n  "...)
		var nb [16]byte
		if s.Pick(2) == 0 {
			b = append(b, "<!ELEMENT "...)
			b = append(b, xmlName(s, nb[:0])...)
			b = append(b, [...]string{" ANY>", " EMPTY>", " (#PCDATA)>", " (#PCDATA|a|b)*>"}[s.Int(0, 3)]...)
		} else {
			b = append(b, "<!ATTLIST "...)
			b = append(b, xmlName(s, nb[:0])...)
			b = append(b, ' ')
			b = append(b, xmlName(s, nb[:0])...)
			b = append(b, [...]string{" CDATA #IMPLIED>", " ID #REQUIRED>", " NMTOKEN \"x\">", " (yes|no) \"no\">", " CDATA #FIXED \"v\">"}[s.Int(0, 4)]...)
		}
		s.Leave()
	}
	s.endList()
	ne := s.beginList(0, 3)
	for i := range ne {
		s.enterT(tXMLEntity)
		b = append(b, "\n  <!ENTITY e"...)
		b = append(b, byte('0'+i), ' ', '"')
		var vb [32]byte
		b = xmlEscapeEntity(b, s.appendString(vb[:0], xmlText, 0, 16))
		b = append(b, "\">"...)
		s.Leave()
	}
	s.endList()
	x.entities = ne
	return append(b, "\n]>\n"...)
}

// xmlEscapeEntity escapes an entity's replacement text: markup, '%' (a
// parameter entity reference in the DTD) and the quote delimiting it.
func xmlEscapeEntity(b, raw []byte) []byte {
	for _, c := range raw {
		switch c {
		case '&':
			b = append(b, "&#38;#38;"...)
		case '<':
			b = append(b, "&#38;#60;"...)
		case '%':
			b = append(b, "&#37;"...)
		case '"':
			b = append(b, "&#34;"...)
		default:
			b = append(b, c)
		}
	}
	return b
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

func xmlElement(s *Source, b []byte, x *xmlDoc) []byte {
	deep := s.depthT(tXMLElement) >= xmlDepth
	s.enterT(tXMLElement)
	defer s.Leave()
	b = append(b, '<')
	start := len(b)
	scope := len(x.prefixes)
	defer func() { x.prefixes = x.prefixes[:scope] }()
	// namespaces declared here (drawn before the name, which may use them)
	var decl []byte
	nns := 0
	if s.Decide(0.15) {
		nns = s.Len(1, 2)
	}
	for range nns {
		s.enterT(tXMLNS)
		k := x.nextNS
		x.nextNS++
		decl = append(decl, " xmlns"...)
		if s.Decide(0.8) {
			decl = append(decl, ":n"...)
			decl = appendInt(decl, k)
			x.prefixes = append(x.prefixes, k)
		}
		decl = append(decl, "=\"urn:wafer:"...)
		decl = appendInt(decl, k)
		decl = append(decl, '"')
		s.Leave()
	}
	if x.root != nil && s.depthT(tXMLElement) == 1 {
		b = append(b, x.root...) // the DOCTYPE's root
	} else {
		if len(x.prefixes) > 0 && s.Decide(0.4) {
			b = append(b, 'n')
			b = appendInt(b, x.prefixes[s.Int(0, len(x.prefixes)-1)])
			b = append(b, ':')
		}
		b = xmlName(s, b)
	}
	var nameBuf [24]byte
	name := append(nameBuf[:0], b[start:]...)
	b = append(b, decl...)

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
			b = xmlNode(s, b, x)
			s.Leave()
		}
		s.endList()
	}
	b = append(b, '<', '/')
	b = append(b, name...)
	return append(b, '>')
}

func xmlNode(s *Source, b []byte, x *xmlDoc) []byte {
	var tb [32]byte
	ref := 0
	if x.entities > 0 {
		ref = 1
	}
	switch s.Weighted(4, 3, 1, 1, 1, 1, ref) {
	case 0:
		s.enterT(tXMLText)
		b = xmlEscape(b, s.appendString(tb[:0], xmlText, 1, 24), false)
		s.Leave()
	case 1:
		b = xmlElement(s, b, x)
	case 5: // a character reference, decimal or hexadecimal
		s.enterT(tXMLText)
		c := xmlCharRefs[s.Int(0, len(xmlCharRefs)-1)]
		if s.Bool() {
			b = append(b, "&#x"...)
			b = append(b, hexDigits[c>>12&15], hexDigits[c>>8&15], hexDigits[c>>4&15], hexDigits[c&15], ';')
		} else {
			b = append(b, "&#"...)
			b = appendInt(b, int(c))
			b = append(b, ';')
		}
		s.Leave()
	case 6: // a reference to a DTD entity
		s.enterT(tXMLEntity)
		b = append(b, "&e"...)
		b = append(b, byte('0'+s.Int(0, x.entities-1)), ';')
		s.Leave()
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
	case 4:
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

// xmlCharRefs are the characters of the character references: markup,
// a tab, and letters beyond ASCII.
var xmlCharRefs = [...]uint16{'<', '>', '&', '"', '\'', '\t', 'A', 0xe9, 0x3bb, 0x4e2d, 0x20ac}

func appendInt(b []byte, v int) []byte { return strconv.AppendInt(b, int64(v), 10) }
