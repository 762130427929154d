package corpus

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
)

// FS is the file-system seam: every file operation of this package goes
// through it, so tests can inject failures (a full disk, a read-only
// directory). OS is the real implementation. Implementations must be safe
// for concurrent use.
type FS interface {
	MkdirAll(path string, perm fs.FileMode) error
	// Create creates (or truncates) a file for writing.
	Create(name string) (File, error)
	// Append opens a file for appending, creating it if needed.
	Append(name string) (File, error)
	// Open opens a file or directory for reading (directories are
	// opened to be synced).
	Open(name string) (File, error)
	ReadFile(name string) ([]byte, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	Rename(oldpath, newpath string) error
	Remove(name string) error
}

// File is an open file as FS returns it.
type File interface {
	io.Writer
	Sync() error
	Close() error
}

// OS is the FS of the host operating system.
type OS struct{}

func (OS) MkdirAll(path string, perm fs.FileMode) error { return os.MkdirAll(path, perm) }
func (OS) Create(name string) (File, error) {
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
}
func (OS) Append(name string) (File, error) {
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
}
func (OS) Open(name string) (File, error)             { return os.Open(name) }
func (OS) ReadFile(name string) ([]byte, error)       { return os.ReadFile(name) }
func (OS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
func (OS) Rename(oldpath, newpath string) error       { return os.Rename(oldpath, newpath) }
func (OS) Remove(name string) error                   { return os.Remove(name) }

// WriteError is returned when a file cannot be written (full disk,
// permission denied, ...). The campaign should stop: the file named by
// Path was not written, and every file written before it is intact.
type WriteError struct {
	Path string // final path of the file that could not be written
	Err  error  // the file-system error
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("corpus: cannot save %s: %v (nothing saved before is lost; free space or fix permissions, then resume)", e.Path, e.Err)
}

func (e *WriteError) Unwrap() error { return e.Err }

// tmpPrefix starts the name of every temporary file; readers skip names
// starting with ".".
const tmpPrefix = ".tmp-"

// writer writes files atomically through an FS.
type writer struct {
	fs     FS
	noSync bool
	seq    atomic.Uint64
}

// write stores data at path atomically: temporary file in the same
// directory, write, fsync, rename, directory fsync. On error the temporary
// file is removed and a *WriteError is returned; the previous content of
// path (if any) is untouched.
func (w *writer) write(path string, data []byte) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp := filepath.Join(dir, tmpPrefix+base+"."+strconv.FormatUint(w.seq.Add(1), 10))
	fail := func(err error) error {
		_ = w.fs.Remove(tmp)
		return &WriteError{Path: path, Err: err}
	}
	f, err := w.fs.Create(tmp)
	if err != nil {
		return &WriteError{Path: path, Err: err}
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fail(err)
	}
	if !w.noSync {
		if err := f.Sync(); err != nil {
			f.Close()
			return fail(err)
		}
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	if err := w.fs.Rename(tmp, path); err != nil {
		return fail(err)
	}
	if !w.noSync {
		if err := w.syncDir(dir); err != nil {
			return &WriteError{Path: path, Err: err}
		}
	}
	return nil
}

func (w *writer) syncDir(dir string) error {
	d, err := w.fs.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	// Some file systems do not support syncing a directory.
	if errors.Is(err, os.ErrInvalid) {
		err = nil
	}
	return err
}
