//go:build unix

package cli

import (
	goruntime "runtime"
	"syscall"
)

// peakRSSMB is the process's peak resident set size in MiB.
func peakRSSMB() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	if goruntime.GOOS == "darwin" || goruntime.GOOS == "ios" {
		return int64(ru.Maxrss) >> 20 // bytes
	}
	return int64(ru.Maxrss) >> 10 // KiB
}
