package engine

import (
	"bytes"
	"strings"

	"github.com/wafer-fuzz/wafer/generators"
	"github.com/wafer-fuzz/wafer/internal/enumname"
)

// TreeOp is one tree mutation (docs/ALGORITHMS.md §12): an operator on the
// derivation subtrees of a choice sequence (generators.Sequence.Subtrees:
// the typed frames of a run, a grammar's rules).
type TreeOp uint8

const (
	// TreeReplace derives a random subtree afresh (generators.Sequence.Replace).
	TreeReplace TreeOp = iota
	// TreeSplice puts a subtree of the same type from another queue
	// entry in place of a random subtree (Splice; Nautilus's splice).
	TreeSplice
	// TreeRecurse nests a random subtree's same-type ancestor in its
	// place, one more level of recursion (Recurse; Nautilus's recursive
	// mutation).
	TreeRecurse
	// TreeDuplicate copies a random subtree over a same-type sibling
	// (Duplicate).
	TreeDuplicate
	numTreeOps
)

var treeOpNames = enumname.New[TreeOp]("TreeOp", "tree mutation", "replace", "splice", "recurse", "duplicate")

// String returns the operator's name: replace, splice, recurse, duplicate.
func (o TreeOp) String() string { return treeOpNames.String(o) }

// TreeOps is a set of tree mutations, bit 1<<op per operator.
type TreeOps uint8

// AllTreeOps is the set of every tree mutation.
const AllTreeOps = TreeOps(1<<numTreeOps - 1)

// Has reports whether op is in the set.
func (s TreeOps) Has(op TreeOp) bool { return s&(1<<op) != 0 }

// String lists the set's operators, comma-separated; "none" for none.
func (s TreeOps) String() string {
	var names []string
	for op := range numTreeOps {
		if s.Has(op) {
			names = append(names, op.String())
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}

// ParseTreeOps reads a comma-separated list of operator names (replace,
// splice, recurse, duplicate), "all", or "none" (the empty set).
func ParseTreeOps(s string) (TreeOps, error) {
	switch s {
	case "none":
		return 0, nil
	case "all":
		return AllTreeOps, nil
	}
	var out TreeOps
	for _, n := range strings.Split(s, ",") {
		op, err := treeOpNames.Parse(strings.TrimSpace(n))
		if err != nil {
			return 0, err
		}
		out |= 1 << op
	}
	return out, nil
}

// TreeOptions configure the tree mutations Zest, BeDivFuzz and SpotOn draw
// beside their byte mutations (docs/ALGORITHMS.md §12). The zero value
// works: every operator, in DefaultTreeShare of the children.
type TreeOptions struct {
	// Share is the probability that a child is a tree mutation (when its
	// parent has subtrees and a drawn operator applies; otherwise the
	// strategy's own mutation). Zero means DefaultTreeShare; negative
	// means none.
	Share float64
	// Off is the set of operators turned off (zero: none off).
	Off TreeOps
}

// DefaultTreeShare is TreeOptions.Share's default (ours).
const DefaultTreeShare = 0.2

// treeTries bounds the operators and donors a tree child tries before it
// gives up (the strategy's byte mutation then makes the child).
const treeTries = 4

// treeMutator makes the tree-mutation children of a strategy's mutator.
type treeMutator struct {
	share float64
	ops   []TreeOp // the operators on
	// child is the sequence of the last child if a tree mutation made it
	// (the worker runs the child on it: treeChilder), else nil
	child *generators.Sequence
}

func newTreeMutator(o TreeOptions) treeMutator {
	t := treeMutator{share: probability(o.Share, DefaultTreeShare)}
	for op := range numTreeOps {
		if !o.Off.Has(op) {
			t.ops = append(t.ops, op)
		}
	}
	if len(t.ops) == 0 {
		t.share = 0
	}
	return t
}

// treeChilder is a Mutator whose children may be tree mutations: the
// worker asks, after each Mutate, for the child's sequence (nil for a
// child of the ordinary kind), and runs the child's bytes laid on it.
type treeChilder interface {
	treeChild() *generators.Sequence
}

// treeBase is the base a worker hands GenerateFrom for a tree child: the
// child's sequence, read whatever layout the adapter uses (BeDivFuzz's
// streams included), so the unchanged draws keep their execution indexes.
type treeBase struct{ seq *generators.Sequence }

// mutate makes, with probability share, a tree child of j.Parent in dst
// and returns it and true; false (nothing drawn beyond the coin, or no
// operator applied) leaves the child to the caller. It resets child
// either way.
func (t *treeMutator) mutate(dst []byte, j *Job, r Rand) ([]byte, bool) {
	t.child = nil
	if t.share <= 0 || j.Parent == nil {
		return nil, false
	}
	q, ok := j.Parent.Seq.(*generators.Sequence)
	if !ok || q == nil || q.NumSubtrees() == 0 {
		return nil, false
	}
	if float64(r.Uint64()>>11)/(1<<53) >= t.share {
		return nil, false
	}
	for range treeTries {
		op := t.ops[r.IntN(len(t.ops))]
		if c := t.apply(op, q, j, r); c != nil {
			t.child = c
			return append(dst[:0], c.Bytes()...), true
		}
	}
	return nil, false
}

// apply applies op to a random subtree of q, or returns nil when it found
// nothing to apply it to.
func (t *treeMutator) apply(op TreeOp, q *generators.Sequence, j *Job, r Rand) *generators.Sequence {
	i := r.IntN(q.NumSubtrees())
	st := q.Subtree(i)
	var c *generators.Sequence
	var err error
	switch op {
	case TreeReplace:
		// fresh bytes as many as the subtree had: a derivation of
		// about its size (the PRNG extends it)
		n := 0
		for k := st.Start; k < st.End; k++ {
			_, l := q.Span(k)
			n += l
		}
		fresh := make([]byte, min(n, 1024))
		fillRandom(fresh, r)
		c, err = q.Replace(i, fresh)
	case TreeSplice:
		for k := 0; k < treeTries && len(j.Queue) > 0; k++ {
			d, ok := j.Queue[r.IntN(len(j.Queue))].Seq.(*generators.Sequence)
			if !ok || d == nil {
				continue
			}
			if js := d.SubtreesOf(st.Type); len(js) > 0 {
				c, err = q.Splice(i, d, js[r.IntN(len(js))])
				break
			}
		}
	case TreeRecurse:
		var anc []int
		for p := st.Parent; p >= 0; p = q.Subtree(p).Parent {
			if q.Subtree(p).Type == st.Type {
				anc = append(anc, p)
			}
		}
		if len(anc) > 0 {
			c, err = q.Recurse(anc[r.IntN(len(anc))], i)
		}
	case TreeDuplicate:
		var sibs []int
		for k := max(st.Parent, 0); k < q.NumSubtrees(); k++ {
			if o := q.Subtree(k); k != i && o.Parent == st.Parent && o.Type == st.Type {
				sibs = append(sibs, k)
			}
		}
		if len(sibs) > 0 {
			c, err = q.Duplicate(sibs[r.IntN(len(sibs))], i)
		}
	}
	if err != nil || c == nil || bytes.Equal(c.Bytes(), q.Bytes()) {
		// no operand found; or the operand's choices are the subtree's
		// own (a copy of an equal sibling, a donor equal to it), which
		// would rerun the parent. (Errors: the choices above make none.)
		return nil
	}
	return c
}
