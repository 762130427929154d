package main

import (
	"testing"

	"github.com/wafer-fuzz/wafer/internal/nativebench"
)

// BenchmarkNative runs the fuzz function over $WAFER_NATIVE_INPUTS
// natively (docs/eval/native29.sh).
func BenchmarkNative(b *testing.B) { nativebench.Run(b, fuzz) }
