package grammar

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// This file is wafer's reading of ANTLR's lexer: the rules of each mode,
// what each alternative does when it matches (emit a token of a type, add
// its text to the next token with more, drop it with skip or a hidden
// channel, change modes), and a tokenizer that splits a text as ANTLR's
// runtime does (longest match; on a tie the rule listed first; an
// alternative with a non-greedy loop stops at its first match). The
// generator uses it to choose the rules that make a token in the current
// mode and to put a separator only where two tokens would otherwise join.

const defaultMode = "DEFAULT_MODE"

// lexCmd is one lexer command after ->, with its argument.
type lexCmd struct {
	name, arg string
	pos       Pos
}

// actKind says what the lexer does with a match.
type actKind uint8

const (
	aEmit   actKind = iota // a token the parser sees
	aMore                  // text kept for the next token
	aHidden                // skipped or sent to a channel other than the default
)

// modeOp is pushMode, popMode or mode.
type modeOp struct {
	kind byte // 'u' push, 'o' pop, 's' set
	name string
	mode int
	pos  Pos
}

// action is the effect of a lexer alternative's commands.
type action struct {
	kind actKind
	typ  string // type(T); "" for the rule's own name
	ops  []modeOp
}

// actionOf reads commands as ANTLR runs them, in order: the last of more,
// skip and type decides whether the match makes a token.
func actionOf(cmds []lexCmd) action {
	var a action
	hiddenChannel := false
	for _, c := range cmds {
		switch c.name {
		case "skip":
			a.kind = aHidden
		case "more":
			a.kind = aMore
		case "type":
			a.kind, a.typ = aEmit, c.arg
		case "channel":
			hiddenChannel = c.arg != "DEFAULT_TOKEN_CHANNEL" && c.arg != "0"
		case "pushMode":
			a.ops = append(a.ops, modeOp{kind: 'u', name: c.arg, pos: c.pos})
		case "popMode":
			a.ops = append(a.ops, modeOp{kind: 'o', pos: c.pos})
		case "mode":
			a.ops = append(a.ops, modeOp{kind: 's', name: c.arg, pos: c.pos})
		}
	}
	if a.kind == aEmit && hiddenChannel {
		a.kind = aHidden
	}
	return a
}

// lexAlt is a lexer rule, or one alternative of it when its alternatives
// carry different commands: the unit the lexer matches.
type lexAlt struct {
	rule      *rule
	body      *node
	act       action
	typ       string // the token type it emits
	mode      int
	prio      int  // order in its mode: the lower wins a tie
	nongreedy bool // its body has a non-greedy loop: it stops at its first match
	first     charSet
	nullable  bool
	implicit  bool // a literal of a parser rule, made a token
	id        int  // index among all alternatives
}

// same reports whether two alternatives act alike: the same token type,
// kind and mode changes (either may stand for the other in a sentence).
func (a *lexAlt) same(b *lexAlt) bool {
	if a == b {
		return true
	}
	return a.typ == b.typ && a.act.kind == b.act.kind && slices.EqualFunc(a.act.ops, b.act.ops, func(x, y modeOp) bool { return x.kind == y.kind && x.mode == y.mode })
}

type lexMode struct {
	name string
	alts []*lexAlt
}

// lexer is the lexer part of a grammar.
type lexer struct {
	modes  []*lexMode
	byName map[string]int
	// lits maps the text of each literal in a parser rule to the
	// alternative that makes it: a lexer rule that is exactly that
	// literal, else an implicit token in the default mode.
	lits map[string]*lexAlt
	// the DFA of each mode, built on first use
	once []sync.Once
	dfas []*modeDFA
}

