package corpus

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Seed is one input read by ReadSeeds.
type Seed struct {
	Path string // file it came from
	Data []byte // input bytes (decoded for Go corpus files)
}

// ReadSeeds reads seed inputs from files and directories, in path order
// and then sorted by file name:
//
//   - a file is one input: its raw bytes, or, if it starts with
//     "go test fuzz v1", the one []byte or string value it holds;
//   - a directory containing queue/ is an AFL or wafer output directory
//     (at any depth, so a sync root OUT/ with OUT/<name>/queue works): only
//     its queue/ is read;
//   - any other directory is a flat corpus (libFuzzer, Go's
//     testdata/fuzz/FuzzX), read recursively.
//
// Names starting with "." are skipped. A missing path or an unreadable
// file is reported in skipped (a *SkipError) and the rest is still read;
// err is non-nil only when ctx is done.
func ReadSeeds(ctx context.Context, fsys FS, paths ...string) (seeds []Seed, skipped error, err error) {
	return readSeeds(ctx, fsys, false, paths)
}

// ReadRawSeeds is ReadSeeds with every file read as its bytes, go test
// corpus files included (a Go fuzz test's inputs, whose values its
// caller converts).
func ReadRawSeeds(ctx context.Context, fsys FS, paths ...string) (seeds []Seed, skipped error, err error) {
	return readSeeds(ctx, fsys, true, paths)
}

func readSeeds(ctx context.Context, fsys FS, raw bool, paths []string) (seeds []Seed, skipped error, err error) {
	if fsys == nil {
		fsys = OS{}
	}
	var sk skips
	for _, p := range paths {
		if err := readSeedPath(ctx, fsys, p, &seeds, &sk, 0, raw); err != nil {
			return nil, nil, err
		}
	}
	return seeds, sk.err(), nil
}

const maxSeedDepth = 32

func readSeedPath(ctx context.Context, fsys FS, p string, out *[]Seed, sk *skips, depth int, raw bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	des, derr := fsys.ReadDir(p)
	if derr != nil {
		// Not a directory (or unreadable): try it as a file.
		data, err := fsys.ReadFile(p)
		if err != nil {
			sk.add(p, err)
			return nil
		}
		s, err := Seed{Path: p, Data: data}, error(nil)
		if !raw {
			s, err = seedFromFile(p, data)
		}
		if err != nil {
			sk.add(p, err)
			return nil
		}
		*out = append(*out, s)
		return nil
	}
	if filepath.Base(p) != QueueDir {
		for _, de := range des {
			if de.Name() == QueueDir && de.IsDir() {
				return readSeedPath(ctx, fsys, filepath.Join(p, QueueDir), out, sk, depth+1, raw)
			}
		}
	}
	if depth >= maxSeedDepth {
		sk.add(p, fmt.Errorf("expected at most %d nested directories", maxSeedDepth))
		return nil
	}
	slices.SortFunc(des, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, de := range des {
		if strings.HasPrefix(de.Name(), ".") {
			continue
		}
		q := filepath.Join(p, de.Name())
		switch t := de.Type(); {
		case t&fs.ModeSymlink != 0:
			// As libFuzzer: a link to a file is read, a link to a
			// directory is not followed (two links back to their own
			// directory made the walk exponential).
			if _, err := fsys.ReadDir(q); err == nil {
				continue
			}
		case t&^fs.ModeDir != 0:
			// A named pipe would block the read forever; a device or
			// socket is not an input either.
			sk.add(q, fmt.Errorf("expected a regular file or directory, got %v", t))
			continue
		}
		if err := readSeedPath(ctx, fsys, q, out, sk, depth+1, raw); err != nil {
			return err
		}
	}
	return nil
}

func seedFromFile(path string, data []byte) (Seed, error) {
	if IsGoCorpus(data) {
		v, err := ParseGoCorpus(data)
		if err != nil {
			return Seed{}, err
		}
		return Seed{Path: path, Data: v}, nil
	}
	return Seed{Path: path, Data: data}, nil
}

// SHA1 returns the hex SHA-1 of data: the name libFuzzer gives corpus
// files and artifacts ("crash-<sha1>").
func SHA1(data []byte) string {
	h := sha1.Sum(data)
	return hex.EncodeToString(h[:])
}

// Flat is a flat corpus directory in libFuzzer's layout: one file per
// input, named prefix + SHA1(input). It is the output of merge and where
// libFuzzer-style artifacts (prefix "crash-", "timeout-", "oom-") go.
// The zero FS means OS; NoSync skips fsync. Flat values are safe for
// concurrent use.
type Flat struct {
	Path   string
	FS     FS
	NoSync bool
}

// RemoveTemps removes the temporary files of writes into Path that were
// killed half-way (this package's ".tmp-" files) and were last modified
// at least olderThan ago. Zero removes them all, for a directory only this
// process writes; a directory other processes may be writing into (a
// corpus shared by campaigns, as libFuzzer's -jobs share theirs) needs an
// age no live write reaches (StaleTemp). A missing directory has none.
func (f Flat) RemoveTemps(olderThan time.Duration) error {
	fsys := f.FS
	if fsys == nil {
		fsys = OS{}
	}
	des, err := fsys.ReadDir(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	now := time.Now()
	for _, de := range des {
		if !strings.HasPrefix(de.Name(), tmpPrefix) || de.IsDir() {
			continue
		}
		if olderThan > 0 {
			info, err := de.Info()
			if err != nil || now.Sub(info.ModTime()) < olderThan {
				continue // gone meanwhile, or perhaps another process's live write
			}
		}
		if err := fsys.Remove(filepath.Join(f.Path, de.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// StaleTemp is the age after which a temporary file in a shared flat
// directory is taken for a killed write's: a write lasts as long as one
// input's create, write, fsync and rename, milliseconds even on a loaded
// disk, so an hour leaves a wide margin for a stopped process.
const StaleTemp = time.Hour

// Write saves data atomically as Path/prefix+SHA1(data) and returns the
// full path. If that file exists already nothing is written.
func (f Flat) Write(ctx context.Context, prefix string, data []byte) (string, error) {
	return f.write(ctx, prefix+SHA1(data), data)
}

// write saves data atomically as Path/name unless that file holds it.
func (f Flat) write(ctx context.Context, name string, data []byte) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	fsys := f.FS
	if fsys == nil {
		fsys = OS{}
	}
	if err := fsys.MkdirAll(f.Path, 0o755); err != nil {
		return "", &WriteError{Path: f.Path, Err: err}
	}
	path := filepath.Join(f.Path, name)
	if old, err := fsys.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return path, nil
	}
	w := writer{fs: fsys, noSync: f.NoSync}
	if err := w.write(path, data); err != nil {
		return "", err
	}
	return path, nil
}
