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
// Load reads the module once (instrument.Summarize) and rejects bytes
// that are no module with the name, the offset and what was expected.
// Each operation compiles the builds it needs through one path
// (runtime.Preparation, instrument.Prepare, runtime.New): Fuzz the
// campaign's build and at most one more (the comparison-logging build,
// which also runs the heap check's samples, or the heap check's build
// alone); NewReproducer the module as it is, then the checked build;
// Minimize the checked build, shrinking while the identity stays the same;
// Merge the campaign's build. Which build runs an input is decided here,
// not in engine, and the rule "an input that passes the faster build runs
// again on the checked one" is written once (checkedAgain).
//
// Progress goes to Options.Log and Options.Status (nil discards); ctx
// cancels every operation and a canceled campaign keeps its Output. Zero
// option values are the defaults of `wafer fuzz`.
//
// It parses no flags, prints no report and picks no exit status (the wafer
// command does); it does not search, run Wasm or lay out files itself; it
// keeps no global state, so two Targets, or two campaigns on one, are
// independent.
//
// Decision: two builds at most, instrumented one at a time and compiled
// concurrently, since each build's code stays in memory for the whole
// campaign (csqlite peaks at 150 MB instead of 193 with a third); see
// docs/PERFORMANCE.md, "Two builds per campaign, one instrumented at a
// time".
package campaign
