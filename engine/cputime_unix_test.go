//go:build unix

package engine

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time (for load-independent
// benchmark metrics on a shared machine).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
}
