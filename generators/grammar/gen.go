package grammar

import (
	"fmt"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/wafer-fuzz/wafer/generators"
)

// Options configure a grammar generator. The zero value works: the first
// parser rule, the default limits, spacing from the grammar.
type Options struct {
	// Start is the rule sentences derive from. "": the first parser rule;
	// in a lexer grammar, a sequence of one or more of its tokens.
	Start string
	// MaxDepth caps the nesting of parser rules: an alternative or a
	// repetition that cannot end within it is not taken. 0 means
	// DefaultMaxDepth. A start rule whose minimal height exceeds it still
	// yields its shortest derivation.
	MaxDepth int
	// MaxSize caps the rule expansions and tokens of a sentence: past it,
	// every choice takes its shortest derivation (alternative of minimal
	// size, repetitions at their minimum). 0 means DefaultMaxSize.
	MaxSize int
	// MaxRepeat caps the repetitions of ?, * and + in parser rules beyond
	// their minimum. 0 means DefaultMaxRepeat.
	MaxRepeat int
	// MaxTokenRepeat caps the repetitions of *, + in lexer rules beyond
	// their minimum. 0 means DefaultMaxTokenRepeat.
	MaxTokenRepeat int
	// Separator, when not "", is written between every two tokens. With
	// Separator "" and NoSeparator false a separator goes only where the
	// grammar's lexer would otherwise join the two tokens (or split them
	// differently), and it is the first of " ", "\n", "\t", "\r\n" and
	// the shortest text of each hidden rule that the rules of the current
	// mode lex as skipped or hidden tokens.
	Separator string
	// NoSeparator writes tokens with nothing between them.
	NoSeparator bool
	// WideChars is the probability that a token draws its characters from
	// the whole range its character sets, ~ and . allow; otherwise they
	// come from the printable part (printable ASCII when the set has some,
	// else graphic Unicode). 0 means DefaultWideChars; a negative value
	// means never. The default, 1/64, leaves most sentences of a
	// name-heavy format without a character beyond ASCII (at 1/16 half of
	// the XML and Java sentences of grammars-v4 had one).
	WideChars float64
	// Profile, when not nil, is a sample's profile of this grammar
	// (SeedReader.Learn): alternatives and repetition counts are drawn
	// with its frequencies, and tokens take its texts (see Profile). nil:
	// uniform draws.
	Profile *Profile
}

// Default limits (see Options).
const (
	DefaultMaxDepth       = 12
	DefaultMaxSize        = 200
	DefaultMaxRepeat      = 4
	DefaultMaxTokenRepeat = 8
	DefaultWideChars      = 1.0 / 64
	maxMore               = 16 // more pieces of one token
	maxTokenTries         = 8  // derivations of a token until the lexer reads it back as made
	maxLexDepth           = 12 // fragment nesting inside one token
	maxLexSize            = 64 // characters of one token before shortest derivations
	runawayDepth          = 64 // parser rules past MaxDepth before gates are ignored
	dictShare             = 64 // of 256: a token with matching dictionary entries takes one
)

// gen is a compiled generator: a grammar and its options. It is
// immutable except for the dictionary cache, which a mutex guards.
type gen struct {
	g      *Grammar
	start  *node
	opts   Options
	sep    []byte   // Options.Separator
	seps   []string // separator candidates (Options.Separator ""): "", then whitespace
	spaces int      // seps[:spaces] are "" and whitespace; the rest, other hidden texts
	wide   int      // of 65536: tokens drawing from the whole range
	// per mode: the alternatives emitting each type, the more ones, and
	// how many more pieces at least lead from the mode to each type
	prod []map[string][]*lexAlt
	more [][]*lexAlt
	dist []map[string]int
	// every alternative emitting each type, whatever its mode
	anyProd map[string][]*lexAlt
	alts    int // number of lexer alternatives (dictionary slots)
	// offside: INDENT and DEDENT are declared without a rule (a lexer
	// superclass emits them, as grammars-v4's Python grammars do) and
	// NEWLINE has one: the generator writes the indentation itself
	offside bool

	mu    sync.Mutex
	cache map[*[]byte]*dictMatches
}

// dictMatches holds, per lexer alternative, the dictionary entries the
// lexer reads, in its mode, as exactly one match of it.
type dictMatches struct {
	n       int
	entries [][][]byte
}

