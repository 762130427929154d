// Command go-names is a wafer fixture: a Go reactor fuzz target, written
// with the harness package, whose failures happen in a method of a
// pointer receiver in a package whose import path has dots and slashes
// (example.com/wafer.fix/go-names/inner/pkg.(*Decoder).ReadChunk), which
// Go's wasm linker names "example.com_wafer.fix_go_names_inner_pkg.__Decoder_.ReadChunk"
// in the name section. The first input byte selects the failure:
//
//	'P' a panic (its stack from Go's trace)
//	'L' an endless loop (a fuel hang: its stack from the Wasm frames)
//	'G' an endless loop in a generic function (pkg.Sum[...])
//
// Anything else is valid. Rebuild with build.sh.
package main

import (
	"example.com/wafer.fix/go-names/inner/pkg"

	"github.com/wafer-fuzz/wafer/harness"
)

func init() {
	harness.Fuzz(fuzz)
}

func fuzz(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	switch data[0] {
	case 'P', 'L':
		d := &pkg.Decoder{}
		d.ReadChunk(data)
	case 'G':
		pkg.Sum(data)
	}
	return nil
}

func main() {}
