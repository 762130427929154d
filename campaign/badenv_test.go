package campaign

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/wafer-fuzz/wafer/corpus"
)

// fullFS is the host's file system until its budget of one kind of call
// (Write, Sync or Rename) is spent; every such call after that fails with
// ENOSPC, as on a disk that filled up. It records the files renamed into
// place (path → bytes) before that.
type fullFS struct {
	corpus.OS
	op string // "write", "sync" or "rename"

	mu      sync.Mutex
	left    int // calls of op that succeed
	full    bool
	renamed map[string][]byte
	pending map[string][]byte // temporary file → bytes written
}

func (f *fullFS) spend(op string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if op != f.op {
		return f.full && op == "write" // a full disk takes no more bytes
	}
	if f.left == 0 {
		f.full = true
		return true
	}
	f.left--
	return false
}

func (f *fullFS) Create(name string) (corpus.File, error) {
	fl, err := f.OS.Create(name)
	if err != nil {
		return nil, err
	}
	return &fullFile{File: fl, fs: f, name: name}, nil
}

func (f *fullFS) Append(name string) (corpus.File, error) {
	fl, err := f.OS.Append(name)
	if err != nil {
		return nil, err
	}
	return &fullFile{File: fl, fs: f, name: name}, nil
}

func (f *fullFS) Rename(oldpath, newpath string) error {
	if f.spend("rename") {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: syscall.ENOSPC}
	}
	if err := f.OS.Rename(oldpath, newpath); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.renamed[newpath] = f.pending[oldpath]
	delete(f.pending, oldpath)
	return nil
}

type fullFile struct {
	corpus.File
	fs   *fullFS
	name string
}

func (f *fullFile) Write(p []byte) (int, error) {
	if f.fs.spend("write") {
		// part of it written, as a real full disk does
		n, _ := f.File.Write(p[:len(p)/2])
		return n, &fs.PathError{Op: "write", Path: f.name, Err: syscall.ENOSPC}
	}
	n, err := f.File.Write(p)
	f.fs.mu.Lock()
	f.fs.pending[f.name] = append(f.fs.pending[f.name], p[:n]...)
	f.fs.mu.Unlock()
	return n, err
}

func (f *fullFile) Sync() error {
	if f.fs.spend("sync") {
		return &fs.PathError{Op: "sync", Path: f.name, Err: syscall.ENOSPC}
	}
	return f.File.Sync()
}

// TestFullDiskCampaign: a campaign whose output disk fills up part way
// (a write, an fsync or a rename failing with ENOSPC) stops with an
// error naming the file it could not save and saying the disk is full;
// no temporary file is left visible, every file saved before is intact
// (a verifying Open skips none), and a resume once there is space again
// keeps every one of them and goes on.
func TestFullDiskCampaign(t *testing.T) {
	tg := loadTLV(t)
	seed := readFile(t, "../examples/tlv/seeds/valid")
	for _, tc := range []struct {
		op   string
		left int
	}{
		{"write", 40}, {"sync", 25}, {"rename", 30},
	} {
		t.Run(tc.op, func(t *testing.T) {
			ctx := context.Background()
			out := filepath.Join(t.TempDir(), "out")
			ffs := &fullFS{op: tc.op, left: tc.left, renamed: map[string][]byte{}, pending: map[string][]byte{}}
			opts := Options{Search: Search{Seed: 3, Runs: 200_000, KeepGoing: true}, Seeds: [][]byte{seed}, Output: out, fs: ffs}
			sum, err := tg.Fuzz(ctx, opts)
			var we *corpus.WriteError
			if !errors.As(err, &we) || !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("expected a *corpus.WriteError wrapping ENOSPC, got %v", err)
			}
			if sum == nil {
				t.Fatal("expected the summary of what ran before the error")
			}
			if !strings.HasPrefix(we.Path, out+string(filepath.Separator)) || !strings.Contains(err.Error(), we.Path) || !strings.Contains(err.Error(), "no space left on device") {
				t.Fatalf("expected the error to name a file of %s and say the disk is full, got %q", out, err)
			}
			filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
				if err == nil && strings.HasPrefix(d.Name(), ".tmp-") {
					t.Errorf("temporary file %s left visible", p)
				}
				return nil
			})
			if len(ffs.renamed) < 10 {
				t.Fatalf("expected files saved before the disk filled, got %d", len(ffs.renamed))
			}
			// Nothing saved before is damaged.
			d, skipped, err := corpus.Open(ctx, out, corpus.Options{Verify: true})
			if err != nil || skipped != nil {
				t.Fatalf("reopen: expected every file readable, got %v, skipped %v", err, skipped)
			}
			queued := len(d.Entries())
			d.Close()
			// A resume with space again loses nothing and runs.
			opts.fs, opts.Runs = nil, 2000
			sum, err = tg.Fuzz(ctx, opts)
			if err != nil || sum.Stop != StopRuns {
				t.Fatalf("resume: expected it to run, got %v (%v)", err, sum)
			}
			for p, want := range ffs.renamed {
				if strings.Contains(p, ".wafer") || filepath.Base(p) == corpus.StatsFile {
					continue // metadata: rewritten by the resume
				}
				if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s: saved before the disk filled, lost or changed by the resume (%v)", p, err)
				}
			}
			d, _, err = corpus.Open(ctx, out, corpus.Options{Verify: true})
			if err != nil || len(d.Entries()) < queued {
				t.Fatalf("resume: expected at least the %d entries queued before, got %v", queued, err)
			}
			d.Close()
		})
	}
}
