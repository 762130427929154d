package cli

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"time"

	"github.com/wafer-fuzz/wafer/internal/atomicfile"
)

// artifactName is libFuzzer's artifact file name: prefix + kind + "-" +
// the SHA-1 of the input in hex ("crash-3f78...", "timeout-...", "oom-...").
func artifactName(prefix, kind string, input []byte) string {
	sum := sha1.Sum(input)
	return prefix + kind + "-" + hex.EncodeToString(sum[:])
}

// writeArtifact writes input under libFuzzer's name (or exactly to exact,
// when set) and prints the line libFuzzer prints, which runners parse.
func writeArtifact(w io.Writer, prefix, exact, kind string, input []byte) (string, error) {
	path := artifactName(prefix, kind, input)
	if exact != "" {
		path = exact
	}
	if err := atomicfile.Write(path, input); err != nil {
		return "", err
	}
	fmt.Fprintf(w, "artifact_prefix='%s'; Test unit written to %s\n", prefix, path)
	return path, nil
}

// finalStats are the numbers behind libFuzzer's -print_final_stats lines.
type finalStats struct {
	execs       uint64
	elapsed     time.Duration
	newUnits    uint64
	slowestUnit time.Duration
}

// printFinalStats prints libFuzzer's final stat:: lines (FuzzerLoop.cpp,
// PrintFinalStats), in its order and spelling.
func printFinalStats(w io.Writer, s finalStats) {
	perSec := uint64(0)
	if secs := s.elapsed.Seconds(); secs > 0 {
		perSec = uint64(float64(s.execs) / secs)
	}
	fmt.Fprintf(w, "stat::number_of_executed_units: %d\n", s.execs)
	fmt.Fprintf(w, "stat::average_exec_per_sec:     %d\n", perSec)
	fmt.Fprintf(w, "stat::new_units_added:          %d\n", s.newUnits)
	fmt.Fprintf(w, "stat::slowest_unit_time_sec:    %d\n", int64(s.slowestUnit/time.Second))
	fmt.Fprintf(w, "stat::peak_rss_mb:              %d\n", peakRSSMB())
}
