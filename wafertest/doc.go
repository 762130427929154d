// Package wafertest fuzzes a WebAssembly target from `go test`, as the
// testing package's FuzzXxx targets fuzz Go code.
//
//	func TestFuzzParser(t *testing.T) {
//		wafertest.Fuzz(t, "testdata/parser.wasm", wafertest.Options{Generator: myGen, MaxTotalTime: 10 * time.Second})
//	}
//
// In a plain `go test`, Fuzz replays the test's corpus as regression
// tests: the files under testdata/wafer/<TestName>/ and Go's
// testdata/fuzz/<TestName>/ (raw files and "go test fuzz v1" files alike).
// Each input runs once, as `wafer repro` runs it; one that crashes or
// hangs fails the test with the failure, the Wasm stack with source lines
// and the commands that reproduce it.
//
// With WAFER_FUZZ=1 in the environment (or Options.Fuzz), Fuzz runs a
// campaign (package campaign) from that corpus for the budget of the
// options, saves each new failing input to testdata/wafer/<TestName>/ (so
// the next plain `go test` replays it) and fails the test with the same
// report. A generator is any Go function over *generators.Source; the
// strategies that use the structure of its draws (zest and those after
// it) get it from there.
//
// Fuzz does not keep the campaign's queue: what a campaign learnt beyond
// its failures is lost when it ends (use `wafer fuzz -o DIR` for a
// resumable campaign), and it does not minimise the corpus.
package wafertest
