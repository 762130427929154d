package gofuzz

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Limits of the files a fuzz test sees (Files).
const (
	maxFileBytes  = 8 << 20
	maxTotalBytes = 128 << 20
)

// System is what a fuzz test sees of the host: a read-only file system
// at "/" (slash-separated paths) and its environment ("KEY=value").
type System struct {
	Files map[string][]byte
	Env   []string
}

// System is what the fuzz test sees of the host's file system, as go test
// runs it: its package's directory is the working directory (PWD), and
// the files under the package's parent directory (its own directory when
// that is the module's root) are there read-only, at their absolute paths
// (slash-separated, without the volume). So seeds read with
// os.ReadFile("testdata/x") or from "../testdata" load. Hidden
// directories are left out, as are files over 8 MiB and all past 128 MiB
// in total (skipped counts them). Its environment also names the fuzz
// test to run (WAFER_GO_FUZZ_TEST), for a build of several (Build).
func (t *Test) System() (sys System, skipped int, err error) {
	top := t.Dir
	if parent := filepath.Dir(t.Dir); t.Root != "" && strings.HasPrefix(parent, t.Root) && parent != t.Dir {
		top = parent
	}
	files := map[string][]byte{}
	total := 0
	err = filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != top && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Size() > maxFileBytes || total+int(info.Size()) > maxTotalBytes {
			skipped++
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		total += len(b)
		files[slashPath(path)] = b
		return nil
	})
	if err != nil {
		return System{}, 0, fmt.Errorf("files for %s: %w", t.Pattern, err)
	}
	return System{Files: files, Env: []string{"PWD=/" + slashPath(t.Dir), selectEnv + "=" + t.Name}}, skipped, nil
}

// slashPath is an absolute path as a path below the WASI root: slashes,
// no volume, no leading slash.
func slashPath(p string) string {
	p = filepath.ToSlash(strings.TrimPrefix(p, filepath.VolumeName(p)))
	return strings.TrimPrefix(p, "/")
}
