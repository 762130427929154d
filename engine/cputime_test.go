package engine

import (
	"time"

	"github.com/wafer-fuzz/wafer/internal/cputime"
)

// cpuTime is the process's CPU time (0 where the platform does not report
// it): benchmarks report execs per CPU-second next to wall-clock execs/s.
func cpuTime() time.Duration {
	d, _ := cputime.Process()
	return d
}
