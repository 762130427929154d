// Command instrumentgen writes the instrumented test fixtures of
// internal/wasip1 (run by ../build.sh): `instrumentgen in.wasm out.wasm`
// instruments in.wasm with wafer's instrument package (default options)
// and writes out.wasm plus out.wasm's base offset, in decimal, to
// out.base. The tests only read the results, so internal/wasip1 itself
// never imports instrument.
package main

import (
	"fmt"
	"os"

	"github.com/wafer-fuzz/wafer/instrument"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: instrumentgen in.wasm out.wasm")
		os.Exit(2)
	}
	in, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, sm, err := instrument.Instrument(in, instrument.Options{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	base := fmt.Sprintf("%d\n", sm.Layout.ReservedBytes())
	stem := os.Args[2][:len(os.Args[2])-len(".wasm")]
	if err := os.WriteFile(os.Args[2], out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(stem+".base", []byte(base), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
