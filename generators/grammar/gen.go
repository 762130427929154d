package grammar

import (
	"fmt"
	"sync"
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
	// Separator is written between two tokens. "" with NoSeparator false:
	// the first of " ", "\n", "\t" that a skipped or hidden lexer rule
	// matches (-> skip, -> channel(HIDDEN)), else nothing.
	Separator string
	// NoSeparator writes tokens with nothing between them.
	NoSeparator bool
}

// Default limits (see Options).
const (
	DefaultMaxDepth       = 12
	DefaultMaxSize        = 200
	DefaultMaxRepeat      = 4
	DefaultMaxTokenRepeat = 8
	maxLexDepth           = 12 // fragment nesting inside one token
	maxLexSize            = 64 // characters of one token before shortest derivations
	dictShare             = 64 // of 256: a token with matching dictionary entries takes one
)

// gen is a compiled generator: a grammar and its options. It is
// immutable except for the dictionary cache, which a mutex guards.
type gen struct {
	g     *Grammar
	start *node
	opts  Options
	sep   []byte

	mu    sync.Mutex
	cache map[*[]byte]*dictMatches
}

// dictMatches holds, per rule index, the dictionary entries its language
// contains.
type dictMatches struct {
	n       int
	entries [][][]byte
}

// Generator returns a generator of the grammar's sentences (a
// generators.Generator, usable with engine.FromGenerator). Each
// alternative and repetition count of a parser rule is a structural draw,
// made in a frame typed with the rule's name; each token is generated in
// a frame typed with its lexer rule's name by value draws (alternatives,
// repetitions and characters alike), or taken from the run's dictionary
// when the rule matches an entry. The same choice sequence gives the same
// sentence.
func (g *Grammar) Generator(opts Options) (generators.Generator, error) {
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
	switch {
	case opts.NoSeparator:
	case opts.Separator != "":
		c.sep = []byte(opts.Separator)
	default:
		for _, cand := range []string{" ", "\n", "\t"} {
			for _, r := range g.rules {
				if r.hidden && matches(r, []rune(cand)) {
					c.sep = []byte(cand)
					break
				}
			}
			if c.sep != nil {
				break
			}
		}
	}
	return c.generate, nil
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
	// inside a token
	lexDepth int
	lexSize  int
}

func (c *gen) generate(s *generators.Source) []byte {
	r := &run{c: c, s: s, out: make([]byte, 0, 64)}
	r.dict = c.matchesFor(s.Dictionary())
	r.gen(c.start)
	return r.out
}

