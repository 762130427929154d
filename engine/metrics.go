package engine

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Stats are the metrics of docs/ALGORITHMS.md §6, reported every StatsInterval
// and at the end.
type Stats struct {
	// Elapsed is the wall time since the campaign started; at the end,
	// the time it searched, without the shrinking of its crashes after
	// it (ShrinkTime).
	Elapsed time.Duration `json:"elapsed_ns"`
	// ShrinkTime is the wall time spent shrinking crashes after the
	// search (final report only).
	ShrinkTime time.Duration `json:"shrink_ns,omitempty"`
	// Execs counts all executions; ExecsPerSec is the rate over the last
	// interval (at the end: over the whole campaign).
	Execs       int64   `json:"execs"`
	ExecsPerSec float64 `json:"execs_per_sec"`
	// Queue is the queue size.
	Queue int `json:"queue"`
	// Coverage and ValidCoverage are |totalCoverage| and |validCoverage|
	// (branches).
	Coverage      int `json:"coverage"`
	ValidCoverage int `json:"valid_coverage"`
	// Features counts the value-profile features seen (Config.ValueFrom),
	// not in Coverage.
	Features int `json:"value_features,omitempty"`
	// UniqueTraces counts distinct bucketed traces of all runs.
	UniqueTraces int `json:"unique_traces"`
	// ValidPct is the percentage of executions that were valid.
	Valid    int64   `json:"valid"`
	Invalid  int64   `json:"invalid"`
	ValidPct float64 `json:"valid_pct"`
	// Crashes and Hangs count unique failures (by identity); CrashRuns and
	// HangRuns all failing runs.
	Crashes int `json:"unique_crashes"`
	Hangs   int `json:"unique_hangs"`
	// Flaky counts crashes that did not crash again when rerun before
	// being saved (verify.go): not findings.
	Flaky     int   `json:"flaky,omitempty"`
	CrashRuns int64 `json:"crash_runs"`
	HangRuns  int64 `json:"hang_runs"`
	// Timeouts counts the runs stopped at their first fuel budget and not
	// run again: every site they reached, an earlier timeout had
	// (timeouts.go).
	Timeouts int64 `json:"timeouts"`
	// B0, B1, B2 are the Hill numbers of branch abundance over unique
	// traces (docs/ALGORITHMS.md §2).
	B0 float64 `json:"b0"`
	B1 float64 `json:"b1"`
	B2 float64 `json:"b2"`
	// ValidB0, ValidB1, ValidB2 are the same over unique valid traces
	// (with Config.ValidHill, B0..B2 are these too).
	ValidB0 float64 `json:"valid_b0"`
	ValidB1 float64 `json:"valid_b1"`
	ValidB2 float64 `json:"valid_b2"`
	// Shares of time (0..1) spent making children, running the generator,
	// executing the target and in result handling (scan, copy, merge,
	// corpus), summed over workers and coordinator.
	MutateShare   float64 `json:"mutate_share"`
	GenerateShare float64 `json:"generate_share"`
	ExecuteShare  float64 `json:"execute_share"`
	BookShare     float64 `json:"bookkeeping_share"`
	// Cycles is the number of completed passes over the queue.
	Cycles int `json:"cycles"`
	// Strategy is the strategy name.
	Strategy string `json:"strategy"`
	// Jobs is the number of jobs issued (the next job's PRNG stream).
	Jobs uint64 `json:"jobs"`
	// Arms are the portfolio's arms (strategy auto), nil otherwise.
	Arms []ArmStats `json:"arms,omitempty"`
	// Final is true for the report at the end of the campaign.
	Final bool `json:"final,omitempty"`
}

// Time-share slots.
const (
	tMutate = iota
	tGenerate
	tExecute
	tBook
	tSlots
)

func (s *Stats) setShares(t [tSlots]time.Duration) {
	var sum time.Duration
	for _, d := range t {
		sum += d
	}
	if sum <= 0 {
		return
	}
	f := func(d time.Duration) float64 { return float64(d) / float64(sum) }
	s.MutateShare, s.GenerateShare, s.ExecuteShare, s.BookShare = f(t[tMutate]), f(t[tGenerate]), f(t[tExecute]), f(t[tBook])
}

// Line is the one-line human form of s (the terminal status line).
func (s *Stats) Line() string {
	return fmt.Sprintf("#%d %s %.0f exec/s q:%d cov:%d vcov:%d traces:%d valid:%.1f%% crashes:%d hangs:%d B:%.0f/%.1f/%.1f mut/gen/exe/book:%.0f/%.0f/%.0f/%.0f%%",
		s.Execs, s.Elapsed.Round(time.Second), s.ExecsPerSec, s.Queue, s.Coverage, s.ValidCoverage,
		s.UniqueTraces, s.ValidPct, s.Crashes, s.Hangs, s.B0, s.B1, s.B2,
		100*s.MutateShare, 100*s.GenerateShare, 100*s.ExecuteShare, 100*s.BookShare) + s.armsLine()
}

// armsLine is the status line's tail for a portfolio: each arm's share of
// the schedule and the branches it found (" arms:havoc 62%/41 ...").
func (s *Stats) armsLine() string {
	if len(s.Arms) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(" arms:")
	for i, a := range s.Arms {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s %.0f%%/%d", a.Name, 100*a.Share, a.Branches)
	}
	return b.String()
}

// reporter writes the live metrics.
type reporter struct {
	w   io.Writer
	tty bool
	// drawn is true when a status line is on screen without a newline.
	drawn bool
}

func (r *reporter) report(s *Stats, final bool) {
	if r.w == nil {
		return
	}
	if r.tty {
		end := ""
		if final {
			end = "\n"
		}
		fmt.Fprintf(r.w, "\r\x1b[2K%s%s", s.Line(), end)
		r.drawn = !final
		return
	}
	b, err := json.Marshal(s)
	if err != nil {
		return
	}
	b = append(b, '\n')
	r.w.Write(b) //nolint:errcheck // status output is best effort
}
