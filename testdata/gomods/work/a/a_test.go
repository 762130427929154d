package a

import (
	"testing"

	"example.com/wafer.fix/b"
)

func FuzzLong(f *testing.F) {
	f.Add("ok")
	f.Fuzz(func(t *testing.T, s string) {
		if b.Long(s) {
			t.Fatalf("long input (%s)", b.Origin)
		}
	})
}