// Generator returns a generator of the grammar's sentences (a
// generators.Generator, usable with engine.FromGenerator). Each
// alternative and repetition count of a parser rule is a structural draw,
// made in a frame typed with the rule's name; each token is generated in
// a frame typed with its type by value draws (the lexer rules that make
// it in the current mode, alternatives, repetitions and characters
// alike), or taken from the run's dictionary when one of those rules
// matches an entry. The same choice sequence gives the same sentence.
func (g *Grammar) Generator(opts Options) (generators.Generator, error) {
	c, err := g.compile(opts)
	if err != nil {
		return nil, err
	}
	return c.generate, nil
}

func (g *Grammar) compile(opts Options) (*gen, error) {
	c := &gen{g: g, opts: opts}
	if c.opts.MaxDepth <= 0 {
		c.opts.MaxDepth = DefaultMaxDepth
	}
	if c.opts.MaxSize <= 0 {
		c.opts.MaxSize = DefaultMaxSize
	}
	if c.opts.MaxRepeat <= 0 {
		c.opts.MaxRepeat = DefaultMaxRepeat
	}
	if c.opts.MaxTokenRepeat <= 0 {
		c.opts.MaxTokenRepeat = DefaultMaxTokenRepeat
	}
	switch w := c.opts.WideChars; {
	case w == 0:
		c.wide = int(DefaultWideChars * 65536)
	case w > 0:
		c.wide = int(min(w, 1) * 65536)
	}
	c.index()
	if p := opts.Profile; p != nil && p.g != g {
		return nil, fmt.Errorf("grammar %s: a profile learned with grammar %s", g.name, p.g.name)
	}
	switch {
	case opts.Start != "":
		r, ok := g.byName[opts.Start]
		if !ok {
			return nil, fmt.Errorf("grammar %s: no rule %s to start from", g.name, opts.Start)
		}
		if r.fragment || r.hidden {
			return nil, fmt.Errorf("grammar %s: cannot start from %s, a fragment or skipped token", g.name, opts.Start)
		}
		c.start = &node{kind: nRef, name: r.name, rule: r}
	case g.first != nil:
		c.start = &node{kind: nRef, name: g.first.name, rule: g.first}
	default:
		any := &node{kind: nAnyTok}
		for _, t := range g.rules {
			if t.lexer && !t.fragment && !t.hidden {
				any.tokens = append(any.tokens, t)
			}
		}
		if len(any.tokens) == 0 {
			return nil, fmt.Errorf("grammar %s: no token to generate", g.name)
		}
		c.start = &node{kind: nRep, min: 1, max: -1, greedy: true, kids: []*node{any}}
	}
	measureNode(c.start, false)
	ruleless := func(name string) bool {
		r, ok := g.byName[name]
		return ok && r.lexer && len(c.anyProd[name]) == 0
	}
	c.offside = ruleless("INDENT") && ruleless("DEDENT") && len(c.anyProd["NEWLINE"]) > 0
	switch {
	case opts.NoSeparator:
	case opts.Separator != "":
		c.sep = []byte(opts.Separator)
	default:
		// whitespace first: a comment-like skipped text (XMLLexer's
		// DTD, '<!' .*? '>') may be one the format refuses
		c.seps = []string{"", " ", "\n", "\t", "\r\n"}
		var others []string
		for _, m := range g.lx.modes {
			for _, a := range m.alts {
				if a.act.kind == aHidden && len(a.act.ops) == 0 {
					t := shortest(a.body)
					switch {
					case t == "" || slices.Contains(c.seps, t) || slices.Contains(others, t):
					case isSpace(t):
						c.seps = append(c.seps, t)
					default:
						others = append(others, t)
					}
				}
			}
		}
		c.spaces = len(c.seps)
		c.seps = append(c.seps, others...)
	}
	return c, nil
}

