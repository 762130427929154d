// Package generators turns choice sequences into fuzz inputs.
//
// A generator is an ordinary Go function over a *Source (see Generator).
// Every decision it makes is a draw, recorded in a *Sequence with
//
//   - its kind: Structural when it decides which or how many draws follow,
//     Value when it only fills a leaf (docs/ALGORITHMS.md §2, BeDivFuzz);
//   - its execution index: the path of generator frames to the draw, each
//     step a (label, occurrence) pair, hashed to 64 bits (docs/ALGORITHMS.md §5,
//     SpotOn); the label is the kind of draw, or with Options.CallSites its
//     call site in the generator, so adding a draw at one site never shifts
//     the indexes at the others;
//   - its types: the typed frames on the stack (Source.Enter, Call).
//
// Run replays a sequence: a draw reuses a recorded choice only at the same
// execution index, so mutating one sub-object does not shift those after
// it; an unindexed draw reads the sequence's bytes in order (FromBytes,
// Zest's linear model; FromStreams, BeDivFuzz's two streams), then bytes
// from a PCG seeded by the sequence's hash, so a sequence always yields
// the same input (docs/ALGORITHMS.md §1). The returned sequence holds exactly
// the draws made; its StructuralSignature hashes the run's decisions.
//
// The combinators (Int, Bool, Decide, Pick, Weighted, Len, String, Bytes,
// Dict, List, Repeat, OneOf, Recurse, Call) know their draws' kinds. Integer
// draws lean to range boundaries and take a dictionary constant with
// probability 0.1, strings with 0.5 (docs/ALGORITHMS.md §5; Options.DictProb,
// Options.IntBias). Raw is the identity generator, so raw-byte and
// generator fuzzing share one engine; JSON, XML, PNG, Expr and SQL make
// real formats (Lookup, Names); Tuple makes typed fields (a Go fuzz
// test's arguments), and ReadTuple reads a tuple back into the sequence
// that makes it. Hashes use mix64 (hash.go), pinned by a
// test, so signatures stored in a corpus stay comparable.
//
// A run also records its subtrees, the choices of each typed frame
// (Sequence.Subtrees); the tree operators Replace, Splice, Recurse and
// Duplicate rewrite one subtree of a sequence so that the next run
// re-derives it, fresh or as another same-type subtree, while the draws
// around it keep their indexes (docs/ALGORITHMS.md §12).
//
// It does not decide what to mutate (the engine does; MutateBytes and
// MutatePositions help), does not run targets and does not recover a
// user generator's panics (engine does). A Runner is not safe for
// concurrent use; Run, Clone and WithBytes only read their Sequence.
//
// Decision: call-site labels cost 9.8 µs instead of 1.7 per JSON input
// (BenchmarkCallSites), so they are on only where SpotOn asks for them.
package generators
