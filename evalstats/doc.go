// Package evalstats holds the statistics a fuzzer comparison reports
// (Klees et al., "Evaluating Fuzz Testing", CCS 2018; Arcuri and Briand,
// ICSE 2011): the median, minimum and maximum of a metric over seeds, the
// Mann-Whitney U test of two samples and the Vargha-Delaney Â12 effect
// size.
//
// What it does: Summarize reduces a sample to median/min/max; MannWhitney
// returns U and the two-sided p-value; A12 returns the probability that a
// value of the first sample beats one of the second (ties count half).
//
// What it does not do: it runs nothing and reads no files; it makes no
// claim of significance itself (the caller prints p and Â12 next to each
// other, as the literature asks, and lets the reader judge).
//
// The decision: the p-value is exact (every split of the pooled values
// into two groups of the samples' sizes, ties by mid-ranks) when there are
// at most 1,000,000 splits, which covers the 3-30 seeds a comparison runs
// for two samples up to 10 and 10 (184,756 splits) and small unequal ones;
// beyond that it is the normal approximation with tie and continuity
// corrections (gonum's distuv.Normal). With 3 seeds per strategy the
// smallest two-sided p the exact test can give is 0.1: three seeds can show
// an effect size, not significance at 0.05, and the report says so by
// printing the exact value. Gonum's stat package has neither test.
package evalstats
