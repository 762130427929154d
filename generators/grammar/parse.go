package grammar

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// kind of grammar file.
type fileKind uint8

const (
	combined fileKind = iota
	lexerOnly
	parserOnly
)

// file is one parsed .g4 file before imports are merged.
type file struct {
	name      string // file name for messages
	grammar   string // the grammar's name
	kind      fileKind
	rules     []*rule
	imports   []token // names of imported grammars
	tokenVoc  string
	vocPos    Pos
	tokens    []string // tokens { ... }
	caseInsen bool
}

// parser reads the tokens of one .g4 file.
type parser struct {
	file string
	toks []token
	i    int
	// the rule being read
	inLexer bool
	caseIns bool
	mode    string // the lexer mode rules are read into
	pred    bool   // a semantic predicate was read in the current alternative
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// bail is panicked with by errf and recovered at parseFile.
type bail struct{ err *Error }

func (p *parser) errf(pos Pos, format string, a ...any) {
	panic(bail{&Error{File: p.file, Pos: pos, Msg: fmt.Sprintf(format, a...)}})
}

func (p *parser) is(text string) bool {
	t := p.peek()
	return t.kind == tPunct && t.text == text
}

func (p *parser) isID(text string) bool {
	t := p.peek()
	return t.kind == tID && t.text == text
}

func (p *parser) expect(text, what string) token {
	t := p.next()
	if t.kind != tPunct || t.text != text {
		p.errf(t.pos, "expected %q %s, got %s", text, what, t)
	}
	return t
}

func (p *parser) expectID(what string) token {
	t := p.next()
	if t.kind != tID {
		p.errf(t.pos, "expected %s, got %s", what, t)
	}
	return t
}

// parseFile reads one .g4 file.
func parseFile(name string, src []byte) (f *file, err error) {
	if !utf8.Valid(src) {
		line, col := 1, 1
		for i := 0; i < len(src); {
			r, n := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && n == 1 {
				return nil, &Error{File: name, Pos: Pos{line, col}, Msg: "invalid UTF-8"}
			}
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col += n
			}
			i += n
		}
	}
	sc := &scanner{file: name, src: string(src)}
	toks, err := sc.tokens()
	if err != nil {
		return nil, err
	}
	p := &parser{file: name, toks: toks}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bail)
			if !ok {
				panic(r)
			}
			f, err = nil, b.err
		}
	}()
	return p.grammarFile(), nil
}

func isLexerName(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(r)
}

func (p *parser) grammarFile() *file {
	f := &file{name: p.file}
	switch {
	case p.isID("lexer"):
		p.next()
		f.kind = lexerOnly
	case p.isID("parser"):
		p.next()
		f.kind = parserOnly
	}
	if !p.isID("grammar") {
		p.errf(p.peek().pos, "expected a grammar declaration (\"grammar Name;\"), got %s", p.peek())
	}
	p.next()
	f.grammar = p.expectID("a grammar name").text
	p.expect(";", "after the grammar name")
	// Prequel: options, tokens, channels, imports, named actions.
	for {
		t := p.peek()
		switch {
		case t.kind == tID && t.text == "options" && p.peekAt(1).kind == tAction:
			p.next()
			a := p.next()
			for k, v := range parseOptions(a.text) {
				switch k {
				case "tokenVocab":
					f.tokenVoc, f.vocPos = v, a.pos
				case "caseInsensitive":
					f.caseInsen = v == "true"
				}
			}
			continue
		case t.kind == tID && (t.text == "tokens" || t.text == "channels") && p.peekAt(1).kind == tAction:
			p.next()
			a := p.next()
			if t.text == "tokens" {
				for _, n := range strings.Split(stripComments(a.text), ",") {
					if n = strings.TrimSpace(n); n != "" {
						f.tokens = append(f.tokens, n)
					}
				}
			}
			continue
		case t.kind == tID && t.text == "import":
			p.next()
			for {
				n := p.expectID("the name of an imported grammar")
				if p.is("=") {
					p.next()
					n = p.expectID("the name of an imported grammar")
				}
				f.imports = append(f.imports, n)
				if !p.is(",") {
					break
				}
				p.next()
			}
			p.expect(";", "after the imported grammars")
			continue
		case t.kind == tPunct && t.text == "@":
			p.namedAction()
			continue
		}
		break
	}
	p.caseIns = f.caseInsen
	for {
		t := p.peek()
		if t.kind == tEOF {
			break
		}
		if t.kind == tID && t.text == "mode" && p.peekAt(1).kind == tID && p.peekAt(2).kind == tPunct && p.peekAt(2).text == ";" {
			// The lexer rules that follow belong to this mode (see lexer.go).
			if f.kind == parserOnly {
				p.errf(t.pos, "mode %s in a parser grammar", p.peekAt(1).text)
			}
			p.mode = p.peekAt(1).text
			p.i += 3
			continue
		}
		r := p.rule()
		if r.lexer && f.kind == parserOnly {
			p.errf(r.pos, "lexer rule %s in a parser grammar", r.name)
		}
		if !r.lexer && f.kind == lexerOnly {
			p.errf(r.pos, "parser rule %s in a lexer grammar", r.name)
		}
		r.file = p.file
		f.rules = append(f.rules, r)
	}
	return f
}

