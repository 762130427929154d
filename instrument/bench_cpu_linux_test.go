package instrument_test

import (
	"syscall"
	"time"
	"unsafe"
)

// benchThreadCPU is the CPU time consumed by the calling OS thread
// (CLOCK_THREAD_CPUTIME_ID): with runtime.LockOSThread, the cost of the
// benchmark loop itself, robust to other processes competing for the CPU
// (this machine's 2 cores are shared, so wall-clock ns/op is noisy).
func benchThreadCPU() (time.Duration, bool) {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	_, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
