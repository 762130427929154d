package skiphelp

import "testing"

func FuzzSkipHelper(f *testing.F) {
	f.Add([]byte("ok"))
	f.Fuzz(func(t *testing.T, data []byte) {
		skipUnless(t, Valid(data))
		if string(data) == "inner" {
			t.Skip("inner")
		}
		if string(data) == "fatal" {
			t.Fatal("fatal here")
		}
	})
}

// skipUnless is a helper whose t.SkipNow the build leaves as it is.
func skipUnless(t *testing.T, ok bool) {
	if !ok {
		t.SkipNow()
	}
}
