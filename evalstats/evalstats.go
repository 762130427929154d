package evalstats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Summary is the median, minimum and maximum of a sample; N is its size.
// The zero Summary (N 0) stands for an empty sample.
type Summary struct {
	N                int
	Median, Min, Max float64
}

// Summarize returns the median (the mean of the two middle values of an
// even sample), minimum and maximum of xs. It does not modify xs.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return Summary{N: n, Median: med, Min: s[0], Max: s[n-1]}
}

// A12 is the Vargha-Delaney effect size of a against b: the probability
// that a value drawn from a is larger than one drawn from b, ties counting
// half. 0.5 is no effect; 1 means every a beats every b. It returns NaN
// when either sample is empty.
func A12(a, b []float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return math.NaN()
	}
	wins := 0.0
	for _, x := range a {
		for _, y := range b {
			switch {
			case x > y:
				wins++
			case x == y:
				wins += 0.5
			}
		}
	}
	return wins / float64(len(a)*len(b))
}

// MaxExactSplits bounds the exact test: above this many splits of the
// pooled sample MannWhitney uses the normal approximation.
const MaxExactSplits = 1_000_000

// Test is the result of a Mann-Whitney U test of a against b.
type Test struct {
	// U is the statistic of a: the number of pairs (x in a, y in b) with
	// x > y, ties counting half (so U/(len(a)*len(b)) is A12).
	U float64
	// P is the two-sided p-value: the probability, under the hypothesis
	// that both samples come from one distribution, of a U at least as far
	// from its mean len(a)*len(b)/2 as the one observed.
	P float64
	// Exact says P was computed from every split, not approximated.
	Exact bool
}

// MannWhitney runs the two-sided Mann-Whitney U test (Wilcoxon rank-sum)
// of a against b. Ties get mid-ranks. With either sample empty it returns
// U 0 and P NaN.
func MannWhitney(a, b []float64) Test {
	n1, n2 := len(a), len(b)
	if n1 == 0 || n2 == 0 {
		return Test{P: math.NaN()}
	}
	pooled := append(slices.Clone(a), b...)
	ranks := midRanks(pooled)
	u := rankU(ranks[:n1], n1)
	mean := float64(n1*n2) / 2
	if splits(n1+n2, n1) <= MaxExactSplits {
		return Test{U: u, P: exactP(ranks, n1, math.Abs(u-mean)), Exact: true}
	}
	// Normal approximation with the tie correction of the variance and a
	// continuity correction of 0.5.
	n := float64(n1 + n2)
	tie := 0.0
	sorted := slices.Clone(pooled)
	slices.Sort(sorted)
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		t := float64(j - i)
		tie += t*t*t - t
		i = j
	}
	variance := float64(n1*n2) / 12 * ((n + 1) - tie/(n*(n-1)))
	if variance <= 0 {
		return Test{U: u, P: 1}
	}
	z := (math.Abs(u-mean) - 0.5) / math.Sqrt(variance)
	if z < 0 {
		z = 0
	}
	p := 2 * distuv.UnitNormal.Survival(z)
	return Test{U: u, P: min(p, 1)}
}

// midRanks returns the 1-based rank of each value of xs, tied values
// sharing the mean of their ranks.
func midRanks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		switch {
		case xs[i] < xs[j]:
			return -1
		case xs[i] > xs[j]:
			return 1
		}
		return 0
	})
	ranks := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && xs[idx[j]] == xs[idx[i]] {
			j++
		}
		r := float64(i+j+1) / 2 // mean of ranks i+1..j
		for k := i; k < j; k++ {
			ranks[idx[k]] = r
		}
		i = j
	}
	return ranks
}

// rankU is U of a group from its ranks: the rank sum less n1(n1+1)/2.
func rankU(ranks []float64, n1 int) float64 {
	sum := 0.0
	for _, r := range ranks {
		sum += r
	}
	return sum - float64(n1*(n1+1))/2
}

// splits is the binomial coefficient C(n, k), saturating above
// MaxExactSplits.
func splits(n, k int) int {
	c := 1
	for i := 1; i <= k; i++ {
		c = c * (n - k + i) / i
		if c > MaxExactSplits {
			return MaxExactSplits + 1
		}
	}
	return c
}

// exactP counts the splits of the pooled ranks into a group of n1 and the
// rest whose U is at least dev from the mean, over all splits.
func exactP(ranks []float64, n1 int, dev float64) float64 {
	n := len(ranks)
	mean := float64(n1*(n-n1)) / 2
	base := float64(n1*(n1+1)) / 2
	const eps = 1e-9 // ranks are multiples of 0.5: sums are exact
	var hit, total int
	var walk func(start, left int, sum float64)
	walk = func(start, left int, sum float64) {
		if left == 0 {
			total++
			if math.Abs(sum-base-mean) >= dev-eps {
				hit++
			}
			return
		}
		for i := start; i <= n-left; i++ {
			walk(i+1, left-1, sum+ranks[i])
		}
	}
	walk(0, n1, 0)
	return float64(hit) / float64(total)
}
