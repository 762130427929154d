package grammar

import (
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
)

// nodeKind is the kind of a node of a rule's body.
type nodeKind uint8

const (
	nSeq    nodeKind = iota // kids in order (an empty one derives the empty string)
	nAlt                    // one of kids
	nRep                    // kids[0] repeated min..max times (max < 0: unbounded)
	nRef                    // a rule or token reference
	nLit                    // a string literal (a token in a parser rule)
	nSet                    // one character of set (lexer)
	nAnyTok                 // any token but those in except (parser . and ~)
	nEOF                    // EOF: derives nothing
)

// node is one element of a rule body.
type node struct {
	kind      nodeKind
	pos       Pos
	kids      []*node
	min, max  int  // nRep
	greedy    bool // nRep: false for ??, *?, +?
	name      string
	rule      *rule    // nRef after resolution
	text      string   // nLit
	set       charSet  // nSet
	ascii     charSet  // nSet: set ∩ printable ASCII (prepared by resolve)
	print     charSet  // nSet: set ∩ graphic Unicode (prepared by resolve)
	valid     charSet  // nSet: set without surrogates (prepared by resolve)
	except    []string // nAnyTok: token names ~ excludes
	exceptLit []string // nAnyTok: literals ~ excludes (tokens whose rule is exactly one)
	tokens    []*rule  // nAnyTok after resolution: the tokens it may produce
	height    int      // minimal derivation height (rule levels)
	size      int      // minimal derivation size (rule expansions and tokens, or characters)
	literals  bool     // nAlt in a parser rule whose alternatives are all literals: a leaf, picked by a value draw
	fold      bool     // nLit of a caseInsensitive grammar: matches either case
	asciiAlts []int    // nAlt in a lexer rule: the alternatives that can start with printable ASCII
	// gated: an alternative holding a semantic predicate or EOF at its
	// top level: it holds only where code or the input's end says so
	gated bool
	// pred: an alternative holding a semantic predicate at its top level
	// (gated too)
	pred bool
}

// rule is one parser or lexer rule.
type rule struct {
	name     string
	pos      Pos
	lexer    bool
	fragment bool
	hidden   bool       // every alternative skipped or on a hidden channel: never generated
	declared bool       // declared in tokens {} without a rule: derives ""
	mode     string     // lexer rules: the mode they belong to
	cmds     [][]lexCmd // lexer rules: the commands of each alternative (nil: none)
	body     *node
	height   int
	size     int
	index    int
	file     string
}

// charSet is a set of runes: sorted, disjoint, non-adjacent ranges.
type charSet []runeRange

type runeRange struct{ lo, hi rune }

// normalize sorts and merges the ranges.
func (c charSet) normalize() charSet {
	slices.SortFunc(c, func(a, b runeRange) int { return int(a.lo - b.lo) })
	out := c[:0]
	for _, r := range c {
		if r.lo > r.hi {
			continue
		}
		if n := len(out); n > 0 && r.lo <= out[n-1].hi+1 {
			out[n-1].hi = max(out[n-1].hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

// complement returns the runes of [0, MaxRune] not in c (c normalized).
func (c charSet) complement() charSet {
	var out charSet
	next := rune(0)
	for _, r := range c {
		if r.lo > next {
			out = append(out, runeRange{next, r.lo - 1})
		}
		next = r.hi + 1
	}
	if next <= utf8.MaxRune {
		out = append(out, runeRange{next, utf8.MaxRune})
	}
	return out
}

// withoutSurrogates removes U+D800–U+DFFF, which UTF-8 cannot encode.
func (c charSet) withoutSurrogates() charSet {
	var out charSet
	for _, r := range c {
		if r.hi < 0xD800 || r.lo > 0xDFFF {
			out = append(out, r)
			continue
		}
		if r.lo < 0xD800 {
			out = append(out, runeRange{r.lo, 0xD7FF})
		}
		if r.hi > 0xDFFF {
			out = append(out, runeRange{0xE000, r.hi})
		}
	}
	return out
}

func (c charSet) contains(x rune) bool {
	_, found := slices.BinarySearchFunc(c, x, func(r runeRange, x rune) int {
		switch {
		case r.hi < x:
			return -1
		case r.lo > x:
			return 1
		}
		return 0
	})
	return found
}

// count returns the number of runes in c.
func (c charSet) count() int {
	n := 0
	for _, r := range c {
		n += int(r.hi-r.lo) + 1
	}
	return n
}

// at returns the i-th rune of c (0 ≤ i < count).
func (c charSet) at(i int) rune {
	for _, r := range c {
		n := int(r.hi-r.lo) + 1
		if i < n {
			return r.lo + rune(i)
		}
		i -= n
	}
	return c[len(c)-1].hi
}

// graphic is the set of Unicode's letters, marks, numbers, punctuation,
// symbols and spaces (what unicode.IsGraphic accepts).
var graphic = sync.OnceValue(func() charSet {
	var out charSet
	for _, t := range []*unicode.RangeTable{unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Zs} {
		out = append(out, fromTable(t)...)
	}
	return out.normalize()
})

// and returns c ∩ d.
func (c charSet) and(d charSet) charSet {
	var out charSet
	for _, r := range d {
		out = append(out, c.intersect(r.lo, r.hi)...)
	}
	return out.normalize()
}

// intersect returns c ∩ [lo, hi].
func (c charSet) intersect(lo, hi rune) charSet {
	var out charSet
	for _, r := range c {
		a, b := max(r.lo, lo), min(r.hi, hi)
		if a <= b {
			out = append(out, runeRange{a, b})
		}
	}
	return out
}

// fromTable converts a unicode.RangeTable to a charSet.
func fromTable(t *unicode.RangeTable) charSet {
	var out charSet
	for _, r := range t.R16 {
		if r.Stride == 1 {
			out = append(out, runeRange{rune(r.Lo), rune(r.Hi)})
			continue
		}
		for x := rune(r.Lo); x <= rune(r.Hi); x += rune(r.Stride) {
			out = append(out, runeRange{x, x})
		}
	}
	for _, r := range t.R32 {
		if r.Stride == 1 {
			out = append(out, runeRange{rune(r.Lo), rune(r.Hi)})
			continue
		}
		for x := rune(r.Lo); x <= rune(r.Hi); x += rune(r.Stride) {
			out = append(out, runeRange{x, x})
		}
	}
	return out.normalize()
}

// caseFold adds the other cases of the letters in c (for caseInsensitive
// lexers), for ASCII letters.
func (c charSet) caseFold() charSet {
	out := slices.Clone(c)
	for _, r := range c {
		for x := max(r.lo, 'A'); x <= min(r.hi, 'z'); x++ {
			if x >= 'A' && x <= 'Z' {
				out = append(out, runeRange{x + 32, x + 32})
			} else if x >= 'a' && x <= 'z' {
				out = append(out, runeRange{x - 32, x - 32})
			}
		}
	}
	return out.normalize()
}
