package generators

import (
	"errors"
	"fmt"
	"slices"
)

// span is one subtree of a run (Sequence.spans): choices [start, end)
// were drawn while the typed frame with type stack stack was on top of
// the typed frames, depth typed frames around it; parent is the span of
// the enclosing typed frame, -1 for none.
type span struct {
	start, end uint32
	parent     int32
	depth      uint32
	stack      uint32
}

// Subtree is the part of a run's sequence drawn in one typed frame
// (Source.Enter, Call; a grammar rule): a derivation subtree.
type Subtree struct {
	// Type is the frame's type name (the rule).
	Type string
	// Depth is the number of typed frames around it (0: outermost).
	Depth int
	// Parent is the index (in Subtrees) of the subtree of the enclosing
	// typed frame, -1 for an outermost one.
	Parent int
	// Start and End delimit its choices, [Start, End), nested frames'
	// draws included; End > Start.
	Start, End int
}

// NumSubtrees returns the number of subtrees of the sequence: the typed
// frames of the run that made it that drew at least one recorded choice.
// Sequences not returned by a run (FromBytes, FromStreams, WithBytes,
// decoded ones, the tree operators' results) have none until they are run.
func (q *Sequence) NumSubtrees() int { return len(q.spans) }

// Subtree returns subtree i (0 ≤ i < NumSubtrees()). Subtrees are in the
// order their frames were entered, so a subtree's descendants follow it
// and its Parent precedes it.
func (q *Sequence) Subtree(i int) Subtree {
	sp := q.spans[i]
	return Subtree{
		Type:   q.types[q.stacks[sp.stack].name],
		Depth:  int(sp.depth),
		Parent: int(sp.parent),
		Start:  int(sp.start),
		End:    int(sp.end),
	}
}

// Subtrees returns every subtree (see NumSubtrees and Subtree).
func (q *Sequence) Subtrees() []Subtree {
	out := make([]Subtree, len(q.spans))
	for i := range q.spans {
		out[i] = q.Subtree(i)
	}
	return out
}

// SubtreesOf returns the indexes of the subtrees of type typ, in order.
func (q *Sequence) SubtreesOf(typ string) []int {
	id, ok := q.typeID(typ)
	if !ok {
		return nil
	}
	var out []int
	for i, sp := range q.spans {
		if q.stacks[sp.stack].name == id {
			out = append(out, i)
		}
	}
	return out
}

// subtreeType returns the type id of subtree i.
func (q *Sequence) subtreeType(i int) uint32 { return q.stacks[q.spans[i].stack].name }

// ErrSubtree is wrapped by the tree operators' errors: an index out of
// range, or subtrees of different types or in the wrong relation.
var ErrSubtree = errors.New("bad subtree")

func (q *Sequence) checkSubtree(what string, i int) error {
	if i < 0 || i >= len(q.spans) {
		return fmt.Errorf("%w: %s: expected an index in [0, %d), got %d", ErrSubtree, what, len(q.spans), i)
	}
	return nil
}

// The tree operators (Replace, Splice, Recurse, Duplicate) work on a
// sequence a run returned (fully indexed, with subtrees) and return a new
// sequence to run, q unchanged. Each removes the choices of one subtree
// and puts unindexed choices in their place. When the result runs, every
// draw outside the subtree finds its own execution index and reads what
// it read before, while the subtree's frame, whose draws' indexes are
// gone, draws afresh: a draw that misses reads the unindexed bytes in
// order (structural and value draws each from their own kind's, as
// FromStreams; value ones only when no inserted choice is structural),
// then the extension PRNG. The run indexes the new draws, so its
// sequence is an ordinary one again. What the new subtree becomes is up
// to the generator: the same bytes give the same derivation when the
// frame's draws do not depend on its context (a grammar generator's depth
// and size limits, the lexer's mode; Recurse's depth limit); where they do,
// the inserted bytes are read differently and the rest comes from the
// PRNG.

// Replace returns q with subtree i derived afresh: its choices replaced by
// one unindexed value choice holding fresh (copied; none when empty),
// which the new derivation reads first, then the PRNG. Different fresh
// bytes give different derivations; the PRNG alone (fresh empty) gives
// the same for the same q and i.
func (q *Sequence) Replace(i int, fresh []byte) (*Sequence, error) {
	if err := q.checkSubtree("replace", i); err != nil {
		return nil, err
	}
	sp := q.spans[i]
	var ins []choice
	if len(fresh) > 0 {
		ins = []choice{{n: uint32(len(fresh)), stack: sp.stack, kind: Value, flags: flagUnindexed}}
	}
	return q.rebuild(sp, ins, fresh, q.types, q.stacks), nil
}

// Splice returns q with subtree i replaced by subtree j of donor, which
// must have the same type (Nautilus's splice): donor's choices, in draw
// order with their kinds and types, become q's unindexed choices in place
// of subtree i's, so the frame at i redraws donor's derivation (see the
// operators' comment above for when it differs). donor may be q.
func (q *Sequence) Splice(i int, donor *Sequence, j int) (*Sequence, error) {
	if err := q.checkSubtree("splice target", i); err != nil {
		return nil, err
	}
	if err := donor.checkSubtree("splice donor", j); err != nil {
		return nil, err
	}
	if a, b := q.Subtree(i).Type, donor.Subtree(j).Type; a != b {
		return nil, fmt.Errorf("%w: splice: expected a donor of type %s, got %s", ErrSubtree, a, b)
	}
	return q.splice(i, donor, j), nil
}