// index prepares the lexer alternatives by mode and type.
func (c *gen) index() {
	lx := c.g.lx
	n := len(lx.modes)
	c.prod = make([]map[string][]*lexAlt, n)
	c.more = make([][]*lexAlt, n)
	c.dist = make([]map[string]int, n)
	c.anyProd = map[string][]*lexAlt{}
	for m, md := range lx.modes {
		c.prod[m] = map[string][]*lexAlt{}
		c.dist[m] = map[string]int{}
		for _, a := range md.alts {
			c.alts = max(c.alts, a.id+1)
			switch {
			case a.implicit:
				// a parser literal names its alternative directly
			case a.act.kind == aEmit:
				c.prod[m][a.typ] = append(c.prod[m][a.typ], a)
				c.anyProd[a.typ] = append(c.anyProd[a.typ], a)
				c.dist[m][a.typ] = 0
			case a.act.kind == aMore:
				c.more[m] = append(c.more[m], a)
			case len(a.act.ops) > 0 && a.nullable && shortest(a.body) == "":
				// an empty match that changes modes: the lexer takes it
				// where nothing else matches (GoLexer's OTHER)
				c.more[m] = append(c.more[m], a)
			}
		}
	}
	// more pieces that push or set a mode lead to the types of that mode
	// (popMode's target is known only when generating).
	for changed := true; changed; {
		changed = false
		for m := range lx.modes {
			for _, a := range c.more[m] {
				next := m
				pops := false
				for _, op := range a.act.ops {
					if op.kind == 'o' {
						pops = true
					} else {
						next = op.mode
					}
				}
				if pops {
					continue
				}
				for typ, d := range c.dist[next] {
					if old, ok := c.dist[m][typ]; (!ok || d+1 < old) && d+1 < maxMore {
						c.dist[m][typ] = d + 1
						changed = true
					}
				}
			}
		}
	}
}

// shortest returns the shortest text of a lexer node (sets give their
// first printable character).
func shortest(n *node) string {
	switch n.kind {
	case nSeq:
		var b []byte
		for _, k := range n.kids {
			b = append(b, shortest(k)...)
		}
		return string(b)
	case nAlt:
		return shortest(n.kids[argmin(n.kids, func(k *node) int { return k.size })])
	case nRep:
		if n.min == 0 {
			return ""
		}
		return shortest(n.kids[0])
	case nRef:
		return shortest(n.rule.body)
	case nLit:
		return n.text
	case nSet:
		if len(n.ascii) > 0 {
			return string(n.ascii[0].lo)
		}
		if len(n.valid) > 0 {
			return string(n.valid[0].lo)
		}
	}
	return ""
}

// run is the state of one generation.
type run struct {
	c      *gen
	s      *generators.Source
	out    []byte
	depth  int // parser rules on the stack
	units  int // rule expansions and tokens so far
	tokens int
	dict   *dictMatches
	stack  []int // the lexer's mode stack after the last token
	// the last token: where it starts, the mode stack before it, its
	// pieces (a separator before the next token is decided with them)
	prevStart  int
	prevStack  []int
	prevPieces []*lexAlt
	rec        *[]genToken // the tokens made, when recorded (tests)
	scratch    []byte
	wbuf       []int   // weights of a profiled draw
	pbuf       []int64 // their probabilities (weights)
	lbuf       [][]int // their contexts' counts (profileLevels)
	sites      []*node // the references to the parser rules being expanded, outermost first (the profile's contexts)
	pos        int     // the element of the innermost repetition being made (the profile's texts)
	// inside a token
	lexDepth int
	lexSize  int
	wide     bool
	// offside (see gen.offside): the indentation level, and whether the
	// last token was a NEWLINE
	indent    int
	lineStart bool
	// o, when reading a seed back (seedparse.go), answers every draw
	// from the seed's derivation instead of the Source: each draw site
	// below asks it through want, pickS, pickV, drawV and forced, which
	// are the Source's draws when o is nil.
	o *oracle
}

// genToken is a token as the generator made it.
type genToken struct {
	typ  string
	text string
}

func (c *gen) generate(s *generators.Source) []byte {
	out, _ := c.sentence(s, false)
	return out
}

// sentence generates one sentence and, with record, its tokens.
func (c *gen) sentence(s *generators.Source, record bool) ([]byte, []genToken) {
	r := &run{c: c, s: s, out: make([]byte, 0, 64), stack: []int{0}}
	var toks []genToken
	if record {
		r.rec = &toks
	}
	r.dict = c.matchesFor(s.Dictionary())
	r.gen(c.start)
	return r.out, toks
}

