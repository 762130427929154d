// Package atomicfile writes a file whole or not at all: through a synced
// temporary file in the same directory, renamed over the path, so a reader
// (or a run killed half-way) never sees part of it. The report writers
// (covreport, plot) and the CLI's output files share it; corpus has its
// own, over its file system abstraction.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// tempPattern is the name pattern of Write's temporary file for a file
// named base (os.CreateTemp puts digits for the "*").
func tempPattern(base string) string { return "." + base + ".tmp*" }

// RemoveTemps removes what Writes to path that were killed half-way left
// behind: hidden files named ".BASE.tmpDIGITS" in path's directory. A
// directory that cannot be read is left alone (the write itself will say
// why). Call it before writing path when a killed earlier run may have
// been writing it too; not while another process writes path.
func RemoveTemps(path string) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	des, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := strings.TrimSuffix(tempPattern(base), "*")
	for _, de := range des {
		rest, ok := strings.CutPrefix(de.Name(), prefix)
		if ok && rest != "" && strings.Trim(rest, "0123456789") == "" && de.Type().IsRegular() {
			os.Remove(filepath.Join(dir, de.Name()))
		}
	}
}

// Write writes data to path atomically, with mode 0644. On error the
// temporary file is removed and path is left as it was; the error names
// path.
func Write(path string, data []byte) error { return WriteMode(path, data, 0o644) }

// WriteMode is Write with the file's permission bits given (0755 for an
// executable); the umask does not apply, as with chmod.
func WriteMode(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), tempPattern(filepath.Base(path)))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, mode.Perm())
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
