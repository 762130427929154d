package behave

import "testing"

func FuzzBehave(f *testing.F) {
	f.Add([]byte("ok"))
	f.Fuzz(func(t *testing.T, data []byte) {
		switch string(data) {
		case "fatal":
			t.Fatal("fatal here")
		case "error":
			t.Errorf("error here: %d", len(data))
		case "skip":
			t.Skip("skipped")
		case "inner":
			func() { t.Skipf("in a closure: %d", len(data)) }()
			t.Fatal("not reached")
		}
		check(t, Parse(data))
	})
}

// check is a helper: its t.Fatal is reported at the caller's line.
func check(t *testing.T, n int) {
	t.Helper()
	if n == 6 {
		t.Fatalf("six bytes")
	}
}
