package corpus

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// memFS is an in-memory FS for tests: a quota makes writes fail with
// ENOSPC once the stored bytes would exceed it, readOnly makes every
// create fail with EACCES.
type memFS struct {
	mu       sync.Mutex
	files    map[string][]byte
	dirs     map[string]bool
	quota    int // 0: unlimited
	readOnly bool
	syncs    int
	reads    map[string]int // ReadFile calls by path
}

func newMemFS() *memFS {
	return &memFS{files: map[string][]byte{}, dirs: map[string]bool{".": true, "/": true}, reads: map[string]int{}}
}

func (m *memFS) used() int {
	n := 0
	for _, f := range m.files {
		n += len(f)
	}
	return n
}

func (m *memFS) MkdirAll(path string, perm fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for p := filepath.Clean(path); p != "." && p != "/"; p = filepath.Dir(p) {
		if _, ok := m.files[p]; ok {
			return &fs.PathError{Op: "mkdir", Path: p, Err: syscall.ENOTDIR}
		}
		m.dirs[p] = true
	}
	return nil
}

func (m *memFS) create(name string, trunc bool) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	name = filepath.Clean(name)
	if m.readOnly {
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EACCES}
	}
	if !m.dirs[filepath.Dir(name)] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if _, ok := m.files[name]; !ok || trunc {
		m.files[name] = nil
	}
	return &memFile{m: m, name: name}, nil
}

func (m *memFS) Create(name string) (File, error) { return m.create(name, true) }
func (m *memFS) Append(name string) (File, error) { return m.create(name, false) }

func (m *memFS) Open(name string) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	name = filepath.Clean(name)
	if _, ok := m.files[name]; !ok && !m.dirs[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{m: m, name: name, ro: true}, nil
}

func (m *memFS) ReadFile(name string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	name = filepath.Clean(name)
	m.reads[name]++
	f, ok := m.files[name]
	if !ok {
		if m.dirs[name] {
			return nil, &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR}
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return slices.Clone(f), nil
}

type memInfo struct {
	name string
	dir  bool
	size int
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return int64(i.size) }
func (i memInfo) Mode() fs.FileMode {
	return map[bool]fs.FileMode{true: fs.ModeDir | 0o755, false: 0o644}[i.dir]
}
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }

func (m *memFS) ReadDir(name string) ([]fs.DirEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	name = filepath.Clean(name)
	if !m.dirs[name] {
		if _, ok := m.files[name]; ok {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: syscall.ENOTDIR}
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	var out []fs.DirEntry
	for f, data := range m.files {
		if filepath.Dir(f) == name {
			out = append(out, fs.FileInfoToDirEntry(memInfo{filepath.Base(f), false, len(data)}))
		}
	}
	for d := range m.dirs {
		if d != name && filepath.Dir(d) == name {
			out = append(out, fs.FileInfoToDirEntry(memInfo{filepath.Base(d), true, 0}))
		}
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

func (m *memFS) Rename(oldpath, newpath string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	oldpath, newpath = filepath.Clean(oldpath), filepath.Clean(newpath)
	f, ok := m.files[oldpath]
	if !ok {
		return &fs.PathError{Op: "rename", Path: oldpath, Err: fs.ErrNotExist}
	}
	delete(m.files, oldpath)
	m.files[newpath] = f
	return nil
}

func (m *memFS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	name = filepath.Clean(name)
	if _, ok := m.files[name]; !ok {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	delete(m.files, name)
	return nil
}

type memFile struct {
	m    *memFS
	name string
	ro   bool
}

func (f *memFile) Write(p []byte) (int, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if f.ro {
		return 0, errors.New("read-only handle")
	}
	if f.m.quota > 0 && f.m.used()+len(p) > f.m.quota {
		// As a real disk: what fits is written, then ENOSPC.
		n := max(0, f.m.quota-f.m.used())
		f.m.files[f.name] = append(f.m.files[f.name], p[:n]...)
		return n, &fs.PathError{Op: "write", Path: f.name, Err: syscall.ENOSPC}
	}
	f.m.files[f.name] = append(f.m.files[f.name], p...)
	return len(p), nil
}

func (f *memFile) Sync() error {
	f.m.mu.Lock()
	f.m.syncs++
	f.m.mu.Unlock()
	return nil
}
func (f *memFile) Close() error { return nil }
