// Package runtime runs WebAssembly fuzz targets in wazero: isolated,
// deterministic, and with every way a run can end classified.
//
//	s, err := instrument.Summarize(wasm)    // exports, imports, memories, custom sections
//	b := runtime.Preparation(s, cfg)        // the harness's steps
//	b.Instrument = &instrument.Options{...} // nil: a plain build
//	p, err := instrument.Prepare(wasm, b)   // p.Summary is the build's
//	t, err := runtime.New(ctx, p, cfg)      // compile once
//	w, err := t.NewWorker(ctx)              // one per goroutine
//	res, err := w.Run(ctx, input)           // Outcome, Counters, Failure
//
// runtime never reads module bytes itself: what it needs of a module
// comes from instrument's Summary.
//
// New compiles once, through wazero's compilation cache (Config.CacheDir).
// Harnesses, detected from the exports (Config.Harness overrides):
// libFuzzer-style (LLVMFuzzerTestOneInput and an allocator), Go reactors
// built with package harness (the same protocol), and WASI commands (a new
// instance per run, input on stdin or as an "@@" file). A run is Valid,
// Invalid, Crash or Hang; a Crash or Hang carries a *Failure (a Kind per
// trap, Go and Rust panic, C abort, exit code, out-of-memory, fuel or
// backstop hang; a message; the stack with file:line), which matches its
// Kind's sentinel with errors.Is. Targets see only internal/wasip1: no
// host files, network or environment, a fake clock, seeded random_get,
// memory capped at Config.MaxMemoryPages.
//
// It rewrites no module (instrument.Prepare does), and an error is wafer's
// own trouble or a start-up failure, never the target's. A Target is safe
// for concurrent use, a Worker is not; Result slices stay valid until the
// worker's next Run; Workers must be closed.
//
// Decisions (measured in docs/PERFORMANCE.md, the section in quotes):
//
//   - Restore mode by default: dirty 1 KiB blocks copied back, a failed or
//     grown instance recycled; tlv 307 ns a run, 248 persistent ("Restore
//     mode by default"). Fresh and Persistent are the other Resets.
//   - Fuel decides hangs; the wall-clock backstop only without fuel (13.7x
//     slower loops) ("Fuel decides hangs ..."). A run whose ctx ends
//     stops at its next fuel check instead (cancel.go): a SIGTERM while
//     shrinking exits in under a second, not after a minute.
//   - Warm-up inputs run before the snapshot (Config.WarmUp): gojson 241
//     instead of 560 µs a run ("Warm-up before the snapshot").
//   - free(malloc(1 MiB)) before the snapshot (Config.HeapReserve): libyaml
//     ran 1.39x the executions ("The heap reserve").
//   - Memories and snapshots outside Go's heap on Linux (region.go): czstd
//     with 2 workers 45 MB instead of 437 ("Instance memories ...").
package runtime
