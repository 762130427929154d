// Package generators turns choice sequences into fuzz inputs.
//
// A generator is an ordinary Go function over a *Source (see Generator).
// Every decision it makes is a draw from the Source, and every draw is
// recorded in a choice sequence (*Sequence) together with
//
//   - its kind: Structural when it decides which or how many draws follow
//     (a repetition count, an alternative, whether to recurse), Value when it
//     only fills in a leaf (ALGORITHMS.md §2, BeDivFuzz);
//   - its execution index: the path of generator frames from the root to the
//     draw, each step a (label, occurrence count within the enclosing frame)
//     pair, hashed to a 64-bit key (ALGORITHMS.md §5, SpotOn; "relaxed" as
//     in Zest: keys are compared, not paths). A draw's label is its kind of
//     draw (int, bool, pick, ...) by default, and with Options.CallSites its
//     call site in the generator (function and offset, found on the Go
//     stack past the combinators), as SpotOn defines it: then adding or
//     removing a draw at one site never shifts the indexes of the draws at
//     the other sites of the frame (9.8 µs instead of 1.7 per JSON input);
//   - its types: the names of the typed frames on the stack at the draw
//     (Source.Enter, Call).
//
// Running a generator on a sequence (Run, Runner.Run) replays it: a draw
// reuses a recorded choice only at the same execution index, so mutating the
// choices of one sub-object does not shift the choices of the objects after
// it. A draw whose index the sequence does not hold reads the sequence's
// unindexed bytes in order (see FromBytes; this is Zest's linear model and
// how raw seed files enter; FromStreams gives structural and value draws a
// stream each, BeDivFuzz's (s, v)), and past those, bytes from a PRNG (PCG) seeded
// from the sequence's own hash, so the same sequence always yields the same
// input (ALGORITHMS.md §1). The sequence Run returns records exactly the
// draws that were made, fresh ones included: it is cut to what the
// generator consumed.
//
// The built-in combinators (Int, Bool, Decide, Pick, Weighted, Len, String,
// Bytes, Dict, List, Repeat, OneOf, Recurse, Call) know the kind of each
// draw they make; a custom draw (Source.Draw) states it. Integer draws are
// biased toward the range boundaries and take a dictionary constant with
// probability 0.1, string draws with probability 0.5 (ALGORITHMS.md §5);
// Options.DictProb and Options.IntBias change both, or turn them off for the
// papers' baselines. The structural signature is the hash of the run's
// decisions (the alternative each Pick, Weighted and Decide took, each
// Len's size), so structural bytes that decode alike share it.
//
// Raw is the identity generator: the sequence's bytes are the input, one
// value choice, so raw-byte fuzzing and generator fuzzing share one engine.
// JSON, XML, PNG, Expr and SQL generate inputs in real formats; Lookup and Names
// give them by name.
//
// A Sequence exposes the views the search strategies mutate (all bytes for
// Zest, the structural or value bytes for BeDivFuzz, the choices annotated
// with a type for SpotOn, byte positions for FairFuzz masks), its
// StructuralSignature, and a versioned binary encoding for the corpus.
//
// Hashes: the package imports no third-party code, so the signature and the
// PRNG seed use mix64 (hash.go), a fixed 64-bit multiply/xor-shift hash over
// little-endian 8-byte words; its values are pinned by a test and never
// depend on the process, so signatures stored in a corpus stay comparable.
//
// What it does not do: it does not decide what to mutate (the engine does;
// MutateBytes and MutatePositions are helpers), it does not run targets, and
// it does not recover panics raised by a user's generator (engine does).
// A Runner is not safe for concurrent use: give each worker its own. Run,
// Clone and WithBytes only read their Sequence, so workers may share saved
// sequences as long as nobody writes to them.
package generators