// matchesFor returns the dictionary entries each lexer rule matches,
// computed once per dictionary.
func (c *gen) matchesFor(dict [][]byte) *dictMatches {
	if len(dict) == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if m, ok := c.cache[&dict[0]]; ok && m.n == len(dict) {
		return m
	}
	m := &dictMatches{n: len(dict), entries: make([][][]byte, len(c.g.rules))}
	for _, e := range dict {
		if !utf8.Valid(e) || len(e) == 0 {
			continue
		}
		// As ANTLR's lexer decides between rules matching the same text:
		// a literal of a parser rule first, then the first lexer rule in
		// the grammar. Only that rule gets the entry, so a keyword never
		// fills an identifier's place.
		if c.g.literals[string(e)] {
			continue
		}
		runes := []rune(string(e))
		for _, r := range c.g.rules {
			if r.lexer && !r.fragment && !r.declared && matches(r, runes) {
				if !r.hidden {
					m.entries[r.index] = append(m.entries[r.index], e)
				}
				break
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
			b := r.s.Draw(generators.Value, 2)
			r.units++
			r.emit([]byte(n.kids[(int(b[0])|int(b[1])<<8)%len(n.kids)].text))
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
		count := lo
		if hi > lo {
			count += r.s.Pick(hi - lo + 1)
		}
		generators.Repeat(r.s, count, count, func(_ *generators.Source, _ int) { r.gen(n.kids[0]) })
	case nRef:
		if n.rule.lexer {
			r.token(n.rule)
			return
		}
		r.s.Enter(n.rule.name)
		r.depth++
		r.units++
		r.gen(n.rule.body)
		r.depth--
		r.s.Leave()
	case nLit:
		r.units++
		r.emit([]byte(n.text))
	case nAnyTok:
		if len(n.tokens) == 0 {
			return
		}
		i := 0
		if !r.minimal() {
			i = r.s.Pick(len(n.tokens))
		} else {
			for j, t := range n.tokens {
				if t.size < n.tokens[i].size {
					i = j
				}
			}
		}
		r.token(n.tokens[i])
	}
}

// chooseAlt picks an alternative by a structural draw among those that
// can end within the depth limit, or, past the size limit or when none
// can, the first of minimal size (or height) without a draw.
func (r *run) chooseAlt(n *node) int {
	if r.minimal() {
		return argmin(n.kids, func(k *node) int { return k.size })
	}
	room := r.c.opts.MaxDepth - r.depth
	var buf [32]int
	ok := buf[:0]
	for i, k := range n.kids {
		if k.height <= room {
			ok = append(ok, i)
		}
	}
	if len(ok) == 0 {
		return argmin(n.kids, func(k *node) int { return k.height })
	}
	return ok[r.s.Pick(len(ok))]
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

// emit appends one token, after the separator.
func (r *run) emit(b []byte) {
	if r.tokens > 0 {
		r.out = append(r.out, r.c.sep...)
	}
	r.tokens++
	r.out = append(r.out, b...)
}

// token generates one token of lexer rule t in its own typed frame.
func (r *run) token(t *rule) {
	if t.declared {
		return
	}
	r.s.Enter(t.name)
	defer r.s.Leave()
	r.units++
	if r.dict != nil {
		if ents := r.dict.entries[t.index]; len(ents) > 0 {
			b := r.s.Draw(generators.Value, 3)
			if b[0] < dictShare {
				r.emit(ents[(int(b[1])|int(b[2])<<8)%len(ents)])
				return
			}
		}
	}
	r.lexDepth, r.lexSize = 0, 0
	if r.tokens > 0 {
		r.out = append(r.out, r.c.sep...)
	}
	r.tokens++
	r.out = r.lex(r.out, t.body, -1)
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
		count := n.min
		if r.lexSize < maxLexSize && r.lexDepth+n.kids[0].height <= maxLexDepth {
			b := r.s.Draw(generators.Value, 2)
			hi := r.c.opts.MaxTokenRepeat
			if b[0] < 128 {
				hi = min(hi, 2)
			}
			if n.max >= 0 {
				hi = min(hi, n.max-n.min)
			}
			count += int(b[1]) % (hi + 1)
		}
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

// lexAlt picks an alternative of a lexer node by a value draw.
func (r *run) lexAlt(n *node) int {
	if r.lexSize >= maxLexSize {
		return argmin(n.kids, func(k *node) int { return k.size })
	}
	room := maxLexDepth - r.lexDepth
	var buf [64]int
	ok := buf[:0]
	for i, k := range n.kids {
		if k.height <= room {
			ok = append(ok, i)
		}
	}
	if len(ok) == 0 {
		return argmin(n.kids, func(k *node) int { return k.height })
	}
	b := r.s.Draw(generators.Value, 2)
	return ok[(int(b[0])|int(b[1])<<8)%len(ok)]
}

// char draws a character of set: with probability 7/8 a printable ASCII
// one when the set has some, otherwise any (surrogates excluded).
func (r *run) char(n *node, avoid rune) rune {
	b := r.s.Draw(generators.Value, 4)
	pick := n.ascii
	if len(pick) == 0 || b[0] >= 224 {
		pick = n.valid
	}
	if len(pick) == 0 {
		return n.set[0].lo
	}
	cnt := pick.count()
	i := (int(b[1]) | int(b[2])<<8 | int(b[3])<<16) % cnt
	c := pick.at(i)
	if c == avoid && cnt > 1 {
		c = pick.at((i + 1) % cnt)
	}
	return c
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
