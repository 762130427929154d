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
// # Preparing a build (one decoding, one encoding)
//
// Prepare makes the module a host runs: it decodes the input once, runs
// every rewrite a Build asks for as a pass over the decoded module (the
// module owns its imported memory, wasm-ld's command export wrappers are
// undone, the module is instrumented, the allocator and the stack pointer
// are exported) and encodes once. Each pass also stands alone (OwnMemory,
// UnwrapCommandExports, Instrument, ExportFunction, ExportStackPointer),
// and Prepare's output is byte for byte theirs run one after the other
// (TestPrepare). The decision: one path for module bytes, where the same
// module was decoded and re-encoded once per step (six decodings on its
// way to a campaign); the gain is in docs/PERFORMANCE.md (BenchmarkLoad).
// The host decides the harness-specific steps (runtime.Preparation).
//
// # Instrumentation
//
// Instrument adds one 8-bit counter per branch site: function entry, both
// arms of every if (a missing else is added), taken and not taken of every
// br_if, every arm of every br_table including the default (per arm, not
// per distinct label). Ids are dense and in function order; within a
// function they run in reverse instruction order (the entry counter has the
// function's highest id; see "The increment" below for why). They are
// stable for a given module and Options. Counters saturate: a site hit n
// times reads min(n, 255), so a hit site never reads as 0 and a long loop
// stays in AFL's top bucket instead of wrapping back to a low one.
// Branches in unreachable code keep their ids but are not rewritten (they
// can never be hit).
//
// Not every site needs a counter of its own (derive.go). A function entry,
// an if arm or a br_if's fall-through whose straight-line code reaches
// another branch before anything that can leave it is hit exactly as often
// as that branch's arms together: its count is their saturating sum, which
// SiteMap.FillDerived computes, and its byte stays 0. Coverage feedback
// reads the counted sites only (a derived site is hit exactly when one of
// its sources is). In the C programs of testdata/programs 14-19 % of the
// sites are derived, in Go programs under 1 % (Go functions start with a
// loop: the jump table of its code generator).
//
// # Go's resume-point dispatch (godispatch.go)
//
// Go's wasm backend starts every function with a loop around a br_table
// on its resume point (the machinery of goroutine switches and stack
// growth); every jump between basic blocks goes back through it. In a Go
// module (a "go:buildid" section) those br_tables get no sites, and fuel
// is checked at the function's entry and at its backward jumps instead
// of at that loop's header: every edge a condition of the program decides
// is an if arm, which stays counted, and every cycle has a backward jump
// (godispatch.go has the argument). Options.CountGoDispatch restores the
// old build; other modules are instrumented byte for byte the same
// either way (TestGoDispatchOtherModulesUnchanged). Current figures
// (docs/PERFORMANCE.md, "Go targets: resume-point dispatch and the
// runtime's counters"): the arms were half of a Go module's sites
// (examples/gojson 149,138 sites before, 74,302 after; 30,893 with the
// runtime skipped, as campaigns do by default), and 5,000-execution
// campaigns on gojson, gopng and goparser reach the same coverage of the
// program's own code with and without them (p >= 0.24, 6 seeds). A
// restore-mode run costs the same within noise without the arms (0.93-
// 1.19 of before, p >= 0.1; persistent runs of gojson 2.12 instead of
// 2.64 times the original's); skipping the runtime as well, 0.71-0.87.
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
// address). Active data segments move up (a constant offset, i32.const
// or extended-const arithmetic on constants, is evaluated and saturates;
// one that reads a global becomes `...; i32.const RB; i32.add`, which
// needs wazero's experimental.CoreFeaturesExtendedConst: runtime should
// enable it, and wraps only for a value within RB of 2^32), and runs of
// them that follow each other in memory are merged into one (mergedata.go: Go's 30,000-odd segments become about a dozen;
// examples/gostdin, a Go command instantiated for every input, went from
// 334-463 to 835-1,094 inputs/s in 10-second campaigns),
// memory.init/copy/fill get their target addresses shifted with
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
// # The increment
//
// wazero bounds-checks every memory access unless the same SSA value was
// already checked with an equal or larger end in a block that dominates
// it. A counter is therefore addressed as `local.get $base` (a local set
// once at entry from an immutable global holding 0) with offset=id, and
// three rules make one check serve a whole function:
//
//   - Ids run backwards within a function, so the entry counter, the first
//     access, has the largest offset and its check covers every later
//     counter reached through it (a function whose entry site is derived
//     starts with a load of that address instead).
//   - After every join (the end of an if or block) `$base` is redefined
//     from itself (`local.get; local.set`, no machine code): wazero answers
//     the first lookup of a variable at a join with the value the
//     predecessors agree on, which carries their check, and every later
//     lookup with a fresh alias that carries none.
//   - A loop header makes `$base` a new SSA value (a phi), so each loop
//     that keeps memory counters starts with one load at the function's
//     highest counter address: one check per iteration, none per counter.
//
// A counter is then a load, `w - (w>>8)` with w = v+1 (v+1, and 255
// stays 255: an add, a shift and a subtract, 3 cycles of latency, where
// the earlier `(v*255+510)>>8` took 5 with its multiply) and a store.
// In a tight loop a counter hit on every iteration still chains each
// iteration to the previous one's store (store-to-load forwarding plus the increment), so in
// innermost leaf loops the sites that stay in the loop count in i64
// locals instead (at most two per loop), flushed into the memory counters
// where control leaves the loop (nest.go).
//
// Current figures (docs/PERFORMANCE.md, "instrument: counters", has the
// tables, their commands and the forms and rewrites measured and not
// kept): the chosen form costs 8.4 machine instructions per counter hit;
// a whole program with counters runs 0.95-1.48x the original's time, and
// with fuel and dirty-page marks, what a restore-mode campaign runs,
// 1.49-1.75x (crunch, cwords, gocalc, czstd, csqlite); about 1.3x of that
// is paid whatever the counters cost (the memory shift, fuel, marks), and
// code layout moves these ratios as much as the counters do. Instrumenting
// runs at 31-33 MB/s; a Go program's instrumented module is 2.4x bigger
// and compiles 2.8x slower (use a compilation cache).
//
// Readout and clear per execution (runtime/): one zero-copy view of
// Layout.Counters bytes at real address 0 and one clear of at most one
// byte per site, which MEASUREMENTS.md puts at 1.6 µs for 10k sites.
//
// # Options
//
// Fuel: an exported mutable i64 "wafer.fuel", decremented at every loop
// header and at the entry of every function that loops or calls (leaf
// loops keep it in a local, nest.go); when it goes negative the module stores
// the negative value and executes unreachable, so a trap with negative
// fuel is a hang. DirtyPages: every store, atomic write, bulk memory
// operation and memory.grow sets the byte DirtyOffset + (address >> 10)
// for the 1 KiB block of target memory its first byte is in (bulk ops and
// grow: every block of the range; a store reaches at most DirtySpill-1
// bytes into the next block, which the host restores along with the
// marked one: one mark per store instead of one per end, and none for a
// store within DirtySpill bytes after a marked one from the same base
// pointer, marks.go; in a Go module, none for a store into the frame of
// a function whose stack pointer goframe.go follows, whose frame is
// marked once at its entry: 28 % of gojson's stores need no mark
// without it, 89 % with it); the map has 4 MiB (64 reserved pages), one byte per
// block of the 32-bit address space, so an index from any 32-bit address
// stays inside it. The host restores whole blocks, so the block size is
// what a restore copies; 1 KiB blocks made restore-mode runs 6.8 % (czstd)
// and 4.2 % (cexpr) faster than 4 KiB ones and the Go reactor's trivial
// run 5.3 % slower (a longer map to scan), each instance 3 MiB bigger
// (docs/PERFORMANCE.md, "instrument: dirty block size"). Skip: functions whose
// name matches get no counters but keep every memory rewrite. Every mutable
// global the module defines is exported as "wafer.g<index>";
// Layout.StackPointerExport names the one LLVM's stack in linear memory is
// addressed by, with the bounds of its values, so the host can tell a
// stack overflow from other traps (stack.go).
//
// HeapGuard (heapguard.go): when the name section names a C allocator
// (malloc and free of libc's types, and calloc, realloc, aligned_alloc,
// posix_memalign and malloc_usable_size when defined), their bodies move
// to new functions ("malloc.unguarded", ...) and wrappers take their
// places, so every caller goes through them: each block gets a 16-byte
// header before it and a 16-byte redzone after it, free and realloc trap
// when the redzone changed or the block was freed already, with the error
// in Layout.HeapExport. Blocks cost 32 bytes more; nothing else changes
// (runtime's TestHeapGuardDifferential: SQLite, Zstandard and a Rust
// crate give the same outcome and output on 811 inputs with and without).
//
// HeapCheck (heapcheck.go), with the guard: every load and store of the
// target's code but those at constant addresses or from the stack
// pointer reads the byte of a shadow of the heap (Layout.ShadowOffset:
// 16 MiB of reserved pages describing the first HeapCover bytes) for its
// last byte and, when it is not zero and the access leaves a live block,
// traps in the accessing function with the error in Layout.HeapExport:
// heap-buffer-overflow and heap-use-after-free as AddressSanitizer
// reports them, and loads and stores below the static data of a module
// whose stack lies above it as null pointer dereferences
// (Layout.NullEnd). The wrappers keep the shadow and mark the target blocks
// whose shadow changed dirty, and hold freed blocks in a quarantine.
// BenchmarkRun, campaign options with and without it (x-check, x-guard;
// 2 runs): crunch 2.17-2.19 against 1.35-1.38 of the original's time,
// czstd 3.35-3.36 against 1.62, csqlite 6.67-6.77 against 2.01;
// runtime's TestHeapGuardDifferential gives the same outcome and output
// with it on the same 811 inputs. A campaign runs one input in 8, and
// every queue entry once, on this build (wafer fuzz --heap-check).
//
// StackCheck and StackDepth (stack.go): after each set of that stack
// pointer but an epilogue's, the module keeps its lowest value in
// Layout.StackMinExport and, when the value is a new lowest, traps if the
// pointer left its bounds (two global reads, a compare and a branch on
// the common path);
// the host turns the depth a run reached into one of DepthSites sites of
// kind StackDepth, after the branch sites, so an input that recurses
// deeper than any before covers a new site, as with libFuzzer's
// stack-depth feature.
//
// CallPairs (callpairs.go): before each call_indirect and
// return_call_indirect of a counted function, the module hashes the call
// site and the table index into one of Layout.CallSites counters after
// the branch sites and sets it to 1, as libFuzzer's indirect-calls
// coverage notes caller-callee pairs (a multiply, a shift and a store
// whose address is computed, so with a bounds check of its own).
//
// Compares (compare.go): the module logs, in reserved pages after the
// dirty map, the last CompareSlots unequal operand pairs of every i32/i64
// eq/ne/lt/gt/le/ge in a counted function (a call to an added helper
// before the comparison) and the first CompareMemBytes bytes of both
// buffers at the entry of functions named memcmp, bcmp, strcmp, strncmp,
// strcasecmp and strncasecmp (a range past the end of memory is not
// read). Layout.Comparisons reads the log. Each comparison costs a call,
// so the host runs a separate build with it, a few times per queue entry
// (input-to-state mutation, package engine), and never the one it runs
// for coverage.
//
// # SiteMap
//
// SiteMap maps each id to function index, code-section-relative offset,
// kind and arm; Funcs names every function (name section, else the DWARF
// subprogram holding it, else export name, else "func[N]") and, when
// .debug_info/.debug_line are present,
// gives file:line via debug/dwarf (wasm DWARF addresses are code-section
// offsets). MarshalBinary/UnmarshalBinary use a versioned format. The
// Dictionary holds printable strings from data segments (>= 3 bytes, or 2
// where code refers to them; cut where code refers into a run, since Rust,
// Go and Zig lay literals end to end), the i32/i64.const immediates that
// feed comparisons, without their high zero bytes, and the case values of
// switches (a br_table on a value minus a constant). The Go runtime's
// functions (packages runtime/... and internal/...) give it no constant or
// string (where they refer still cuts the literals laid end to end), and
// a Go module's strings that no code refers to, the runtime's type and
// function names, are left out: they had filled the 4,096 entries.
//
// Regions (regions.go) record, while the rewriter walks each body, which
// site's hit means each stretch of code ran: the entry's, an if's arm's,
// a br_if's not-taken arm's after it, a branch's arm after a block's end
// that only it reaches, none after an unconditional branch. They only
// record: the instrumented bytes are the same with or without them (the
// six examples, with and without fuel and dirty pages, compared with
// cmp). They let a coverage report mark every line with code, not only
// those holding a branch; a call that traps or never returns leaves the
// code after it looking reached, as with llvm-cov's counters. They grow
// examples/gojson's marshalled site map from 1.42 to 1.85 MB; Instrument
// on gocalc (3.4 MB, fuel and dirty pages) allocates 4.7 % more and takes
// no measurably longer (CPU 195 vs 175 ms/op, p=0.49, n=6).
//
// # Security
//
// Decode and Instrument never panic on any input, and counts read from the
// input never size an allocation beyond the bytes left; the cost is linear
// in the input size.
package instrument
