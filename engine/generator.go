package engine

import (
	"encoding/binary"
	"fmt"

	"github.com/wafer-fuzz/wafer/generators"
)

// FromGenerator adapts a generators.Generator to the engine's Generator:
// a choice sequence enters as generators.FromBytes (Zest's linear model:
// draws read the bytes in order, past the end from the sequence-seeded
// PRNG), and the consumed sequence comes back as its bytes. Each worker
// gets its own generators.Runner (ForWorker). A panic of the generator is
// returned as an error. The adapter is a StructuredGenerator: queue
// entries keep their *generators.Sequence in Entry.Seq.
func FromGenerator(g generators.Generator, opts generators.Options) Generator {
	return &genAdapter{g: g, opts: opts}
}

type genAdapter struct {
	g    generators.Generator
	opts generators.Options
	r    *generators.Runner // nil on the shared value
	// split: choice sequences are BeDivFuzz's two streams, laid out by
	// joinStreams (bedivfuzz.go), and run through generators.FromStreams
	split bool
}

// ForWorker returns an adapter with its own Runner.
func (a *genAdapter) ForWorker(int) Generator {
	return &genAdapter{g: a.g, opts: a.opts, r: generators.NewRunner(a.g, a.opts), split: a.split}
}

// generatorWrapper is implemented by strategies that need the generator
// adapted (BeDivFuzz's two streams, SpotOn's call-site indexes); the loop
// applies it once, before any run, so seeds, children and shrinking all go
// through the same adapter.
type generatorWrapper interface {
	wrapGenerator(Generator) Generator
}

// withSplit returns g reading BeDivFuzz's two streams when it is
// FromGenerator's adapter; other generators are returned as they are.
func withSplit(g Generator) Generator {
	a, ok := g.(*genAdapter)
	if !ok {
		return g
	}
	c := *a
	c.split = true
	return &c
}

// withCallSites returns g with execution indexes keyed by call sites
// (generators.Options.CallSites) when it is FromGenerator's adapter.
func withCallSites(g Generator) Generator {
	a, ok := g.(*genAdapter)
	if !ok {
		return g
	}
	c := *a
	c.opts.CallSites = true
	return &c
}

// seedChoices lays q out as g reads choice sequences: BeDivFuzz's two
// streams (joinStreams) when g is FromGenerator's adapter reading them,
// q's bytes otherwise.
func seedChoices(g Generator, q *generators.Sequence) []byte {
	if a, ok := g.(*genAdapter); ok && a.split {
		return joinStreams(nil, q.KindBytes(generators.Structural), q.KindBytes(generators.Value))
	}
	return q.Bytes()
}

// joinStreams lays out BeDivFuzz's (s, v) as one choice sequence:
// uvarint(len(s)) ‖ s ‖ v.
func joinStreams(dst, s, v []byte) []byte {
	dst = binary.AppendUvarint(dst[:0], uint64(len(s)))
	return append(append(dst, s...), v...)
}

// splitStreams undoes joinStreams. It accepts any bytes (a havoc'd or
// shrunk sequence): a header that does not parse gives an empty s, a
// length past the end is cut to what is there.
func splitStreams(b []byte) (s, v []byte) {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, b
	}
	b = b[k:]
	if n > uint64(len(b)) {
		n = uint64(len(b))
	}
	return b[:n], b[n:]
}

// run runs choices through r, in the adapter's layout.
func (a *genAdapter) run(r *generators.Runner, base any, choices []byte) (in, used []byte, seq *generators.Sequence) {
	var src *generators.Sequence
	tb, tree := base.(treeBase)
	switch b, ok := base.(*generators.Sequence); {
	case tree:
		// a tree mutation's child: its own sequence, in any layout
		src = tb.seq.WithBytes(choices)
	case a.split:
		s, v := splitStreams(choices)
		src = generators.FromStreams(s, v)
	case ok && b != nil:
		src = b.WithBytes(choices)
	default:
		src = generators.FromBytes(choices)
	}
	in, seq = r.Run(src)
	if a.split {
		return in, joinStreams(nil, seq.KindBytes(generators.Structural), seq.KindBytes(generators.Value)), seq
	}
	return in, seq.Bytes(), seq
}

// Generate implements Generator. On the shared value (no Runner) it makes
// a Runner per call, so it stays safe for concurrent use.
func (a *genAdapter) Generate(choices []byte) (input, used []byte, err error) {
	r := a.r
	if r == nil {
		r = generators.NewRunner(a.g, a.opts)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("generator panicked: %v", p)
		}
	}()
	in, used, _ := a.run(r, nil, choices)
	return in, used, nil
}

// GenerateFrom implements StructuredGenerator: with a *generators.Sequence
// base, choices are laid out on base's choices (Sequence.WithBytes), so a
// draw reuses a value only at its own execution index; seq is the
// *generators.Sequence of the draws made.
func (a *genAdapter) GenerateFrom(base any, choices []byte) (input, used []byte, seq any, err error) {
	r := a.r
	if r == nil {
		r = generators.NewRunner(a.g, a.opts)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("generator panicked: %v", p)
		}
	}()
	out, used, s := a.run(r, base, choices)
	return out, used, s, nil
}

// GenerativeOptions are the numbers of the generator-mode strategies
// (docs/ALGORITHMS.md §2 and §5). The zero value is the contract's defaults.
type GenerativeOptions struct {
	// BeDivSimple selects BeDivFuzz's "simple" config (no structural
	// signature condition in its saving rule); false is "structure".
	BeDivSimple bool
	// Epsilon is BeDivFuzz's probability of a random stream choice; zero
	// means 0.2, negative 0.
	Epsilon float64
	// Targeted is SpotOn's share of targeted children; zero means 0.5,
	// negative 0 (plain Zest on indexed sequences).
	Targeted float64
	// NoFuelBound gives SpotOn's parents Zest's count of children instead
	// of a fuel budget (see SpotOn).
	NoFuelBound bool
	// MaxDistance caps SpotOn's type distances (zero: 1000); TypeDraws
	// bounds its type draws per targeted child (zero: 10).
	MaxDistance float64
	TypeDraws   int
	// MeanMutations and MeanLength are the means of the geometric number
	// and length of the runs Zest, BeDivFuzz and SpotOn rewrite per child
	// (docs/ALGORITHMS.md §1's m and l; zero: 4 and 4, the Zest paper's).
	MeanMutations, MeanLength int
	// Tree configures the tree mutations Zest, BeDivFuzz and SpotOn draw
	// beside their byte mutations (docs/ALGORITHMS.md §12); the zero value
	// is every operator in DefaultTreeShare of the children.
	Tree TreeOptions
}

func newBeDivFuzz(o StrategyOptions) *BeDivFuzz {
	g := o.Generative
	return &BeDivFuzz{Simple: g.BeDivSimple, Epsilon: g.Epsilon, MeanMutations: g.MeanMutations, MeanLength: g.MeanLength, Tree: g.Tree}
}
