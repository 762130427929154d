package grammar

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/wafer-fuzz/wafer/generators"
)

// This file reads a seed back into the choice sequence the generator
// makes it from. The seed is lexed by the grammar's lexer (lexer.go), its
// tokens parsed by the Earley parser (earley.go), and the derivation is
// answered, decision by decision, to gen.go itself: an oracle stands in
// for the Source at each of its draws (which alternative, how many
// repetitions, which lexer rule and character) and writes the bytes that
// make the draw come out as the seed needs. Those bytes, run through the
// generator as a plain byte stream, give the sequence; the sentence it
// regenerates is compared with the seed, so a reading that drifted from
// the generator is caught, never returned silently.

// SeedReader parses seeds with a grammar and turns their derivations into
// choice sequences of its generator. It is immutable and safe for
// concurrent use.
type SeedReader struct {
	c   *gen
	cfg *cfg
}

// NewSeedReader prepares a reader of seeds for the generator that
// g.Generator(opts) returns (the same start rule and limits).
func (g *Grammar) NewSeedReader(opts Options) (*SeedReader, error) {
	c, err := g.compile(opts)
	if err != nil {
		return nil, err
	}
	return &SeedReader{c: c, cfg: compileCFG(c)}, nil
}

// WithOptions returns a reader for the generator of opts (Fit's result),
// sharing r's parser; opts must have r's start rule.
func (r *SeedReader) WithOptions(opts Options) (*SeedReader, error) {
	if opts.Start != r.c.opts.Start {
		return nil, fmt.Errorf("grammar %s: WithOptions: start rule %q, the reader's is %q", r.c.g.name, opts.Start, r.c.opts.Start)
	}
	c, err := r.c.g.compile(opts)
	if err != nil {
		return nil, err
	}
	return &SeedReader{c: c, cfg: r.cfg}, nil
}

// Tree is a seed's derivation.
type Tree struct {
	r    *SeedReader
	text []byte
	toks []seedToken
	root *ptree
}

// seedToken is one token of the seed the parser sees.
type seedToken struct {
	typ    string
	pieces []piece
}

func (t *seedToken) text(src []byte) []byte {
	return src[t.pieces[0].start:t.pieces[len(t.pieces)-1].end]
}

