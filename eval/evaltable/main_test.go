package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
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

// TestCustomMetrics: -metrics picks the columns; medians and ranges come
// from the named fields, every column gets its Â12 against the base, and a
// file without a named field is an error naming it.
func TestCustomMetrics(t *testing.T) {
	ms, err := parseMetrics("cov_branches=branches,execs")
	if err != nil || len(ms) != 2 || ms[0] != (metric{"cov_branches", "branches"}) || ms[1] != (metric{"execs", "execs"}) {
		t.Fatalf("parseMetrics: got %v, %v", ms, err)
	}
	if _, err := parseMetrics("a=b,=c"); err == nil {
		t.Error("parseMetrics accepted an empty field")
	}
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, v := range []string{"10", "12", "14"} {
		write(fmt.Sprintf("x__base__%d.json", i+1), `{"cov_branches": `+v+`, "execs": 100}`)
		write(fmt.Sprintf("x__head__%d.json", i+1), `{"cov_branches": 2`+v+`, "execs": 300}`)
	}
	var out strings.Builder
	if err := run(&out, dir, "base", ms, len(ms)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| base | 12 [10–14] | 100 [100–100] |", "| head | 212 [210–214] | 300 [300–300] |", "| head | 1.00 (0.100) | 1.00 (0.100) |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("expected %q in\n%s", want, out.String())
		}
	}
	write("x__head__4.json", `{"execs": 1}`)
	if err := run(&out, dir, "base", ms, len(ms)); err == nil || !strings.Contains(err.Error(), "x__head__4.json") {
		t.Errorf("expected an error naming the file without cov_branches, got %v", err)
	}
}

// FuzzParseMetrics: parseMetrics never panics, and what it accepts names
// a field and a heading for every comma-separated part, in order.
func FuzzParseMetrics(f *testing.F) {
	f.Add("cov_branches=branches,execs")
	f.Add("a=b=c,,=")
	f.Fuzz(func(t *testing.T, s string) {
		ms, err := parseMetrics(s)
		if err != nil {
			return
		}
		parts := strings.Split(s, ",")
		if len(ms) != len(parts) {
			t.Fatalf("%q: %d metrics for %d parts", s, len(ms), len(parts))
		}
		for i, m := range ms {
			if m.field == "" || m.head == "" || !strings.HasPrefix(parts[i], m.field) {
				t.Fatalf("%q: part %d gave %+v", s, i, m)
			}
		}
	})
}
