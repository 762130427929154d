package campaign

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/engine"
	"github.com/wafer-fuzz/wafer/generators"
)

// gateSeed passes testdata/sync/gate.wasm's hash gate: a campaign without
// it does not get behind the gate (2^-32 a try).
var gateSeed = []byte("SYNCSEEDab")

func loadGate(t *testing.T) *Target {
	t.Helper()
	wasm := readFile(t, "../testdata/sync/gate.wasm")
	tg, err := Load("gate.wasm", wasm, TargetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// queueFiles returns the complete entries of a campaign directory's queue
// (name -> content), temporary files left out.
func queueFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	des, err := os.ReadDir(filepath.Join(dir, corpus.QueueDir))
	if err != nil {
		return nil
	}
	out := map[string][]byte{}
	for _, de := range des {
		if strings.HasPrefix(de.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, corpus.QueueDir, de.Name()))
		if err == nil {
			out[de.Name()] = b
		}
	}
	return out
}

// behindGate returns the names of a queue's entries that passed the gate
// (begin with the gate's 8 bytes).
func behindGate(q map[string][]byte) []string {
	var names []string
	for n, b := range q {
		if bytes.HasPrefix(b, gateSeed[:8]) {
			names = append(names, n)
		}
	}
	return names
}

// TestLiveSync: two campaigns on one parent directory, running at once.
// b starts first, without the gate's input; a starts once b has polled,
// with it. The first poll of b that starts once a's entry behind the gate
// is on disk imports it (a poll, not a wall-clock bound: the claim holds
// under any load), b's queue gets it marked as imported from a, and c,
// without sync, does not get behind the gate meanwhile (the control that
// makes the import the cause).
func TestLiveSync(t *testing.T) {
	if testing.Short() {
		t.Skip("three campaigns at once (-short)")
	}
	tg := loadGate(t)
	root := t.TempDir()
	const interval = 50 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	run := func(name string, seeds [][]byte, sync bool, started chan<- struct{}, hook *pollHook) {
		defer wg.Done()
		_, err := tg.Fuzz(ctx, Options{Search: Search{SyncInterval: interval, KeepGoing: true, Seed: 1, MaxTotalTime: time.Minute}, Output: filepath.Join(root, name), Sync: sync, NoFsync: true, Seeds: seeds, OnStart: func(Start) { close(started) }, pollHook: hook})
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// b's polls, counted by its importer: the first to start with a's
	// entry on disk, and the first to import an entry behind the gate.
	var mu sync.Mutex
	polls, sawOnDisk, importedAt := 0, 0, 0
	imported := make(chan struct{})
	hook := &pollHook{
		start: func() {
			onDisk := len(behindGate(queueFiles(t, filepath.Join(root, "a")))) > 0
			mu.Lock()
			defer mu.Unlock()
			polls++
			if onDisk && sawOnDisk == 0 {
				sawOnDisk = polls
			}
		},
		done: func(in []engine.Imported) {
			mu.Lock()
			defer mu.Unlock()
			if importedAt != 0 {
				return
			}
			for _, e := range in {
				if bytes.HasPrefix(e.Choices, gateSeed[:8]) {
					importedAt = polls
					close(imported)
					return
				}
			}
		},
	}
	bStarted, aStarted, cStarted := make(chan struct{}), make(chan struct{}), make(chan struct{})
	wg.Add(2)
	go run("b", nil, true, bStarted, hook)
	go run("c", nil, false, cStarted, nil) // the control: no sync
	<-bStarted                             // b's first poll, before its first execution, found nothing of a
	<-cStarted
	wg.Add(1)
	go run("a", [][]byte{gateSeed}, true, aStarted, nil)
	<-aStarted
	allDone := make(chan struct{})
	go func() { wg.Wait(); close(allDone) }()
	select {
	case <-imported:
	case <-allDone: // the campaigns ran out their time without it
	}
	// b runs what it imported and queues it: wait for that (or for the
	// campaigns' end), then stop them.
	var ns []string
wait:
	for {
		if ns = behindGate(queueFiles(t, filepath.Join(root, "b"))); len(ns) > 0 {
			break
		}
		select {
		case <-allDone:
			break wait
		case <-time.After(10 * time.Millisecond):
		}
	}
	mu.Lock()
	first, got := sawOnDisk, importedAt
	mu.Unlock()
	controlPassed := len(behindGate(queueFiles(t, filepath.Join(root, "c")))) > 0
	cancel()
	<-allDone
	if got == 0 {
		t.Fatal("b never imported a's entry behind the gate")
	}
	t.Logf("a's entry behind the gate was on disk at b's poll %d; poll %d imported it", first, got)
	if first == 0 || got != first {
		t.Errorf("expected the first poll that started with a's entry on disk (%d) to import it, got poll %d", first, got)
	}
	if len(ns) == 0 || !slices.ContainsFunc(ns, func(n string) bool { return strings.Contains(n, "op:sync:a") }) {
		t.Errorf("none of b's entries behind the gate %q is marked as imported from a", ns)
	}
	if controlPassed {
		t.Errorf("c, without sync, got behind the gate on its own: the fixture does not show the import")
	}
}

// TestSyncKnownCrash: a crash campaign a saved is met again by b (same
// seed), which syncs with a: b counts it as known and saves nothing; c,
// which does not sync, saves it (the control).
func TestSyncKnownCrash(t *testing.T) {
	tg := loadGate(t)
	root := t.TempDir()
	crash := append(slices8(gateSeed), '!')
	fuzz := func(name string, sync bool) *Summary {
		sum, err := tg.Fuzz(context.Background(), Options{Search: Search{KeepGoing: true, Seed: 1, Runs: 300}, Output: filepath.Join(root, name), Sync: sync, NoFsync: true, Seeds: [][]byte{crash}})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	a := fuzz("a", false)
	if len(a.Findings) != 1 || len(a.Saved) != 1 {
		t.Fatalf("expected a to find and save the crash behind the gate, got %d findings, %d saved", len(a.Findings), len(a.Saved))
	}
	b := fuzz("b", true)
	if len(b.Findings) != 0 || len(b.Saved) != 0 {
		t.Errorf("expected b (syncing with a) to save nothing, got %d findings, %d saved", len(b.Findings), len(b.Saved))
	}
	if b.Stop != StopRuns {
		t.Errorf("expected b to run its 300 executions, got stop %s", b.Stop)
	}
	c := fuzz("c", false)
	if len(c.Findings) != 1 || c.Findings[0].Identity != a.Findings[0].Identity {
		t.Errorf("expected c (no sync) to find a's crash again, got %d findings", len(c.Findings))
	}
}

func slices8(b []byte) []byte { return append([]byte(nil), b[:8]...) }

const syncKillEnv = "WAFER_SYNC_KILL_CHILD"

// syncKillOptions are the options of the campaigns of TestSyncKill: a has
// the gate's seed, b none; both sync every 100ms.
func syncKillOptions(root, name string) Options {
	o := Options{Search: Search{SyncInterval: 100 * time.Millisecond, KeepGoing: true, Seed: 2, MaxTotalTime: 60 * time.Second}, Output: filepath.Join(root, name), Sync: true, NoFsync: true}
	if name == "a" {
		o.Seeds, o.Seed = [][]byte{gateSeed}, 3
	}
	return o
}

// TestSyncKillChild is the child of TestSyncKill: one campaign (a or b),
// syncing, until it is killed.
func TestSyncKillChild(t *testing.T) {
	env := os.Getenv(syncKillEnv)
	if env == "" {
		t.Skip("child of TestSyncKill only")
	}
	root, name, _ := strings.Cut(env, "|")
	tg := loadGate(t)
	o := syncKillOptions(root, name)
	o.OnStart = func(Start) { fmt.Println("STARTED") }
	if _, err := tg.Fuzz(context.Background(), o); err != nil {
		t.Fatal(err)
	}
}

// TestSyncKill: one of two syncing campaigns, in a child process, is
// killed (SIGKILL) at a random moment while the other runs in this one:
// a, which has the gate's seed, or b, which imports it. The survivor goes
// on and ends cleanly, and everything it queued is in its directory when
// reopened, nothing skipped; every entry b imported from a equals a
// complete file of a's queue (no partial file was imported).
func TestSyncKill(t *testing.T) {
	if testing.Short() {
		t.Skip("a child campaign and a campaign of a few seconds (-short)")
	}
	for _, killed := range []string{"a", "b"} {
		t.Run("kill-"+killed, func(t *testing.T) { syncKill(t, killed) })
	}
}

func syncKill(t *testing.T, killed string) {
	tg := loadGate(t)
	root := t.TempDir()
	survivor := map[string]string{"a": "b", "b": "a"}[killed]
	cmd := exec.Command(os.Args[0], "-test.run=^TestSyncKillChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), syncKillEnv+"="+root+"|"+killed)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	buf := make([]byte, 64)
	if n, err := stdout.Read(buf); err != nil || !strings.Contains(string(buf[:n]), "STARTED") {
		t.Fatalf("child: expected STARTED, got %q, %v", buf[:n], err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		sum *Summary
		err error
	}
	done := make(chan result, 1)
	started := make(chan struct{})
	polled := make(chan struct{}, 1) // a poll of the survivor's ended
	go func() {
		o := syncKillOptions(root, survivor)
		o.OnStart = func(Start) { close(started) }
		o.pollHook = &pollHook{start: func() {}, done: func([]engine.Imported) {
			select {
			case polled <- struct{}{}:
			default:
			}
		}}
		sum, err := tg.Fuzz(ctx, o)
		done <- result{sum, err}
	}()
	<-started
	for len(queueFiles(t, filepath.Join(root, "a"))) == 0 {
		time.Sleep(5 * time.Millisecond) // a has queued its seed
	}
	delay := time.Duration(rand.Int64N(int64(time.Second)))
	time.Sleep(delay)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	// The survivor polls the remains: of the polls that end from now on,
	// the first may have begun before the kill, the second began after
	// it (an event, not a sleep: the claim holds under any load).
	select {
	case <-polled: // a poll that ended before now
	default:
	}
	for range 2 {
		select {
		case <-polled:
		case r := <-done:
			t.Fatalf("the survivor ended before polling the remains: %v", r.err)
		}
	}
	cancel()
	r := <-done
	if r.err != nil {
		t.Fatalf("%s: %v", survivor, r.err)
	}
	t.Logf("%s killed %v after a's first entry; %s ran %d executions", killed, delay.Round(time.Millisecond), survivor, r.sum.Stats.Execs)

	aFiles := queueFiles(t, filepath.Join(root, "a"))
	complete := map[string]bool{}
	for _, b := range aFiles {
		complete[string(b)] = true
	}
	imported := 0
	for n, b := range queueFiles(t, filepath.Join(root, "b")) {
		if !strings.Contains(n, "op:sync:a") {
			continue
		}
		imported++
		if !complete[string(b)] {
			t.Errorf("b imported %s (%d bytes), which is no complete file of a's queue", n, len(b))
		}
	}
	if imported == 0 && killed == "a" {
		t.Errorf("b imported nothing from a (%d files in a's queue): the test shows nothing", len(aFiles))
	}
	d, skipped, err := corpus.Open(context.Background(), filepath.Join(root, survivor), corpus.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if skipped != nil {
		t.Errorf("%s's directory has skipped files: %v", survivor, skipped)
	}
	for _, in := range r.sum.NewInputs {
		if !d.Has(in) {
			t.Errorf("%s's new input %q is not in its directory", survivor, in)
		}
	}
	t.Logf("b imported %d of a's %d queue files", imported, len(aFiles))
}

// TestSyncGenerator: with a Generator, sync imports the peer's choice
// sequences (its sidecars), not its inputs: b regenerates each imported
// entry and gets exactly the bytes a saved. fuzzer_stats counts them as
// corpus_imported.
func TestSyncGenerator(t *testing.T) {
	tg := loadGate(t)
	root := t.TempDir()
	gen := func(s *generators.Source) []byte {
		b := []byte{}
		for n := s.Len(0, 12); n > 0; n-- {
			b = append(b, byte(s.Pick(256)))
		}
		return b
	}
	fuzz := func(name string, seed uint64, sync bool) {
		if _, err := tg.Fuzz(context.Background(), Options{Search: Search{KeepGoing: true, Seed: seed, Runs: 2000}, Generator: gen, Output: filepath.Join(root, name), Sync: sync, NoFsync: true}); err != nil {
			t.Fatal(err)
		}
	}
	fuzz("a", 1, false)
	fuzz("b", 2, true)
	complete := map[string]bool{}
	for _, b := range queueFiles(t, filepath.Join(root, "a")) {
		complete[string(b)] = true
	}
	imported := 0
	for n, b := range queueFiles(t, filepath.Join(root, "b")) {
		if strings.Contains(n, "op:sync:a") {
			imported++
			if !complete[string(b)] {
				t.Errorf("b's %s (%q) is no input of a's queue: the choices were not a's", n, b)
			}
		}
	}
	if imported == 0 {
		t.Fatalf("b imported nothing of a's %d entries", len(complete))
	}
	st, err := corpus.ParseStats(readFile(t, filepath.Join(root, "b", corpus.StatsFile)))
	if err != nil {
		t.Fatal(err)
	}
	if st.CorpusImported != imported {
		t.Errorf("b's fuzzer_stats: expected corpus_imported %d (its op:sync:a entries), got %d", imported, st.CorpusImported)
	}
	t.Logf("b kept %d of a's %d entries", imported, len(complete))
}
