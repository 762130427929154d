package main

import (
	"testing"

	"github.com/wafer-fuzz/wafer/eval/nativebench"
)

// BenchmarkNative runs the fuzz function over $WAFER_NATIVE_INPUTS
// natively (eval/native.sh).
func BenchmarkNative(b *testing.B) { nativebench.Run(b, fuzz) }