// matchesFor returns the dictionary entries each lexer alternative
// matches, computed once per dictionary.
func (c *gen) matchesFor(dict [][]byte) *dictMatches {
	if len(dict) == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if m, ok := c.cache[&dict[0]]; ok && m.n == len(dict) {
		return m
	}
	m := &dictMatches{n: len(dict), entries: make([][][]byte, c.alts)}
	for _, e := range dict {
		if !utf8.Valid(e) || len(e) == 0 {
			continue
		}
		// The lexer decides, in each mode, which alternative reads the
		// entry (a parser literal first, then the first rule listed):
		// only that one gets it, so a keyword never fills an
		// identifier's place.
		for mode := range c.g.lx.modes {
			toks, _, err := c.g.lx.tokenize(e, []int{mode}, true)
			if err != nil || len(toks) != 1 || len(toks[0].pieces) != 1 {
				continue
			}
			if a := toks[0].pieces[0].alt; a.act.kind == aEmit && !a.implicit {
				m.entries[a.id] = append(m.entries[a.id], e)
			}
		}
	}
	if c.cache == nil || len(c.cache) >= 64 {
		c.cache = map[*[]byte]*dictMatches{}
	}
	c.cache[&dict[0]] = m
	return m
}

func (r *run) minimal() bool { return r.units >= r.c.opts.MaxSize }

// gen generates a parser-level node.
func (r *run) gen(n *node) {
	switch n.kind {
	case nSeq:
		for _, k := range n.kids {
			r.gen(k)
		}
	case nAlt:
		if n.literals {
			// A pick among literals ('+' | '-') fills one leaf: a value
			// draw. Always one draw, so it shifts no later index.
			w := r.want(wAlt)
			if levels, ok := r.profileLevels(n); ok {
				r.literal(n.kids[r.pickWV(r.weights(levels, len(n.kids), nil, false), w)].text)
				return
			}
			b := r.drawV(byte(w), byte(w>>8))
			r.literal(n.kids[r.forced(w, (int(b[0])|int(b[1])<<8)%len(n.kids))].text)
			return
		}
		r.gen(n.kids[r.chooseAlt(n)])
	case nRep:
		lo, hi := n.min, n.min
		if !r.minimal() && r.depth+n.kids[0].height <= r.c.opts.MaxDepth {
			hi = n.min + r.c.opts.MaxRepeat
			if n.max >= 0 {
				hi = min(hi, n.max)
			}
		}
		// The count is uniform in [lo, hi] (one structural draw, none when
		// lo == hi); each element runs in its own frame (Repeat), so the
		// draws of one do not shift those of the next.
		w := r.want(wCount)
		count := lo
		if levels, ok := r.profileLevels(n); ok && hi > lo {
			count += r.pickW(r.weights(levels, hi-lo+1, nil, true), w-lo) // lo is n.min
		} else if hi > lo {
			count += r.pickS(hi-lo+1, w-lo)
		}
		count = r.forced(w, count)
		pos := r.pos
		generators.Repeat(r.s, count, count, func(_ *generators.Source, i int) {
			r.pos = i
			r.gen(n.kids[0])
		})
		r.pos = pos
	case nRef:
		if n.rule.lexer {
			r.token(n.rule.name)
			return
		}
		r.s.Enter(n.rule.name)
		r.depth++
		r.units++
		r.sites = append(r.sites, n)
		r.gen(n.rule.body)
		r.sites = r.sites[:len(r.sites)-1]
		r.depth--
		r.s.Leave()
	case nLit:
		r.literal(n.text)
	case nAnyTok:
		// The tokens the lexer can make in the current mode, else any.
		w := r.want(wAny)
		var buf [64]*rule
		cands := buf[:0]
		top := r.stack[len(r.stack)-1]
		for _, t := range n.tokens {
			if _, ok := r.c.dist[top][t.name]; ok {
				cands = append(cands, t)
			}
		}
		if len(cands) == 0 {
			for _, t := range n.tokens {
				if len(r.c.anyProd[t.name]) > 0 {
					cands = append(cands, t)
				}
			}
		}
		if len(cands) == 0 {
			return
		}
		i := 0
		if !r.minimal() {
			i = r.pickS(len(cands), r.o.indexOf(cands, n, w))
		} else {
			for j, t := range cands {
				if t.size < cands[i].size {
					i = j
				}
			}
		}
		r.forced(r.o.indexOf(cands, n, w), i)
		r.token(cands[i].name)
	}
}

