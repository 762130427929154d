//go:build unix

package main

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

// processAlive reports whether a process with this pid exists (signal 0
// checks without sending one; EPERM: it exists, owned by another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
