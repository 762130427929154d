// Package runtime runs WebAssembly fuzz targets in wazero: isolated,
// deterministic, and with every way a run can end classified.
//
// # Use
//
//	b := runtime.Preparation(wasm, cfg)                          // the harness's steps
//	b.Instrument = &instrument.Options{...}                      // nil: a plain build
//	p, err := instrument.Prepare(wasm, b)                        // decoded once, encoded once
//	t, err := runtime.New(ctx, p.Wasm, p.SiteMap, cfg)           // compile once
//	defer t.Close(ctx)
//	w, err := t.NewWorker(ctx)                                   // one per goroutine
//	res, err := w.Run(ctx, input)                                // res.Outcome, res.Counters, res.Failure
//
// New compiles the module once in one wazero.Runtime (compiler engine where
// wazero supports it, interpreter otherwise, Config.Interpreter forces it),
// with WebAssembly 2.0 plus threads, tail calls, extended-const, exception
// handling and typed function references enabled, through wazero's on-disk
// compilation cache (Config.CacheDir, default os.UserCacheDir()/wafer/wazero)
// so a second campaign does not recompile. runtime rewrites no module:
// it runs the bytes it is given, and instrument.Prepare makes them (own
// memory, the harness's adaptation from Preparation, instrumentation,
// exports) in one pass over one decoded module. A plain build's SiteMap
// has no counters and no fuel (`wafer repro`); a nil one runs the module
// knowing nothing of it (the bare-wazero ceiling). Each Worker owns one
// module instance. For a module built with instrument.Options.Compares,
// Worker.Comparisons yields the operands the last run compared (the log
// is cleared before each run).
//
// # Harnesses
//
// Detected from the exports (Config.Harness overrides):
//
//   - libFuzzer-style: LLVMFuzzerTestOneInput(ptr, len) → i32 and an
//     allocator export (malloc, or Config.Malloc). A linker exports only
//     what it is told to: when the allocator is linked in but not
//     exported, the function the name section calls by that name gets an
//     export in the build (Preparation's Export; a stripped module
//     without the export is a start-up error). wafer calls _initialize
//     (reactors), LLVMFuzzerInitialize(&argc, &argv) when exported (argc 1,
//     argv {"target", NULL}, built in guest memory with the allocator), then
//     malloc(Config.MaxInputLen) once per instance, then the empty input
//     once, as libFuzzer does before any other (what a harness sets up on
//     its first call then belongs to the instance and the snapshot; an
//     empty input that fails is left out; Config.NoEmptyRun), then the
//     optional Config.WarmUp inputs (likewise left out when they fail);
//     each input is copied to that buffer (at pointer + Layout.ReservedBytes() in an
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
//     calls to its constructors and destructors: Preparation's Initialize
//     has the build point the exports back at the functions they wrap
//     and make the constructors its _initialize.
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
// its bounds (instrument.Layout.StackOverflow; every build
// instrument.Prepare makes exports it, plain ones too) is
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
// Decision: fuel when the module has it, the backstop only when it has
// not. Current figure (BenchmarkBackstop, a 100,000-iteration loop): 235 µs
// a run without the backstop, 3.2 ms with it (13.7x; docs/PERFORMANCE.md,
// "runtime: the wall-clock backstop").
//
// # Reset modes
//
// Restore (default, deterministic): after initialisation the worker
// snapshots linear memory and the mutable globals instrument exports as
// "wafer.g<i>"; before each run it copies back the 1 KiB blocks of target
// memory marked in the dirty map (Layout.DirtyOffset, one byte per block of
// 1<<Layout.DirtyShift() bytes; it scans only the entries of the current
// memory size, 32 at a time; a block in a page the snapshot holds as zero
// is cleared instead, the snapshot's page left unread) and clears their
// marks, or all of memory when
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
// grows memory and costs a new instance: with it, a libyaml harness of
// that shape ran 1.39x the executions (docs/PERFORMANCE.md, "runtime: the
// heap reserve"). The allocator's own growth path is then covered only by
// runs that allocate more than the reserve. Tables are
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
// Memory: instance memories and snapshots are regions (region.go): on
// Linux, address space for the memory cap reserved outside Go's heap with
// mmap and committed as memory grows, so a memory never moves or doubles
// on growth, and the garbage collector neither scans them nor lets its
// heap reach twice their size; elsewhere Go slices. Snapshots, new
// instances and the dirty map's clearing write only non-zero pages and
// read none the OS reports never written (/proc/self/pagemap), so the
// reserved pages (a 4 MiB dirty map, a heap check's 16 MiB shadow) take
// only what a run touched. A Worker's Close releases them: Workers must
// be closed. Decision and figures: docs/PERFORMANCE.md, "campaign:
// memory" (a czstd campaign with 2 workers: 542 MB peak resident before,
// 64 MB now).
//
// # Cost per run
//
// Decision: restore mode by default (deterministic, and within 1.1-1.5x of
// persistent), the counters read through one zero-copy view and cleared
// in the same pass, the input buffer allocated once per instance. Current
// figures (CPU time per run, medians; restore / persistent / the bare
// ceiling): tlv 307 / 248 / 66 ns, cexpr 498 / 399 / 124 ns, the trivial
// Go reactor 1.8 / 1.3 µs / 55 ns (most of it reading its 87k counters),
// czstd 5.6 µs restore; gojson on its seed 560 µs restore, 241 µs with the
// seed as Config.WarmUp, 260 µs persistent. The table per target and mode,
// the command that reproduces it and the figures before each change are in
// docs/PERFORMANCE.md ("runtime: cost per run").
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
// identity starts past the allocator's frames). Config.MallocLimit
// (libFuzzer's -malloc_limit_mb) ends a reactor's run at a memory.grow by
// more than it at once: KindMallocLimit, at the allocating call.
//
// FrameKey is the canonical name of a frame for identities: Go's panic
// traces and a Go module's name section spell a function differently
// ("pkg.(*T).m", "pkg.__T_.m"), C++ and Rust names come mangled or not.
// A fuel hang's innermost frame gets the line of the loop whose fuel check
// ran out: the check leaves the loop's code offset in a global
// (instrument's Layout.HangAtExport), mapped through DWARF (hangline.go).
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