// chooseAlt picks an alternative by a structural draw among those that
// can end within the depth limit, or, past the size limit or when none
// can, the first of minimal size (or height) without a draw (past the
// size limit, gated ones last). Gated
// alternatives (a semantic predicate, which the generator cannot
// evaluate, or EOF, which holds only at the input's end) are among the
// candidates only when no other alternative is, and so are alternatives
// starting with a token the lexer cannot make in its current mode
// (GoParser's eos : SEMI | EOS, EOS being made only after an operand).
func (r *run) chooseAlt(n *node) int {
	w := r.want(wAlt)
	if r.minimal() {
		if r.depth > r.c.opts.MaxDepth+runawayDepth {
			// Putting gated alternatives last can lead round a cycle
			// whose only way out is gated (HyperTalk.g4); the minimal
			// size alone always ends.
			return r.forced(w, argmin(n.kids, func(k *node) int { return k.size }))
		}
		return r.forced(w, argmin(n.kids, func(k *node) int {
			if k.gated || r.unmade(k) {
				return k.size + 1<<20
			}
			return k.size
		}))
	}
	room := r.c.opts.MaxDepth - r.depth
	var buf [32]int
	ok := buf[:0]
	for i, k := range n.kids {
		if k.height <= room && !k.gated && !r.unmade(k) {
			ok = append(ok, i)
		}
	}
	if len(ok) == 0 {
		ok = fitting(ok, n.kids, room)
	}
	if len(ok) == 0 {
		return r.forced(w, argmin(n.kids, func(k *node) int { return k.height }))
	}
	if levels, has := r.profileLevels(n); has {
		return ok[r.pickW(r.weights(levels, len(ok), ok, false), slices.Index(ok, w))]
	}
	return ok[r.pickS(len(ok), slices.Index(ok, w))]
}

// unmade reports whether alternative k starts with a token that a rule
// makes but none in the lexer's current mode.
func (r *run) unmade(k *node) bool {
	if k.kind == nSeq && len(k.kids) > 0 {
		k = k.kids[0]
	}
	if k.kind != nRef || !k.rule.lexer || len(r.c.anyProd[k.rule.name]) == 0 {
		return false
	}
	_, ok := r.c.dist[r.stack[len(r.stack)-1]][k.rule.name]
	return !ok
}

// fitting appends to ok the indexes of the kids that can end within room
// levels.
func fitting(ok []int, kids []*node, room int) []int {
	for i, k := range kids {
		if k.height <= room {
			ok = append(ok, i)
		}
	}
	return ok
}

func argmin(kids []*node, f func(*node) int) int {
	best := 0
	for i, k := range kids {
		if f(k) < f(kids[best]) {
			best = i
		}
	}
	return best
}

// literal places the token a parser literal names (no draw).
func (r *run) literal(text string) {
	r.units++
	a := r.c.g.lx.lits[text]
	after, err := applyOps(r.stack, a.act.ops)
	if err != nil {
		after = r.stack
	}
	sep, merge, _ := r.separator([]byte(text), []*lexAlt{a}, r.stack)
	r.place([]byte(text), []*lexAlt{a}, r.stack, after, sep, merge)
}

// token generates one token of type typ in a frame typed with it: the
// lexer alternatives that make it from the current mode (more pieces,
// then one that emits), each derived by value draws. A derivation the
// lexer would read otherwise (an identifier that is a keyword, a
// terminator inside a string) is drawn again, up to maxTokenTries times.
func (r *run) token(typ string) {
	if r.c.offside {
		switch typ {
		case "INDENT":
			r.indent++
			return
		case "DEDENT":
			r.indent = max(r.indent-1, 0)
			return
		case "NEWLINE":
			r.newline()
			return
		}
	}
	if len(r.c.anyProd[typ]) == 0 {
		return // declared in tokens {} and made by no rule: derives ""
	}
	r.s.Enter(typ)
	defer r.s.Leave()
	if r.o != nil {
		r.o.beginToken(r)
	}
	r.units++
	before := r.stack
	var text, sep []byte
	var pieces []*lexAlt
	var after []int
	merge, found := false, false
	for range maxTokenTries {
		text, pieces, after = r.derive(typ, before)
		if len(pieces) == 0 || !r.c.g.lx.readsAs(text, before, pieces) {
			continue
		}
		if sep, merge, found = r.separator(text, pieces, before); found {
			break
		}
	}
	if len(pieces) == 0 {
		return
	}
	if !found {
		sep, merge, _ = r.separator(text, pieces, before)
	}
	r.place(text, pieces, before, after, sep, merge)
}

