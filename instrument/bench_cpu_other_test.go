//go:build !linux

package instrument_test

import "time"

// benchProcessCPU is not available here: benchmarks report wall-clock only.
func benchProcessCPU() (time.Duration, bool) { return 0, false }
