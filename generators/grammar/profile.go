package grammar

import (
	"cmp"
	"slices"

	"github.com/wafer-fuzz/wafer/generators"
)

// Profile is what a sample of sentences says about how a grammar is
// used: how often each alternative and each repetition count of its
// parser rules was taken, and which texts each lexer rule's tokens had. A
// generator given one (Options.Profile) draws its alternatives and counts
// with those frequencies instead of uniformly, and takes a token's text
// from the sample's texts in its context, in the share that the
// Good-Turing estimate leaves to texts the sample had (learnedShare): a
// probabilistic grammar learned from samples, as in
// "Inputs from Hell" (Soremekun et al., TSE 2020), so that sentences are
// built the way the format is written. A choice is counted where it is
// made (the two references that called its rule), backed off to wider
// contexts by Witten-Bell, and every choice keeps a weight of at least
// one: an alternative the sample never took stays possible, so the
// generator still makes every sentence it made without the profile.
//
// A Profile belongs to the grammar it was learned with (Learn) and is
// immutable; generators of that grammar with any start rule and limits
// may share it.
type Profile struct {
	g *Grammar
	// per alternative node: how often each kid was taken, and per
	// repetition node how often each count beyond its minimum, in each of
	// its nodeContexts
	alts, reps map[nodeContext][]int
	texts      map[textContext]*learnedTexts
	seen       map[textContext]map[string]int
	trees      int
}

// nodeContext is a node of a rule's body and the references (nodes of
// other rules' bodies) that called that rule and its caller (nil: over
// all). An expression's alternatives in a condition are taken otherwise
// than in an assignment, and Java's primary is `super` only as the left
// operand of `.`.
type nodeContext struct {
	n            *node
	inner, outer *node
}

// nodeContexts are the contexts of node n under the call sites sites
// (outermost first), most specific first: the references that called
// its rule and that rule's caller, the one that called its rule, none.
// An array, so that a draw allocates nothing.
func nodeContexts(n *node, sites []*node) (ks [3]nodeContext, k int) {
	l := len(sites)
	if l > 1 {
		ks[k] = nodeContext{n: n, inner: sites[l-1], outer: sites[l-2]}
		k++
	}
	if l > 0 {
		ks[k] = nodeContext{n: n, inner: sites[l-1]}
		k++
	}
	ks[k] = nodeContext{n: n}
	return ks, k + 1
}

// textContext is where a token stands: the lexer rule that makes it,
// the two innermost parser rules being expanded (nil where there are
// fewer) and its place in the innermost repetition around it (anyPos:
// every place). A name in XML's prolog/attribute has other texts
// (version, encoding) than one in element/attribute, and the first is
// version.
type textContext struct {
	outer, inner *rule
	alt          *lexAlt
	pos          int
}

// maxTextPos caps textContext.pos: the first element of a list, the
// second, the others.
const maxTextPos = 2

// anyPos is the pos of a textContext that counts every position.
const anyPos = -1

// learnedTexts are the texts of tokens in one context, most frequent
// first, the running sums of their counts, and the share of 256 of the
// tokens there that take one of them (the others are derived by the
// lexer rules, so texts the sample never had still come).
type learnedTexts struct {
	texts [][]byte
	cum   []int
	share int
}

// minFresh is the least share, of 256, of tokens derived afresh where the
// profile has texts.
const minFresh = 4

// learnedShare is the share of 256 of tokens that take a learned text in
// a context where the sample had total tokens, once of them a text that
// came only once: the Good-Turing estimate of a text the sample did not
// have is once/total, so a context of a few texts each repeated (XML's
// declaration: version, encoding) nearly always takes one, and one of
// names mostly seen once (identifiers) mostly derives its own.
func learnedShare(once, total int) int {
	return 256 - max(minFresh, once*256/max(total, 1))
}

// contextOf is the textContext of a token of alternative a under the
// parser rules that the references sites called, as element pos of its
// innermost repetition (anyPos: in any place).
func contextOf(sites []*node, a *lexAlt, pos int) textContext {
	k := textContext{alt: a, pos: min(pos, maxTextPos)}
	if pos == anyPos {
		k.pos = anyPos
	}
	if n := len(sites); n > 0 {
		k.inner = sites[n-1].rule
		if n > 1 {
			k.outer = sites[n-2].rule
		}
	}
	return k
}

// maxProfileTexts caps the texts a Profile keeps per lexer rule (the most
// frequent).
const maxProfileTexts = 256