// stripComments removes // and /* */ comments from the inside of a
// tokens {...} block.
func stripComments(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "//"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += end + 3
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// parseOptions reads "k = v; k2 = v2;" loosely.
func parseOptions(text string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(text, ";") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		out[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `'"`)
	}
	return out
}

// namedAction skips @name {...} or @scope::name {...}.
func (p *parser) namedAction() {
	p.expect("@", "")
	p.expectID("an action name")
	if p.is("::") {
		p.next()
		p.expectID("an action name")
	}
	if t := p.next(); t.kind != tAction {
		p.errf(t.pos, "expected an action {...} after the action name, got %s", t)
	}
}

func (p *parser) rule() *rule {
	r := &rule{}
	for p.isID("fragment") || p.isID("public") || p.isID("private") || p.isID("protected") {
		if p.next().text == "fragment" {
			r.fragment = true
		}
	}
	name := p.expectID("a rule name")
	r.name, r.pos = name.text, name.pos
	r.lexer = isLexerName(r.name)
	if r.fragment && !r.lexer {
		p.errf(name.pos, "fragment %s: only lexer rules (names starting with an upper-case letter) can be fragments", r.name)
	}
	p.inLexer = r.lexer
	// Rule prequel: arguments, returns, throws, locals, options, actions.
	for {
		t := p.peek()
		switch {
		case t.kind == tBracket:
			p.next()
			continue
		case t.kind == tID && (t.text == "returns" || t.text == "locals"):
			p.next()
			if b := p.next(); b.kind != tBracket {
				p.errf(b.pos, "expected [...] after %s, got %s", t.text, b)
			}
			continue
		case t.kind == tID && t.text == "throws":
			p.next()
			p.expectID("an exception name")
			for p.is(",") {
				p.next()
				p.expectID("an exception name")
			}
			continue
		case t.kind == tID && t.text == "options" && p.peekAt(1).kind == tAction:
			p.next()
			p.next()
			continue
		case t.kind == tPunct && t.text == "@":
			p.namedAction()
			continue
		}
		break
	}
	p.expect(":", fmt.Sprintf("after the rule name %s", r.name))
	var cmds [][]lexCmd
	r.body, cmds = p.alternatives(true)
	if r.lexer {
		r.mode = p.mode
		if r.mode == "" {
			r.mode = defaultMode
		}
		for _, c := range cmds {
			if len(c) > 0 {
				r.cmds = cmds
				break
			}
		}
		r.hidden = len(cmds) > 0
		for _, c := range cmds {
			r.hidden = r.hidden && actionOf(c).kind == aHidden
		}
	}
	p.expect(";", fmt.Sprintf("at the end of rule %s", r.name))
	// Exception handlers.
	for p.isID("catch") || p.isID("finally") {
		if p.next().text == "catch" {
			if b := p.next(); b.kind != tBracket {
				p.errf(b.pos, "expected [...] after catch, got %s", b)
			}
		}
		if a := p.next(); a.kind != tAction {
			p.errf(a.pos, "expected an action {...}, got %s", a)
		}
	}
	return r
}

// alternatives reads alt ('|' alt)*. At the top of a lexer rule it also
// reads the lexer commands of each alternative.
func (p *parser) alternatives(top bool) (*node, [][]lexCmd) {
	alt := &node{kind: nAlt, pos: p.peek().pos}
	var cmds [][]lexCmd
	for {
		a, c := p.alternative(top)
		cmds = append(cmds, c)
		alt.kids = append(alt.kids, a)
		if !p.is("|") {
			break
		}
		p.next()
	}
	if len(alt.kids) == 1 {
		return alt.kids[0], cmds
	}
	return alt, cmds
}

