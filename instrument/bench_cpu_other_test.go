//go:build !linux

package instrument_test

import "time"

// benchThreadCPU is not available here: benchmarks report wall-clock only.
func benchThreadCPU() (time.Duration, bool) { return 0, false }
