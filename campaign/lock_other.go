//go:build !unix

package campaign

import "os"

// processAlive reports whether a process with this pid exists (on
// Windows, os.FindProcess fails for one that does not).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
