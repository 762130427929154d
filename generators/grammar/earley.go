package grammar

import (
	"slices"
	"sync"
)

// This file is the seed parser's recognizer: the parser rules, as the
// generator walks them from its start node, compiled to a context-free
// grammar (one nonterminal per rule and per alternative, sequence and
// repetition node), and an Earley parser over the token types the
// grammar's lexer makes. Earley accepts every context-free grammar, left
// recursion and ambiguity included, so no rule needs rewriting; one
// derivation is then read back (derive) as a tree over the grammar's
// nodes, the shape the generator's draws follow.

// symbol is a terminal (< 0: ^tokenType) or a nonterminal (≥ 0).
type symbol = int32

// prod is one production of the compiled grammar.
type prod struct {
	lhs symbol
	rhs []symbol
	alt int32 // nAlt, nAnyTok: the kid; bounded nRep: the count; a tail: 0 ε, 1 recursive
}

// ntKind says which grammar construct a nonterminal stands for.
type ntKind uint8

const (
	ntRule  ntKind = iota // a parser rule: [body]
	ntNode                // a node: nSeq, nAlt, nRep (its head), nAnyTok
	ntTail                // an unbounded repetition's tail: ε | tail kid
	ntEmpty               // derives only ε (EOF, a token no rule makes)
)

type nonterm struct {
	kind ntKind
	n    *node
	rule *rule
}

// cfg is the compiled grammar. It is immutable once built.
type cfg struct {
	prods    []prod
	byLHS    [][]int32
	nts      []nonterm
	nullable []bool
	start    symbol
	types    map[string]int32 // token type → terminal number
	names    []string         // terminal number → token type
	byNode   map[*node]symbol
	byRule   map[*rule]symbol
	charts   sync.Pool // *earley charts to reuse
	empty    symbol
	width    uint32 // the longest right-hand side + 1
}

// compileCFG compiles the parser rules reachable from c.start.
func compileCFG(c *gen) *cfg {
	g := &cfg{types: map[string]int32{}, byNode: map[*node]symbol{}, byRule: map[*rule]symbol{}, empty: -1}
	g.start = g.sym(c, c.start)
	for _, p := range g.prods {
		g.width = max(g.width, uint32(len(p.rhs)+1))
	}
	g.nullable = make([]bool, len(g.nts))
	for changed := true; changed; {
		changed = false
		for _, p := range g.prods {
			if g.nullable[p.lhs] {
				continue
			}
			all := true
			for _, s := range p.rhs {
				if s < 0 || !g.nullable[s] {
					all = false
					break
				}
			}
			if all {
				g.nullable[p.lhs], changed = true, true
			}
		}
	}
	return g
}

func (g *cfg) nt(k nonterm) symbol {
	g.nts = append(g.nts, k)
	g.byLHS = append(g.byLHS, nil)
	return symbol(len(g.nts) - 1)
}

func (g *cfg) add(lhs symbol, alt int32, rhs ...symbol) {
	g.byLHS[lhs] = append(g.byLHS[lhs], int32(len(g.prods)))
	g.prods = append(g.prods, prod{lhs: lhs, rhs: rhs, alt: alt})
}

// term returns the terminal of token type typ.
func (g *cfg) term(typ string) symbol {
	t, ok := g.types[typ]
	if !ok {
		t = int32(len(g.names))
		g.types[typ] = t
		g.names = append(g.names, typ)
	}
	return ^t
}

func (g *cfg) emptySym() symbol {
	if g.empty < 0 {
		g.empty = g.nt(nonterm{kind: ntEmpty})
		g.add(g.empty, 0)
	}
	return g.empty
}

// sym returns the symbol deriving what the generator derives from n.
func (g *cfg) sym(c *gen, n *node) symbol {
	if s, ok := g.byNode[n]; ok {
		return s
	}
	var s symbol
	switch n.kind {
	case nRef:
		if n.rule.lexer {
			if len(c.anyProd[n.rule.name]) == 0 {
				return g.emptySym() // the generator makes nothing for it
			}
			return g.term(n.rule.name)
		}
		if s, ok := g.byRule[n.rule]; ok {
			return s
		}
		s = g.nt(nonterm{kind: ntRule, rule: n.rule})
		g.byRule[n.rule] = s
		g.add(s, 0, g.sym(c, n.rule.body))
		return s
	case nLit:
		return g.term(c.g.lx.lits[n.text].typ)
	case nEOF:
		return g.emptySym()
	case nSeq:
		s = g.nt(nonterm{kind: ntNode, n: n})
		g.byNode[n] = s
		rhs := make([]symbol, len(n.kids))
		for i, k := range n.kids {
			rhs[i] = g.sym(c, k)
		}
		g.add(s, 0, rhs...)
	case nAlt:
		s = g.nt(nonterm{kind: ntNode, n: n})
		g.byNode[n] = s
		for i, k := range n.kids {
			g.add(s, int32(i), g.sym(c, k))
		}
	case nAnyTok:
		s = g.nt(nonterm{kind: ntNode, n: n})
		g.byNode[n] = s
		for i, t := range n.tokens {
			if len(c.anyProd[t.name]) > 0 {
				g.add(s, int32(i), g.term(t.name))
			}
		}
	case nRep:
		s = g.nt(nonterm{kind: ntNode, n: n})
		g.byNode[n] = s
		x := g.sym(c, n.kids[0])
		if n.max >= 0 {
			for cnt := n.min; cnt <= n.max; cnt++ {
				g.add(s, int32(cnt), repeatSym(x, cnt)...)
			}
			break
		}
		t := g.nt(nonterm{kind: ntTail, n: n})
		g.add(t, 0)
		g.add(t, 1, t, x)
		g.add(s, int32(n.min), append(repeatSym(x, n.min), t)...)
	default:
		return g.emptySym()
	}
	return s
}

