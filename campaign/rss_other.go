//go:build !linux

package campaign

// residentKiB is 0 (unknown) where /proc/self/status is not there.
func residentKiB() uint64 { return 0 }
