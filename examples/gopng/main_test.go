package main

import (
	"os"
	"testing"
)

// FuzzPNG runs the same fuzz function natively under `go test -fuzz`.
func FuzzPNG(f *testing.F) {
	seed, err := os.ReadFile("seeds/2x1.png")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzz(data) // a panic is a finding
	})
}

func TestFuzzFunction(t *testing.T) {
	seed, err := os.ReadFile("seeds/2x1.png")
	if err != nil {
		t.Fatal(err)
	}
	if err := fuzz(seed); err != nil {
		t.Errorf("seed: expected a valid image, got %v", err)
	}
	if err := fuzz(seed[:20]); err == nil {
		t.Errorf("truncated seed: expected an error")
	}
}
