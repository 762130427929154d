// Package nativebench runs a Go example's fuzz function natively over a
// directory of inputs, for eval/native.sh: the same inputs under
// the plain build and under `go test -fuzz`'s instrumented build give
// the share of the plain speed that build keeps.
package nativebench

import (
	"os"
	"path/filepath"
	"testing"
)

// Env names the directory of inputs (a campaign's queue).
const Env = "WAFER_NATIVE_INPUTS"

// Run times passes of fuzz over every file in $WAFER_NATIVE_INPUTS; it
// skips b when there are none.
func Run(b *testing.B, fuzz func([]byte) error) {
	names, err := filepath.Glob(filepath.Join(os.Getenv(Env), "*"))
	if err != nil {
		b.Fatal(err)
	}
	var ins [][]byte
	for _, n := range names {
		if st, err := os.Stat(n); err != nil || !st.Mode().IsRegular() {
			continue
		}
		d, err := os.ReadFile(n)
		if err != nil {
			b.Fatal(err)
		}
		ins = append(ins, d)
	}
	if len(ins) == 0 {
		b.Skipf("no inputs: set %s to a directory of them", Env)
	}
	b.ResetTimer()
	for range b.N {
		for _, in := range ins {
			_ = fuzz(in) // an error is an invalid input: the run ends there
		}
	}
}
