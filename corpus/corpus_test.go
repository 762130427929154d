package corpus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func openT(t *testing.T, dir string, opts Options) *Dir {
	t.Helper()
	d, skipped, err := Open(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if skipped != nil {
		t.Fatalf("unexpected skipped files: %v", skipped)
	}
	return d
}

func TestEntryNames(t *testing.T) {
	tests := []struct {
		name    string
		id      int
		kind    string
		parents []int
		op      string
		cov     bool
		want    string
	}{
		{"seed", 0, "", nil, "seed", false, "id:000000,op:seed"},
		{"child", 42, "", []int{17}, "zest", true, "id:000042,src:000017,op:zest,+cov"},
		{"splice", 7, "", []int{1, 2}, "splice", false, "id:000007,src:000001+000002,op:splice"},
		{"crash", 3, "unreachable", []int{42}, "havoc", false, "id:000003,kind:unreachable,src:000042,op:havoc"},
		{"sanitized", 1, "a/b c", nil, "x,y", false, "id:000001,kind:a_b_c,op:x_y"},
		{"no op", 1000000, "", nil, "", false, "id:1000000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := entryName(tc.id, tc.kind, tc.parents, tc.op, tc.cov)
			if got != tc.want {
				t.Fatalf("expected %q, got %q", tc.want, got)
			}
			if id, ok := ParseID(got); !ok || id != tc.id {
				t.Fatalf("ParseID(%q) = %d, %v", got, id, ok)
			}
		})
	}
	for _, bad := range []string{"", "id:", "id:abc", "crash-123", "id:12x", "id:1234567890"} {
		if _, ok := ParseID(bad); ok {
			t.Errorf("ParseID(%q) accepted", bad)
		}
	}
}