// Learn returns the profile of the seeds the trees derive (see Profile).
func (r *SeedReader) Learn(trees []*Tree) *Profile {
	p := &Profile{g: r.c.g, alts: map[nodeContext][]int{}, reps: map[nodeContext][]int{}, texts: map[textContext]*learnedTexts{}, seen: map[textContext]map[string]int{}}
	var sites []*node
	for _, t := range trees {
		p.walk(t, r.c.start, t.root, &sites, 0)
		p.trees++
	}
	for a, m := range p.seen {
		texts := make([]string, 0, len(m))
		for s := range m {
			texts = append(texts, s)
		}
		slices.SortFunc(texts, func(x, y string) int { return cmp.Or(m[y]-m[x], cmp.Compare(x, y)) })
		lt := &learnedTexts{}
		sum, once, total := 0, 0, 0
		for _, s := range texts {
			total += m[s]
			if m[s] == 1 {
				once++
			}
		}
		for _, s := range texts[:min(len(texts), maxProfileTexts)] {
			sum += m[s]
			lt.texts, lt.cum = append(lt.texts, []byte(s)), append(lt.cum, sum)
		}
		lt.share = learnedShare(once, total)
		p.texts[a] = lt
	}
	p.seen = nil
	return p
}

// Sentences is the number of sentences the profile was learned from.
func (p *Profile) Sentences() int { return p.trees }

// walk counts the decisions that derive pt from n (the order of oracle's
// flatten, which answers the generator with them).
func (p *Profile) walk(t *Tree, n *node, pt *ptree, sites *[]*node, pos int) {
	if pt == nil {
		return
	}
	switch n.kind {
	case nSeq:
		for i, k := range n.kids {
			if i < len(pt.kids) {
				p.walk(t, k, pt.kids[i], sites, pos)
			}
		}
	case nAlt:
		p.count(p.alts, n, *sites, int(pt.alt))
		if !n.literals && len(pt.kids) > 0 && int(pt.alt) < len(n.kids) {
			p.walk(t, n.kids[pt.alt], pt.kids[0], sites, pos)
		}
	case nRep:
		p.count(p.reps, n, *sites, len(pt.kids)-n.min)
		for i, e := range pt.kids {
			p.walk(t, n.kids[0], e, sites, i)
		}
	case nRef:
		if n.rule.lexer {
			p.token(t, pt.tok, *sites, pos)
			return
		}
		if len(pt.kids) > 0 {
			*sites = append(*sites, n)
			p.walk(t, n.rule.body, pt.kids[0], sites, pos)
			*sites = (*sites)[:len(*sites)-1]
		}
	case nAnyTok:
		p.token(t, pt.tok, *sites, pos)
	}
}

// count counts choice i of node n (an alternative, or a count beyond the
// minimum) in m, in each of its nodeContexts under the call sites sites.
func (p *Profile) count(m map[nodeContext][]int, n *node, sites []*node, i int) {
	ks, nk := nodeContexts(n, sites)
	for _, k := range ks[:nk] {
		c := m[k]
		if i >= len(c) {
			c = append(c, make([]int, i+1-len(c))...)
			m[k] = c
		}
		c[i]++
	}
}

// token records the text of the seed's token i when one lexer rule made
// it whole (a token of several pieces, more and mode changes, is left
// to the lexer rules).
func (p *Profile) token(t *Tree, i int32, sites []*node, pos int) {
	if i < 0 || int(i) >= len(t.toks) {
		return
	}
	k := &t.toks[i]
	if len(k.pieces) != 1 || k.pieces[0].alt == nil || k.pieces[0].alt.act.kind != aEmit || k.pieces[0].alt.implicit {
		return
	}
	for _, key := range []textContext{contextOf(sites, k.pieces[0].alt, pos), contextOf(sites, k.pieces[0].alt, anyPos)} {
		if p.seen[key] == nil {
			p.seen[key] = map[string]int{}
		}
		p.seen[key][string(k.text(t.text))]++
	}
}

// learnedText returns, for a token of alternative a in the run's
// context, one of the profile's texts there, as often as the sample had
// it, in its share of 256 draws (learnedShare) (a value draw of three bytes, made
// only where the profile has texts: reading a seed, it says "no text").
func (r *run) learnedText(a *lexAlt) ([]byte, bool) {
	p := r.c.opts.Profile
	if p == nil {
		return nil, false
	}
	lt := p.texts[contextOf(r.sites, a, anyPos)]
	if at := p.texts[contextOf(r.sites, a, r.pos)]; lt == nil || at != nil && at.share >= lt.share {
		lt = at
	}
	if lt == nil {
		return nil, false
	}
	b := r.drawV(255, 0, 0)
	if int(b[0]) >= lt.share {
		return nil, false
	}
	x := (int(b[1]) | int(b[2])<<8) % lt.cum[len(lt.cum)-1]
	i, _ := slices.BinarySearch(lt.cum, x+1)
	return lt.texts[i], true
}

