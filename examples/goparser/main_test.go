package main

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse runs the same fuzz function natively under `go test -fuzz`;
// its seeds are the files in seeds/, also a wafer seed directory.
func FuzzParse(f *testing.F) {
	paths, err := filepath.Glob("seeds/*.src")
	if err != nil || len(paths) == 0 {
		f.Fatalf("no seeds: %v", err)
	}
	for _, p := range paths {
		seed, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzz(data) // a panic is a finding
	})
}

func TestFuzzFunction(t *testing.T) {
	tests := []struct {
		in    string
		valid bool
	}{
		{"package p\nfunc f() { for { } }\n", true},
		{"package p; var x = []int{1,2,3}", true},
		{"package p\ntype T[P any] struct{ p P }", true},
		{"package", false},
		{"func f() {}", false},
		{"", false},
	}
	for _, tc := range tests {
		if err := fuzz([]byte(tc.in)); (err == nil) != tc.valid {
			t.Errorf("fuzz(%q): expected valid=%v, got error %v", tc.in, tc.valid, err)
		}
	}
	paths, _ := filepath.Glob("seeds/*.src")
	for _, p := range paths {
		seed, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := fuzz(seed); err != nil {
			t.Errorf("seed %s: expected valid, got %v", p, err)
		}
	}
}
