// Package instrument decodes, encodes and rewrites WebAssembly modules for
// coverage-guided fuzzing.
//
// # Decoding and encoding
//
// Decode and Encode cover the whole binary format as wazero 1.12 accepts
// it: core 2.0 (multi-value, bulk memory, reference types, SIMD,
// sign-extension, saturating conversions) plus tail calls, exception
// handling (try_table/throw/throw_ref and the legacy
// try/catch/catch_all/rethrow/delegate), extended constant expressions,
// threads/atomics and typed function references (call_ref, br_on_null,
// br_on_non_null, ref.as_non_null, (ref null? ht) value types, table
// initialisers). Custom sections (name, .debug_*, producers) are kept
// byte-exact and in place. Function bodies and constant expressions are
// decoded into flat instruction lists (Instr, immediates in three integer
// fields, variable-length ones in Expr.Pool) and walked with Expr.All or
// Module.Functions. Malformed input is a *FormatError naming the section,
// the absolute byte offset and what was expected.
//
// What it does not do: it does not validate (type-check) modules; wazero
// does that on the output (instrumenting an invalid module may yield a
// valid one, for example when an added local or memory satisfies a dangling
// index). GC types (rec/sub/struct/array), memory64 and multiple memories
// are ErrUnsupported.
//
// # Instrumentation
//
// Instrument adds one 8-bit counter per branch site: function entry, both
// arms of every if (a missing else is added), taken and not taken of every
// br_if, every arm of every br_table including the default (per arm, not
// per distinct label). Ids are dense, in function then instruction order,
// so they are stable for a given module and Options. Counters are
// never-zero: v' = v+1 + ((v+1)>>8), so 255+1 is 1 (AFL++'s NeverZero),
// and a hit site never reads as 0. Branches in unreachable code keep their
// ids but are not rewritten (they can never be hit).
//
// # Where the counters live (the decision)
//
// The instrumented module keeps its single linear memory; the first
// Layout.ReservedPages pages belong to wafer and counter id lives at real
// address id. Every target address a is moved to a + Layout.ReservedBytes()
// by adding ReservedBytes to the static offset immediate of every load,
// store, atomic and SIMD memory access: no extra instruction, and an access
// traps at exactly the same target addresses as before, because the real
// memory is exactly ReservedPages bigger (an offset that no longer fits in
// 32 bits becomes 0xffffffff, which stays out of bounds for every
// address). Active data segments move up (i32.const offsets saturating; a
// global.get offset becomes `global.get; i32.const RB; i32.add`, which
// needs wazero's experimental.CoreFeaturesExtendedConst: runtime should
// enable it), memory.init/copy/fill get their target addresses shifted with
// saturation (never wrapping, so bounds checks see the same answer),
// memory.size answers size-ReservedPages and memory.grow old-ReservedPages
// or -1. Minimum and maximum grow by ReservedPages (the maximum is capped
// at 65536 pages, so a target whose maximum was 65536 loses ReservedPages
// pages: a documented limitation). The memory is exported as
// "wafer.memory"; every pointer the host passes in or receives (WASI, the
// fuzz input) gets ReservedBytes added (internal/wasip1's State.Base).
//
// Why not the alternatives (MEASUREMENTS.md, wazero 1.12 compiler, 2 vCPU):
//
//   - Mutable globals are the cheapest to bump (0.37 ns per hit, no bounds
//     check) but reading and clearing them costs one host call each:
//     126 µs per execution for 10k counters, 1.8 ms for 100k, against
//     1.6 µs and 17.4 µs for a zero-copy view of memory bytes. With a Go
//     target's ~86k sites that is 100x the readout, and readout, not
//     increments, sets the exec/s ceiling.
//   - A flush function copying globals to memory is 35 µs per 10k and
//     megabytes of code that take seconds to compile.
//   - Counters at the end of memory change which accesses trap (a target
//     load one byte past its memory would read a counter) and what
//     memory.size answers; a region below the target with shifted offsets
//     keeps both.
//
// The increment form was measured on testdata/hot.wat (wazero compiler;
// "loop": 9 counter hits per iteration, "calls": 5.5 hits and a call every
// other iteration). The shared machine (load average 12-14 on 2 cores) made
// wall time and even thread CPU time irreproducible (two CPU-time runs
// ranked the forms differently), so the decision rests on executed machine
// instructions, counted with valgrind's lackey (reproducible to 0.3
// instructions/iteration): the difference between 22 and 2 benchmark
// iterations of 65536 loop iterations each,
//
//	go test -c -o /tmp/i.test ./instrument
//	GOMAXPROCS=1 GOGC=off valgrind --tool=lackey --basic-counts=yes --smc-check=all \
//	  /tmp/i.test -test.run '^$' -test.bench 'CounterForm/loop/base-mul$' -test.benchtime 22x
//
//	form (machine instructions per iteration)          loop    calls   per hit
//	original                                            47.1    37.6    -
//	local $base, offset=id, (v*257+257)>>8 (chosen)     192.4   130.5   16.1
//	local $base, offset=id, v+1+((v+1)>>8)              201.5   135.9   17.2
//	i32.const 0 twice, offset=id                        242.1   157.2   21.7
//	i32.const id twice, offset=0                        241.8   156.9   21.6
//	local $base, plain v+1 (wraps to 0; not used)       174.6   119.7   14.2
//
// (The "per hit" figures include turning each br_if into an if/else.)
// A base held in a local is one SSA value that wazero bounds-checks once
// per block; two `i32.const` addresses are separate values with separate
// checks, as MEASUREMENTS.md found (0.7-1.1 ns vs 1.8-2.5 ns per hit).
// So every function with counters starts with `global.get $base` (an
// immutable global holding 0) into a local and addresses counter id as
// that local with offset=id; the never-zero step costs about 2
// instructions per hit over a wrapping counter. Thread CPU time medians
// (`go test ./instrument -run '^$' -bench CounterForm -count 6`,
// cpu-ns/iter, loop / calls): original 6.6 / 3.3, base-mul 12.9 / 8.5,
// base-local 13.0 / 7.3, const-id 14.4 / 10.0, const0-offset 14.2 / 9.6:
// roughly 0.7-1 ns per hit, the same order as MEASUREMENTS.md's bare
// increments, with the constant-address forms behind again.
//
// Instrumentation throughput (BenchmarkThroughput, counters only, median
// of 6): 40 MB/s of thread CPU time on the 3.4 MB and 6.5 MB Go programs of
// testdata/programs (17-19 MB/s wall clock on the loaded machine);
// unchanged instructions are copied from the input as byte spans. The
// instrumented Go program is 2.3x bigger (3.4 MB to 7.8 MB: 150k sites,
// 75k of them br_table arms of Go's resumption tables) and compiles in
// wazero about 2.8x slower (BenchmarkCompile): use a compilation cache.
//
// Readout and clear per execution (runtime/): one zero-copy view of
// Layout.Counters bytes at real address 0 and one clear of at most one
// byte per site, which MEASUREMENTS.md puts at 1.6 µs for 10k sites.
//
// # Options
//
// Fuel: an exported mutable i64 "wafer.fuel", decremented at every
// function entry and loop header; when it goes negative the module stores
// the negative value and executes unreachable, so a trap with negative
// fuel is a hang. DirtyPages: every store, atomic write, bulk memory
// operation and memory.grow sets the byte DirtyOffset + (address >> 12)
// for the first and last 4 KiB block of target memory it touches (bulk ops
// and grow: every block of the range); the map has 1 MiB (16 reserved
// pages), one byte per block of the 32-bit address space, so an index from
// any 32-bit address stays inside it. 4 KiB rather than the 64 KiB Wasm
// page because the host restores whole blocks: a run that touches a few
// bytes of stack costs a 4 KiB copy, not 64 KiB. Skip: functions whose
// name matches get no counters but keep every memory rewrite. Every mutable
// global the module defines is exported as "wafer.g<index>".
//
// # SiteMap
//
// SiteMap maps each id to function index, code-section-relative offset,
// kind and arm; Funcs names every function (name section, else export
// name, else "func[N]") and, when .debug_info/.debug_line are present,
// gives file:line via debug/dwarf (wasm DWARF addresses are code-section
// offsets). MarshalBinary/UnmarshalBinary use a versioned format. The
// Dictionary holds printable strings (>= 3 bytes) from data segments and
// the i32/i64.const immediates that feed comparisons.
//
// # Security
//
// Decode and Instrument never panic on any input, and counts read from the
// input never size an allocation beyond the bytes left; the cost is linear
// in the input size.
package instrument
