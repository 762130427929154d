// Package gofuzz runs a Go package's fuzz tests (func FuzzXxx(f
// *testing.F)) as wafer targets, with no harness to write:
//
//	t, err := gofuzz.Find(ctx, ".", "./parser:FuzzParse") // go list, go/parser
//	wasm, err := gofuzz.Build(ctx, t, gofuzz.BuildOptions{})  // go test -c for wasip1
//	d, err := gofuzz.Describe(ctx, wasm)                      // argument types, f.Add values
//
// Build adds one generated test file to the package through go's -overlay
// (the package's directory is never written) and builds the test binary
// as a WASI reactor with the libFuzzer protocol. One build serves all the
// fuzz tests of the package (of one package clause); the environment
// variable WAFER_GO_FUZZ_TEST, which Test.System sets, picks the one that
// runs when the module starts. That file runs the fuzz
// test through package testing itself (testing.MainStart with its own
// deps): once as go test -fuzz's coordinator, which hands over the
// argument types and the f.Add values, then as its worker, parked in
// RunFuzzWorker, which runs the fuzz function on each input wafer sends.
// So t.Fatal, t.Skip, t.Cleanup, helpers and both kinds of test package
// behave exactly as under go test -fuzz: a failure or panic is reported
// on stderr with the fuzz function's own stack (runtime's go-test-fail
// and go-panic kinds), a Skip makes the input invalid.
//
// An input is the arguments in generators' tuple encoding (EncodeTuple),
// so a fuzz test of one []byte takes wafer's inputs as they are, and
// generators.Tuple draws typed arguments for the generator strategies.
// Corpus files in go test's format (testdata/fuzz/FuzzXxx/*) are read
// by ReadCorpusFile (package corpus parses them, this checks the values'
// types against the fuzz function's) and written by WriteCorpusFile.
//
// Build also names, in the module's instrument.UncountedSection, the
// packages of the test binary that the fuzz test's code does not reach
// but through testing and its fuzzing machinery (runtime/pprof, regexp,
// ...) or through the package's other tests (FuzzJSON's encoding/json,
// for FuzzPNG): go list's import graph, from the imports the test's own
// declarations reach (testImports, read syntactically); package campaign
// leaves them uncounted (docs/PERFORMANCE.md, "Go fuzz tests: only what
// the test's code reaches is counted"). The go build is one per package;
// the file Build returns is one per test, the module with its section.
//
// It does not fuzz (package campaign does) and does not change the
// user's files; Build's cache lives in the user's cache directory.
//
// Decision: package testing's own worker mode instead of rewriting the
// test's sources against a stand-in testing package (go-118-fuzz-build's
// way): helpers that take a *testing.T, testing.TB interfaces and t.Run
// keep working. The overlay rewrites only the f.Fuzz call (the fuzz
// function wrapped) and, in the fuzz function's literal, t.Skip, t.Skipf
// and t.SkipNow (fastSkips: a skip statement marks the input invalid and
// returns, without t.Skip's stack walk for its log line). When no other
// skip can be reached (otherSkips), the fuzz function then runs on the
// export's goroutine, on the T of its first call, parked: an input costs
// a direct call, not two goroutine switches; a failure ends that T on
// its own goroutine, so testing reports it as go test does.
package gofuzz
