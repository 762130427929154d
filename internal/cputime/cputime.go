// Package cputime reads the CPU time the current process has used, for
// benchmarks that report execs per CPU-second: on a shared, loaded machine
// that measures what an execution costs far more stably than the wall
// clock. It is a test helper; nothing in a campaign's search decisions
// reads it.
package cputime

import "time"

// Process returns the user+system CPU time of the whole process (GC
// included) and whether the platform reports it; where it does not, it
// returns 0, false and callers skip the metric.
func Process() (time.Duration, bool) { return process() }