// newline places a NEWLINE of an offside grammar: a line break, without
// draws; the next token other than a NEWLINE starts with the indentation
// of its level (place).
func (r *run) newline() {
	r.units++
	text := []byte("\n")
	pieces := r.c.anyProd["NEWLINE"][:1]
	sep, _, _ := r.separator(text, pieces, r.stack)
	r.place(text, pieces, r.stack, r.stack, sep, false)
	r.lineStart = true
}

// pick returns a value draw in [0, n).
func (r *run) pick(n int) int {
	if n <= 1 {
		return 0
	}
	b := r.s.Draw(generators.Value, 2)
	return (int(b[0]) | int(b[1])<<8) % n
}

// derive makes the text of one token of type typ from mode stack before:
// zero or more more pieces, then a piece that emits typ.
func (r *run) derive(typ string, before []int) ([]byte, []*lexAlt, []int) {
	c := r.c
	r.lexDepth, r.lexSize = 0, 0
	r.o.restartToken()
	r.wide = c.wide > 0 && (c.wide >= 65536 || r.pickV(65536, r.o.wideIdx(c.wide)) < c.wide)
	stack := before
	var text []byte
	var pieces []*lexAlt
	for step := 0; ; step++ {
		top := stack[len(stack)-1]
		direct := c.prod[top][typ]
		var buf [16]*lexAlt
		mores := buf[:0]
		if step < maxMore && r.lexSize < maxLexSize {
			for _, a := range c.more[top] {
				nx, err := applyOps(stack, a.act.ops)
				if err != nil {
					continue
				}
				if d, ok := c.dist[nx[len(nx)-1]][typ]; ok && d < maxMore-step {
					mores = append(mores, a)
				}
			}
		}
		want := r.o.nextPiece() // nil unless reading a seed
		var a *lexAlt
		switch {
		case len(direct) == 0 && len(mores) == 0:
			if step > 0 {
				return nil, nil, before
			}
			// The lexer cannot make typ in this mode: take a rule of
			// another mode as if the lexer were in it (the sentence is
			// then likely to be read otherwise).
			all := c.anyProd[typ]
			a = all[r.pickV(len(all), slices.Index(all, want))]
			stack = slices.Clone(stack)
			stack[len(stack)-1] = a.mode
		case len(mores) == 0 || len(direct) > 0 && r.pickV(4, boolInt(slices.Contains(direct, want))) > 0:
			a = direct[r.pickV(len(direct), slices.Index(direct, want))]
		default:
			a = mores[r.pickV(len(mores), slices.Index(mores, want))]
		}
		if r.o != nil && a != want {
			r.o.fail("token %s: the generator cannot take the seed's lexer rule", typ)
		}
		if step == 0 && a.act.kind == aEmit {
			if whole, ok := r.wholeText(a); ok {
				after, err := applyOps(stack, a.act.ops)
				if err != nil {
					after = stack
				}
				return whole, []*lexAlt{a}, after
			}
		}
		if a.act.kind != aHidden {
			text = r.lex(text, a.body, -1)
		}
		pieces = append(pieces, a)
		if nx, err := applyOps(stack, a.act.ops); err == nil {
			stack = nx
		}
		if a.act.kind == aEmit {
			return text, pieces, stack
		}
	}
}

// wholeText returns a whole text for a token of alternative a instead of
// a derivation: one the profile learned in the run's context
// (learnedText), else an entry of the run's dictionary that a reads in
// dictShare of 256 draws (a value draw of three bytes, made only where a
// has entries; reading a seed, it says "not an entry"). The text is
// clipped: an append to it copies.
func (r *run) wholeText(a *lexAlt) ([]byte, bool) {
	if text, ok := r.learnedText(a); ok {
		return slices.Clip(text), true
	}
	if r.dict == nil || len(r.dict.entries[a.id]) == 0 {
		return nil, false
	}
	ents := r.dict.entries[a.id]
	b := r.drawV(255, 0, 0)
	if b[0] >= dictShare {
		return nil, false
	}
	return slices.Clip(ents[(int(b[1])|int(b[2])<<8)%len(ents)]), true
}

