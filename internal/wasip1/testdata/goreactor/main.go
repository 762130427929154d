// Command goreactor is a GOOS=wasip1 -buildmode=c-shared reactor for
// internal/wasip1's tests (built by ../build.sh into ../goreactor.wasm):
// the shape of a wafer Go target. _initialize runs the Go runtime's start-up
// against the host module; each call of the exported step prints a line
// with its argument, the clock and a random number, and returns the
// argument doubled.
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"time"
)

var calls int

//go:wasmexport step
func step(x int32) int32 {
	calls++
	fmt.Printf("step %d: x=%d now=%s rand=%d\n", calls, x, time.Now().UTC().Format(time.RFC3339Nano), rand.IntN(1000))
	if x < 0 {
		fmt.Fprintln(os.Stderr, "negative input")
		os.Exit(4)
	}
	return 2 * x
}

func main() {}
