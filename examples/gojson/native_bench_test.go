package main

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkNative runs the fuzz function over the inputs in
// $WAFER_NATIVE_INPUTS (a campaign's queue), natively.
func BenchmarkNative(b *testing.B) {
	dir := os.Getenv("WAFER_NATIVE_INPUTS")
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	var ins [][]byte
	for _, n := range names {
		if d, err := os.ReadFile(n); err == nil {
			ins = append(ins, d)
		}
	}
	if len(ins) == 0 {
		b.Skip("no inputs")
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, in := range ins {
			fuzz(in)
		}
	}
}
