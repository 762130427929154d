// Package runtime runs WebAssembly fuzz targets in wazero: isolated,
// deterministic, and with every way a run can end classified.
//
// # Use
//
//	t, err := runtime.New(ctx, wasm, siteMap, runtime.Config{})  // compile once
//	defer t.Close(ctx)
//	w, err := t.NewWorker(ctx)                                   // one per goroutine
//	res, err := w.Run(ctx, input)                                // res.Outcome, res.Counters, res.Failure
//
// New compiles the module once in one wazero.Runtime (compiler engine where
// wazero supports it, interpreter otherwise, Config.Interpreter forces it),
// with WebAssembly 2.0 plus threads, tail calls, extended-const, exception
// handling and typed function references enabled, through wazero's on-disk
// compilation cache (Config.CacheDir, default os.UserCacheDir()/wafer/wazero)
// so a second campaign does not recompile. A nil SiteMap runs the module
// as it is: no counters, no fuel (the bare-wazero ceiling, and `wafer
// repro`). Each Worker owns one module instance. For a module built with
// instrument.Options.Compares, Worker.Comparisons yields the operands the
// last run compared (the log is cleared before each run).
//
// # Harnesses
//
// Detected from the exports (Config.Harness overrides):
//
//   - libFuzzer-style: LLVMFuzzerTestOneInput(ptr, len) → i32 and an
//     allocator export (malloc, or Config.Malloc). A linker exports only
//     what it is told to: when the allocator is linked in but not
//     exported, the function the name section calls by that name gets an
//     export before compilation (instrument.ExportFunction; a stripped
//     module without the export is a start-up error). wafer calls _initialize
//     (reactors), LLVMFuzzerInitialize(&argc, &argv) when exported (argc 1,
//     argv {"target", NULL}, built in guest memory with the allocator), then
//     malloc(Config.MaxInputLen) once per instance, then the empty input
//     once, as libFuzzer does before any other (what a harness sets up on
//     its first call then belongs to the instance and the snapshot; an
//     empty input that fails is left out; Config.NoEmptyRun), then the
//     optional Config.WarmUp inputs; each input
//     is copied to that buffer (at pointer + Layout.ReservedBytes() in an
//     instrumented module; the rest of the buffer is kept zero) and the
//     target is called with (pointer, length). 0 is Valid, any other
//     return Invalid.
//   - Go reactors built with package harness (GOOS=wasip1 -buildmode=c-shared,
//     detected by Go's "go:buildid" section): the same protocol. A panic
//     prints "panic: ..." and the goroutine trace and ends the call (Go's
//     c-shared runtime traps with unreachable after printing); wafer reports
//     KindGoPanic with the message and the top Go frames from that trace.
//     See package harness for what Go's toolchain allows.
//     A libFuzzer-style module linked as a command (Rust cdylibs; C or C++
//     with -nostartfiles --no-entry) has every export wrapped by wasm-ld in
//     calls to its constructors and destructors: AsReactor, called on the
//     module before instrumenting it, points the exports back at the
//     functions they wrap and makes the constructors its _initialize.
//   - WASI commands (_start): a new instance per run (a command exits);
//     the input is stdin, or a read-only in-memory file "/input" when an
//     argument in Config.Args is "@@". Exit code 0 (or returning from
//     _start) is Valid, Config.InvalidExitCodes are Invalid, any other code
//     a Crash of KindExit. Reset modes do not apply.
//
// # Outcomes and failures
//
// Valid, Invalid, Crash, Hang. A Crash or Hang carries a *Failure: a Kind,
// a one-line message, and the stack innermost first. Kinds: one per Wasm
// trap (unreachable, out-of-bounds memory, table out of bounds or null
// element, divide by zero, integer overflow, invalid conversion, indirect
// call type mismatch, null reference, stack exhausted, unaligned atomic,
// uncaught exception), a Go panic or fatal error (parsed from stderr), a
// Rust panic (its message and location from stderr; the stack starts at
// the first frame outside std, core and alloc), a C abort (an unreachable
// trap whose innermost frame is wasi-libc's abort; the message is
// stderr's last line, e.g. a failed assert), an exit code
// that is neither valid nor invalid, a memory.grow beyond the cap
// (KindOutOfMemory), and the two hangs: fuel (deterministic) and the
// wall-clock backstop, which says "wall-clock timeout (backstop)". Failure
// is an error matching its Kind's sentinel (errors.Is(f, ErrDivideByZero),
// ErrHang for both hangs).
//
// Stacks come from wazero's "wasm stack trace" (function names from the name
// section, C++ and Rust names demangled; file:line from the SiteMap's
// functions, else from the DWARF wazero reads), or from the Go trace for
// Go panics. wazero reports a stack
// overflow without a trace, so KindStackExhausted from the engine has no
// frames. C, C++ and Rust keep a stack in linear memory too, addressed by
// the global wasm-ld names __stack_pointer: a trap that finds it outside
// its bounds (instrument.Layout.StackOverflow; instrument exports it,
// and ExportStackPointer for a module run uninstrumented) is
// KindStackExhausted, "stack overflow: the stack pointer 0x... left the
// stack [low, high]". That is how an overflow ends when the stack comes
// first in memory (Rust's default, C linked with -Wl,--stack-first): the
// pointer wraps around and its first use traps out of bounds. Above the
// static data (wasm-ld's default layout), a module instrumented with
// instrument.Options.StackDepth (a campaign's build) traps as the pointer
// leaves the stack; uninstrumented (wafer repro) an overflow overwrites
// that data first and may trap elsewhere or never. A truncated trace whose innermost
// function fills the stack is also KindStackExhausted ("shadow stack
// exhausted by recursion in f").
//
// # Hangs
//
// An instrumented module with fuel (Layout.FuelExport) gets Config.Fuel
// units per run (default DefaultFuel); a trap with the fuel global negative
// is KindFuel. Result.Fuel is the fuel used. The wall-clock backstop
// (Config.Timeout, via wazero's WithCloseOnContextDone) is only enabled by
// default for modules without fuel: it makes compiled loops check for
// cancellation (MEASUREMENTS.md: 3–6× slower loops); a positive
// Config.Timeout enables it anyway.
//
// Measured (BenchmarkBackstop, clib "K": 100,000 loop iterations,
// uninstrumented, CPU time per run, median of 6): 235 µs without the
// backstop, 3.2 ms with it, 13.7× slower. Hence the default: fuel when the
// module has it, the backstop only when it has not.
//
// # Reset modes
//
// Restore (default, deterministic): after initialisation the worker
// snapshots linear memory and the mutable globals instrument exports as
// "wafer.g<i>"; before each run it copies back the 1 KiB blocks of target
// memory marked in the dirty map (Layout.DirtyOffset, one byte per block of
// 1<<Layout.DirtyShift() bytes; it scans only the entries of the current
// memory size, 32 at a time) and clears their marks, or all of memory when
// the module has no dirty map; if memory grew, or the run crashed or hung,
// it makes a new instance on the old instance's memory, unzeroed, and
// copies back only what the last run dirtied and the data-segment bytes
// initialisation had changed (recycle.go; BenchmarkExternal's
// restore-cold on examples/czstd, a run that grows memory every time:
// about 20 µs per run, where zeroing a new memory and copying the whole
// snapshot into it made it about 105 µs); an
// uninstrumented module, whose unexported globals cannot be restored, is
// initialised again instead. The empty run and Config.WarmUp inputs run
// before the snapshot, then the heap reserve (Config.HeapReserve, in every
// mode): a libFuzzer-style target with malloc and free (exported or
// named) gets free(malloc(1 MiB)), so an allocator that keeps freed memory
// serves later runs from it instead of growing memory. Many harnesses
// return before setting anything up when the input is short, so the empty
// run allocates nothing and, without the reserve, every run that parses
// grows memory and costs a new instance: libyaml (0.2.5 development
// sources, built with a harness of that shape, not in this repository)
// grew memory in 705,438 of 709,187 runs of a 15-second campaign, and in
// none of 894,108 with the reserve, and ran 1.39x the executions in
// 10-second campaigns (medians of 3, interleaved: 416k against 577k);
// examples/csqlite grew memory in 7,694 of 84,281 runs of a 15-second
// campaign, and in none of 94,028 (10-second
// campaigns: 63.1k against 64.4k executions, medians of 3, within their
// noise). The allocator's own growth path is then covered only by runs
// that allocate more than the reserve. Tables are
// not snapshotted (a target that rewrites its table at run time is not
// reset). Fresh: a new, initialised instance per run. Persistent: the
// instance is reused, only counters and captured output are cleared (the
// WASI clock and random stream go on, as the instance's memory does).
// In every mode every run starts with all counters zero, and an instance
// that crashed or hung is discarded, never reused. Run zeroes the counters
// before each run unless the caller took that over (SetCallerClears, what
// package campaign does for the engine, whose coverage scan zeroes each
// non-zero block as it reads it, one pass over the map instead of two); a new instance (the
// first, Fresh, or the replacement of a failed one) starts with zero
// counters either way, and so does the Restore snapshot.
//
// Host writes into guest memory: WASI's (fd_read buffers, random_get,
// clock results) mark the dirty map like the target's stores
// (internal/wasip1's State.DirtyShift), so restore undoes them. The input
// buffer is the one host write that is not marked: it is allocated once
// per instance (malloc(MaxInputLen) during initialisation, so it is part
// of the snapshot and survives every restore at the same address), and
// each run writes the input into it and zeroes what the previous, longer
// input left behind. No allocator call happens per run.
//
// # Cost per run
//
// CPU time per run (process CPU time, robust on a shared machine), medians
// of 10 (6 for the two clib rows; benchstat) of
// go test ./runtime -run '^$' -bench 'Ceiling|InstrumentedLoop|Run/' -count 10,
// 2 vCPUs shared with other benchmarks, after instrument's counter rewrite
// (pinned base, leaf loops in locals); "instrumented" is
// instrument.Options{Fuel, DirtyPages}, the counters read after each run
// and zeroed in the same pass (bench_test.go's scan with SetCallerClears,
// which visits every hit and skips zero 4 KiB blocks as the engine's
// does). Spreads are 5-20 %:
//
//	target                        ceiling  instr.loop  restore         persistent      fresh
//	C reactor, trivial ("V")       23 ns     27 ns     177 ns (0.13)   122 ns (0.19)    46 µs
//	C reactor, 100k-iter. loop    178 µs    182 µs     175 µs (1.02)   182 µs (0.98)   369 µs
//	Go reactor, trivial ("V")      55 ns     86 ns     1.5 µs (0.04)   1.3 µs (0.04)   2.0 ms
//	examples/cexpr "12*(3+4)"     124 ns    213 ns     527 ns (0.24)   399 ns (0.31)    38 µs
//	examples/tlv, 22-byte input    66 ns    113 ns     307 ns (0.22)   248 ns (0.27)    39 µs
//	Go WASI command (stdin)          -         -          -               -            2.5 ms
//
// (fresh: before the counter rewrite.) Before the caller's one-pass
// clearing and the zero-block skip (same benchmarks, interleaved with
// these runs): the Go reactor's restore 2.95 µs and persistent 2.68 µs,
// the others unchanged within the spread. The loop target runs about as
// fast instrumented as bare: its loop counts in locals.
//
// (ratio) is execs/s as a fraction of the ceiling's. The ceiling is bare
// wazero: the uninstrumented module, the input written once, then only
// LLVMFuzzerTestOneInput called with CallWithStack and a reused stack.
// "instr.loop" (BenchmarkInstrumentedLoop) is the same loop on the
// instrumented module: the instrumentation's own cost, before anything
// runtime does per run. Between it and persistent is runtime's fixed cost
// (fuel set and read, input copied, the outcome, and the counter read and
// clear itself): about 90-200 ns on the C targets. Between
// persistent and restore is the reset: the 4 KiB blocks the run dirtied
// (one for "V" and tlv, two for cexpr: static data and the top of the
// stack), the dirty map of the current memory size scanned 32 entries at a
// time, the mutable globals set: 1.1x persistent on the Go reactor,
// 1.2-1.5x on the C targets. On the Go reactor, reading and clearing its
// 87k counters (87 KB of memory; "V" hits 29) is most of the cost in
// every mode: once 2.6 µs (a clear, then a scan 64 bytes at a time), now
// about 1.2 µs (one pass, zero 4 KiB blocks compared whole). On the small
// C targets the instrumented code alone is 0.55-0.6 of the ceiling, and
// copying back the dirtied 4 KiB blocks (one for tlv, two for cexpr: about
// 50 ns each) is most of what restore adds. Fresh instantiates per run
// into the previous instance's recycled memory buffer.
//
// (The table was measured with 4 KiB dirty blocks. With the 1 KiB blocks
// instrument now marks, BenchmarkRun's restore mode, 6 runs interleaved
// with the 4 KiB build: czstd 6.03 to 5.62 µs, cexpr 520 to 498 ns, tlv
// within noise, the Go reactor 1.73 to 1.82 µs: a longer map to scan for
// its larger memory, and less to copy for the C targets.)
//
// Before the 4 KiB dirty blocks (the map had one byte per 64 KiB page) and
// the per-run fast path, same benchmarks and machine: restore 1.39 µs on
// "V", 4.1 µs on the Go reactor, 2.9 µs on cexpr, 1.56 µs on tlv (a whole
// 64 KiB page copied per dirty page); persistent 159 ns on "V", 442 ns on
// cexpr; fresh 72 µs on "V" and 4.1 ms on the Go reactor (each
// instance's memory allocated anew). Uninstrumented ("plain"), restore copies
// all of memory (about 100 µs for the Go reactor) and the backstop slows
// loops (Hangs).
//
// Real targets (BenchmarkExternal, CPU medians of 6): examples/gojson on
// its seed: ceiling 98 µs, restore 703 µs, restore with the seed as
// Config.WarmUp 266 µs, persistent 311 µs (before the 4 KiB blocks: 104,
// 697, 289, 308 µs). Restored runs start from the post-initialisation
// heap, so encoding/json rebuilds its type caches in every run unless a
// warm-up input built them before the snapshot; with it restore is as fast
// as persistent. The remaining 2.7x to the ceiling is the instrumented
// code itself.
//
// Package harness now warms the Go runtime up before the snapshot (a 4 MiB
// heap, a 64 KiB stack; harness/export_wasip1.go). gojson, medians of 3 on
// a noisier day: restore 560 µs, with WarmUp 241 µs, persistent 260 µs.
// On examples/gopng, where every restore-mode run grew memory before and
// so needed a new instance, a run takes 412 µs instead of 897 µs.
//
// # Isolation
//
// Targets see only wafer's WASI (internal/wasip1): no host file system,
// network or environment, a fake clock, a seeded random_get (Config.Seed),
// argv and environment from Config. Memory is capped at
// Config.MaxMemoryPages target pages (plus wafer's reserved pages) by a
// wazero memory allocator that ends the run at a larger grow (a panic
// wazero recovers): a Crash of KindOutOfMemory whose stack is that of the
// allocation (sbrk, malloc, then the code that asked; package corpus's
// identity starts past the allocator's frames).
// stdout and stderr are kept as bounded tails (Config.OutputTail).
//
// # Errors
//
// Target failures are Results. Errors are wafer's own trouble or start-up
// failures: malformed or unsupported Wasm (wazero's message), an import wafer
// cannot provide ("unsupported import: function env.f"), no harness export,
// a trap or exit during _initialize/LLVMFuzzerInitialize/malloc (the
// classified failure and its stack), an input longer than MaxInputLen, or
// the caller's ctx ending during a run.
//
// # Concurrency
//
// A Target is safe for concurrent use (NewWorker from several goroutines);
// a Worker is not: one per goroutine. Result slices alias worker buffers
// and stay valid until that worker's next Run.
package runtime
