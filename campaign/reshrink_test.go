package campaign

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/wafer-fuzz/wafer/corpus"
)

// TestResumeShrinksUnshrunk: a crash saved but not shrunk (the state a
// kill or SIGTERM during the end-of-campaign shrinking leaves, as the
// shrunk form is written only once a crash's shrink is done; here made
// with NoShrink) is shrunk by the next session that shrinks: the crash
// file becomes its smaller form, the original is kept as .orig, the
// sidecar says shrunk, and its hits and find time stay. A third session
// shrinks nothing again. The second session meets the crash again (it is
// its seed), as a resumed campaign usually does.
func TestResumeShrinksUnshrunk(t *testing.T) {
	tg := loadTLV(t)
	out := t.TempDir()
	ctx := context.Background()
	if _, err := tg.Fuzz(ctx, Options{Search: Search{Seed: 1, NoShrink: true}, Output: out, NoFsync: true}); err != nil {
		t.Fatal(err)
	}
	before := oneCrash(t, out)
	if before.Shrunk {
		t.Fatal("a crash of a NoShrink session is marked shrunk")
	}
	var log bytes.Buffer
	// the budget passes the replayed queue, so the seed runs
	sum, err := tg.Fuzz(ctx, Options{Search: Search{Seed: 2, Runs: 500, KeepGoing: true}, Seeds: [][]byte{before.Input}, Output: out, NoFsync: true, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stats.CrashRuns == 0 {
		t.Fatal("the resumed session did not meet the saved crash again")
	}
	if !bytes.Contains(log.Bytes(), []byte("INFO: shrinking 1 crash")) {
		t.Fatalf("the resumed session did not shrink the saved crash; log:\n%s", log.Bytes())
	}
	after := oneCrash(t, out)
	if !after.Shrunk || after.Name != before.Name || after.Hits != before.Hits || after.Time != before.Time || after.Op != before.Op {
		t.Fatalf("after the resume: shrunk %v, name %s, hits %d, time %v, op %s; expected shrunk, and %s, %d, %v, %s as before",
			after.Shrunk, after.Name, after.Hits, after.Time, after.Op, before.Name, before.Hits, before.Time, before.Op)
	}
	if len(after.Input) >= len(before.Input) {
		t.Fatalf("shrunk crash has %d bytes, the saved one %d: expected smaller", len(after.Input), len(before.Input))
	}
	if orig := readFile(t, filepath.Join(out, corpus.CrashesDir, after.Name+".orig")); !bytes.Equal(orig, before.Input) {
		t.Fatalf(".orig holds %q, expected the crash as saved, %q", orig, before.Input)
	}
	log.Reset()
	if _, err := tg.Fuzz(ctx, Options{Search: Search{Seed: 3, Runs: 50, KeepGoing: true}, Output: out, NoFsync: true, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(log.Bytes(), []byte("INFO: shrinking")) {
		t.Fatalf("a shrunk crash was shrunk again; log:\n%s", log.Bytes())
	}
	if again := oneCrash(t, out); !bytes.Equal(again.Input, after.Input) || !again.Shrunk {
		t.Fatalf("third session changed the crash: %q shrunk %v, expected %q shrunk", again.Input, again.Shrunk, after.Input)
	}
}

// oneCrash opens out and returns its only failure.
func oneCrash(t *testing.T, out string) corpus.Failure {
	t.Helper()
	d, skipped, err := corpus.Open(context.Background(), out, corpus.Options{NoSync: true, Verify: true})
	if err != nil || skipped != nil {
		t.Fatalf("open %s: %v, skipped %v", out, err, skipped)
	}
	defer d.Close()
	fs := d.Failures()
	if len(fs) != 1 || fs[0].Hang {
		t.Fatalf("expected one crash in %s, got %d failures", out, len(fs))
	}
	if _, err := os.Stat(filepath.Join(out, corpus.CrashesDir, fs[0].Name)); err != nil {
		t.Fatal(err)
	}
	return fs[0]
}
