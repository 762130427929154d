package campaign

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// lockOutput claims the campaign directory out for this process, as AFL++
// refuses an output directory another instance is using: two campaigns
// writing one queue give entries the same ids. The lock is a file holding
// the owner's pid, created exclusively; one whose process is gone (killed
// with SIGKILL) is taken over. unlock removes it.
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
		switch {
		case attempt == 0 && (perr != nil || pid == os.Getpid() || !processAlive(pid)):
			os.Remove(path) // its process is gone (or it names none): take it over
		case perr != nil:
			return nil, fmt.Errorf("output directory %s is locked (%s); remove it if no campaign uses the directory", out, path)
		default:
			return nil, fmt.Errorf("output directory %s is in use by another wafer campaign (process %d); use another -o, or stop that one (a stale lock: remove %s)", out, pid, path)
		}
	}
}
