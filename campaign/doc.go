// Package campaign is wafer's public Go API: it loads a WebAssembly target
// and fuzzes it, reproduces inputs, minimises a crash and merges corpora,
// returning values (a Summary with its Findings, a Result per input,
// Minimized, Merged) instead of printing. It is the one place that wires
// wafer's packages: instrument → runtime → engine → corpus.
//
//	target, err := campaign.Load("parser.wasm", wasm, campaign.TargetOptions{})
//	sum, err := target.Fuzz(ctx, campaign.Options{Generator: myGen, MaxTotalTime: time.Minute})
//	for _, f := range sum.Findings {
//		fmt.Println(f.Identity, f.Report)
//	}
//
// # What it does
//
// Load keeps the module's bytes and TargetOptions (harness, allocator,
// arguments, memory cap, heap guard and check, stack and call-pair
// feedback, skip patterns, warm-up inputs). Each operation compiles the
// builds it needs through one function (Target.compile:
// runtime.Preparation's steps for the harness, instrument.Prepare for
// the build, one decoding and one encoding, then runtime.New):
//
//   - Fuzz: the campaign's build (counters, fuel, dirty pages, heap guard,
//     stack check), and at most one more: in raw mode the build that logs
//     comparisons for input-to-state mutation, compiled meanwhile on
//     another goroutine, which also has the heap check, so one input in
//     TargetOptions.HeapCheck runs on it (chosen by a hash of its bytes,
//     so deterministic campaigns stay so); without comparisons, the heap
//     check's build alone, compiled only when the campaign's build found a
//     heap to check (a C allocator; never in a Go module). The executors
//     that choose a build per input live here, not in engine: which build
//     runs an input is the wiring's decision, not the search's.
//   - NewReproducer: the module as it is (exact file:line stacks), and the
//     build with the checks for the inputs that pass there.
//   - Minimize: the build with the checks, shrinking while the identity
//     (runtime.Result.Identity) stays the same.
//   - Merge: the campaign's build, keeping the inputs that add coverage.
//
// The policy "an input that passes the faster build runs again on the
// checked one" is written once (checkedAgain), for Reproducer and for the
// campaign's shrinker; a failure's identity is computed once, by
// runtime.Result.Identity.
//
// Progress goes to Options.Log (INFO lines) and Options.Status (the live
// metrics); nil writers discard them. ctx cancels every operation; a
// canceled campaign stops cleanly (StopCanceled), its Output saved.
// Option structs' zero values are the defaults of `wafer fuzz`.
//
// # What it does not do
//
// It parses no flags, prints no report of its own and picks no exit
// status: the wafer command (package main) does, over this package. It
// does not search, run Wasm or lay out files itself: engine, runtime and
// corpus do, and it only connects them. It keeps no global state: two
// Targets, or two campaigns on one Target, are independent.
//
// # Cost
//
// Decision: two builds at most, the second compiling on another
// goroutine while the campaign's build compiles (compiling is one core's
// work: on gojson it was 2.5 s of a cold start), because each build's
// compiled code and decoded module stay in memory for the whole campaign:
// a third build was 26 MB of csqlite's peak (docs/PERFORMANCE.md,
// "campaign: memory"). A later compile of the same build reads wazero's
// compilation cache.
package campaign
