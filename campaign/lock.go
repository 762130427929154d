package campaign

import (
	"fmt"
	"strconv"
	"strings"
)

// lockOutput (lock_unix.go, lock_other.go) claims the campaign directory
// out for this process, as AFL++ refuses an output directory another
// instance is using: two campaigns writing one queue give entries the
// same ids. The lock is OUT/.wafer/lock, holding the owner's pid for the
// message; unlock releases and removes it.

// lockedError is the error of a directory another campaign holds; pid is
// the lock file's content.
func lockedError(out, path string, pid []byte) error {
	if n, err := strconv.Atoi(strings.TrimSpace(string(pid))); err == nil {
		return fmt.Errorf("output directory %s is in use by another wafer campaign (process %d holds %s); use another -o, or stop that one", out, n, path)
	}
	return fmt.Errorf("output directory %s is in use by another wafer campaign (it holds %s); use another -o, or stop that one", out, path)
}
