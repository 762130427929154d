// Package harness turns a Go program into a wafer fuzz target.
//
// A Go target is a package main, built as a WASI reactor:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o target.wasm .
//
// that registers its fuzz function from an init function:
//
//	func init() {
//		harness.Fuzz(func(data []byte) error {
//			if len(data) < 4 {
//				return harness.ErrInvalid // or any error: the input is "invalid"
//			}
//			parse(data) // a panic here is a "crash"
//			return nil  // "valid"
//		})
//	}
//
//	func main() {}
//
// Importing this package adds two `//go:wasmexport` functions to the module,
// the libFuzzer protocol wafer's runtime speaks to every libFuzzer-style
// target:
//
//	malloc(size int32) int32                      // a buffer for the input
//	LLVMFuzzerTestOneInput(ptr, size int32) int32 // 0 = valid, -1 = invalid
//
// The runtime calls _initialize (Go's runtime start-up and package init
// functions, so Fuzz has run), then malloc once for an input buffer, then
// LLVMFuzzerTestOneInput once per input. A returned error makes the input
// invalid; a panic is not recovered: Go prints "panic: ..." and the goroutine
// trace to stderr and the instance dies (Go 1.26's c-shared runtime then
// executes unreachable; a command exits with code 2). wafer classifies
// either as a crash of kind go-panic with the panic message and the top Go
// frames parsed from that trace; "fatal error: ..." (a deadlock, Go running
// out of memory) is kind go-fatal.
//
// What Go's toolchain allows and what it does not (Go 1.24 and later):
//
//   - Only GOOS=wasip1 GOARCH=wasm with -buildmode=c-shared produces a reactor
//     (exports _initialize, no _start). A plain build produces a command,
//     whose main runs once and exits; wafer runs such a module as a WASI
//     command instead (input on stdin or in an @@ file), at about the cost
//     of a full Go start-up (milliseconds) per input.
//   - main.main is never called in a reactor; package init functions run
//     once, during _initialize. So call Fuzz from an init function: a Fuzz
//     call in main would never happen, and every input would be invalid.
//   - Exported functions take and return only fixed-size numbers and
//     pointers, hence the (ptr, size) protocol. The data slice passed to the
//     fuzz function aliases the input buffer: it is valid only during the
//     call; copy it to keep it.
//   - A panic in an exported call terminates the whole instance; wafer
//     never reuses it. recover() inside the fuzz
//     function works as usual if the target wants to turn panics into
//     errors.
//   - Goroutines run only while an exported call is running: there is no
//     event loop between calls. Goroutines started by the fuzz function and
//     still runnable when it returns are suspended until the next call, and
//     a call that blocks with no runnable goroutine is a fatal "deadlock"
//     (a crash). Timers and time.Sleep use WASI's clock, which wafer fakes
//     deterministically; time does not pass between calls.
//   - Go's runtime is single-threaded on wasm (GOMAXPROCS is 1); there is no
//     parallelism inside a target, only between wafer workers, each of which
//     owns its own instance.
//   - A Go reactor is large (about 2 MB, thousands of functions) and costs
//     about 5 ms to initialise; wafer's restore mode snapshots it once after
//     initialisation, so the start-up cost is paid once per worker.
//   - malloc's first call also warms the Go runtime up before wafer
//     snapshots the instance: it grows Go's heap by 4 MiB (allocated, then
//     collected) and the goroutine stack to 64 KiB. Every restore-mode run
//     starts from that snapshot, and would otherwise grow both again: a
//     memory that grew can only be restored on a new instance, and a stack
//     that grows is copied frame by frame. Each instance's memory is 4 MiB
//     larger.
//
// Unlike the rest of wafer, this package keeps package-level state (the
// registered function and the input buffer): a wasm export has no receiver,
// and a target module holds exactly one harness.
//
// This package does nothing outside GOOS=wasip1: on other platforms Fuzz
// only records the function (so a target's unit tests can call it through
// TestOneInput), and nothing is exported.
package harness