func repeatSym(x symbol, n int) []symbol {
	out := make([]symbol, n)
	for i := range out {
		out[i] = x
	}
	return out
}

// item is an Earley item: a production, how much of it is recognized,
// and the token where it started.
type item struct {
	prod, dot, start int32
}

// earley is one parse's chart.
type earley struct {
	g    *cfg
	toks []symbol // terminal of each token (^-1 for a type the grammar never asks for)
	sets [][]item
	has  []map[uint64]struct{} // per set: its items (key)
	// per set: the items waiting on a nonterminal, and the starts of the
	// completed items of each nonterminal
	waiting   []map[symbol][]int32
	completed map[int64][]int32
	predicted []int32 // per nonterminal: the last set it was predicted in (+1)
}

// key packs an item in 64 bits: its start, and its production and dot
// as one number below len(prods)*(width) < 2^32.
func (e *earley) key(it item) uint64 {
	return uint64(uint32(it.start)) | uint64(uint32(it.prod)*e.g.width+uint32(it.dot))<<32
}

func (e *earley) add(set int, it item) {
	if it.dot == 0 {
		// a prediction: made once per nonterminal and set (predicted),
		// so it needs no entry in has, which then holds few items
		e.sets[set] = append(e.sets[set], it)
		return
	}
	m := e.has[set]
	if m == nil {
		m = make(map[uint64]struct{}, 32)
		e.has[set] = m
	}
	k := e.key(it)
	if _, ok := m[k]; ok {
		return
	}
	m[k] = struct{}{}
	e.sets[set] = append(e.sets[set], it)
}

func (e *earley) contains(set int, it item) bool {
	if it.dot == 0 {
		// asked only of a production some item completes from it.start
		return set == int(it.start)
	}
	_, ok := e.has[set][e.key(it)]
	return ok
}

// recognize fills the chart; it returns the number of tokens read before
// the first that no item could take (len(toks) when all were), and whether
// the start symbol spans them all.
func (e *earley) recognize() (int, bool) {
	g := e.g
	n := len(e.toks)
	// A chart from an earlier parse (cfg.charts) keeps its slices and
	// maps: cleared, not allocated again.
	e.sets = grow(e.sets, n+1)
	e.has = grow(e.has, n+1)
	e.waiting = grow(e.waiting, n+1)
	for j := range n + 1 {
		e.sets[j] = e.sets[j][:0]
		clear(e.has[j])
		clear(e.waiting[j])
	}
	if e.completed == nil {
		e.completed = map[int64][]int32{}
	}
	clear(e.completed)
	e.predicted = grow(e.predicted, len(g.nts))
	clear(e.predicted)
	e.predicted[g.start] = 1
	for _, p := range g.byLHS[g.start] {
		e.add(0, item{p, 0, 0})
	}
	for j := 0; j <= n; j++ {
		if len(e.sets[j]) == 0 {
			return j - 1, false
		}
		if e.waiting[j] == nil {
			e.waiting[j] = map[symbol][]int32{}
		}
		for i := 0; i < len(e.sets[j]); i++ {
			it := e.sets[j][i]
			p := &g.prods[it.prod]
			if int(it.dot) == len(p.rhs) {
				ck := int64(j)<<32 | int64(p.lhs)
				e.completed[ck] = append(e.completed[ck], it.start)
				if it.start == int32(j) {
					continue // an empty span: prediction advanced its waiters (nullable)
				}
				for _, w := range e.waiting[it.start][p.lhs] {
					wi := e.sets[it.start][w]
					e.add(j, item{wi.prod, wi.dot + 1, wi.start})
				}
				continue
			}
			s := p.rhs[it.dot]
			if s < 0 {
				if j < n && e.toks[j] == s {
					e.add(j+1, item{it.prod, it.dot + 1, it.start})
				}
				continue
			}
			e.waiting[j][s] = append(e.waiting[j][s], int32(i))
			if e.predicted[s] != int32(j+1) {
				e.predicted[s] = int32(j + 1)
				for _, q := range g.byLHS[s] {
					e.add(j, item{q, 0, int32(j)})
				}
			}
			if g.nullable[s] {
				e.add(j, item{it.prod, it.dot + 1, it.start})
			}
		}
	}
	for _, it := range e.sets[n] {
		if it.start == 0 && g.prods[it.prod].lhs == g.start && int(it.dot) == len(g.prods[it.prod].rhs) {
			return n, true
		}
	}
	return n, false
}

