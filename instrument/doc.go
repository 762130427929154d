// Package instrument decodes, encodes and rewrites WebAssembly modules for
// coverage-guided fuzzing.
//
// Decode and Encode cover the whole binary format as wazero 1.12 accepts
// it: core 2.0 (multi-value, bulk memory, reference types, SIMD,
// sign-extension, saturating conversions) plus tail calls, exception
// handling (try_table/throw/throw_ref and the legacy try/catch/delegate),
// extended constant expressions, threads/atomics and typed function
// references. Custom sections (name, .debug_*) are kept byte-exact and in
// place. Function bodies are decoded into flat instruction lists.
//
// What it does not do: it does not validate (type-check) modules; wazero
// does that on the output. GC types (rec/sub/struct/array) and memory64 are
// ErrUnsupported.
//
// # Security
//
// Decode never panics on any input, and counts read from the input never
// size an allocation beyond the bytes left; the cost of decoding is linear
// in the input size.
package instrument
