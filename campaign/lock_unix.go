//go:build unix

package campaign

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// lockOutput takes an exclusive flock(2) on the lock file: the kernel
// releases it when its process ends however it ends (kill -9 included),
// so a stale lock never blocks a new campaign, and two campaigns of one
// process exclude each other too (each opens the file anew).
func lockOutput(out string) (unlock func(), err error) {
	dir := filepath.Join(out, ".wafer")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fileError(dir, err)
	}
	path := filepath.Join(dir, "lock")
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fileError(path, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			pid, _ := io.ReadAll(io.LimitReader(f, 32))
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, lockedError(out, path, pid)
			}
			return nil, fileError(path, err)
		}
		// The previous holder removes the file as it unlocks: the lock
		// counts only if it is still the file at path.
		st, err1 := f.Stat()
		cur, err2 := os.Stat(path)
		if err1 != nil || err2 != nil || !os.SameFile(st, cur) {
			f.Close()
			continue
		}
		err = f.Truncate(0)
		if err == nil {
			_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		}
		if err != nil {
			os.Remove(path)
			f.Close()
			return nil, fileError(path, err)
		}
		return func() {
			os.Remove(path) // before the lock is released: see above
			f.Close()
		}, nil
	}
}
