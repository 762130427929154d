// Command gohuge is a wafer fixture: a Go reactor (package harness) with
// one bug, a buffer sized from the input without a bound. How it fails
// depends on the size: past what Go can address, make panics
// ("makeslice: len out of range", with Go's own trace); within it but past
// wafer's memory cap, memory.grow fails (the Wasm stack, named from the
// name section). Both are one bug, one report (issue 30).
package main

import (
	"encoding/binary"
	"errors"

	"github.com/wafer-fuzz/wafer/harness"
)

func init() { harness.Fuzz(fuzz) }

type buffer struct{ data []byte }

//go:noinline
func (b *buffer) fill(n uint64) {
	b.data = make([]byte, n) // the bug: n straight from the input
	b.data[0] = 1
}

//go:noinline
func decode(data []byte) error {
	if len(data) < 9 || data[0] != 'H' {
		return errors.New("not an image")
	}
	var b buffer
	b.fill(binary.LittleEndian.Uint64(data[1:9]))
	return nil
}

// fuzz reaches decode through one of two callers, by the last byte, both
// below parse: the same three frames of the target's code on top.
func fuzz(data []byte) error {
	if len(data) > 9 && data[9] == 'b' {
		return viaB(data)
	}
	return viaA(data)
}

//go:noinline
func parse(data []byte) error { return decode(data) }

//go:noinline
func viaA(data []byte) error { return parse(data) }

//go:noinline
func viaB(data []byte) error { return parse(data) }

func main() {}