func (p *parser) alternative(top bool) (*node, []lexCmd) {
	seq := &node{kind: nSeq, pos: p.peek().pos}
	if p.is("<") {
		p.elementOptions()
	}
	var cmds []lexCmd
	outer := p.pred
	p.pred = false
	gated, pred := false, false
	for {
		t := p.peek()
		if t.kind == tEOF || t.kind == tPunct && (t.text == "|" || t.text == ";" || t.text == ")") {
			break
		}
		if t.kind == tPunct && t.text == "#" {
			p.next()
			p.expectID("an alternative label after #")
			continue
		}
		if t.kind == tPunct && t.text == "->" {
			if !p.inLexer || !top {
				p.errf(t.pos, "lexer commands (->) are allowed only at the end of a lexer rule's alternative")
			}
			p.next()
			cmds = append(cmds, p.commands()...)
			continue
		}
		if e := p.element(); e != nil {
			seq.kids = append(seq.kids, e)
			gated = gated || e.kind == nEOF
		}
		gated = gated || p.pred
		pred = pred || p.pred
		p.pred = false
	}
	p.pred = outer
	if len(seq.kids) == 1 {
		seq.kids[0].gated = seq.kids[0].gated || gated
		seq.kids[0].pred = seq.kids[0].pred || pred
		return seq.kids[0], cmds
	}
	seq.gated, seq.pred = gated, pred
	return seq, cmds
}

// commands reads the lexer commands after ->: ANTLR's seven, with their
// argument where they take one.
func (p *parser) commands() []lexCmd {
	var out []lexCmd
	for {
		c := p.expectID("a lexer command (skip, channel(...), type(...), more, ...)")
		cmd := lexCmd{name: c.text, pos: c.pos}
		takesArg := false
		switch c.text {
		case "skip", "more", "popMode":
		case "channel", "type", "mode", "pushMode":
			takesArg = true
		default:
			p.errf(c.pos, "unknown lexer command %s (ANTLR's are skip, more, popMode, channel(C), type(T), mode(M), pushMode(M))", c.text)
		}
		if p.is("(") {
			open := p.next()
			if !takesArg {
				p.errf(open.pos, "lexer command %s takes no argument", c.text)
			}
			cmd.arg = p.expectID("the command's argument").text
			p.expect(")", "after the command's argument")
		} else if takesArg {
			p.errf(c.pos, "lexer command %s needs an argument: %s(...)", c.text, c.text)
		}
		out = append(out, cmd)
		if !p.is(",") {
			return out
		}
		p.next()
	}
}

// elementOptions skips <...>.
func (p *parser) elementOptions() {
	open := p.expect("<", "")
	for !p.is(">") {
		if p.peek().kind == tEOF {
			p.errf(open.pos, "unterminated element options: expected >")
		}
		p.next()
	}
	p.next()
}

// element reads one element with its suffix; nil for actions and
// predicates.
func (p *parser) element() *node {
	t := p.peek()
	if t.kind == tAction {
		p.next()
		if p.is("?") { // semantic predicate
			p.pred = true
			p.next()
			if p.is("<") {
				p.elementOptions()
			}
		}
		return nil
	}
	if t.kind == tID && (p.peekAt(1).kind == tPunct && (p.peekAt(1).text == "=" || p.peekAt(1).text == "+=")) {
		p.next() // label
		p.next()
	}
	var n *node
	t = p.peek()
	switch {
	case t.kind == tPunct && t.text == "(":
		p.next()
		if p.isID("options") && p.peekAt(1).kind == tAction {
			p.next()
			p.next()
			p.expect(":", "after a block's options")
		} else if p.is(":") { // ( : ...): a block with empty options
			p.next()
		}
		n, _ = p.alternatives(false)
		p.expect(")", "to close the ( at "+fmt.Sprintf("%d:%d", t.pos.Line, t.pos.Col))
	default:
		n = p.atom()
	}
	return p.suffix(n)
}