func TestAddResume(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "out")
	d := openT(t, dir, Options{})
	e0 := Entry{Input: []byte("seed one"), Op: "seed", Time: time.Second, Execs: 1}
	e1 := Entry{Input: []byte("child"), Choices: []byte{1, 2, 3}, Kinds: []byte{9, 8, 7}, Parents: []int{0}, Op: "zest", NewCov: true, Valid: true, Added: []uint32{5, 6}, Coverage: []uint32{1, 5, 6, 1 << 30}, Time: 2 * time.Second, Execs: 99}
	for i, e := range []Entry{e0, e1} {
		name, dup, err := d.AddEntry(ctx, e)
		if err != nil || dup {
			t.Fatalf("AddEntry %d: %q %v %v", i, name, dup, err)
		}
	}
	if name, dup, err := d.AddEntry(ctx, Entry{Input: []byte("child"), Op: "havoc"}); err != nil || !dup || name != "id:000001,src:000000,op:zest,+cov" {
		t.Fatalf("expected dup of entry 1, got %q %v %v", name, dup, err)
	}
	if !d.Has([]byte("seed one")) || d.Has([]byte("nope")) {
		t.Fatal("Has is wrong")
	}
	f := Failure{Entry: Entry{Input: []byte("crash input long"), Parents: []int{1}, Op: "zest"}, Kind: "unreachable",
		Message: "wasm error: unreachable at 0x12", Frames: []string{"a", "b"}, Repro: "wafer repro {input}"}
	name, isNew, err := d.AddFailure(ctx, f)
	if err != nil || !isNew || name != "id:000000,kind:unreachable,src:000001,op:zest" {
		t.Fatalf("AddFailure: %q %v %v", name, isNew, err)
	}
	f2 := f
	f2.Input = []byte("short")
	f2.Message = "wasm error: unreachable at 0x99"
	if name2, isNew, err := d.AddFailure(ctx, f2); err != nil || isNew || name2 != name {
		t.Fatalf("second hit: %q %v %v", name2, isNew, err)
	}
	f3 := f
	f3.Input = []byte("longer than short")
	if _, isNew, err := d.AddFailure(ctx, f3); err != nil || isNew {
		t.Fatalf("third hit: %v %v", isNew, err)
	}
	h := Failure{Entry: Entry{Input: []byte("loop")}, Kind: "hang", Hang: true}
	if name, isNew, err := d.AddFailure(ctx, h); err != nil || !isNew || name != "id:000000,kind:hang" {
		t.Fatalf("hang: %q %v %v", name, isNew, err)
	}
	if err := d.Checkpoint(ctx, Checkpoint{Execs: 1234, Time: 5 * time.Second, State: []byte("prng state")}); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}

	// Files an AFL user expects, with raw bytes.
	if b, err := os.ReadFile(filepath.Join(dir, "queue", "id:000001,src:000000,op:zest,+cov")); err != nil || string(b) != "child" {
		t.Fatalf("queue file: %q %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "crashes", name)); err != nil || string(b) != "short" {
		t.Fatalf("crash file: expected smallest reproducer %q, got %q %v", "short", b, err)
	}

	d2 := openT(t, dir, Options{})
	got := d2.Entries()
	if len(got) != 2 {
		t.Fatalf("expected 2 entries, got %d", len(got))
	}
	g := got[1]
	if !bytes.Equal(g.Input, e1.Input) || !bytes.Equal(g.Choices, e1.Choices) || !bytes.Equal(g.Kinds, e1.Kinds) ||
		!slices.Equal(g.Parents, e1.Parents) || g.Op != e1.Op || !g.NewCov || !g.Valid || !slices.Equal(g.Added, e1.Added) ||
		!slices.Equal(g.Coverage, e1.Coverage) || g.Time != e1.Time || g.Execs != e1.Execs || g.ID != 1 {
		t.Fatalf("entry 1 not restored: %+v", g)
	}
	if got[0].Choices != nil || got[0].Coverage != nil {
		t.Fatalf("entry 0: expected nil choices and coverage, got %+v", got[0])
	}
	fs := d2.Failures()
	if len(fs) != 2 {
		t.Fatalf("expected 2 failures, got %d", len(fs))
	}
	if string(fs[0].Input) != "short" || fs[0].Hits != 3 || fs[0].Kind != "unreachable" || !slices.Equal(fs[0].Frames, f.Frames) ||
		fs[0].Repro != "wafer repro "+filepath.Join(dir, "crashes", name) {
		t.Fatalf("failure not restored: %+v", fs[0])
	}
	if !fs[1].Hang || fs[1].Hits != 1 {
		t.Fatalf("hang not restored: %+v", fs[1])
	}
	c := d2.Resumed()
	if c.Execs != 1234 || c.Time != 5*time.Second || string(c.State) != "prng state" {
		t.Fatalf("checkpoint not restored: %+v", c)
	}
	// Ids continue.
	if name, _, err := d2.AddEntry(ctx, Entry{Input: []byte("third")}); err != nil || name != "id:000002" {
		t.Fatalf("expected id:000002, got %q %v", name, err)
	}
	if name, isNew, err := d2.AddFailure(ctx, Failure{Entry: Entry{Input: []byte("x")}, Kind: "unreachable", Message: "wasm error: unreachable at 0x1", Frames: []string{"a", "b", "c"}}); err != nil || !isNew || name != "id:000001,kind:unreachable" {
		t.Fatalf("expected a new failure id:000001, got %q %v %v", name, isNew, err)
	}
}