// grow returns s with length n, its elements kept where it had them.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		s = append(s[:cap(s)], make([]T, n-cap(s))...)
	}
	return s[:n]
}

// expected returns the token types some item of set j could read next.
func (e *earley) expected(j int) []string {
	var out []string
	for _, it := range e.sets[j] {
		p := &e.g.prods[it.prod]
		if int(it.dot) < len(p.rhs) && p.rhs[it.dot] < 0 {
			if name := e.g.names[^p.rhs[it.dot]]; !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// ptree is one node of a derivation, shaped as the grammar node it
// derives (the parent's node says which): a rule's body, the chosen kid of
// an alternative (alt), a repetition's elements, a sequence's kids, a
// token (tok).
type ptree struct {
	alt  int32
	tok  int32 // the token's index; -1 for nonterminals
	kids []*ptree
}

// span is a nonterminal over tokens [i, j).
type span struct {
	s    symbol
	i, j int32
}

// derive reads one derivation of the start symbol over all tokens from
// the chart: the first production (in grammar order) that completes, and
// the latest start for each nonterminal of it, avoiding a nonterminal
// inside itself over the same span (a cycle of empty or unit derivations).
func (e *earley) derive() *ptree {
	busy := map[span]bool{}
	t, _ := e.build(e.g.start, 0, int32(len(e.toks)), busy)
	return t
}

func (e *earley) build(s symbol, i, j int32, busy map[span]bool) (*ptree, bool) {
	sp := span{s, i, j}
	if busy[sp] {
		return nil, false
	}
	busy[sp] = true
	defer delete(busy, sp)
	for _, q := range e.g.byLHS[s] {
		p := &e.g.prods[q]
		if !e.contains(int(j), item{q, int32(len(p.rhs)), i}) {
			continue
		}
		kids := make([]*ptree, len(p.rhs))
		if !e.buildRHS(q, len(p.rhs), i, j, kids, busy) {
			continue
		}
		return e.shape(s, p, kids), true
	}
	return nil, false
}

// buildRHS fills kids[:k] with derivations of the first k symbols of
// production q over [i, j).
func (e *earley) buildRHS(q int32, k int, i, j int32, kids []*ptree, busy map[span]bool) bool {
	if k == 0 {
		return i == j
	}
	x := e.g.prods[q].rhs[k-1]
	if x < 0 {
		if j <= i || e.toks[j-1] != x || !e.contains(int(j-1), item{q, int32(k - 1), i}) {
			return false
		}
		kids[k-1] = &ptree{tok: j - 1}
		return e.buildRHS(q, k-1, i, j-1, kids, busy)
	}
	starts := e.completed[int64(j)<<32|int64(x)]
	for n := len(starts) - 1; n >= 0; n-- {
		s := starts[n]
		if s < i || !e.contains(int(s), item{q, int32(k - 1), i}) {
			continue
		}
		sub, ok := e.build(x, s, j, busy)
		if !ok {
			continue
		}
		if e.buildRHS(q, k-1, i, s, kids, busy) {
			kids[k-1] = sub
			return true
		}
	}
	return false
}

// shape turns a production's kids into the tree of the construct its
// nonterminal stands for.
func (e *earley) shape(s symbol, p *prod, kids []*ptree) *ptree {
	nt := e.g.nts[s]
	switch nt.kind {
	case ntRule:
		return &ptree{tok: -1, kids: kids}
	case ntEmpty:
		return &ptree{tok: -1}
	case ntTail:
		if p.alt == 0 {
			return &ptree{tok: -1}
		}
		return &ptree{tok: -1, kids: append(kids[0].kids, kids[1])}
	}
	switch nt.n.kind {
	case nAlt:
		return &ptree{tok: -1, alt: p.alt, kids: kids}
	case nAnyTok:
		return &ptree{tok: kids[0].tok, alt: p.alt}
	case nRep:
		if nt.n.max < 0 {
			tail := kids[len(kids)-1]
			return &ptree{tok: -1, kids: append(kids[:len(kids)-1:len(kids)-1], tail.kids...)}
		}
	}
	return &ptree{tok: -1, kids: kids}
}
