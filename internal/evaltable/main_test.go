package main

import (
	"math"
	"testing"
)

// TestStatistics checks Â12 and the exact U test against hand-computed
// cases: complete separation of two groups of five has p = 2/252.
func TestStatistics(t *testing.T) {
	x := []float64{6, 7, 8, 9, 10}
	y := []float64{1, 2, 3, 4, 5}
	if got := a12(x, y); got != 1 {
		t.Errorf("Â12 of separated groups %v, expected 1", got)
	}
	if got := a12(y, x); got != 0 {
		t.Errorf("Â12 reversed %v, expected 0", got)
	}
	if got := a12(x, x); got != 0.5 {
		t.Errorf("Â12 of equal groups %v, expected 0.5", got)
	}
	if got, want := mannWhitneyP(x, y), 2.0/252; math.Abs(got-want) > 1e-12 {
		t.Errorf("p of separated groups %v, expected %v", got, want)
	}
	if got := mannWhitneyP(x, x); got != 1 {
		t.Errorf("p of equal groups %v, expected 1", got)
	}
	// one swap: U = 24 of 25; splits with |U-12.5| ≥ 11.5 are U ∈ {0, 1, 24, 25}: 2 each side
	if got, want := mannWhitneyP([]float64{5, 7, 8, 9, 10}, []float64{1, 2, 3, 4, 6}), 4.0/252; math.Abs(got-want) > 1e-12 {
		t.Errorf("p with one swap %v, expected %v", got, want)
	}
}
