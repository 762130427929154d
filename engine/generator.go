package engine

import (
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
}

// ForWorker returns an adapter with its own Runner.
func (a *genAdapter) ForWorker(int) Generator {
	return &genAdapter{g: a.g, opts: a.opts, r: generators.NewRunner(a.g, a.opts)}
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
	in, seq := r.Run(generators.FromBytes(choices))
	return in, seq.Bytes(), nil
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
	in := generators.FromBytes(choices)
	if b, ok := base.(*generators.Sequence); ok && b != nil {
		in = b.WithBytes(choices)
	}
	out, s := r.Run(in)
	return out, s.Bytes(), s, nil
}
