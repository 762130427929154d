//go:build !unix

package campaign

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// lockOutput creates the lock file exclusively; one whose process is gone
// (killed) is taken over.
func lockOutput(out string) (unlock func(), err error) {
	dir := filepath.Join(out, ".wafer")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fileError(dir, err)
	}
	path := filepath.Join(dir, "lock")
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, werr := f.WriteString(strconv.Itoa(os.Getpid()) + "\n")
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				os.Remove(path)
				return nil, fileError(path, werr)
			}
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fileError(path, err)
		}
		b, _ := os.ReadFile(path)
		pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
		if attempt == 0 && (perr != nil || !processAlive(pid)) {
			os.Remove(path) // its process is gone (or it names none): take it over
			continue
		}
		return nil, lockedError(out, path, b)
	}
}

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