// Parse lexes data (named name in errors) with the grammar's lexer and
// parses its tokens from the start rule. An input the lexer or parser
// rejects gives an *Error naming name, the line and column, the token
// found and the tokens expected there.
func (r *SeedReader) Parse(name string, data []byte) (*Tree, error) {
	lx := r.c.g.lx
	toks, _, lerr := lx.tokenize(data, nil, true)
	if lerr != nil {
		var le *lexError
		if errors.As(lerr, &le) {
			return nil, &Error{File: name, Pos: position(data, le.pos), Msg: fmt.Sprintf("lexer (mode %s): %s", le.mode, le.msg)}
		}
		return nil, &Error{File: name, Pos: position(data, len(data)), Msg: lerr.Error()}
	}
	t := &Tree{r: r, text: data}
	for _, k := range toks {
		if !k.hidden() {
			t.toks = append(t.toks, seedToken{typ: k.typ(), pieces: k.pieces})
		}
	}
	e, _ := r.cfg.charts.Get().(*earley)
	if e == nil {
		e = &earley{g: r.cfg}
	}
	defer r.cfg.charts.Put(e)
	e.toks = grow(e.toks, len(t.toks))
	for i, k := range t.toks {
		e.toks[i] = ^int32(1 << 30) // a type the parser never asks for
		if n, ok := r.cfg.types[k.typ]; ok {
			e.toks[i] = ^n
		}
	}
	at, ok := e.recognize()
	if !ok {
		want := strings.Join(e.expected(max(at, 0)), ", ")
		if want == "" {
			want = "nothing more"
		}
		if at >= len(t.toks) || at < 0 {
			return nil, &Error{File: name, Pos: position(data, len(data)), Msg: fmt.Sprintf("input ends too early: expected %s", want)}
		}
		k := &t.toks[at]
		return nil, &Error{File: name, Pos: position(data, k.pieces[0].start), Msg: fmt.Sprintf("unexpected %s %q: expected %s", k.typ, clip(k.text(data)), want)}
	}
	t.root = e.derive()
	if t.root == nil {
		return nil, &Error{File: name, Pos: position(data, 0), Msg: "internal error: no derivation in a complete parse"}
	}
	return t, nil
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// position converts a byte offset to a line and column (1-based, the
// column in characters).
func position(data []byte, off int) Pos {
	off = min(off, len(data))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return Pos{Line: line, Col: 1 + utf8.RuneCount(data[start:off])}
}

// String returns the tree indented, one parser rule or token a line:
// rules by name, tokens by type and text.
func (t *Tree) String() string {
	var b strings.Builder
	var walk func(n *node, p *ptree, depth int)
	walk = func(n *node, p *ptree, depth int) {
		if p == nil {
			return
		}
		tok := func(i int32) {
			k := &t.toks[i]
			fmt.Fprintf(&b, "%s%s %q\n", strings.Repeat("  ", depth), k.typ, k.text(t.text))
		}
		switch n.kind {
		case nSeq:
			for i, k := range n.kids {
				walk(k, p.kids[i], depth)
			}
		case nAlt:
			walk(n.kids[p.alt], p.kids[0], depth)
		case nRep:
			for _, e := range p.kids {
				walk(n.kids[0], e, depth)
			}
		case nRef:
			if !n.rule.lexer {
				fmt.Fprintf(&b, "%s%s\n", strings.Repeat("  ", depth), n.rule.name)
				walk(n.rule.body, p.kids[0], depth+1)
			} else if p.tok >= 0 {
				tok(p.tok)
			}
		case nLit, nAnyTok:
			if p.tok >= 0 {
				tok(p.tok)
			}
		}
	}
	walk(t.r.c.start, t.root, 0)
	return b.String()
}

// Tokens returns the number of tokens the parser read (hidden ones not
// counted).
func (t *Tree) Tokens() int { return len(t.toks) }

// Match says how closely the sentence a sequence regenerates matches its
// seed.
type Match uint8

const (
	// MatchBytes: the same bytes.
	MatchBytes Match = iota
	// MatchTokens: the same tokens (types and texts); the text between
	// them (spacing, comments) differs.
	MatchTokens
	// MatchTypes: the same token types, some texts differ (a literal of
	// a case-insensitive grammar, a token longer than the generator's
	// per-token limits).
	MatchTypes
	// MatchNone: the regenerated sentence has other tokens (the seed's
	// derivation goes past the generator's limits).
	MatchNone
)

func (m Match) String() string {
	return [...]string{"bytes", "tokens", "token types", "none"}[m]
}

// ErrNotRegenerated is returned when the sequence read from a seed
// regenerates a sentence with other tokens.
var ErrNotRegenerated = errors.New("the derivation does not regenerate the seed's tokens")

// Sequence returns the choice sequence from which the reader's generator
// makes t's seed, and how closely: the generator's own code is driven by
// the derivation (an oracle answers each of its draws), so what it makes
// is what the sequence replays. opts are the run's options (the
// dictionary decides which draws the generator makes). A MatchNone
// result comes with ErrNotRegenerated.
func (r *SeedReader) Sequence(t *Tree, opts generators.Options) (*generators.Sequence, Match, error) {
	o := &oracle{t: t}
	o.wants = o.flatten(r.c.start, t.root, o.wants)
	generators.Run(func(s *generators.Source) []byte {
		c := r.c
		rr := &run{c: c, s: s, out: make([]byte, 0, 64), stack: []int{0}, o: o}
		rr.dict = c.matchesFor(s.Dictionary())
		rr.gen(c.start)
		return rr.out
	}, nil, opts)
	out, seq := generators.Run(r.c.generate, generators.FromBytes(o.stream), opts)
	m := r.compare(t, out)
	if m == MatchNone {
		why := ""
		if o.failed != "" {
			why = ": " + o.failed
		}
		return seq, m, fmt.Errorf("%w%s", ErrNotRegenerated, why)
	}
	return seq, m, nil
}

// compare says how closely out matches t's seed.
func (r *SeedReader) compare(t *Tree, out []byte) Match {
	if bytes.Equal(out, t.text) {
		return MatchBytes
	}
	toks, _, err := r.c.g.lx.tokenize(out, nil, true)
	if err != nil {
		return MatchNone
	}
	m := MatchTokens
	i := 0
	for _, k := range toks {
		if k.hidden() {
			continue
		}
		if i >= len(t.toks) || k.typ() != t.toks[i].typ {
			return MatchNone
		}
		if !bytes.Equal(out[k.pieces[0].start:k.pieces[len(k.pieces)-1].end], t.toks[i].text(t.text)) {
			m = MatchTypes
		}
		i++
	}
	if i != len(t.toks) {
		return MatchNone
	}
	return m
}

// Fit returns opts with the generator's limits (MaxDepth, MaxSize,
// MaxRepeat, MaxTokenRepeat) raised where the trees' derivations need
// more, up to limit times their defaults (0: no bound). The generator of
// the result can make every seed whose derivation fits.
func (r *SeedReader) Fit(opts Options, trees []*Tree, limit int) Options {
	out := opts
	need := r.c.opts
	for _, t := range trees {
		o := &oracle{t: t}
		o.need = &need
		o.flatten(r.c.start, t.root, nil)
		for i := range t.toks {
			if k := o.token(int32(i)); k != nil {
				need.MaxTokenRepeat = max(need.MaxTokenRepeat, k.maxExtra)
			}
		}
	}
	bound := func(v, def int) int {
		if limit > 0 {
			return min(v, def*limit)
		}
		return v
	}
	if need.MaxDepth > r.c.opts.MaxDepth {
		out.MaxDepth = bound(need.MaxDepth, DefaultMaxDepth)
	}
	if need.MaxSize > r.c.opts.MaxSize {
		out.MaxSize = bound(need.MaxSize, DefaultMaxSize)
	}
	if need.MaxRepeat > r.c.opts.MaxRepeat {
		out.MaxRepeat = bound(need.MaxRepeat, DefaultMaxRepeat)
	}
	if need.MaxTokenRepeat > r.c.opts.MaxTokenRepeat {
		out.MaxTokenRepeat = min(bound(need.MaxTokenRepeat, DefaultMaxTokenRepeat), 255)
	}
	return out
}

// wantKind is the kind of a decision of the generator at parser level.
type wantKind uint8

const (
	wAlt   wantKind = iota // an alternative: the kid
	wCount                 // a repetition: the count
	wAny                   // any token: the index in the node's tokens
	wTok                   // a token: the seed token's index
)

type want struct {
	kind wantKind
	v    int32
}

// oracle answers the generator's draws from a seed's derivation. Parser
// decisions come in the order the generator makes them (flatten); the
// decisions inside a token come from matching its text against the
// lexer rules that made it (lexMatch).
type oracle struct {
	t      *Tree
	wants  []want
	next   int
	stream []byte // the bytes of the draws, in order
	failed string // the first decision the generator could not take

	toks  map[int32]*tokWants
	tok   *tokWants // the token being made
	piece int       // its piece being made (-1: none yet)
	dec   int       // the next decision inside the piece

	need  *Options // Fit: the limits the derivation needs
	depth int
	units int
}

// tokWants are the decisions that make one seed token.
type tokWants struct {
	wide     bool
	alts     []*lexAlt
	decs     [][]int32 // per piece: alternatives, counts and characters in the order lex draws them
	maxExtra int       // the most repetitions beyond a minimum
}

func (o *oracle) fail(format string, a ...any) {
	if o.failed == "" {
		o.failed = fmt.Sprintf(format, a...)
	}
}

// flatten appends the parser-level decisions that derive p from n, in
// the generator's order; with need set it raises the limits they need.
func (o *oracle) flatten(n *node, p *ptree, out []want) []want {
	if p == nil {
		return out
	}
	switch n.kind {
	case nSeq:
		for i, k := range n.kids {
			if i < len(p.kids) {
				out = o.flatten(k, p.kids[i], out)
			}
		}
	case nAlt:
		out = append(out, want{wAlt, p.alt})
		if o.need != nil && !n.literals {
			o.need.MaxSize = max(o.need.MaxSize, o.units+1)
			o.need.MaxDepth = max(o.need.MaxDepth, o.depth+n.kids[p.alt].height)
		}
		if n.literals {
			o.units++
		} else if len(p.kids) > 0 {
			out = o.flatten(n.kids[p.alt], p.kids[0], out)
		}
	case nRep:
		out = append(out, want{wCount, int32(len(p.kids))})
		if o.need != nil && len(p.kids) > n.min {
			o.need.MaxSize = max(o.need.MaxSize, o.units+1)
			o.need.MaxDepth = max(o.need.MaxDepth, o.depth+n.kids[0].height)
			o.need.MaxRepeat = max(o.need.MaxRepeat, len(p.kids)-n.min)
		}
		for _, e := range p.kids {
			out = o.flatten(n.kids[0], e, out)
		}
	case nRef:
		if n.rule.lexer {
			if p.tok >= 0 {
				out = append(out, want{wTok, p.tok})
				o.units++
			}
			break
		}
		o.units++
		o.depth++
		if len(p.kids) > 0 {
			out = o.flatten(n.rule.body, p.kids[0], out)
		}
		o.depth--
	case nLit:
		o.units++
	case nAnyTok:
		out = append(out, want{wAny, p.alt}, want{wTok, p.tok})
		if o.need != nil {
			o.need.MaxSize = max(o.need.MaxSize, o.units+1)
		}
		o.units++
	}
	return out
}

// want returns the next parser-level decision, which must be of kind k
// (-1 when generating, or when the derivation has no such decision here).
func (r *run) want(k wantKind) int {
	o := r.o
	if o == nil {
		return -1
	}
	if o.next >= len(o.wants) || o.wants[o.next].kind != k {
		o.fail("the generator asked for a decision the derivation does not have")
		return -1
	}
	o.next++
	return int(o.wants[o.next-1].v)
}

// pickS is a structural draw in [0, n): the Source's, or, reading a seed,
// i (the oracle writes the bytes from which Pick returns it).
func (r *run) pickS(n, i int) int {
	if r.o == nil {
		return r.s.Pick(n)
	}
	if i < 0 || i >= n {
		r.o.fail("the generator cannot take the seed's choice (%d of %d): a limit", i, n)
		i = 0
	}
	r.o.stream = generators.AppendPick(r.o.stream, n, i)
	return i
}

// pickV is pick (a value draw in [0, n)) or, reading a seed, i.
func (r *run) pickV(n, i int) int {
	if r.o == nil {
		return r.pick(n)
	}
	if n <= 1 {
		return 0
	}
	if i < 0 || i >= n {
		r.o.fail("the generator cannot take the seed's choice (%d of %d) in a token", i, n)
		i = 0
	}
	r.o.stream = append(r.o.stream, byte(i), byte(i>>8))
	return i
}

// drawV is a value draw of len(enc) bytes: the Source's, or, reading a
// seed, enc.
func (r *run) drawV(enc ...byte) []byte {
	if r.o == nil {
		return r.s.Draw(generators.Value, len(enc))
	}
	r.o.stream = append(r.o.stream, enc...)
	return r.o.stream[len(r.o.stream)-len(enc):] // enc stays on the caller's stack
}

// forced checks, reading a seed, that a decision the generator took
// without a draw (a limit reached) is the derivation's w; it returns v.
func (r *run) forced(w, v int) int {
	if r.o != nil && w != v {
		r.o.fail("the generator's limits force %d where the seed has %d", v, w)
	}
	return v
}

// beginToken starts the seed's next token.
func (o *oracle) beginToken(r *run) {
	i := r.want(wTok)
	o.tok = nil
	if i >= 0 {
		o.tok = o.token(int32(i))
	}
	if o.tok == nil {
		o.fail("token %d: no derivation by its lexer rules", i)
	}
}

// restartToken starts the token's derivation over (the generator draws a
// token again when the lexer would read it otherwise).
func (o *oracle) restartToken() {
	if o != nil {
		o.piece, o.dec = -1, 0
	}
}

// wideIdx is the value of the draw that decides whether the token draws
// from the whole of its sets: 0 (wide) or w (narrow, w the threshold).
func (o *oracle) wideIdx(w int) int {
	if o == nil || o.tok == nil || o.tok.wide {
		return 0
	}
	return w
}

// nextPiece returns the lexer alternative of the token's next piece (nil
// when generating).
func (o *oracle) nextPiece() *lexAlt {
	if o == nil || o.tok == nil {
		return nil
	}
	o.piece++
	o.dec = 0
	if o.piece >= len(o.tok.alts) {
		o.fail("the generator makes more pieces than the seed's token has")
		return nil
	}
	return o.tok.alts[o.piece]
}

// lexWant returns the next decision inside the current piece (-1 when
// generating).
func (o *oracle) lexWant() int {
	if o == nil || o.tok == nil || o.piece < 0 || o.piece >= len(o.tok.decs) {
		return -1
	}
	d := o.tok.decs[o.piece]
	if o.dec >= len(d) {
		o.fail("the generator makes more of a token than the seed's")
		return -1
	}
	o.dec++
	return int(d[o.dec-1])
}

// repBytes encodes extra repetitions of a lexer loop as lex reads them.
func repBytes(extra int) (byte, byte) {
	if extra <= 2 {
		return 0, byte(extra)
	}
	return 255, byte(extra)
}

// charBytes encodes character c of set n as char reads it.
func (o *oracle) charBytes(n *node, wide bool, c int) [4]byte {
	pick := n.ascii
	if len(pick) == 0 {
		pick = n.print
	}
	sel := byte(0)
	i := pick.index(rune(c))
	if len(pick) == 0 {
		i = n.valid.index(rune(c))
	}
	if i < 0 && wide && len(n.print) > 0 {
		sel, i = 128, n.print.index(rune(c))
	}
	if i < 0 && wide {
		sel, i = 255, n.valid.index(rune(c))
	}
	if i < 0 {
		o.fail("character %q: not drawn by the generator here", rune(c))
		i = 0
	}
	return [4]byte{sel, byte(i), byte(i >> 8), byte(i >> 16)}
}

// index returns the position of x in c, or -1.
func (c charSet) index(x rune) int {
	i := 0
	for _, r := range c {
		if x >= r.lo && x <= r.hi {
			return i + int(x-r.lo)
		}
		i += int(r.hi-r.lo) + 1
	}
	return -1
}

// token returns the decisions that make seed token i (nil when its text
// has no derivation by the lexer rules that read it).
func (o *oracle) token(i int32) *tokWants {
	if k, ok := o.toks[i]; ok {
		return k
	}
	if o.toks == nil {
		o.toks = map[int32]*tokWants{}
	}
	st := &o.t.toks[i]
	var k *tokWants
	for _, wide := range []bool{false, true} {
		k = &tokWants{wide: wide}
		for _, p := range st.pieces {
			k.alts = append(k.alts, p.alt)
			var dec []int32
			if p.alt.act.kind != aHidden {
				m := &lexMatcher{text: o.t.text[:p.end], wide: wide}
				if !m.match(p.alt.body, p.start, func(j int) bool { return j == p.end }) {
					k = nil
					break
				}
				dec = m.dec
				k.maxExtra = max(k.maxExtra, m.maxExtra)
			}
			k.decs = append(k.decs, dec)
		}
		if k != nil {
			break
		}
	}
	o.toks[i] = k
	return k
}

// lexMatcher finds a derivation of a text by a lexer node, recording the
// decisions lex draws (alternatives, counts, characters) in its order.
type lexMatcher struct {
	text     []byte
	wide     bool // sets may give any of their characters, alternatives any kid
	dec      []int32
	steps    int
	depth    int
	maxExtra int
}

const maxMatchSteps = 1 << 16

// match reports whether n derives text from i to some j for which k
// holds, leaving the decisions of that derivation in m.dec.
func (m *lexMatcher) match(n *node, i int, k func(int) bool) bool {
	if m.steps++; m.steps > maxMatchSteps {
		return false
	}
	mark := len(m.dec)
	switch n.kind {
	case nSeq:
		return m.seq(n.kids, i, k)
	case nAlt:
		for a, kid := range n.kids {
			if !m.wide && len(n.asciiAlts) > 0 && !slices.Contains(n.asciiAlts, a) {
				continue
			}
			m.dec = append(m.dec[:mark], int32(a))
			if m.match(kid, i, k) {
				return true
			}
		}
		m.dec = m.dec[:mark]
		return false
	case nRep:
		m.dec = append(m.dec, 0)
		return m.rep(n, mark, i, 0, k)
	case nRef:
		if m.depth >= maxLexDepth {
			return false
		}
		// depth counts the references being matched, not those of the
		// continuation, which runs inside this call
		m.depth++
		ok := m.match(n.rule.body, i, func(j int) bool {
			m.depth--
			ok := k(j)
			m.depth++
			return ok
		})
		m.depth--
		return ok
	case nLit:
		t := n.text
		if i+len(t) > len(m.text) {
			return false
		}
		got := string(m.text[i : i+len(t)])
		if got != t && !(n.fold && strings.EqualFold(got, t)) {
			return false
		}
		return k(i + len(t))
	case nSet:
		if i >= len(m.text) {
			return false
		}
		c, size := utf8.DecodeRune(m.text[i:])
		pick := n.ascii
		if len(pick) == 0 {
			pick = n.print
		}
		if !pick.contains(c) && !(m.wide && n.valid.contains(c)) {
			return false
		}
		m.dec = append(m.dec, int32(c))
		if k(i + size) {
			return true
		}
		m.dec = m.dec[:mark]
		return false
	case nEOF:
		return k(i)
	}
	return false
}

func (m *lexMatcher) seq(kids []*node, i int, k func(int) bool) bool {
	if len(kids) == 0 {
		return k(i)
	}
	return m.match(kids[0], i, func(j int) bool { return m.seq(kids[1:], j, k) })
}

// rep matches more elements of repetition n (count so far c, its count
// decision at m.dec[at]), as many as possible first.
func (m *lexMatcher) rep(n *node, at, i, c int, k func(int) bool) bool {
	mark := len(m.dec)
	if n.max < 0 || c < n.max {
		if m.match(n.kids[0], i, func(j int) bool {
			return j > i && m.rep(n, at, j, c+1, k)
		}) {
			return true
		}
		m.dec = m.dec[:mark]
	}
	if c >= n.min {
		m.dec[at] = int32(c)
		if k(i) {
			m.maxExtra = max(m.maxExtra, c-n.min)
			return true
		}
	}
	m.dec = m.dec[:mark]
	if c == 0 {
		m.dec = m.dec[:at]
	}
	return false
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// indexOf returns the position in cands of the token the derivation
// takes for any-token node n (w: its index in n.tokens); -1 when
// generating.
func (o *oracle) indexOf(cands []*rule, n *node, w int) int {
	if o == nil || w < 0 || w >= len(n.tokens) {
		return -1
	}
	return slices.Index(cands, n.tokens[w])
}

// Seeds is a seed corpus read with a grammar (Grammar.ReadSeeds): what a
// campaign needs to start from it (campaign.Options' Generator, Seeds
// and ReadSeed).
type Seeds struct {
	// Options are the generator's: the given ones with the limits raised
	// where the seeds' derivations need it (Fit, at most FitLimit times
	// the defaults).
	Options Options
	// Generator is the grammar's generator with Options.
	Generator generators.Generator
	// Parsed are the seeds that parse, in order.
	Parsed [][]byte
	// Failed names the seeds that do not parse, with why.
	Failed []SeedError
	// ReadSeed returns the choice sequence from which Generator makes a
	// parsed seed; an error when it regenerates other tokens.
	ReadSeed func(seed []byte, opts generators.Options) (*generators.Sequence, error)

	sr     *SeedReader
	trees  []*Tree
	byText map[string]*Tree
}

// SeedError is a seed that does not parse.
type SeedError struct {
	Name string
	Err  error
}

// FitLimit bounds how far ReadSeeds raises each limit of the generator:
// this many times its default.
const FitLimit = 16

// ReadSeeds parses seeds (names[i] names seeds[i] in errors) from the
// start rule of opts and prepares the generator that regenerates them.
// A seed that does not parse is left out and named in Failed, never an
// error; the error is for options the grammar cannot generate with.
func (g *Grammar) ReadSeeds(opts Options, names []string, seeds [][]byte) (*Seeds, error) {
	sr, err := g.NewSeedReader(opts)
	if err != nil {
		return nil, err
	}
	out := &Seeds{}
	// The seeds parse in parallel (the reader is safe for concurrent
	// use); the results are kept in seed order.
	parsed := make([]*Tree, len(seeds))
	errs := make([]error, len(seeds))
	name := func(i int) string {
		if i < len(names) {
			return names[i]
		}
		return fmt.Sprintf("seed %d", i)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(seeds)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(seeds); i = int(next.Add(1) - 1) {
				parsed[i], errs[i] = sr.Parse(name(i), seeds[i])
			}
		})
	}
	wg.Wait()
	trees := make([]*Tree, 0, len(seeds))
	byText := make(map[string]*Tree, len(seeds))
	for i, s := range seeds {
		if errs[i] != nil {
			out.Failed = append(out.Failed, SeedError{Name: name(i), Err: errs[i]})
			continue
		}
		out.Parsed = append(out.Parsed, s)
		trees = append(trees, parsed[i])
		byText[string(s)] = parsed[i]
	}
	out.sr, out.trees, out.byText = sr, trees, byText
	if err := out.prepare(sr.Fit(opts, trees, FitLimit)); err != nil {
		return nil, err
	}
	return out, nil
}

