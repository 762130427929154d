package main

import (
	"os"
	"testing"
)

// FuzzJSON runs the same fuzz function natively under `go test -fuzz`; its
// seed corpus (testdata/fuzz/FuzzJSON) is also a wafer seed directory.
func FuzzJSON(f *testing.F) {
	seed, err := os.ReadFile("seeds/object.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzz(data) // a panic is a finding
	})
}

func TestFuzzFunction(t *testing.T) {
	tests := []struct {
		in    string
		valid bool
	}{
		{`{"a":[1,2.5,"x",null,true]}`, true},
		{`"\u00e9"`, true},
		{`{`, false},
		{``, false},
	}
	for _, tc := range tests {
		if err := fuzz([]byte(tc.in)); (err == nil) != tc.valid {
			t.Errorf("fuzz(%q): expected valid=%v, got error %v", tc.in, tc.valid, err)
		}
	}
}
