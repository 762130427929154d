package corpus

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCorruptionKinds damages one file of a saved campaign in each way
// (truncated, a bad version line, a newer format's version line, garbage
// bytes, empty) and checks that Open reports it by path with what it
// expected, leaves it on disk as it was, and loads the rest: a queue
// entry with a bad sidecar keeps its input, a crash input is repaired from
// its sidecar, and a checkpoint of a newer format stops Open with an
// error naming it and both versions (resuming would overwrite it).
func TestCorruptionKinds(t *testing.T) {
	ctx := context.Background()
	kinds := []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }},
		{"bad version line", func(b []byte) []byte {
			_, rest, _ := bytes.Cut(b, []byte("\n"))
			return append([]byte("wafer korpus v1\n"), rest...)
		}},
		{"newer version", func(b []byte) []byte {
			first, rest, _ := bytes.Cut(b, []byte("\n"))
			return append(append(bytes.TrimSuffix(first, []byte("v1")), "v2\n"...), rest...)
		}},
		{"garbage", func([]byte) []byte { return []byte("\x00\xff\x13garbage\x80\n\x01") }},
		{"empty", func([]byte) []byte { return nil }},
	}
	type want struct {
		skipped bool // the file is reported
		entries int  // queue entries loaded
		fails   int  // failures loaded
		execs   uint64
	}
	targets := []struct {
		name string
		file func(dir, q1, f0 string) string
		want want
	}{
		{"queue sidecar", func(dir, q1, _ string) string { return filepath.Join(dir, ".wafer", "meta", "queue", q1) }, want{true, 3, 1, 42}},
		{"queue input", func(dir, q1, _ string) string { return filepath.Join(dir, "queue", q1) }, want{true, 2, 1, 42}},
		{"crash sidecar", func(dir, _, f0 string) string { return filepath.Join(dir, ".wafer", "meta", "crashes", f0) }, want{true, 3, 0, 42}},
		{"crash input", func(dir, _, f0 string) string { return filepath.Join(dir, "crashes", f0) }, want{false, 3, 1, 42}},
		{"checkpoint", func(dir, _, _ string) string { return filepath.Join(dir, ".wafer", "checkpoint") }, want{true, 3, 1, 0}},
	}
	for _, tg := range targets {
		for _, k := range kinds {
			t.Run(tg.name+"/"+k.name, func(t *testing.T) {
				dir := t.TempDir()
				d := openT(t, dir, Options{NoSync: true})
				var q1 string
				for i := range 3 {
					n, _, err := d.AddEntry(ctx, Entry{Input: []byte{'q', byte(i)}, Choices: []byte{byte(i)}, Op: "seed"})
					if err != nil {
						t.Fatal(err)
					}
					if i == 1 {
						q1 = n
					}
				}
				f0, _, err := d.AddFailure(ctx, Failure{Entry: Entry{Input: []byte("boom")}, Kind: "panic", Message: "m", Frames: []string{"f"}})
				if err != nil {
					t.Fatal(err)
				}
				if err := d.Checkpoint(ctx, Checkpoint{Execs: 42}); err != nil {
					t.Fatal(err)
				}
				d.Close()
				// Without the index (a cache) Open reads every sidecar.
				os.Remove(filepath.Join(dir, ".wafer", "cache", indexName))
				path := tg.file(dir, q1, f0)
				old, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				bad := k.damage(old)
				if err := os.WriteFile(path, bad, 0o644); err != nil {
					t.Fatal(err)
				}

				d2, skipped, err := Open(ctx, dir, Options{})
				if tg.name == "checkpoint" && k.name == "newer version" {
					var ve *VersionError
					if !errors.As(err, &ve) || !strings.Contains(err.Error(), path+": written by a newer wafer: found version line \"wafer checkpoint v2\", this wafer reads \"wafer checkpoint v1\"") {
						t.Fatalf("expected a *VersionError naming %s and both versions, got %v", path, err)
					}
					if got, _ := os.ReadFile(path); !bytes.Equal(got, bad) {
						t.Fatal("the newer checkpoint was changed")
					}
					return
				}
				if err != nil {
					t.Fatalf("expected Open to go on, got %v", err)
				}
				defer d2.Close()
				var se *SkipError
				switch {
				case !tg.want.skipped && skipped != nil:
					t.Fatalf("expected nothing skipped, got %v", skipped)
				case tg.want.skipped && (!errors.As(skipped, &se) || len(se.Files) != 1 || se.Files[0].Path != path):
					t.Fatalf("expected %s reported, got %v", path, skipped)
				case tg.want.skipped:
					msg := se.Files[0].Err.Error()
					if !strings.Contains(msg, "expected") && !strings.Contains(msg, "newer wafer") {
						t.Errorf("expected the report to say what was expected, got %q", msg)
					}
					if k.name == "newer version" && strings.Contains(path, "meta") && !strings.Contains(msg, "found version line \"wafer corpus v2\", this wafer reads \"wafer corpus v1\"") {
						t.Errorf("expected both versions in %q", msg)
					}
				}
				if n := len(d2.Entries()); n != tg.want.entries {
					t.Errorf("expected %d queue entries, got %d", tg.want.entries, n)
				}
				fails := d2.Failures()
				if len(fails) != tg.want.fails {
					t.Fatalf("expected %d failures, got %d", tg.want.fails, len(fails))
				}
				if len(fails) == 1 && string(fails[0].Input) != "boom" {
					t.Errorf("expected the crash input \"boom\", got %q", fails[0].Input)
				}
				if e := d2.Resumed().Execs; e != tg.want.execs {
					t.Errorf("expected the checkpoint's execs %d, got %d", tg.want.execs, e)
				}
				if tg.want.skipped {
					// Reported, not dropped: the file stays as it was.
					if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, bad) {
						t.Errorf("the damaged file was changed or removed (%v)", err)
					}
				}
				// The campaign goes on without reusing a name.
				if n, _, err := d2.AddEntry(ctx, Entry{Input: []byte("new")}); err != nil || !strings.HasPrefix(n, "id:000003") {
					t.Errorf("expected a new entry id:000003, got %q %v", n, err)
				}
			})
		}
	}
}

// TestCheckWritable: with Options.CheckWritable, Open of a read-only
// campaign directory fails naming it, and changes nothing.
func TestCheckWritable(t *testing.T) {
	ctx := context.Background()
	m := newMemFS()
	d, _, err := Open(ctx, "out", Options{FS: m})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.AddEntry(ctx, Entry{Input: []byte("kept")}); err != nil {
		t.Fatal(err)
	}
	d.Close()
	before := maps.Clone(m.files)
	m.readOnly = true
	_, _, err = Open(ctx, "out", Options{FS: m, CheckWritable: true})
	if want := "out: not writable: permission denied"; err == nil || err.Error() != want || !errors.Is(err, syscall.EACCES) {
		t.Fatalf("expected %q, got %v", want, err)
	}
	if !maps.EqualFunc(before, m.files, bytes.Equal) {
		t.Fatal("expected nothing changed")
	}
	m.readOnly = false
	if _, skipped, err := Open(ctx, "out", Options{FS: m, CheckWritable: true}); err != nil || skipped != nil {
		t.Fatalf("writable again: %v %v", err, skipped)
	}
}