// buildLexer groups the lexer rules by mode and checks their commands.
func (g *Grammar) buildLexer() error {
	lx := &lexer{byName: map[string]int{}, lits: map[string]*lexAlt{}}
	modeOf := func(name string) int {
		if i, ok := lx.byName[name]; ok {
			return i
		}
		lx.byName[name] = len(lx.modes)
		lx.modes = append(lx.modes, &lexMode{name: name})
		return len(lx.modes) - 1
	}
	modeOf(defaultMode)
	var alts []*lexAlt
	for _, r := range g.rules {
		if !r.lexer || r.fragment || r.declared {
			continue
		}
		m := modeOf(r.mode)
		bodies, cmds := []*node{r.body}, [][]lexCmd{nil}
		if len(r.cmds) > 0 {
			cmds = r.cmds[:1]
			for _, c := range r.cmds[1:] {
				if !slices.EqualFunc(c, r.cmds[0], func(a, b lexCmd) bool { return a.name == b.name && a.arg == b.arg }) {
					bodies, cmds = r.body.kids, r.cmds
					break
				}
			}
		}
		for i, b := range bodies {
			a := &lexAlt{rule: r, body: b, act: actionOf(cmds[i]), mode: m}
			a.typ = a.act.typ
			if a.typ == "" {
				a.typ = r.name
			}
			alts = append(alts, a)
		}
	}
	for _, a := range alts {
		for i := range a.act.ops {
			op := &a.act.ops[i]
			if op.kind == 'o' {
				continue
			}
			m, ok := lx.byName[op.name]
			if !ok {
				return g.errAt(a.rule, op.pos, "lexer rule %s switches to mode %s, which no lexer rule is in", a.rule.name, op.name)
			}
			op.mode = m
		}
		if a.act.typ != "" {
			if _, ok := g.byName[a.act.typ]; !ok && !g.declared[a.act.typ] {
				return g.errAt(a.rule, a.rule.pos, "lexer rule %s: type(%s) names no token", a.rule.name, a.act.typ)
			}
		}
	}
	// Literals of parser rules: a lexer rule that is just the literal
	// makes it (with its commands); otherwise an implicit token of the
	// default mode, listed before every lexer rule.
	texts := make([]string, 0, len(g.literals))
	for t := range g.literals {
		texts = append(texts, t)
	}
	sort.Strings(texts)
	var implicit []*lexAlt
	for _, t := range texts {
		for _, a := range alts {
			if a.body.kind == nLit && a.body.text == t && a.act.kind == aEmit && a.rule.body == a.body {
				lx.lits[t] = a
				break
			}
		}
		if lx.lits[t] == nil {
			r := &rule{name: "'" + t + "'", lexer: true, mode: defaultMode, body: &node{kind: nLit, text: t, fold: g.literalFold[t]}, file: g.rules[0].file}
			r.body.size, r.size = len([]rune(t)), 1
			a := &lexAlt{rule: r, body: r.body, typ: r.name, implicit: true}
			lx.lits[t] = a
			implicit = append(implicit, a)
		}
	}
	for i, a := range append(implicit, alts...) {
		a.id = i
		md := lx.modes[a.mode]
		a.prio = len(md.alts)
		a.nongreedy = hasNongreedy(a.body, map[*rule]bool{})
		a.first, a.nullable = firstSet(a.body, map[*rule]bool{})
		md.alts = append(md.alts, a)
	}
	for _, r := range g.rules {
		if r.lexer {
			markASCII(r.body)
		}
	}
	lx.once = make([]sync.Once, len(lx.modes))
	lx.dfas = make([]*modeDFA, len(lx.modes))
	g.lx = lx
	return nil
}

// markASCII sets the asciiAlts of the alternatives under n (not across
// references: each rule is marked on its own).
func markASCII(n *node) {
	if n.kind == nAlt {
		n.asciiAlts = n.asciiAlts[:0]
		for i, k := range n.kids {
			f, null := firstSet(k, map[*rule]bool{})
			if null || len(f.intersect(0x20, 0x7e)) > 0 {
				n.asciiAlts = append(n.asciiAlts, i)
			}
		}
	}
	for _, k := range n.kids {
		markASCII(k)
	}
}

func hasNongreedy(n *node, seen map[*rule]bool) bool {
	if n.kind == nRep && !n.greedy {
		return true
	}
	if n.kind == nRef {
		if seen[n.rule] {
			return false
		}
		seen[n.rule] = true
		return hasNongreedy(n.rule.body, seen)
	}
	for _, k := range n.kids {
		if hasNongreedy(k, seen) {
			return true
		}
	}
	return false
}

