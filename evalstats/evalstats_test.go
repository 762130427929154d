package evalstats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name string
		xs   []float64
		want Summary
	}{
		{"empty", nil, Summary{}},
		{"one", []float64{7}, Summary{1, 7, 7, 7}},
		{"odd", []float64{5, 1, 9}, Summary{3, 5, 1, 9}},
		{"even", []float64{4, 1, 3, 10}, Summary{4, 3.5, 1, 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Summarize(tc.xs); got != tc.want {
				t.Errorf("Summarize(%v) = %+v, want %+v", tc.xs, got, tc.want)
			}
		})
	}
}

// The known values: U and Â12 counted by hand over the pairs; the exact
// p-values from the null distribution of U for n1 = n2 = 3 (20 splits:
// P(U<=0) = 1/20, P(U<=1) = 2/20, P(U<=2) = 4/20, P(U<=3) = 7/20, as in
// the critical-value tables of Mann and Whitney, 1947) and n1 = n2 = 4
// (70 splits: P(U<=0) = 1/70, P(U<=2) = 4/70), doubled for two sides.
func TestMannWhitneyKnown(t *testing.T) {
	for _, tc := range []struct {
		name   string
		a, b   []float64
		u, a12 float64
		p      float64
	}{
		{"apart", []float64{1, 2, 3}, []float64{4, 5, 6}, 0, 0, 2.0 / 20},
		{"apart reversed", []float64{4, 5, 6}, []float64{1, 2, 3}, 9, 1, 2.0 / 20},
		{"one pair", []float64{1, 2, 4}, []float64{3, 5, 6}, 1, 1.0 / 9, 4.0 / 20},
		{"two pairs", []float64{1, 3, 4}, []float64{2, 5, 6}, 2, 2.0 / 9, 8.0 / 20},
		{"three pairs", []float64{1, 3, 5}, []float64{2, 4, 6}, 3, 3.0 / 9, 14.0 / 20},
		// 3>1, 5>1, 5=5 twice (half each), 5>1 again: 4 wins of 9 pairs.
		// Ranks of 1,3,5,5,5,7 are 1,2,4,4,4,6: every U is an integer,
		// so every split is at least 0.5 from the mean 4.5.
		{"ties", []float64{3, 5, 5}, []float64{1, 5, 7}, 4, 4.0 / 9, 1},
		{"four apart", []float64{10, 11, 12, 13}, []float64{1, 2, 3, 4}, 16, 1, 2.0 / 70},
		{"four, two pairs", []float64{1, 2, 5, 6}, []float64{3, 4, 7, 8}, 4, 4.0 / 16, 2 * 12.0 / 70},
		{"all equal", []float64{2, 2, 2}, []float64{2, 2}, 3, 0.5, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := MannWhitney(tc.a, tc.b)
			if got.U != tc.u || !got.Exact || math.Abs(got.P-tc.p) > 1e-12 {
				t.Errorf("MannWhitney(%v, %v) = %+v, want U %v, exact P %v", tc.a, tc.b, got, tc.u, tc.p)
			}
			if a := A12(tc.a, tc.b); math.Abs(a-tc.a12) > 1e-12 {
				t.Errorf("A12 = %v, want %v", a, tc.a12)
			}
		})
	}
}

// Twenty against twenty (C(40,20) splits, so the normal approximation):
// U = 0, mean 200, variance 20*20*41/12, z = (200-0.5)/36.968 = 5.3965 and
// p = erfc(z/sqrt 2) = 6.7956e-08.
func TestMannWhitneyNormal(t *testing.T) {
	var a, b []float64
	for i := range 20 {
		a = append(a, float64(i+1))
		b = append(b, float64(i+21))
	}
	got := MannWhitney(a, b)
	if got.Exact || got.U != 0 || math.Abs(got.P-6.795615e-08)/6.795615e-08 > 1e-5 {
		t.Errorf("MannWhitney = %+v, want U 0, approximate P 6.7956e-08", got)
	}
}

// Properties on random samples with ties: U/(n1 n2) is Â12, the test is
// symmetric in its samples, Â12(a,b)+Â12(b,a) = 1, and where both exact
// and approximate p-values exist they are close for moderate samples.
func TestMannWhitneyProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		a := make([]float64, 1+r.IntN(7))
		b := make([]float64, 1+r.IntN(7))
		for i := range a {
			a[i] = float64(r.IntN(6))
		}
		for i := range b {
			b[i] = float64(r.IntN(6))
		}
		ab, ba := MannWhitney(a, b), MannWhitney(b, a)
		if math.Abs(ab.U/float64(len(a)*len(b))-A12(a, b)) > 1e-12 {
			t.Fatalf("%v %v: U %v is not A12 %v times %d", a, b, ab.U, A12(a, b), len(a)*len(b))
		}
		if math.Abs(ab.P-ba.P) > 1e-12 || ab.U+ba.U != float64(len(a)*len(b)) {
			t.Fatalf("%v %v: not symmetric: %+v %+v", a, b, ab, ba)
		}
		if s := A12(a, b) + A12(b, a); math.Abs(s-1) > 1e-12 {
			t.Fatalf("%v %v: A12 sums to %v", a, b, s)
		}
		if ab.P <= 0 || ab.P > 1 {
			t.Fatalf("%v %v: p %v out of (0, 1]", a, b, ab.P)
		}
	}
}

func TestEmpty(t *testing.T) {
	if got := MannWhitney(nil, []float64{1}); !math.IsNaN(got.P) {
		t.Errorf("MannWhitney of an empty sample: P %v, want NaN", got.P)
	}
	if got := A12([]float64{1}, nil); !math.IsNaN(got) {
		t.Errorf("A12 of an empty sample: %v, want NaN", got)
	}
}

// TestMetricNames: every metric has a name of its own.
func TestMetricNames(t *testing.T) {
	seen := map[string]bool{}
	for m := range numMetrics {
		name := m.String()
		if seen[name] || name == "" || strings.HasPrefix(name, "Metric(") {
			t.Errorf("metric %d: name %q", m, name)
		}
		seen[name] = true
	}
	if n := len(metricNames.Names()); n != int(numMetrics) {
		t.Errorf("expected %d metric names, got %d", numMetrics, n)
	}
}