// place appends a token after sep and moves the mode stack on; with
// merge, the token extends the last one (see separator).
func (r *run) place(text []byte, pieces []*lexAlt, before, after []int, sep []byte, merge bool) {
	if merge {
		r.out = append(r.out, text...)
		r.stack = after
		if r.rec != nil {
			(*r.rec)[len(*r.rec)-1].text += string(text)
		}
		return
	}
	if r.lineStart && pieces[len(pieces)-1].typ != "NEWLINE" {
		sep = sep[:0:0]
		for range r.indent {
			sep = append(sep, "    "...)
		}
		r.lineStart = false
	}
	r.out = append(r.out, sep...)
	r.prevStart, r.prevStack, r.prevPieces = len(r.out), before, pieces
	r.out = append(r.out, text...)
	r.tokens++
	r.stack = after
	if r.rec != nil {
		*r.rec = append(*r.rec, genToken{typ: pieces[len(pieces)-1].typ, text: string(text)})
	}
}

// separator returns the text to put between the last token and the next
// one (text, made by pieces from mode stack before), the first with which
// the lexer reads both tokens back as made (ok), in this order: nothing,
// unless a word character (see wordRune) would touch another, which most
// formats read as one word or refuse where the grammar's lexer may not
// (Lua's 2and, WAT's resulti32); whitespace; nothing, merging the two tokens
// into one of their type when the lexer reads them so (two SEA_WS of
// XML's misc*); another skipped or hidden text (a comment). When none
// works, a space keeps them apart at least.
func (r *run) separator(text []byte, pieces []*lexAlt, before []int) (sep []byte, merge, ok bool) {
	c := r.c
	if r.tokens == 0 {
		return nil, false, true
	}
	if c.opts.NoSeparator || c.opts.Separator != "" {
		return c.sep, false, true
	}
	prev := r.out[r.prevStart:]
	reads := func(sep string) bool {
		buf := append(append(append(r.scratch[:0], prev...), sep...), text...)
		r.scratch = buf
		return c.g.lx.joins(buf, len(prev), len(prev)+len(sep), r.prevStack, r.prevPieces, pieces)
	}
	word := wordRune(lastRune(prev)) && wordRune(firstRuneOf(text))
	for i, sep := range c.seps[:c.spaces] {
		if (i > 0 || !word) && reads(sep) {
			return []byte(sep), false, true
		}
	}
	if word && reads("") {
		return nil, false, true
	}
	if r.merges(prev, text, pieces) {
		return nil, true, true
	}
	for _, sep := range c.seps[c.spaces:] {
		if reads(sep) {
			return []byte(sep), false, true
		}
	}
	if len(c.seps) > 1 {
		return []byte(c.seps[1]), false, false
	}
	return nil, false, false
}

// merges reports whether the lexer reads the last token followed by
// text (pieces) as one token made like the last one, neither changing
// modes.
func (r *run) merges(prev, text []byte, pieces []*lexAlt) bool {
	if len(pieces) != len(r.prevPieces) {
		return false
	}
	for i, a := range pieces {
		if !a.same(r.prevPieces[i]) || len(a.act.ops) > 0 {
			return false
		}
	}
	buf := append(append(r.scratch[:0], prev...), text...)
	r.scratch = buf
	return r.c.g.lx.readsAs(buf, r.prevStack, r.prevPieces)
}

func isSpace(s string) bool {
	for _, c := range s {
		if !unicode.IsSpace(c) {
			return false
		}
	}
	return s != ""
}

// wordRune reports whether c is a letter, digit, _, $ or quote: the
// characters that, touching, formats mostly read as one word or refuse
// (WAT's module$x and export"x", XML's a='1'b='2').
func wordRune(c rune) bool {
	switch c {
	case '_', '$', '"', '\'', '`':
		return true
	}
	return unicode.IsLetter(c) || unicode.IsDigit(c)
}

func lastRune(b []byte) rune {
	c, _ := utf8.DecodeLastRune(b)
	return c
}

func firstRuneOf(b []byte) rune {
	c, _ := utf8.DecodeRune(b)
	return c
}

