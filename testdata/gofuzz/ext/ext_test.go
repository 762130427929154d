package ext_test

import (
	"testing"

	"example.com/wafer.fix/gofuzz/ext"
)

func FuzzDouble(f *testing.F) {
	f.Add(1)
	f.Fuzz(func(t *testing.T, n int) {
		if got := ext.Double(n); !isDouble(got, n) {
			t.Fatalf("Double(%d) = %d", n, got)
		}
	})
}