// TestCorruptFilesReported damages a saved campaign in every way a
// reader can see and checks each file is reported by path and skipped,
// while the good entries load (a queue entry whose sidecar is bad keeps
// its input).
func TestCorruptFilesReported(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d := openT(t, dir, Options{NoSync: true})
	var names []string
	for i := range 6 {
		n, _, err := d.AddEntry(ctx, Entry{Input: []byte{byte(i), 'x'}, Op: "seed"})
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	fname, _, err := d.AddFailure(ctx, Failure{Entry: Entry{Input: []byte("boom")}, Kind: "panic", Message: "m"})
	if err != nil {
		t.Fatal(err)
	}
	q := func(n string) string { return filepath.Join(dir, "queue", n) }
	m := func(n string) string { return filepath.Join(dir, ".wafer", "meta", "queue", n) }
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	meta1, _ := os.ReadFile(m(names[1]))
	write(m(names[1]), string(meta1[:len(meta1)-5]))  // truncated sidecar
	write(q(names[2]), "xx")                          // input changed: hash mismatch
	write(m(names[3]), "garbage\n")                   // not a sidecar
	write(q("README"), "hello")                       // not an entry name
	write(q(".tmp-id:000009.5"), "partial")           // leftover temporary file
	write(m("id:000010,op:seed"), "orphan")           // sidecar without input
	os.Remove(m(names[4]))                            // input without sidecar: kept
	crashPath := filepath.Join(dir, "crashes", fname) // reproducer replaced half-way
	write(crashPath, "bo")                            // repaired from the sidecar
	write(filepath.Join(dir, ".wafer", "checkpoint"), "wafer checkpoint v1\nexecs: x\nend\n")

	d2, skipped, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var se *SkipError
	if !errors.As(skipped, &se) {
		t.Fatalf("expected *SkipError, got %v", skipped)
	}
	var paths []string
	for _, f := range se.Files {
		paths = append(paths, f.Path)
	}
	want := []string{m(names[1]), q(names[2]), m(names[3]), q("README"), filepath.Join(dir, ".wafer", "checkpoint")}
	slices.Sort(paths)
	slices.Sort(want)
	if !slices.Equal(paths, want) {
		t.Fatalf("expected skipped\n%v\ngot\n%v\n(%v)", want, paths, skipped)
	}
	var ids []int
	for _, e := range d2.Entries() {
		ids = append(ids, e.ID)
	}
	// 1 and 3 keep their inputs, their sidecars reported.
	if !slices.Equal(ids, []int{0, 1, 3, 4, 5}) {
		t.Fatalf("expected entries 0, 1, 3, 4, 5, got %v", ids)
	}
	if _, err := os.Stat(q(".tmp-id:000009.5")); !os.IsNotExist(err) {
		t.Fatal("temporary file not removed")
	}
	if _, err := os.Stat(m("id:000010,op:seed")); !os.IsNotExist(err) {
		t.Fatal("orphan sidecar not removed")
	}
	if b, _ := os.ReadFile(crashPath); string(b) != "boom" {
		t.Fatalf("crash input not repaired: %q", b)
	}
	if fs := d2.Failures(); len(fs) != 1 || string(fs[0].Input) != "boom" {
		t.Fatalf("failure not loaded: %+v", fs)
	}
	// The next id stays above every name seen, the orphan's included.
	if n, _, err := d2.AddEntry(ctx, Entry{Input: []byte("new")}); err != nil || !strings.HasPrefix(n, "id:000011") {
		t.Fatalf("expected id:000011, got %q %v", n, err)
	}
	if !strings.Contains(skipped.Error(), "hash") {
		t.Fatalf("message does not say what is wrong: %v", skipped)
	}
}

func TestBlobs(t *testing.T) {
	ctx := context.Background()
	d := openT(t, t.TempDir(), Options{NoSync: true})
	big := bytes.Repeat([]byte("sitemap "), 10000)
	if err := d.PutBlob(ctx, "sitemap", big); err != nil {
		t.Fatal(err)
	}
	got, err := d.Blob(ctx, "sitemap")
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("blob round trip: %v", err)
	}
	fi, err := os.Stat(filepath.Join(d.Path(), ".wafer", "cache", "sitemap.zst"))
	if err != nil || fi.Size() > int64(len(big))/10 {
		t.Fatalf("expected a compressed file, got %v %v", fi, err)
	}
	if _, err := d.Blob(ctx, "missing"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("expected ErrNotExist, got %v", err)
	}
	if err := d.PutBlob(ctx, "../x", nil); err == nil {
		t.Fatal("expected an error for a path name")
	}
}

// TestConcurrentHammer calls every Dir method from several goroutines
// (run with -race) and checks the result on resume.
func TestConcurrentHammer(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d := openT(t, dir, Options{NoSync: true})
	const workers, per = 4, 50
	done := make(chan bool)
	for w := range workers {
		go func() {
			defer func() { done <- true }()
			for i := range per {
				in := []byte(fmt.Sprintf("w%d-%d", w, i))
				if _, _, err := d.AddEntry(ctx, Entry{Input: in, Coverage: []uint32{uint32(i)}}); err != nil {
					t.Error(err)
				}
				// Every worker also reports the same input: dups.
				d.AddEntry(ctx, Entry{Input: []byte(fmt.Sprintf("shared-%d", i))})
				if _, _, err := d.AddFailure(ctx, Failure{Entry: Entry{Input: in}, Kind: "panic", Message: "m", Frames: []string{fmt.Sprint("f", i%3)}}); err != nil {
					t.Error(err)
				}
				if i%10 == 0 {
					d.Checkpoint(ctx, Checkpoint{Execs: uint64(i)})
					d.WriteStats(ctx, Stats{Execs: uint64(i)})
					d.AppendPlot(ctx, PlotRow{TotalExecs: uint64(i)})
				}
				_ = d.Entries()
				_ = d.Failures()
			}
		}()
	}
	for range workers {
		<-done
	}
	if err := d.Checkpoint(ctx, Checkpoint{Execs: 1}); err != nil {
		t.Fatal(err)
	}
	d2 := openT(t, dir, Options{})
	if n := len(d2.Entries()); n != workers*per+per {
		t.Fatalf("expected %d entries, got %d", workers*per+per, n)
	}
	var hits uint64
	for _, f := range d2.Failures() {
		hits += f.Hits
	}
	if n := len(d2.Failures()); n != 3 || hits != workers*per {
		t.Fatalf("expected 3 failures with %d hits, got %d with %d", workers*per, n, hits)
	}
	for i, e := range d2.Entries() {
		if e.ID != i {
			t.Fatalf("expected dense ids, entry %d has id %d", i, e.ID)
		}
	}
}

