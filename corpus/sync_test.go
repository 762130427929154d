package corpus

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSync(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	a := openT(t, filepath.Join(root, "a"), Options{NoSync: true})
	b := openT(t, filepath.Join(root, "b"), Options{NoSync: true})
	// An AFL++ secondary next to them.
	os.MkdirAll(filepath.Join(root, "afl", "queue"), 0o755)
	os.WriteFile(filepath.Join(root, "afl", "queue", "id:000000,time:0,orig:s"), []byte("from afl"), 0o644)
	os.WriteFile(filepath.Join(root, "afl", "queue", ".state"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(root, "afl", "queue", "id:000001,time:1,op:havoc"), []byte("shared"), 0o644)

	a.AddEntry(ctx, Entry{Input: []byte("a0"), Choices: []byte{1, 2}, Kinds: []byte{3, 4}, Valid: true})
	a.AddEntry(ctx, Entry{Input: []byte("shared")})
	sb := b.Syncer()
	got, skipped, err := sb.Poll(ctx)
	if err != nil || skipped != nil {
		t.Fatal(err, skipped)
	}
	var desc []string
	for _, e := range got {
		desc = append(desc, fmt.Sprintf("%s:%s:%v:%v:%v", e.Op, e.Input, e.Choices, e.Kinds, e.Valid))
	}
	want := "[sync:a:a0:[1 2]:[3 4]:true sync:a:shared:[]:[]:false sync:afl:from afl:[]:[]:false]"
	if fmt.Sprint(desc) != want {
		t.Fatalf("expected %s, got %s", want, fmt.Sprint(desc))
	}
	if again, _, _ := sb.Poll(ctx); len(again) != 0 {
		t.Fatalf("expected nothing new, got %d", len(again))
	}
	// The engine keeps the interesting ones.
	for _, e := range got {
		b.AddEntry(ctx, e)
	}
	// a does not get its own inputs back, but gets afl's new one.
	sa := a.Syncer()
	back, _, _ := sa.Poll(ctx)
	if len(back) != 1 || string(back[0].Input) != "from afl" || back[0].Op != "sync:afl" {
		t.Fatalf("expected only afl's entry, got %+v", back)
	}
	// A resumed campaign remembers what it imported.
	if err := sb.Commit(); err != nil {
		t.Fatal(err)
	}
	a.AddEntry(ctx, Entry{Input: []byte("a2")})
	b2 := openT(t, filepath.Join(root, "b"), Options{NoSync: true})
	got2, _, _ := b2.Syncer().Poll(ctx)
	if len(got2) != 1 || string(got2[0].Input) != "a2" {
		t.Fatalf("expected only a2 after resume, got %+v", got2)
	}
}

// TestSyncCommit: what a Poll returned is offered again to the next
// session until Commit records it (a campaign killed before it ran them,
// or one whose target failed to build, had lost them for good).
func TestSyncCommit(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	a := openT(t, filepath.Join(root, "a"), Options{NoSync: true})
	a.AddEntry(ctx, Entry{Input: []byte("a0")})
	poll := func(commit bool) int {
		b := openT(t, filepath.Join(root, "b"), Options{NoSync: true})
		defer b.Close()
		s := b.Syncer()
		got, _, err := s.Poll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if commit {
			if err := s.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		return len(got)
	}
	if n := poll(false); n != 1 {
		t.Fatalf("first session: expected 1 entry, got %d", n)
	}
	if n := poll(true); n != 1 {
		t.Fatalf("after a session that did not commit: expected the entry again, got %d", n)
	}
	if n := poll(false); n != 0 {
		t.Fatalf("after a session that committed: expected nothing, got %d", n)
	}
}

// TestSyncHammer has one campaign write while another polls: every
// entry arrives exactly once, none torn.
func TestSyncHammer(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	a := openT(t, filepath.Join(root, "a"), Options{NoSync: true})
	b := openT(t, filepath.Join(root, "b"), Options{NoSync: true})
	const n = 300
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range n {
			if _, _, err := a.AddEntry(ctx, Entry{Input: fmt.Appendf(nil, "entry %d %0*d", i, i, 0)}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	seen := map[string]int{}
	s := b.Syncer()
	poll := func() {
		got, skipped, err := s.Poll(ctx)
		if err != nil || skipped != nil {
			t.Fatal(err, skipped)
		}
		for _, e := range got {
			seen[string(e.Input)]++
		}
	}
	deadline := time.Now().Add(time.Minute)
	for len(seen) < n {
		if time.Now().After(deadline) {
			wg.Wait()
			poll()
			t.Fatalf("after a minute only %d of %d entries arrived", len(seen), n)
		}
		time.Sleep(time.Millisecond)
		poll()
		if t.Failed() {
			return
		}
	}
	wg.Wait()
	poll()
	for i := range n {
		if c := seen[string(fmt.Appendf(nil, "entry %d %0*d", i, i, 0))]; c != 1 {
			t.Fatalf("entry %d seen %d times", i, c)
		}
	}
	if len(seen) != n {
		t.Fatalf("expected %d distinct entries, got %d", n, len(seen))
	}
}

// TestSyncMissedListing: a listing that missed an entry (it was being
// renamed into place) picks it up on the next Poll; a real gap in the ids
// does not stop the watermark.
func TestSyncMissedListing(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	a := openT(t, filepath.Join(root, "a"), Options{NoSync: true})
	b := openT(t, filepath.Join(root, "b"), Options{NoSync: true})
	var names []string
	for i := range 3 {
		n, _, _ := a.AddEntry(ctx, Entry{Input: []byte{byte(i)}})
		names = append(names, n)
	}
	q := filepath.Join(root, "a", "queue")
	os.Rename(filepath.Join(q, names[1]), filepath.Join(q, ".hidden"))
	s := b.Syncer()
	got, _, _ := s.Poll(ctx)
	if len(got) != 2 {
		t.Fatalf("expected 2 entries, got %d", len(got))
	}
	os.Rename(filepath.Join(q, ".hidden"), filepath.Join(q, names[1]))
	got, _, _ = s.Poll(ctx)
	if len(got) != 1 || got[0].Input[0] != 1 {
		t.Fatalf("expected the missed entry, got %+v", got)
	}
	// A gap: id 3 never appears (its save was interrupted), 4 does.
	a.AddEntry(ctx, Entry{Input: []byte{3}})
	a.AddEntry(ctx, Entry{Input: []byte{4}})
	os.Remove(filepath.Join(q, "id:000003"))
	got, _, _ = s.Poll(ctx)
	got2, _, _ := s.Poll(ctx)
	if len(got) != 1 || got[0].Input[0] != 4 || len(got2) != 0 {
		t.Fatalf("expected only entry 4 once, got %+v then %+v", got, got2)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	rec, _ := os.ReadFile(filepath.Join(root, "b", ".synced", "a"))
	if string(rec) != "4\n" {
		t.Fatalf("expected watermark 4 past the gap, got %q", rec)
	}
}

// TestSyncFailures: Failures returns each failure a peer saved once, with
// the identity the peer's own directory gives it; a name still being
// written (temporary), a file without a wafer sidecar (AFL++'s) and a
// corrupt sidecar are left out, the corrupt one reported by path.
func TestSyncFailures(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	a := openT(t, filepath.Join(root, "a"), Options{NoSync: true})
	b := openT(t, filepath.Join(root, "b"), Options{NoSync: true})
	s := b.Syncer()
	if got, sk, err := s.Failures(ctx); err != nil || sk != nil || len(got) != 0 {
		t.Fatalf("expected no failures yet, got %d, %v, %v", len(got), sk, err)
	}
	a.AddFailure(ctx, Failure{Entry: Entry{Input: []byte("boom")}, Kind: "panic", Message: "boom at 0x1234", Frames: []string{"f", "g"}})
	a.AddFailure(ctx, Failure{Entry: Entry{Input: []byte("spin")}, Kind: "hang", Hang: true, Message: "timeout", Frames: []string{"loop"}})
	got, sk, err := s.Failures(ctx)
	if err != nil || sk != nil || len(got) != 2 {
		t.Fatalf("expected a's crash and hang, got %d, %v, %v", len(got), sk, err)
	}
	saved := a.Failures()
	for i, f := range got {
		if f.Identity != saved[i].Identity || f.Hang != saved[i].Hang || string(f.Input) != string(saved[i].Input) {
			t.Errorf("failure %d: expected identity %q (hang %v, input %q), got %q (hang %v, input %q)",
				i, saved[i].Identity, saved[i].Hang, saved[i].Input, f.Identity, f.Hang, f.Input)
		}
	}
	crashes := filepath.Join(root, "a", CrashesDir)
	os.WriteFile(filepath.Join(crashes, ".tmp-id:000009,kind:panic.1"), []byte("half"), 0o644)
	os.WriteFile(filepath.Join(crashes, "id:000007,sig:06,src:000001,op:havoc"), []byte("afl"), 0o644)
	os.WriteFile(filepath.Join(crashes, "id:000008,kind:panic"), []byte("x"), 0o644)
	bad := filepath.Join(root, "a", waferDir, "meta", CrashesDir, "id:000008,kind:panic")
	os.WriteFile(bad, []byte("not a sidecar"), 0o644)
	got, sk, err = s.Failures(ctx)
	if err != nil || len(got) != 0 {
		t.Fatalf("expected no new failure, got %d, %v", len(got), err)
	}
	if sk == nil || !strings.Contains(sk.Error(), "id:000008,kind:panic") {
		t.Errorf("expected the corrupt sidecar reported, got %v", sk)
	}
	a.AddFailure(ctx, Failure{Entry: Entry{Input: []byte("other")}, Kind: "oob", Message: "out of bounds", Frames: []string{"h"}})
	if got, _, _ = s.Failures(ctx); len(got) != 1 || got[0].Kind != "oob" {
		t.Errorf("expected only the new oob failure, got %+v", got)
	}
}