// firstSet returns the characters a match of n can start with, and
// whether n matches the empty string.
func firstSet(n *node, seen map[*rule]bool) (charSet, bool) {
	switch n.kind {
	case nSeq:
		var out charSet
		for _, k := range n.kids {
			f, null := firstSet(k, seen)
			out = append(out, f...)
			if !null {
				return out.normalize(), false
			}
		}
		return out.normalize(), true
	case nAlt:
		var out charSet
		null := false
		for _, k := range n.kids {
			f, nl := firstSet(k, seen)
			out = append(out, f...)
			null = null || nl
		}
		return out.normalize(), null
	case nRep:
		f, null := firstSet(n.kids[0], seen)
		return f, null || n.min == 0
	case nRef:
		if seen[n.rule] {
			return nil, false
		}
		seen[n.rule] = true
		defer delete(seen, n.rule)
		return firstSet(n.rule.body, seen)
	case nLit:
		c := []rune(n.text)[0]
		s := charSet{{c, c}}
		if n.fold {
			s = s.caseFold()
		}
		return s, false
	case nSet:
		return n.set, false
	}
	return nil, true
}

// The lexer of each mode is an NFA built from its alternatives' bodies
// (references inlined; a rule that refers to itself is followed
// maxLexRecursion deep), run as a DFA built lazily and cached, as ANTLR
// runs its ATN: the longest match wins, then the alternative listed first.

// maxLexRecursion bounds the inlining of a lexer rule inside itself
// (nested comments): deeper nesting matches nothing.
const maxLexRecursion = 4

// nstate is a state of a mode's NFA.
type nstate struct {
	set    charSet // consuming: a character of set leads to next
	next   int32
	eps    []int32 // epsilon transitions
	eofEps []int32 // taken only where the input ends (EOF in a rule)
	accept *lexAlt // the alternative this state accepts
	owner  int32   // index of the alternative (in the mode) the state belongs to
}

// dstate is a state of a mode's DFA: a set of NFA states closed under
// epsilon transitions.
type dstate struct {
	states    []int32
	accept    *lexAlt                     // the first-listed alternative accepting here
	eofAccept *lexAlt                     // the same where the input ends here
	live      bool                        // some state consumes a character
	ascii     [128]atomic.Pointer[dstate] // transitions on ASCII, read without the lock
	next      map[rune]*dstate            // the others, under modeDFA.mu
}

// modeDFA is the NFA of one mode and its DFA, built as texts need it.
type modeDFA struct {
	nfa   []nstate
	alts  []*lexAlt
	mu    sync.Mutex
	start *dstate
	dead  *dstate
	byKey map[string]*dstate
}

// maxNFAStates bounds a mode's NFA: a rule nested in itself through
// several references (a regular-expression literal's groups) grows it
// exponentially with the inlining depth, which is lowered until it fits.
const maxNFAStates = 200000

// buildNFA builds the NFA of mode md, inlining a rule inside itself as
// deep as the size bound allows (maxLexRecursion at most).
func buildNFA(md *lexMode) *modeDFA {
	for depth := maxLexRecursion; ; depth-- {
		if d := buildNFADepth(md, depth); d != nil || depth == 1 {
			return d
		}
	}
}

// buildNFADepth builds the NFA with a rule inside itself depth deep at
// most; nil when it outgrows maxNFAStates (never at depth 1).
func buildNFADepth(md *lexMode, depth int) *modeDFA {
	d := &modeDFA{alts: md.alts, byKey: map[string]*dstate{}}
	d.nfa = append(d.nfa, nstate{}) // 0: the start
	for i, a := range md.alts {
		b := &nfaBuilder{d: d, owner: int32(i), depth: map[*rule]int{a.rule: 1}, maxDepth: depth}
		in, out := b.build(a.body)
		if b.over && depth > 1 {
			return nil
		}
		acc := b.state()
		d.nfa[acc].accept = a
		d.nfa[out].eps = append(d.nfa[out].eps, acc)
		d.nfa[0].eps = append(d.nfa[0].eps, in)
	}
	d.dead = &dstate{next: map[rune]*dstate{}}
	d.start = d.closure([]int32{0})
	return d
}

type nfaBuilder struct {
	d        *modeDFA
	owner    int32
	depth    map[*rule]int
	maxDepth int
	over     bool // the NFA outgrew maxNFAStates
}

func (b *nfaBuilder) state() int32 {
	b.d.nfa = append(b.d.nfa, nstate{owner: b.owner, next: -1})
	return int32(len(b.d.nfa) - 1)
}