// lex appends a derivation of lexer node n to dst, by value draws. avoid
// (≥ 0) is a character that ends a non-greedy loop being generated: sets
// do not produce it.
func (r *run) lex(dst []byte, n *node, avoid rune) []byte {
	switch n.kind {
	case nSeq:
		for i, k := range n.kids {
			a := avoid
			if k.kind == nRep && !k.greedy && i+1 < len(n.kids) {
				a = firstRune(n.kids[i+1])
			}
			dst = r.lex(dst, k, a)
		}
	case nAlt:
		dst = r.lex(dst, n.kids[r.lexAlt(n)], avoid)
	case nRep:
		w := r.o.lexWant()
		count := n.min
		if r.lexSize < maxLexSize && r.lexDepth+n.kids[0].height <= maxLexDepth {
			b := r.drawV(repBytes(w - n.min))
			hi := r.c.opts.MaxTokenRepeat
			if b[0] < 128 {
				hi = min(hi, 2)
			}
			if n.max >= 0 {
				hi = min(hi, n.max-n.min)
			}
			count += int(b[1]) % (hi + 1)
		}
		count = r.forced(w, count)
		for range count {
			dst = r.lex(dst, n.kids[0], avoid)
		}
	case nRef:
		r.lexDepth++
		dst = r.lex(dst, n.rule.body, -1)
		r.lexDepth--
	case nLit:
		r.lexSize += len(n.text)
		dst = append(dst, n.text...)
	case nSet:
		r.lexSize++
		dst = utf8.AppendRune(dst, r.char(n, avoid))
	}
	return dst
}

// lexAlt picks an alternative of a lexer node by a value draw: outside
// wide tokens, among those that can start with printable ASCII when some
// can (identifiers look like identifiers), and among those without a
// semantic predicate when some are (JavaLexer's Letter checks
// Character.isJavaIdentifierStart beyond ASCII).
func (r *run) lexAlt(n *node) int {
	w := r.o.lexWant()
	if r.lexSize >= maxLexSize {
		return r.forced(w, argmin(n.kids, func(k *node) int { return k.size }))
	}
	room := maxLexDepth - r.lexDepth
	var buf [64]int
	ok := buf[:0]
	if !r.wide {
		for _, i := range n.asciiAlts {
			if n.kids[i].height <= room && !n.kids[i].gated {
				ok = append(ok, i)
			}
		}
	}
	if len(ok) == 0 {
		for i, k := range n.kids {
			if k.height <= room && !k.gated {
				ok = append(ok, i)
			}
		}
	}
	if len(ok) == 0 {
		ok = fitting(ok, n.kids, room)
	}
	if len(ok) == 0 {
		return r.forced(w, argmin(n.kids, func(k *node) int { return k.height }))
	}
	i := slices.Index(ok, w)
	b := r.drawV(byte(i), byte(i>>8))
	return r.forced(w, ok[(int(b[0])|int(b[1])<<8)%len(ok)])
}

// char draws a character of set: from its printable part (printable
// ASCII when it has some, else graphic Unicode), or, in a wide token,
// from its graphic Unicode part a quarter of the time and from all of it
// (surrogates excluded) another quarter: most code points are
// unassigned, and a letter of another script is what a name holds.
func (r *run) char(n *node, avoid rune) rune {
	w := r.o.lexWant()
	var enc [4]byte
	if r.o != nil {
		enc = r.o.charBytes(n, r.wide, w)
	}
	b := r.drawV(enc[:]...)
	pick := n.ascii
	if len(pick) == 0 {
		pick = n.print
	}
	switch {
	case r.wide && b[0] >= 192:
		pick = n.valid
	case r.wide && b[0] >= 128 && len(n.print) > 0:
		pick = n.print
	}
	if len(pick) == 0 {
		pick = n.valid
	}
	if len(pick) == 0 {
		return rune(r.forced(w, int(n.set[0].lo)))
	}
	cnt := pick.count()
	i := (int(b[1]) | int(b[2])<<8 | int(b[3])<<16) % cnt
	c := pick.at(i)
	if c == avoid && cnt > 1 {
		c = pick.at((i + 1) % cnt)
	}
	return rune(r.forced(w, int(c)))
}

// firstRune returns the character a lexer node always starts with, or -1.
func firstRune(n *node) rune {
	switch n.kind {
	case nLit:
		c, _ := utf8.DecodeRuneInString(n.text)
		return c
	case nSeq:
		if len(n.kids) > 0 {
			return firstRune(n.kids[0])
		}
	case nRef:
		return firstRune(n.rule.body)
	case nSet:
		if len(n.set) == 1 && n.set[0].lo == n.set[0].hi {
			return n.set[0].lo
		}
	}
	return -1
}
