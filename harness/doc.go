// Package harness turns a Go program into a wafer fuzz target: a package
// main built as a WASI reactor that registers its fuzz function in init.
//
//	// GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o target.wasm .
//	func init() {
//		harness.Fuzz(func(data []byte) error {
//			parse(data) // a panic is a crash
//			return nil  // valid; an error (e.g. harness.ErrInvalid): invalid
//		})
//	}
//
//	func main() {}
//
// Importing it exports, with //go:wasmexport, the libFuzzer protocol
// wafer's runtime speaks: malloc(size) for the input buffer and
// LLVMFuzzerTestOneInput(ptr, size) (0 valid, -1 invalid). A panic is not
// recovered: Go prints it with the goroutine trace and the instance dies;
// wafer reports kind go-panic with the message and top frames ("fatal
// error: ..." is go-fatal) and never reuses the instance.
//
// What Go's toolchain allows (Go 1.24 and later):
//
//   - Only -buildmode=c-shared makes a reactor; a plain build is a WASI
//     command, run once per input at a full Go start-up's cost.
//   - main.main never runs in a reactor: call Fuzz from init.
//   - data aliases the input buffer: copy it to keep it past the call.
//   - Goroutines run only during a call; a call that blocks with none
//     runnable is a "deadlock" crash. Time is wafer's fake clock.
//   - GOMAXPROCS is 1: parallelism is only between wafer's workers.
//
// malloc's first call warms the Go runtime up before wafer's snapshot (a 4
// MiB heap, allocated then collected, and a 64 KiB goroutine stack), so
// restore-mode runs do not grow them again: gopng 412 instead of 897 µs a
// run (docs/PERFORMANCE.md, "Warm-up before the snapshot").
//
// Unlike the rest of wafer it keeps package-level state (the function and
// the buffer): a wasm export has no receiver and a module holds one
// harness. Outside GOOS=wasip1 Fuzz only records the function (for a
// target's unit tests, through TestOneInput) and nothing is exported.
package harness