func (b *nfaBuilder) eps(from, to int32) {
	b.d.nfa[from].eps = append(b.d.nfa[from].eps, to)
}

// build returns the entry and exit states of a fragment matching n.
func (b *nfaBuilder) build(n *node) (int32, int32) {
	in := b.state()
	switch n.kind {
	case nSeq:
		cur := in
		for _, k := range n.kids {
			ki, ko := b.build(k)
			b.eps(cur, ki)
			cur = ko
		}
		return in, cur
	case nAlt:
		// An alternative behind a predicate is read only when all are
		// (the generator takes it only then, see lexAlt): the predicate
		// is taken to fail where the rule has another way, as
		// Python3Lexer's NEWLINE : {this.atStartOfInput()}? SPACES | ...
		// does everywhere but at the input's start.
		open := slices.ContainsFunc(n.kids, func(k *node) bool { return !k.pred })
		out := b.state()
		for _, k := range n.kids {
			if open && k.pred {
				continue
			}
			ki, ko := b.build(k)
			b.eps(in, ki)
			b.eps(ko, out)
		}
		return in, out
	case nRep:
		out := b.state()
		ki, ko := b.build(n.kids[0])
		b.eps(in, ki)
		b.eps(ko, out)
		if n.max < 0 {
			b.eps(ko, ki)
		}
		if n.min == 0 {
			b.eps(in, out)
		}
		return in, out
	case nRef:
		if len(b.d.nfa) > maxNFAStates && b.maxDepth > 1 {
			b.over = true
		}
		if b.depth[n.rule] >= b.maxDepth || b.over {
			return in, b.state() // no way through
		}
		b.depth[n.rule]++
		ki, ko := b.build(n.rule.body)
		b.depth[n.rule]--
		b.eps(in, ki)
		return in, ko
	case nLit:
		cur := in
		for _, c := range n.text {
			set := charSet{{c, c}}
			if n.fold {
				set = foldRune(c)
			}
			nx := b.state()
			b.d.nfa[cur].set, b.d.nfa[cur].next = set, nx
			cur = nx
		}
		return in, cur
	case nSet:
		out := b.state()
		b.d.nfa[in].set, b.d.nfa[in].next = n.set, out
		return in, out
	case nEOF:
		out := b.state()
		b.d.nfa[in].eofEps = append(b.d.nfa[in].eofEps, out)
		return in, out
	}
	return in, in
}

// foldRune returns c with its other cases.
func foldRune(c rune) charSet {
	set := charSet{{c, c}}
	for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
		set = append(set, runeRange{f, f})
	}
	return set.normalize()
}

// closure returns the DFA state of the epsilon closure of states; the
// states of an alternative with a non-greedy loop that accepts here are
// dropped (it stops at its first match). Callers hold d.mu.
func (d *modeDFA) closure(states []int32) *dstate {
	seen := map[int32]bool{}
	var stack, out []int32
	push := func(s int32) {
		if !seen[s] {
			seen[s] = true
			stack = append(stack, s)
		}
	}
	for _, s := range states {
		push(s)
	}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, s)
		for _, e := range d.nfa[s].eps {
			push(e)
		}
	}
	stopped := map[int32]bool{}
	var accept *lexAlt
	for _, s := range out {
		if a := d.nfa[s].accept; a != nil {
			if accept == nil || a.prio < accept.prio {
				accept = a
			}
			if a.nongreedy {
				stopped[d.nfa[s].owner] = true
			}
		}
	}
	kept := out[:0]
	for _, s := range out {
		if !stopped[d.nfa[s].owner] || d.nfa[s].accept != nil {
			kept = append(kept, s)
		}
	}
	slices.Sort(kept)
	key := make([]byte, 0, 4*len(kept)+1)
	for _, s := range kept {
		key = append(key, byte(s), byte(s>>8), byte(s>>16), byte(s>>24))
	}
	if accept != nil {
		key = append(key, 1) // the same states with and without a stopped alternative differ
	}
	if st, ok := d.byKey[string(key)]; ok {
		return st
	}
	st := &dstate{states: kept, accept: accept, next: map[rune]*dstate{}}
	for _, s := range kept {
		if d.nfa[s].next >= 0 && len(d.nfa[s].set) > 0 {
			st.live = true
		}
	}
	// Where the input ends, EOF may still lead to an accept.
	var eofNext []int32
	for _, s := range kept {
		eofNext = append(eofNext, d.nfa[s].eofEps...)
	}
	if len(eofNext) > 0 {
		seen := map[int32]bool{}
		stack := eofNext
		for len(stack) > 0 {
			s := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[s] {
				continue
			}
			seen[s] = true
			if a := d.nfa[s].accept; a != nil && (st.eofAccept == nil || a.prio < st.eofAccept.prio) {
				st.eofAccept = a
			}
			stack = append(stack, d.nfa[s].eps...)
			stack = append(stack, d.nfa[s].eofEps...)
		}
	}
	d.byKey[string(key)] = st
	return st
}

