//go:build unix

package campaign

import "syscall"

// processAlive reports whether a process with this pid exists (signal 0
// checks without sending one; EPERM: it exists, owned by another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
