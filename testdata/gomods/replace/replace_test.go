package replace

import (
	"testing"

	"example.com/wafer.fix/dep"
)

func FuzzLong(f *testing.F) {
	f.Add("ok")
	f.Fuzz(func(t *testing.T, s string) {
		if dep.Long(s) {
			t.Fatalf("long input (%s)", dep.Origin)
		}
	})
}
