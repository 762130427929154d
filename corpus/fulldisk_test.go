package corpus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
)

// TestFullDisk fills an in-memory file system at every quota from a few
// bytes to a few kilobytes: the failing call returns a *WriteError naming
// the file and saying the disk is full, leaves no temporary file, and a
// resume (with space again) finds everything saved before, intact.
func TestFullDisk(t *testing.T) {
	ctx := context.Background()
	tested := 0
	for quota := 50; quota < 6000; quota += 37 {
		m := newMemFS()
		m.quota = quota
		d, _, err := Open(ctx, "out", Options{FS: m})
		if err != nil {
			t.Fatal(err)
		}
		saved := map[string][]byte{}
		savedFail := map[string][]byte{}
		var werr error
		for i := 0; werr == nil && i < 100; i++ {
			in := bytes.Repeat([]byte{byte('a' + i%26)}, 10+i*7)
			switch i % 3 {
			case 2:
				// The same identity each time, smaller inputs later: replacement.
				in = bytes.Repeat([]byte{byte(i)}, max(1, 200-i*9))
				var name string
				name, _, werr = d.AddFailure(ctx, Failure{Entry: Entry{Input: in}, Kind: "panic", Message: "m", Frames: []string{"f"}})
				if werr == nil {
					if old, ok := savedFail[name]; !ok || smaller(in, old) {
						savedFail[name] = in
					}
				}
			case 1:
				werr = d.Checkpoint(ctx, Checkpoint{Execs: uint64(i)})
			default:
				var name string
				name, _, werr = d.AddEntry(ctx, Entry{Input: in, Choices: in[:3]})
				if werr == nil {
					saved[name] = in
				}
			}
		}
		if werr == nil {
			continue
		}
		tested++
		var we *WriteError
		if !errors.As(werr, &we) || !errors.Is(werr, syscall.ENOSPC) {
			t.Fatalf("quota %d: expected *WriteError wrapping ENOSPC, got %v", quota, werr)
		}
		if msg := werr.Error(); !strings.Contains(msg, "no space left on device") || !strings.Contains(msg, we.Path) || !strings.Contains(msg, "cannot save") {
			t.Fatalf("quota %d: unclear message %q", quota, msg)
		}
		for name := range m.files {
			if strings.Contains(name, tmpPrefix) {
				t.Fatalf("quota %d: temporary file %s left behind", quota, name)
			}
		}
		m.quota = 0
		d2, skipped, err := Open(ctx, "out", Options{FS: m})
		if err != nil || skipped != nil {
			t.Fatalf("quota %d: resume: %v %v", quota, err, skipped)
		}
		got := map[string][]byte{}
		for _, e := range d2.Entries() {
			got[e.Name] = e.Input
		}
		for name, in := range saved {
			if !bytes.Equal(got[name], in) {
				t.Fatalf("quota %d: entry %s lost or changed after a full disk", quota, name)
			}
		}
		for _, f := range d2.Failures() {
			if want, ok := savedFail[f.Name]; ok && len(f.Input) > len(want) {
				t.Fatalf("quota %d: failure %s: reproducer of %d bytes saved, %d after resume", quota, f.Name, len(want), len(f.Input))
			}
			delete(savedFail, f.Name)
		}
		if len(savedFail) > 0 {
			t.Fatalf("quota %d: failures lost: %v", quota, savedFail)
		}
	}
	if tested < 100 {
		t.Fatalf("expected the disk to fill in at least 100 runs, got %d", tested)
	}
}

func TestPermissionDenied(t *testing.T) {
	ctx := context.Background()
	m := newMemFS()
	d, _, err := Open(ctx, "out", Options{FS: m})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.AddEntry(ctx, Entry{Input: []byte("kept")}); err != nil {
		t.Fatal(err)
	}
	m.readOnly = true
	_, _, err = d.AddEntry(ctx, Entry{Input: []byte("new")})
	want := fmt.Sprintf("corpus: cannot save %s: open %s: permission denied", "out/.wafer/meta/queue/id:000001", "out/.wafer/meta/queue/.tmp-id:000001.3")
	if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, syscall.EACCES) {
		t.Fatalf("expected %q..., got %v", want, err)
	}
	if d.Has([]byte("new")) {
		t.Fatal("a failed entry must not be in memory")
	}
	m.readOnly = false
	d2, skipped, err := Open(ctx, "out", Options{FS: m})
	if err != nil || skipped != nil || len(d2.Entries()) != 1 {
		t.Fatalf("resume after permission error: %v %v %d", err, skipped, len(d2.Entries()))
	}
}