// Recurse returns q with its subtree inner, a strict descendant of subtree
// outer of the same type, replaced by outer (Nautilus's recursive
// mutation, once): the derivation from outer down to inner is repeated
// one more time, with inner's former content inside the copy's inner.
func (q *Sequence) Recurse(outer, inner int) (*Sequence, error) {
	if err := q.checkSubtree("recurse outer", outer); err != nil {
		return nil, err
	}
	if err := q.checkSubtree("recurse inner", inner); err != nil {
		return nil, err
	}
	if !q.descends(inner, outer) {
		return nil, fmt.Errorf("%w: recurse: expected subtree %d inside subtree %d", ErrSubtree, inner, outer)
	}
	if q.subtreeType(inner) != q.subtreeType(outer) {
		return nil, fmt.Errorf("%w: recurse: expected subtrees of one type, got %s and %s", ErrSubtree,
			q.Subtree(outer).Type, q.Subtree(inner).Type)
	}
	return q.splice(inner, q, outer), nil
}

// Duplicate returns q with subtree dst, a sibling of subtree src (the same
// Parent) of the same type, replaced by src: an element of a repetition
// (or another part of the parent of the same rule) repeated. It cannot add
// an element: a repetition's count is a draw of the parent, decoded by the
// generator, which the sequence cannot re-encode.
func (q *Sequence) Duplicate(src, dst int) (*Sequence, error) {
	if err := q.checkSubtree("duplicate source", src); err != nil {
		return nil, err
	}
	if err := q.checkSubtree("duplicate target", dst); err != nil {
		return nil, err
	}
	if src == dst || q.spans[src].parent != q.spans[dst].parent || q.subtreeType(src) != q.subtreeType(dst) {
		return nil, fmt.Errorf("%w: duplicate: expected two sibling subtrees of one type, got %d and %d", ErrSubtree, src, dst)
	}
	return q.splice(dst, q, src), nil
}

// descends reports whether subtree i lies strictly inside subtree a.
func (q *Sequence) descends(i, a int) bool {
	for p := q.spans[i].parent; p >= 0; p = q.spans[p].parent {
		if int(p) == a {
			return true
		}
	}
	return false
}

// splice replaces subtree i by donor's subtree j (types checked).
func (q *Sequence) splice(i int, donor *Sequence, j int) *Sequence {
	sp, dsp := q.spans[i], donor.spans[j]
	types, stacks := q.types, q.stacks
	remap := func(st uint32) uint32 { return st }
	if donor != q {
		// donor's stacks are interned into copies of q's tables
		types, stacks = slices.Clip(types), slices.Clip(stacks)
		memo := map[uint32]uint32{0: 0}
		var intern func(st uint32) uint32
		intern = func(st uint32) uint32 {
			if v, ok := memo[st]; ok {
				return v
			}
			n := donor.stacks[st]
			parent := intern(n.parent)
			name := donor.types[n.name]
			id := slices.Index(types, name)
			if id < 0 {
				id = len(types)
				types = append(types, name)
			}
			node := stackNode{parent, uint32(id)}
			v := slices.Index(stacks, node)
			if v < 0 {
				v = len(stacks)
				stacks = append(stacks, node)
			}
			memo[st] = uint32(v)
			return uint32(v)
		}
		remap = intern
	}
	var ins []choice
	var data []byte
	for _, c := range donor.choices[dsp.start:dsp.end] {
		if c.n == 0 {
			continue
		}
		ins = append(ins, choice{off: uint32(len(data)), n: c.n, stack: remap(c.stack), kind: c.kind, flags: flagUnindexed})
		data = append(data, donor.data[c.off:c.off+c.n]...)
	}
	return q.rebuild(sp, ins, data, types, stacks)
}

// rebuild returns q with the choices of sp replaced by ins, whose offsets
// are into data.
func (q *Sequence) rebuild(sp span, ins []choice, data []byte, types []string, stacks []stackNode) *Sequence {
	if len(stacks) == 0 {
		stacks = []stackNode{{}}
	}
	before, after := q.choices[:sp.start], q.choices[sp.end:]
	out := &Sequence{
		data:    make([]byte, 0, len(q.data)+len(data)),
		choices: make([]choice, 0, len(before)+len(ins)+len(after)),
		types:   types,
		stacks:  stacks,
	}
	add := func(c choice, b []byte) {
		c.off = uint32(len(out.data))
		out.data = append(out.data, b...)
		out.choices = append(out.choices, c)
	}
	for _, c := range before {
		add(c, q.data[c.off:c.off+c.n])
	}
	for _, c := range ins {
		add(c, data[c.off:c.off+c.n])
	}
	for _, c := range after {
		add(c, q.data[c.off:c.off+c.n])
	}
	return out
}
