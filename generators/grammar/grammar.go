package grammar

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
)

// Grammar is a checked grammar: every reference resolved, every rule able
// to derive a finite sentence, minimal derivation heights and sizes known.
// It is immutable and safe for concurrent use.
type Grammar struct {
	name   string
	rules  []*rule
	byName map[string]*rule
	first  *rule // the first parser rule, nil in a lexer grammar
	// literals are the texts of the literals in parser rules (ANTLR makes
	// each an implicit token that wins over lexer rules).
	literals    map[string]bool
	literalFold map[string]bool // literals of a caseInsensitive grammar
	declared    map[string]bool // tokens {} names
	lx          *lexer
}

// inf stands for "no finite derivation" in heights and sizes.
const inf = 1 << 30

// Parse reads a grammar from the text of one .g4 file; file names it in
// messages. A grammar that imports others or names a tokenVocab needs its
// directory: use Load or ParseFS.
func Parse(file string, src []byte) (*Grammar, error) {
	f, err := parseFile(file, src)
	if err != nil {
		return nil, err
	}
	if len(f.imports) > 0 {
		return nil, &Error{File: file, Pos: f.imports[0].pos, Msg: fmt.Sprintf("import %s: Parse reads one file; use Load (or ParseFS) to read imported grammars from the same directory", f.imports[0].text)}
	}
	if f.tokenVoc != "" {
		return nil, &Error{File: file, Pos: f.vocPos, Msg: fmt.Sprintf("tokenVocab = %s: Parse reads one file; use Load (or ParseFS) to read the lexer grammar from the same directory", f.tokenVoc)}
	}
	return build(f, nil)
}

// Load reads the grammar in the .g4 file at path; grammars it imports and
// its tokenVocab lexer grammar (split parser and lexer grammars, as
// published) are read from the same directory as Name.g4.
func Load(p string) (*Grammar, error) {
	g, err := ParseFS(os.DirFS(filepath.Dir(p)), filepath.Base(p))
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == filepath.Base(p) {
		return nil, fmt.Errorf("read grammar %s: %w", p, pe.Err)
	}
	return g, err
}