func (p *parser) suffix(n *node) *node {
	t := p.peek()
	if t.kind != tPunct {
		return n
	}
	rep := &node{kind: nRep, pos: t.pos, kids: []*node{n}, greedy: true}
	switch t.text {
	case "?":
		rep.min, rep.max = 0, 1
	case "*":
		rep.min, rep.max = 0, -1
	case "+":
		rep.min, rep.max = 1, -1
	default:
		return n
	}
	p.next()
	if p.is("?") {
		p.next()
		rep.greedy = false
	}
	return rep
}

func (p *parser) atom() *node {
	t := p.next()
	switch {
	case t.kind == tID:
		if t.text[0] >= '0' && t.text[0] <= '9' {
			p.errf(t.pos, "unexpected number %s", t.text)
		}
		var n *node
		if t.text == "EOF" {
			n = &node{kind: nEOF, pos: t.pos}
		} else {
			n = &node{kind: nRef, pos: t.pos, name: t.text}
		}
		if p.peek().kind == tBracket && !p.inLexer {
			p.next() // rule arguments
		}
		if p.is("<") {
			p.elementOptions()
		}
		return n
	case t.kind == tString:
		if p.is("..") {
			p.next()
			hi := p.next()
			if hi.kind != tString {
				p.errf(hi.pos, "expected a string literal after .., got %s", hi)
			}
			lo, hiR, ok := singleRunes(t.text, hi.text)
			if !ok {
				p.errf(t.pos, "a range 'a'..'z' needs one character on each side")
			}
			if !p.inLexer {
				p.errf(t.pos, "a character range is allowed only in a lexer rule")
			}
			if lo > hiR {
				p.errf(t.pos, "empty range: %q > %q", lo, hiR)
			}
			return p.setNode(t.pos, charSet{{lo, hiR}})
		}
		if t.text == "" {
			p.errf(t.pos, "empty string literal")
		}
		if p.is("<") {
			p.elementOptions()
		}
		return &node{kind: nLit, pos: t.pos, text: t.text, fold: p.caseIns}
	case t.kind == tBracket:
		if !p.inLexer {
			p.errf(t.pos, "a character set [...] is allowed only in a lexer rule")
		}
		set, msg, at := parseSet(t.text)
		if msg != "" {
			p.errf(Pos{t.pos.Line, t.pos.Col + 1 + at}, "%s", msg)
		}
		if len(set) == 0 {
			p.errf(t.pos, "empty character set []")
		}
		return p.setNode(t.pos, set)
	case t.kind == tPunct && t.text == ".":
		if p.inLexer {
			return p.setNode(t.pos, charSet{{0, utf8.MaxRune}})
		}
		return &node{kind: nAnyTok, pos: t.pos}
	case t.kind == tPunct && t.text == "~":
		return p.notSet(t.pos)
	}
	p.errf(t.pos, "expected a rule or token name, a literal, a set, ( or ~, got %s", t)
	return nil
}

func (p *parser) setNode(pos Pos, set charSet) *node {
	set = set.normalize()
	if p.caseIns {
		set = set.caseFold()
	}
	return &node{kind: nSet, pos: pos, set: set}
}

func singleRunes(a, b string) (rune, rune, bool) {
	ra, na := utf8.DecodeRuneInString(a)
	rb, nb := utf8.DecodeRuneInString(b)
	return ra, rb, na == len(a) && nb == len(b) && a != "" && b != ""
}

// notSet reads the operand of ~.
func (p *parser) notSet(pos Pos) *node {
	var items []token
	if p.is("(") {
		p.next()
		for {
			items = append(items, p.setItem())
			if !p.is("|") {
				break
			}
			p.next()
		}
		p.expect(")", "to close the set after ~")
	} else {
		items = append(items, p.setItem())
	}
	if !p.inLexer {
		n := &node{kind: nAnyTok, pos: pos}
		for _, it := range items {
			switch it.kind {
			case tID:
				n.except = append(n.except, it.text)
			case tString:
				n.exceptLit = append(n.exceptLit, it.text)
			default:
				p.errf(it.pos, "~ in a parser rule takes token names and literals, got %s", it)
			}
		}
		return n
	}
	var set charSet
	for _, it := range items {
		switch it.kind {
		case tString:
			r, n := utf8.DecodeRuneInString(it.text)
			if n != len(it.text) {
				p.errf(it.pos, "~ takes single characters, sets and ranges, got %s", it)
			}
			set = append(set, runeRange{r, r})
		case tBracket:
			s, msg, at := parseSet(it.text)
			if msg != "" {
				p.errf(Pos{it.pos.Line, it.pos.Col + 1 + at}, "%s", msg)
			}
			set = append(set, s...)
		case tPunct: // a range, encoded by setItem
			lo, hi, _ := singleRunes(it.text[:strings.IndexByte(it.text, 0)], it.text[strings.IndexByte(it.text, 0)+1:])
			set = append(set, runeRange{lo, hi})
		default:
			p.errf(it.pos, "~ in a lexer rule takes characters, sets and ranges; a token reference (%s) is not supported here", it.text)
		}
	}
	set = set.normalize()
	if p.caseIns {
		set = set.caseFold()
	}
	return p.setNode(pos, set.complement())
}