// TestIndex checks that a resume reads the index instead of the entry
// files, falls back to the files for entries the index lacks, and that
// Verify reads everything and finds damage the index hides.
func TestIndex(t *testing.T) {
	ctx := context.Background()
	m := newMemFS()
	d, _, err := Open(ctx, "out", Options{FS: m})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		cov := []uint32{uint32(i)}
		d.AddEntry(ctx, Entry{Input: []byte{byte(i)}, Coverage: cov})
		cov[0] = 1 << 20 // the index holds what AddEntry was given
	}
	if es := d.Entries(); len(es) != 10 || es[3].Coverage != nil {
		t.Fatalf("expected 10 entries without coverage in memory, got %+v", es)
	}
	d.Close()
	// Two more entries the index does not have (killed before a flush).
	for i := 10; i < 12; i++ {
		d.AddEntry(ctx, Entry{Input: []byte{byte(i)}, Coverage: []uint32{uint32(i)}})
	}
	queueReads := func() int {
		n := 0
		for p, c := range m.reads {
			if strings.HasPrefix(p, "out/queue/") || strings.HasPrefix(p, "out/.wafer/meta/queue/") {
				n += c
			}
		}
		clear(m.reads)
		return n
	}
	queueReads()
	d2, skipped, err := Open(ctx, "out", Options{FS: m})
	if err != nil || skipped != nil {
		t.Fatal(err, skipped)
	}
	es := d2.Entries()
	if len(es) != 12 || es[3].Coverage[0] != 3 || es[11].Coverage != nil {
		t.Fatalf("expected 12 entries, coverage for the indexed ones, got %d", len(es))
	}
	if n := queueReads(); n != 4 {
		t.Fatalf("expected 4 file reads (2 entries not in the index), got %d", n)
	}
	// Open indexed the two; after Close nothing is read from queue/.
	d2.Close()
	d3, _, _ := Open(ctx, "out", Options{FS: m})
	if n := queueReads(); n != 0 || len(d3.Entries()) != 12 {
		t.Fatalf("expected no file reads, got %d (%d entries)", n, len(d3.Entries()))
	}
	// Damage a file: the index copy is served; Verify reports the file.
	m.files["out/queue/id:000004"] = []byte("xx")
	d4, skipped, _ := Open(ctx, "out", Options{FS: m})
	if skipped != nil || string(d4.Entries()[4].Input) != "\x04" {
		t.Fatalf("expected the index copy, got %v %q", skipped, d4.Entries()[4].Input)
	}
	d5, skipped, _ := Open(ctx, "out", Options{FS: m, Verify: true})
	if n := queueReads(); n < 24 || skipped == nil || !strings.Contains(skipped.Error(), "out/queue/id:000004") || len(d5.Entries()) != 11 {
		t.Fatalf("Verify: expected every file read and id 4 reported, got %d reads, %v, %d entries", n, skipped, len(d5.Entries()))
	}
	// A torn index tail is cut (the last chunk: entries 10 and 11, read
	// from their files), the rest still used.
	idx := "out/.wafer/cache/index.log"
	m.files[idx] = m.files[idx][:len(m.files[idx])-5]
	d6, skipped, _ := Open(ctx, "out", Options{FS: m})
	if skipped != nil || len(d6.Entries()) != 12 || queueReads() != 4 {
		t.Fatalf("torn index: %v, %d entries", skipped, len(d6.Entries()))
	}
}