// Learned returns the seeds with a generator whose draws follow the
// profile of the seeds that parse (Options.Profile: SeedReader.Learn),
// the same limits and the same seeds.
func (s *Seeds) Learned() (*Seeds, error) {
	out := &Seeds{Parsed: s.Parsed, Failed: s.Failed, sr: s.sr, trees: s.trees, byText: s.byText}
	opts := s.Options
	opts.Profile = s.Profile()
	if err := out.prepare(opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Profile is the profile of the seeds that parse (SeedReader.Learn).
func (s *Seeds) Profile() *Profile { return s.sr.Learn(s.trees) }

// prepare sets Options, and Generator and ReadSeed with them.
func (s *Seeds) prepare(opts Options) error {
	s.Options = opts
	fr, err := s.sr.WithOptions(opts)
	if err != nil {
		return err
	}
	s.Generator = fr.c.generate
	s.ReadSeed = func(seed []byte, gopts generators.Options) (*generators.Sequence, error) {
		t, ok := s.byText[string(seed)]
		if !ok {
			var err error
			if t, err = fr.Parse("seed", seed); err != nil {
				return nil, err
			}
		}
		q, _, err := fr.Sequence(t, gopts)
		if err != nil {
			return nil, err
		}
		return q, nil
	}
	return nil
}
