package engine

import (
	"context"

	"github.com/wafer-fuzz/wafer/runtime"
)

// Outcome classifies one execution (docs/ALGORITHMS.md, vocabulary): valid,
// invalid, crash or hang.
type Outcome = runtime.Outcome

// The four outcomes.
const (
	Valid   = runtime.Valid
	Invalid = runtime.Invalid
	Crash   = runtime.Crash
	Hang    = runtime.Hang
)

// Result is what an Executor reports for one run.
type Result struct {
	Outcome Outcome
	// Counters is a view of this run's per-site 8-bit hit counters (index ==
	// site id), valid until the executor's next Run. Zero means not hit.
	// The engine zeroes every byte of it once read (its coverage scan
	// zeroes the non-zero blocks as it reads them), so an executor need
	// not clear them between runs.
	Counters []byte
	// Failure describes a Crash or Hang; nil otherwise.
	Failure *Failure
	// Fuel is the fuel the run used (a FuelExecutor's; 0 otherwise).
	Fuel uint64
}

// Failure is the engine's view of a target failure (docs/ALGORITHMS.md §7).
type Failure struct {
	// Identity is the failure's deduplication key, computed by whoever
	// ran the target (runtime.Result.Identity): the engine deduplicates,
	// shrinks and recognises known failures by it and never computes it.
	// An empty Identity keys the failure by its outcome alone.
	Identity string
	// Kind is the failure class (runtime.KindDivideByZero, KindGoPanic,
	// KindFuel, ...).
	Kind runtime.Kind
	// Message is the one-line message (trap text, panic message, exit
	// code).
	Message string
	// Found is when the target's failure was found
	// (runtime.Failure.Found): a heap overflow found at a free or realloc
	// is looked for again on the checked build (CheckedRunner), which
	// finds it at the write.
	Found runtime.Found
	// Frames are the function names of the Wasm stack, innermost first.
	Frames []string
	// Text is the full report (message, stack with file:line, output tails).
	Text string
	// Site is the failure's crash site (runtime.Result.CrashSite): its class
	// and the innermost frame of the target's own code
	// (internal/failureid.IsTargetFrame) with its file:line when known. Failures of
	// several identities at one site (reached through different callers)
	// are one bug in the summary and fuzzer_stats. "" when unknown.
	Site string
}

func (f *Failure) clone() *Failure {
	if f == nil {
		return nil
	}
	c := *f
	c.Frames = append([]string(nil), f.Frames...)
	return &c
}

// Executor runs the target on one input. An error means wafer itself broke
// (the run is lost and the campaign stops); a target failure is a Result.
// An Executor is used by one goroutine only.
type Executor interface {
	Run(ctx context.Context, input []byte) (Result, error)
}

// Generator turns a choice sequence into a target input (generator mode).
// It returns the input and the choices it actually consumed: the given
// sequence cut to what was read, or extended deterministically (from a PRNG
// seeded by the sequence) when the generator asked for more. The returned
// slices must not alias choices' storage in a way later writes to choices
// would change. A Generator is shared by all workers: Generate must be safe
// for concurrent use.
type Generator interface {
	Generate(choices []byte) (input, used []byte, err error)
}

// StructuredGenerator is a Generator that also keeps the structure of a
// choice sequence: each choice's kind (structural or value), execution
// index and types (docs/ALGORITHMS.md §2, §5). FromGenerator's adapter
// implements it with *generators.Sequence. The engine calls GenerateFrom
// instead of Generate for every run, and saves seq with queue entries
// (Entry.Seq), so strategies that mutate by kind or type find it on their
// parent.
type StructuredGenerator interface {
	Generator
	// GenerateFrom runs choices laid out like base (a seq this generator
	// returned before; nil: Zest's linear model, as Generate) and returns
	// the input, the consumed bytes and the consumed structured sequence,
	// which the caller owns.
	GenerateFrom(base any, choices []byte) (input, used []byte, seq any, err error)
}

// IndexedMutator is implemented by mutators whose children keep their
// parent's choice boundaries (SpotOn's execution-indexed sequences): the
// worker runs their children with GenerateFrom(parent.Seq, child) so a
// choice is reused only at its own execution index.
type IndexedMutator interface {
	Mutator
	ReuseIndexes() bool
}