// profileLevels returns the profile's counts of node n's choices (an
// alternative node's kids, a repetition node's counts beyond its
// minimum) in each of the run's contexts the sample had n in, most
// specific first (nodeContexts); none: uniform. ok is false without a
// profile.
func (r *run) profileLevels(n *node) (levels [][]int, ok bool) {
	p := r.c.opts.Profile
	if p == nil {
		return nil, false
	}
	m := p.alts
	if n.kind == nRep {
		m = p.reps
	}
	r.lbuf = r.lbuf[:0]
	ks, nk := nodeContexts(n, r.sites)
	for _, k := range ks[:nk] {
		if c, ok := m[k]; ok {
			r.lbuf = append(r.lbuf, c)
		}
	}
	return r.lbuf, true
}

// countAt is counts[i], 0 past its end.
func countAt(counts []int, i int) int {
	if i < len(counts) {
		return counts[i]
	}
	return 0
}

// profileOne is probability one in the fixed point of weights, and
// profileWeight the weight of probability one (each weight is raised by
// one, so every choice stays possible).
const (
	profileOne    = 1 << 20
	profileWeight = 1 << 12
)

// weights returns the weights of m choices under the counts levels
// (most specific context first): choice j counts as index pick[j] of a
// level's counts (pick nil: j), the last choice also taking the counts
// past the last index when tail is set (a repetition the limits cut
// short: the sample's longer ones). Each context's estimate backs off to
// the next less specific one by Witten-Bell: with N choices counted
// there, T of them distinct, p(j) = (c(j) + T·p'(j)) / (N + T), p' the
// less specific estimate, uniform below the least specific context. A
// context seen once keeps most of what the wider contexts know, and one
// seen often speaks for itself. Fixed-point integers, so the weights are
// the same on every machine.
func (r *run) weights(levels [][]int, m int, pick []int, tail bool) []int {
	at := func(c []int, j int) int {
		if pick != nil {
			return countAt(c, pick[j])
		}
		x := countAt(c, j)
		if tail && j == m-1 {
			for _, y := range c[min(m, len(c)):] {
				x += y
			}
		}
		return x
	}
	ps := r.pbuf[:0]
	for range m {
		ps = append(ps, int64(profileOne/m))
	}
	for l := len(levels) - 1; l >= 0; l-- {
		cs := r.wbuf[:0] // the level's counts of the m choices
		var total, types int64
		for j := range m {
			x := at(levels[l], j)
			cs = append(cs, x)
			if x > 0 {
				total += int64(x)
				types++
			}
		}
		r.wbuf = cs
		if total == 0 {
			continue
		}
		for j, x := range cs {
			ps[j] = (int64(x)*profileOne + types*ps[j]) / (total + types)
		}
	}
	r.pbuf = ps
	ws := r.wbuf[:0]
	for _, p := range ps {
		ws = append(ws, 1+int(p*profileWeight/profileOne))
	}
	r.wbuf = ws
	return ws
}

// pickW is a structural draw of an index into ws, each taken with
// probability weight/sum (Source.Weighted), or, reading a seed, i (the
// oracle writes the bytes from which Weighted returns it). One weight is
// no draw, as Pick(1) is none.
func (r *run) pickW(ws []int, i int) int {
	if len(ws) == 1 {
		return r.pickS(1, i)
	}
	if r.o == nil {
		return r.s.Weighted(ws...)
	}
	if i < 0 || i >= len(ws) {
		r.o.fail("the generator cannot take the seed's choice (%d of %d): a limit", i, len(ws))
		i = 0
	}
	total, below := 0, 0
	for j, w := range ws {
		if j < i {
			below += w
		}
		total += w
	}
	r.o.stream = generators.AppendPick(r.o.stream, total, below)
	return i
}

// pickWV is pickW as a value draw of two bytes (a pick among literals is
// one, so that it shifts no later index): the weights are scaled to sum
// to at most 65,536, each at least 1.
func (r *run) pickWV(ws []int, i int) int {
	total := 0
	for _, w := range ws {
		total += w
	}
	if total > 1<<16 {
		sum := 0
		for j, w := range ws {
			ws[j] = max(1, w*(1<<16-len(ws))/total)
			sum += ws[j]
		}
		total = sum
	}
	below := 0
	for j := range max(0, min(i, len(ws))) {
		below += ws[j]
	}
	if r.o != nil && (i < 0 || i >= len(ws)) {
		r.o.fail("the generator cannot take the seed's choice (%d of %d) among literals", i, len(ws))
		below = 0
	}
	b := r.drawV(byte(below), byte(below>>8))
	x := (int(b[0]) | int(b[1])<<8) % total
	for j, w := range ws {
		if x < w {
			return j
		}
		x -= w
	}
	return len(ws) - 1
}
