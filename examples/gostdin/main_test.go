package main

import (
	"os"
	"strings"
	"testing"
)

// FuzzXML runs the same check natively under `go test -fuzz`.
func FuzzXML(f *testing.F) {
	seed, err := os.ReadFile("seeds/doc.xml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(seed))
	f.Fuzz(func(t *testing.T, doc string) {
		check(strings.NewReader(doc)) // a panic is a finding
	})
}

func TestCheck(t *testing.T) {
	tests := []struct {
		in    string
		valid bool
	}{
		{`<a x="1"><b>text</b><c/></a>`, true},
		{`<a><b></a>`, false},
		{`<a>`, false},
		{`just text`, false},
	}
	for _, tc := range tests {
		if err := check(strings.NewReader(tc.in)); (err == nil) != tc.valid {
			t.Errorf("check(%q): expected valid=%v, got error %v", tc.in, tc.valid, err)
		}
	}
}