// TestIndexIDNotReused: an entry removed by hand keeps its record in the
// index; a new entry does not take its id, so a session killed before the
// index is flushed again resumes the new entry with its own bytes, not
// the removed one's.
func TestIndexIDNotReused(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "c")
	a := openT(t, dir, Options{NoSync: true})
	if _, _, err := a.AddEntry(ctx, Entry{Input: []byte("old bytes")}); err != nil {
		t.Fatal(err)
	}
	if err := a.Checkpoint(ctx, Checkpoint{}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	for _, p := range []string{filepath.Join(dir, QueueDir, "id:000000"), filepath.Join(dir, waferDir, "meta", QueueDir, "id:000000")} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	b := openT(t, dir, Options{NoSync: true})
	name, _, err := b.AddEntry(ctx, Entry{Input: []byte("new")})
	if err != nil {
		t.Fatal(err)
	}
	// Killed here: b is never closed or checkpointed.
	es := openT(t, dir, Options{NoSync: true}).Entries()
	if len(es) != 1 || es[0].Name != name || string(es[0].Input) != "new" {
		t.Fatalf("expected the one new entry %s holding %q, got %+v", name, "new", es)
	}
}

// TestReplaceKeepsOriginal: a reproducer replaced by a smaller one keeps
// the input first saved beside it (name+OrigSuffix), once, never
// overwritten; Open and a peer's Syncer skip that file, and a resume
// loads the smaller reproducer with nothing reported.
func TestReplaceKeepsOriginal(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(root, "a")
	d := openT(t, dir, Options{NoSync: true})
	f := func(in string) Failure {
		return Failure{Entry: Entry{Input: []byte(in)}, Kind: "panic", Message: "boom", Frames: []string{"f"}}
	}
	name, _, err := d.AddFailure(ctx, f("first, long input"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, CrashesDir, name)
	read := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if _, err := os.Stat(path + OrigSuffix); !os.IsNotExist(err) {
		t.Fatalf("expected no original before a replacement, got %v", err)
	}
	for _, in := range []string{"shorter", "short", "longer than short"} {
		if _, _, err := d.AddFailure(ctx, f(in)); err != nil {
			t.Fatal(err)
		}
	}
	if got := read(path); got != "short" {
		t.Errorf("expected the smallest reproducer \"short\", got %q", got)
	}
	if got := read(path + OrigSuffix); got != "first, long input" {
		t.Errorf("expected the original \"first, long input\" beside it, got %q", got)
	}
	d.Close()
	d2 := openT(t, dir, Options{NoSync: true})
	if fs := d2.Failures(); len(fs) != 1 || string(fs[0].Input) != "short" || fs[0].Name != name {
		t.Fatalf("expected one failure %s with input \"short\", got %+v", name, fs)
	}
	if n, isNew, err := d2.AddFailure(ctx, f("other kind")); err != nil || isNew || n != name {
		t.Fatalf("expected the known failure %s, got %q %v %v", name, n, isNew, err)
	}
	b := openT(t, filepath.Join(root, "b"), Options{NoSync: true})
	got, sk, err := b.Syncer().Failures(ctx)
	if err != nil || sk != nil || len(got) != 1 || string(got[0].Input) != "short" {
		t.Fatalf("expected the peer's one failure \"short\", got %d, %v, %v", len(got), sk, err)
	}
}

// TestOpenRemovesTemps: Open removes the temporary files a write killed
// half-way leaves beside the checkpoint, the stats, the sync state and in
// flaky/, and keeps every other file.
func TestOpenRemovesTemps(t *testing.T) {
	dir := t.TempDir()
	openT(t, dir, Options{NoSync: true}).Close()
	temps := []string{
		filepath.Join(dir, ".tmp-fuzzer_stats.7"),
		filepath.Join(dir, waferDir, ".tmp-checkpoint.3"),
		filepath.Join(dir, waferDir, "cache", ".tmp-x.zst.1"),
		filepath.Join(dir, syncedDir, ".tmp-peer.2"),
		filepath.Join(dir, FlakyDir, ".tmp-kind:oob,hash:1.4"),
		filepath.Join(dir, waferDir, "meta", FlakyDir, ".tmp-kind:oob,hash:1.5"),
	}
	kept := []string{filepath.Join(dir, waferDir, "lock"), filepath.Join(dir, ".hidden")}
	os.MkdirAll(filepath.Join(dir, syncedDir), 0o755)
	for _, p := range append(temps, kept...) {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	openT(t, dir, Options{NoSync: true}).Close()
	for _, p := range temps {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s: expected it removed, got %v", p, err)
		}
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: expected it kept, got %v", p, err)
		}
	}
}