// step returns the DFA state after character c.
func (d *modeDFA) step(st *dstate, c rune) *dstate {
	if c < 128 {
		if nx := st.ascii[c].Load(); nx != nil {
			return nx
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if nx, ok := st.next[c]; ok {
		return nx
	}
	var to []int32
	for _, s := range st.states {
		if n := &d.nfa[s]; n.next >= 0 && len(n.set) > 0 && n.set.contains(c) {
			to = append(to, n.next)
		}
	}
	nx := d.dead
	if len(to) > 0 {
		nx = d.closure(to)
	}
	switch {
	case c < 128:
		st.ascii[c].Store(nx)
	case len(st.next) < 4096:
		st.next[c] = nx
	}
	return nx
}

// match returns the alternative of mode m that ANTLR's lexer takes at
// byte offset i of text, and where its match ends (alt nil: no rule
// matches). decided is false when a longer match could still come with
// more text after the end (never when eof: the text is the whole input).
func (lx *lexer) match(text []byte, eof bool, m int, i int) (alt *lexAlt, end int, decided bool) {
	d := lx.dfa(m)
	st := d.start
	// A rule matching the empty text (GoLexer's OTHER: -> mode(...)) is
	// taken only when nothing longer matches.
	alt, end = d.start.accept, i
	for j := i; ; {
		if st.accept != nil && j > i {
			alt, end = st.accept, j
		}
		if j == len(text) {
			if eof && st.eofAccept != nil && (alt == nil || end < j || st.eofAccept.prio < alt.prio) {
				alt, end = st.eofAccept, j
			}
			return alt, end, eof || !st.live
		}
		c, n := rune(text[j]), 1
		if c >= utf8.RuneSelf {
			c, n = utf8.DecodeRune(text[j:])
		}
		st = d.step(st, c)
		if st == d.dead {
			return alt, end, true
		}
		j += n
	}
}

// dfa returns the DFA of mode m, building its NFA on first use.
func (lx *lexer) dfa(m int) *modeDFA {
	lx.once[m].Do(func() { lx.dfas[m] = buildNFA(lx.modes[m]) })
	return lx.dfas[m]
}

// piece is one match of the lexer: a token, or a part of one (more).
type piece struct {
	alt        *lexAlt
	start, end int // byte offsets
	decided    bool
}

// lexToken is a token as the lexer makes it: its pieces, the last of
// which gives its type.
type lexToken struct {
	pieces []piece
}

func (t lexToken) typ() string { return t.pieces[len(t.pieces)-1].alt.typ }
func (t lexToken) hidden() bool {
	return t.pieces[len(t.pieces)-1].alt.act.kind == aHidden
}

// lexError is text no rule of the current mode matches, or a popMode
// with one mode on the stack.
type lexError struct {
	pos  int // byte offset
	mode string
	msg  string
}

func (e *lexError) Error() string {
	return fmt.Sprintf("offset %d (mode %s): %s", e.pos, e.mode, e.msg)
}

// cursor reads a text piece by piece as ANTLR's lexer does.
type cursor struct {
	lx    *lexer
	text  []byte
	eof   bool
	pos   int
	stack []int
	empty int // empty pieces in a row
}

// next returns the next piece and moves the mode stack on.
func (c *cursor) next() (piece, error) {
	m := c.stack[len(c.stack)-1]
	alt, end, decided := c.lx.match(c.text, c.eof, m, c.pos)
	if alt == nil {
		if c.pos == len(c.text) {
			return piece{}, &lexError{pos: c.pos, mode: c.lx.modes[m].name, msg: "input ends inside a token (more)"}
		}
		r, _ := utf8.DecodeRune(c.text[c.pos:])
		return piece{}, &lexError{pos: c.pos, mode: c.lx.modes[m].name, msg: fmt.Sprintf("no lexer rule matches %q", r)}
	}
	if end == c.pos && c.pos < len(c.text) {
		// Empty matches that only switch modes could switch back and
		// forth for ever: more of them in a row than there are modes is
		// a loop.
		if c.empty++; len(alt.act.ops) == 0 || c.empty > len(c.lx.modes) {
			return piece{}, &lexError{pos: c.pos, mode: c.lx.modes[m].name, msg: fmt.Sprintf("rule %s matches the empty text again and again (ANTLR's lexer would loop)", alt.rule.name)}
		}
	} else {
		c.empty = 0
	}
	p := piece{alt: alt, start: c.pos, end: end, decided: decided}
	c.pos = end
	stack, err := applyOps(c.stack, alt.act.ops)
	if err != nil {
		return p, &lexError{pos: c.pos, mode: c.lx.modes[m].name, msg: err.Error()}
	}
	c.stack = stack
	return p, nil
}

// tokenize splits text into tokens starting with the mode stack stack
// (nil: the default mode) as ANTLR's lexer does. With eof false the text
// may continue: pieces record whether their match is decided. It stops at
// the first text no rule matches (a *lexError) and returns the tokens
// before it and the mode stack after the last.
func (lx *lexer) tokenize(text []byte, stack []int, eof bool) ([]lexToken, []int, error) {
	if len(stack) == 0 {
		stack = []int{0}
	}
	c := &cursor{lx: lx, text: text, eof: eof, stack: stack}
	var out []lexToken
	for c.pos < len(text) {
		var t lexToken
		for {
			p, err := c.next()
			if err != nil {
				return out, c.stack, err
			}
			t.pieces = append(t.pieces, p)
			if p.alt.act.kind != aMore {
				break
			}
		}
		out = append(out, t)
	}
	return out, c.stack, nil
}

// applyOps returns the mode stack after ops (a new slice when changed).
func applyOps(stack []int, ops []modeOp) ([]int, error) {
	if len(ops) == 0 {
		return stack, nil
	}
	stack = slices.Clone(stack)
	for _, op := range ops {
		switch op.kind {
		case 'u':
			stack = append(stack, op.mode)
		case 'o':
			if len(stack) < 2 {
				return stack, fmt.Errorf("popMode with no mode pushed")
			}
			stack = stack[:len(stack)-1]
		case 's':
			stack[len(stack)-1] = op.mode
		}
	}
	return stack, nil
}

// readsAs reports whether the lexer, from mode stack stack, reads text
// (the whole input) as one token made of pieces.
func (lx *lexer) readsAs(text []byte, stack []int, pieces []*lexAlt) bool {
	c := cursor{lx: lx, text: text, eof: true, stack: stack}
	for _, want := range pieces {
		p, err := c.next()
		if err != nil || !p.alt.same(want) {
			return false
		}
	}
	return c.pos == len(text)
}

// joins reports whether the lexer, from mode stack stack, reads buf as
// the token prev (made of prevPieces, ending at p, its end decided), only
// hidden tokens up to q (a separator), and the start of a token from q to
// the end made of nextPieces (each piece but the last decided).
func (lx *lexer) joins(buf []byte, p, q int, stack []int, prevPieces, nextPieces []*lexAlt) bool {
	c := cursor{lx: lx, text: buf, stack: stack}
	for _, want := range prevPieces {
		pc, err := c.next()
		if err != nil || !pc.decided || !pc.alt.same(want) {
			return false
		}
	}
	if c.pos != p {
		return false
	}
	for c.pos < q {
		pc, err := c.next()
		if err != nil || !pc.decided || pc.alt.act.kind != aHidden || len(pc.alt.act.ops) > 0 {
			return false
		}
	}
	if c.pos != q {
		return false
	}
	for i, want := range nextPieces {
		pc, err := c.next()
		if err != nil || !pc.alt.same(want) || !pc.decided && i < len(nextPieces)-1 {
			return false
		}
	}
	return c.pos == len(buf)
}