// setItem reads one operand of ~: a literal, a range (returned as a tPunct
// token "lo\x00hi"), a [set] or a token name.
func (p *parser) setItem() token {
	t := p.next()
	switch t.kind {
	case tString:
		if p.is("..") {
			p.next()
			hi := p.next()
			if hi.kind != tString {
				p.errf(hi.pos, "expected a string literal after .., got %s", hi)
			}
			if _, _, ok := singleRunes(t.text, hi.text); !ok {
				p.errf(t.pos, "a range 'a'..'z' needs one character on each side")
			}
			return token{kind: tPunct, text: t.text + "\x00" + hi.text, pos: t.pos}
		}
		return t
	case tBracket, tID:
		return t
	}
	p.errf(t.pos, "expected a character, a set or a token after ~, got %s", t)
	return t
}

// parseSet reads the inside of [...]; on error it returns a message and
// the byte offset of the problem inside the brackets.
func parseSet(text string) (charSet, string, int) {
	var set charSet
	i := 0
	read := func() (rune, int, string) {
		if text[i] == '\\' {
			if i+1 < len(text) && (text[i+1] == 'p' || text[i+1] == 'P') {
				return 0, 0, "" // handled by the caller
			}
			r, n, msg := unescape(text[i:], true)
			return r, n, msg
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		return r, n, ""
	}
	for i < len(text) {
		if text[i] == '\\' && i+1 < len(text) && (text[i+1] == 'p' || text[i+1] == 'P') {
			neg := text[i+1] == 'P'
			if i+2 >= len(text) || text[i+2] != '{' {
				return nil, `expected { after \p`, i
			}
			end := strings.IndexByte(text[i:], '}')
			if end < 0 {
				return nil, `unterminated \p{...}`, i
			}
			name := text[i+3 : i+end]
			s, ok := property(name)
			if !ok {
				return nil, fmt.Sprintf(`unknown Unicode property \p{%s}`, name), i
			}
			if neg {
				s = s.complement()
			}
			set = append(set, s...)
			i += end + 1
			continue
		}
		lo, n, msg := read()
		if msg != "" {
			return nil, msg, i
		}
		start := i
		i += n
		if i+1 < len(text) && text[i] == '-' {
			i++
			hi, n, msg := read()
			if msg != "" {
				return nil, msg, i
			}
			i += n
			if lo > hi {
				return nil, fmt.Sprintf("empty range %q-%q", lo, hi), start
			}
			set = append(set, runeRange{lo, hi})
			continue
		}
		set = append(set, runeRange{lo, lo})
	}
	return set.normalize(), "", 0
}

// property returns the set of a Unicode property name as ANTLR writes
// them: a general category (L, Lu, Nd...), a script (Latin, Greek...), a
// binary property (White_Space...), with an optional "Script=" or
// "General_Category=" prefix.
func property(name string) (charSet, bool) {
	if _, v, ok := strings.Cut(name, "="); ok {
		name = v
	}
	switch name {
	case "Letter":
		name = "L"
	case "Digit", "Decimal_Number":
		name = "Nd"
	case "Alpha", "Alphabetic":
		name = "L"
	case "Alnum":
		return append(fromTable(unicode.L), fromTable(unicode.Nd)...).normalize(), true
	case "Emoji":
		return charSet{{0x1F300, 0x1FAFF}, {0x2600, 0x27BF}}, true
	case "Any":
		return charSet{{0, utf8.MaxRune}}, true
	}
	for _, m := range []map[string]*unicode.RangeTable{unicode.Categories, unicode.Scripts, unicode.Properties} {
		if t, ok := m[name]; ok {
			return fromTable(t), true
		}
	}
	return nil, false
}