// ParseFS reads the grammar in file name of fsys, with its imports and
// tokenVocab grammar from the same directory of fsys.
func ParseFS(fsys fs.FS, name string) (*Grammar, error) {
	src, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	f, err := parseFile(name, src)
	if err != nil {
		return nil, err
	}
	dir := path.Dir(name)
	seen := map[string]bool{f.grammar: true}
	var extra []*file
	var load func(from *file, t token, depth int) error
	load = func(from *file, t token, depth int) error {
		if seen[t.text] {
			return nil
		}
		seen[t.text] = true
		if depth > 16 {
			return &Error{File: from.name, Pos: t.pos, Msg: "imports nested more than 16 deep"}
		}
		fn := path.Join(dir, t.text+".g4")
		src, err := fs.ReadFile(fsys, fn)
		if err != nil {
			return &Error{File: from.name, Pos: t.pos, Msg: fmt.Sprintf("cannot read %s: %v", fn, errors.Unwrap(err))}
		}
		g, err := parseFile(fn, src)
		if err != nil {
			return err
		}
		extra = append(extra, g)
		for _, imp := range g.imports {
			if err := load(g, imp, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	for _, imp := range f.imports {
		if err := load(f, imp, 0); err != nil {
			return nil, err
		}
	}
	if f.tokenVoc != "" {
		if err := load(f, token{kind: tID, text: f.tokenVoc, pos: f.vocPos}, 0); err != nil {
			return nil, err
		}
	}
	return build(f, extra)
}

// build merges main with the rules of extra that main does not define,
// resolves references and measures the rules.
func build(main *file, extra []*file) (*Grammar, error) {
	g := &Grammar{name: main.grammar, byName: map[string]*rule{}, literals: map[string]bool{}, literalFold: map[string]bool{}}
	add := func(r *rule, override bool) error {
		if old, ok := g.byName[r.name]; ok {
			if override {
				return nil // the main grammar's rule wins over an imported one
			}
			return &Error{File: r.file, Pos: r.pos, Msg: fmt.Sprintf("rule %s is defined twice (first at %d:%d)", r.name, old.pos.Line, old.pos.Col)}
		}
		r.index = len(g.rules)
		g.rules = append(g.rules, r)
		g.byName[r.name] = r
		return nil
	}
	for _, r := range main.rules {
		if err := add(r, false); err != nil {
			return nil, err
		}
	}
	for _, f := range extra {
		for _, r := range f.rules {
			if err := add(r, true); err != nil {
				return nil, err
			}
		}
	}
	declared := map[string]bool{}
	for _, f := range append([]*file{main}, extra...) {
		for _, t := range f.tokens {
			declared[t] = true
		}
	}
	for _, r := range g.rules {
		if !r.lexer && g.first == nil {
			g.first = r
		}
		if err := g.resolve(r, r.body, declared); err != nil {
			return nil, err
		}
	}
	if err := g.measure(); err != nil {
		return nil, err
	}
	g.declared = declared
	if err := g.buildLexer(); err != nil {
		return nil, err
	}
	return g, nil
}

func (g *Grammar) errAt(r *rule, p Pos, format string, a ...any) error {
	return &Error{File: r.file, Pos: p, Msg: fmt.Sprintf(format, a...)}
}

// resolve links references and checks where each may appear.
func (g *Grammar) resolve(r *rule, n *node, declared map[string]bool) error {
	switch n.kind {
	case nRef:
		t, ok := g.byName[n.name]
		if !ok && declared[n.name] {
			// A token only declared (tokens { INDENT }) is emitted by the
			// target's own lexer code: it derives the empty string here.
			t = &rule{name: n.name, pos: n.pos, lexer: true, body: &node{kind: nSeq, pos: n.pos}, file: r.file, index: len(g.rules), declared: true}
			g.rules = append(g.rules, t)
			g.byName[t.name] = t
			ok = true
		}
		if !ok {
			what := "rule"
			if isLexerName(n.name) {
				what = "token"
			}
			return g.errAt(r, n.pos, "undefined %s %s (referenced in rule %s)", what, n.name, r.name)
		}
		if r.lexer && !t.lexer {
			return g.errAt(r, n.pos, "lexer rule %s refers to parser rule %s", r.name, n.name)
		}
		if !r.lexer && t.fragment {
			return g.errAt(r, n.pos, "parser rule %s refers to fragment %s: fragments are usable only in lexer rules", r.name, n.name)
		}
		n.rule = t
	case nAlt:
		n.literals = !r.lexer
		for _, k := range n.kids {
			n.literals = n.literals && k.kind == nLit
		}
	case nLit:
		if !r.lexer {
			g.literals[n.text] = true
			g.literalFold[n.text] = n.fold
		}
	case nSet:
		n.ascii = n.set.intersect(0x20, 0x7e)
		n.valid = n.set.withoutSurrogates()
		n.print = n.set.and(graphic())
	case nAnyTok:
		except := map[string]bool{}
		for _, e := range n.except {
			if _, ok := g.byName[e]; !ok && !declared[e] {
				return g.errAt(r, n.pos, "undefined token %s after ~", e)
			}
			except[e] = true
		}
		for _, t := range g.rules {
			if t.lexer && t.body.kind == nLit && slices.Contains(n.exceptLit, t.body.text) {
				continue
			}
			if t.lexer && !t.fragment && !t.hidden && !except[t.name] {
				n.tokens = append(n.tokens, t)
			}
		}
	}
	for _, k := range n.kids {
		if err := g.resolve(r, k, declared); err != nil {
			return err
		}
	}
	return nil
}

func add(a, b int) int { return min(a+b, inf) }

// measure computes every node's minimal derivation height and size by
// iterating to a fixed point, and reports a rule that has none.
func (g *Grammar) measure() error {
	for _, r := range g.rules {
		r.height, r.size = inf, inf
	}
	for changed := true; changed; {
		changed = false
		for _, r := range g.rules {
			h, s := measureNode(r.body, r.lexer)
			h, s = add(h, 1), add(s, 1)
			if h < r.height || s < r.size {
				r.height, r.size = min(h, r.height), min(s, r.size)
				changed = true
			}
		}
	}
	for _, r := range g.rules {
		if r.size < inf {
			continue
		}
		via := infiniteRef(r.body)
		if via == r.name {
			return g.errAt(r, r.pos, "rule %s cannot derive a finite sentence: every alternative refers to %s itself (left recursion that cannot terminate: add an alternative without %s)", r.name, r.name, r.name)
		}
		return g.errAt(r, r.pos, "rule %s cannot derive a finite sentence: every alternative needs %s, which cannot end (a cycle of rules with no way out)", r.name, via)
	}
	return nil
}

// measureNode returns the minimal height and size of n from the rules'
// current values; a token in a parser rule counts as size 1 height 0.
func measureNode(n *node, lexer bool) (int, int) {
	var h, s int
	switch n.kind {
	case nSeq:
		for _, k := range n.kids {
			kh, ks := measureNode(k, lexer)
			h, s = max(h, kh), add(s, ks)
		}
	case nAlt:
		h, s = inf, inf
		for _, k := range n.kids {
			kh, ks := measureNode(k, lexer)
			h, s = min(h, kh), min(s, ks)
		}
	case nRep:
		kh, ks := measureNode(n.kids[0], lexer)
		if n.min > 0 {
			h, s = kh, min(ks*n.min, inf)
		}
	case nRef:
		if n.rule.lexer && !lexer {
			h, s = 0, 1 // a token: one leaf of the parse
			if n.rule.size >= inf {
				h, s = inf, inf
			}
		} else {
			h, s = n.rule.height, n.rule.size
		}
	case nLit:
		if lexer {
			s = len([]rune(n.text))
		} else {
			s = 1
		}
	case nSet:
		s = 1
		if len(n.valid) == 0 {
			// only surrogates, which UTF-8 cannot encode: ANTLR's lexer,
			// reading code points, never matches it
			h, s = inf, inf
		}
	case nAnyTok:
		s = 1
		if len(n.tokens) == 0 {
			s = 0
		}
	}
	n.height, n.size = h, s
	return h, s
}

// infiniteRef names a rule that n needs and that has no finite derivation.
func infiniteRef(n *node) string {
	switch n.kind {
	case nRef:
		if n.rule.size >= inf {
			return n.rule.name
		}
	case nSeq, nAlt, nRep:
		if n.kind == nRep && n.min == 0 {
			return ""
		}
		for _, k := range n.kids {
			if v := infiniteRef(k); v != "" {
				return v
			}
		}
	}
	return ""
}

// Name returns the grammar's name.
func (g *Grammar) Name() string { return g.name }

// Rules returns the names of the rules, in file order (imported rules
// last).
func (g *Grammar) Rules() []string {
	out := make([]string, len(g.rules))
	for i, r := range g.rules {
		out[i] = r.name
	}
	return out
}

// String summarizes the grammar: its name and rule count.
func (g *Grammar) String() string {
	var p, l int
	for _, r := range g.rules {
		if r.lexer {
			l++
		} else {
			p++
		}
	}
	return fmt.Sprintf("grammar %s: %d parser rules, %d lexer rules", g.name, p, l)
}
