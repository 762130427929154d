package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wafer-fuzz/wafer/corpus"
)

// killChildEnv holds the command line (fields joined by killSep) that
// TestKillChild runs; TestKillResume sets it for its children.
const (
	killChildEnv = "WAFER_CLI_KILL_CHILD"
	killSep      = "\x1f"
)

// TestKillChild is a child of TestKillResume: it runs one wafer command
// line in this process and exits with its status.
func TestKillChild(t *testing.T) {
	args := os.Getenv(killChildEnv)
	if args == "" {
		t.Skip("child of TestKillResume only")
	}
	os.Exit(doMain(context.Background(), strings.Split(args, killSep), os.Stdout, os.Stderr))
}

// killMoment is one kind of kill: a wafer command run as a child process
// and killed with SIGKILL at a moment chosen to fall in one phase of it.
type killMoment struct {
	name string
	// run starts the round's children and returns what to check after
	// the kill; k is the kill number, r the test's PRNG.
	run func(t *testing.T, k int, r *rand.Rand) *killRound
}

// killRound is one round in flight: the children to kill, the moment to
// kill them (after the trigger line, after delay or at the watch's
// event), and the checks to make afterwards.
type killRound struct {
	children []*killChild
	// trigger, when set, is the output line of the first child that
	// starts the clock; nil starts it at the process start.
	trigger func(line string) bool
	// atTrigger runs when the trigger line is seen (or at once without
	// one): it records what exists, and may arm a watch.
	atTrigger func()
	// watch, when set after atTrigger, kills at its event instead of
	// after a delay.
	watch *createWatch
	delay time.Duration
	// check runs after the kill (or the children's own exit).
	check func(killed bool)
}

// killStats counts what the test did, per moment.
type killStats struct {
	kills, missed, midWrite, entries, replaced map[string]int
	lost                                       int
}

// total is the number of entries checked.
func (s *killStats) total() int {
	n := 0
	for _, e := range s.entries {
		n += e
	}
	return n
}

func newKillStats() *killStats {
	return &killStats{kills: map[string]int{}, missed: map[string]int{}, midWrite: map[string]int{}, entries: map[string]int{}, replaced: map[string]int{}}
}

// TestKillResume kills wafer with SIGKILL at random moments (seeded PRNG,
// seed logged) of campaigns on examples/tlv and examples/cexpr (raw
// bytes, --generator json, --grammar Expr.g4), of the end-of-campaign
// shrinking, of the writes of queue entries, checkpoints and a shrunk
// crash, of a sync import between two campaigns (-M/-S), of 'wafer merge'
// and of 'wafer minimize'. The kill lands a random delay after the output
// line that starts the phase, or at the creation of the temporary file of
// the write aimed at (inotify). After each kill it checks that every file
// of queue/, crashes/ and hangs/ seen before the kill is still there with
// the same bytes, or, for a crash replaced by its shrunk form, that the
// bytes seen are kept beside it in <name>.orig (corpus.OrigSuffix); that
// corpus.Open (Verify) reports no corrupt or half-written file and leaves
// no temporary file; that merge's output files each hold the bytes their
// name (SHA-1) says and minimize's output is absent or whole; and that
// the command, run again on the same directory, starts and ends normally
// (merge and minimize removing the killed run's temporary files).
// It logs a table per moment. WAFER_KILLS=N sets the number of kills
// (default 11, one per moment; 150 with WAFER_FULL=1), WAFER_KILL_SEED
// the seed, WAFER_KILL_MOMENTS=s keeps the moments whose name contains s.
func TestKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	kills := 11
	if os.Getenv("WAFER_FULL") == "1" {
		kills = 150
	}
	if s := os.Getenv("WAFER_KILLS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("WAFER_KILLS: expected a positive number, got %q", s)
		}
		kills = n
	}
	seed := uint64(46)
	if s := os.Getenv("WAFER_KILL_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("WAFER_KILL_SEED: %v", err)
		}
		seed = n
	}
	t.Logf("seed %d (WAFER_KILL_SEED), %d kills (WAFER_KILLS)", seed, kills)
	r := rand.New(rand.NewPCG(seed, 46))
	kt := newKillTest(t)
	moments := kt.moments()
	if s := os.Getenv("WAFER_KILL_MOMENTS"); s != "" {
		// a debugging aid: only the moments whose name contains s
		moments = slices.DeleteFunc(moments, func(m killMoment) bool { return !strings.Contains(m.name, s) })
	}
	start := time.Now()
	done := 0
	for attempt := 0; done < kills; attempt++ {
		if attempt > 3*kills+len(moments) {
			t.Fatalf("only %d kills landed in %d attempts: the children end before their moment", done, attempt)
		}
		m := moments[attempt%len(moments)]
		if kt.runRound(t, m, attempt, r) {
			done++
			if done%100 == 0 {
				t.Logf("%d kills in %v, %d entries checked, %d lost", done, time.Since(start).Round(time.Second), kt.st.total(), kt.st.lost)
			}
		}
		if t.Failed() {
			break
		}
	}
	kt.logTable(t, moments, time.Since(start))
	if kt.st.lost != 0 {
		t.Errorf("%d entries lost or changed", kt.st.lost)
	}
}

// killTest holds the directories and state shared by the rounds.
type killTest struct {
	tmp                string
	tlv, cexpr         string // the targets
	tlvSeeds, cexprSee string
	bigCrash           string // a 4,040-byte tlv crash (minimize, shrinking)
	minRef             []byte // minimize's output on bigCrash, uninterrupted
	grammar            string
	syncRoot           string
	st                 *killStats
	// rec holds, per campaign or output directory, the files recorded
	// (relative path -> bytes) before kills, checked after each.
	rec map[string]map[string]string
	// est is, per moment, how long the phase aimed at lasted when a
	// child was not killed (trigger to exit): delays are drawn below it.
	est map[string]time.Duration
}

func newKillTest(t *testing.T) *killTest {
	kt := &killTest{
		tmp:      t.TempDir(),
		tlv:      filepath.Join(repoRoot, "examples", "tlv", "tlv.wasm"),
		cexpr:    filepath.Join(repoRoot, "examples", "cexpr", "cexpr.wasm"),
		tlvSeeds: filepath.Join(repoRoot, "examples", "tlv", "seeds"),
		cexprSee: filepath.Join(repoRoot, "examples", "cexpr", "seeds"),
		grammar:  filepath.Join(repoRoot, "generators", "grammars", "Expr.g4"),
		st:       newKillStats(),
		rec:      map[string]map[string]string{},
		est:      map[string]time.Duration{},
	}
	kt.syncRoot = filepath.Join(kt.tmp, "sync")
	// A crash with 4,000 bytes of noise after it: minimize and the
	// end-of-campaign shrinking have something to cut.
	crash, err := os.ReadFile(filepath.Join(repoRoot, "examples", "tlv", "testdata", "crash-padded"))
	if err != nil {
		t.Fatal(err)
	}
	nr := rand.New(rand.NewPCG(1, 2))
	for range 4000 {
		crash = append(crash, byte(nr.IntN(256)))
	}
	kt.bigCrash = filepath.Join(kt.tmp, "bigcrash")
	if err := os.WriteFile(kt.bigCrash, crash, 0o644); err != nil {
		t.Fatal(err)
	}
	// minimize's result, twice: it must not depend on the run.
	for i := range 2 {
		out := filepath.Join(kt.tmp, fmt.Sprintf("minref%d", i))
		if c := kt.runToEnd(t, kt.tmp, "minimize", "-o", out, kt.tlv, kt.bigCrash); c != exitOK {
			t.Fatalf("minimize: exit %d", c)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 && !bytes.Equal(b, kt.minRef) {
			t.Fatalf("minimize gave %q, then %q: the test needs it deterministic", kt.minRef, b)
		}
		kt.minRef = b
	}
	// The sync peer "a" starts with a queue for "b" to import.
	if c := kt.runToEnd(t, kt.tmp, "fuzz", "--no-fsync", "--runs", "20000", "-o", kt.syncRoot, "-M", "a", kt.cexpr, kt.cexprSee); c != exitOK && c != exitCrash {
		t.Fatalf("sync peer a: exit %d", c)
	}
	kt.record(t, filepath.Join(kt.syncRoot, "a"))
	return kt
}

// runToEnd runs one command line as a child process to its end and
// returns its exit status; an error line fails the test.
func (kt *killTest) runToEnd(t *testing.T, dir string, args ...string) int {
	t.Helper()
	c := startKillChild(t, dir, args, nil)
	<-c.exited
	if c.code != exitOK && c.code != exitCrash {
		t.Fatalf("%s: exit %d, expected a clean end after a kill:\n%s", strings.Join(args, " "), c.code, c.tail())
	}
	return c.code
}

// moments lists the kinds of kills, in the order the rounds cycle
// through them.
func (kt *killTest) moments() []killMoment {
	campaignT := filepath.Join(kt.tmp, "tlv")
	campaignC := filepath.Join(kt.tmp, "cexpr")
	gen := filepath.Join(kt.tmp, "json")
	gram := filepath.Join(kt.tmp, "grammar")
	status := func(l string) bool { return strings.HasPrefix(l, `{"elapsed_ns"`) }
	delayed := func(t *testing.T, name string, r *rand.Rand, max time.Duration) time.Duration {
		if e, ok := kt.est[name]; ok {
			max = e
		}
		return time.Duration(r.Int64N(int64(max) + 1))
	}
	// persistent is a campaign resumed round after round in one directory,
	// killed a random delay after its trigger.
	persistent := func(name, dir string, trigger func(string) bool, max time.Duration, args func(k int) []string) killMoment {
		return killMoment{name, func(t *testing.T, k int, r *rand.Rand) *killRound {
			rd := &killRound{trigger: trigger, delay: delayed(t, name, r, max)}
			rd.atTrigger = func() { kt.record(t, dir) }
			rd.children = []*killChild{startKillChild(t, kt.tmp, args(k), trigger)}
			rd.check = func(bool) { kt.checkCampaign(t, name, dir) }
			return rd
		}}
	}
	fsync := func(k int) []string {
		if k%2 == 1 {
			return []string{"--no-fsync"}
		}
		return nil
	}
	// shrinkArgs: a --keep-going campaign on tlv whose seeds hold a long
	// crash: it ends by shrinking it, replacing crashes/<name>.
	shrinkArgs := func(dir string, extra ...string) []string {
		return append([]string{"fuzz", "--keep-going", "--runs", "5000", "-i", kt.tlvSeeds, "-i", kt.bigCrash, "-o", dir, kt.tlv}, extra...)
	}
	shrinking := func(l string) bool { return strings.HasPrefix(l, "INFO: shrinking ") }
	return []killMoment{
		persistent("start/resume tlv", campaignT, nil, 400*time.Millisecond, func(k int) []string {
			return append([]string{"fuzz", "--keep-going", "--max-total-time", "1", "-i", kt.tlvSeeds, "-o", campaignT, kt.tlv}, fsync(k)...)
		}),
		persistent("search cexpr", campaignC, status, 700*time.Millisecond, func(k int) []string {
			return append([]string{"fuzz", "--keep-going", "--max-total-time", "2", "-j", strconv.Itoa(1 + k%2), "-o", campaignC, kt.cexpr, kt.cexprSee}, fsync(k/2)...)
		}),
		{"checkpoint write", func(t *testing.T, k int, r *rand.Rand) *killRound {
			// The final checkpoint of a short campaign; fsync makes the
			// write last long enough to be hit.
			rd := &killRound{}
			rd.atTrigger = func() {
				kt.record(t, campaignC)
				rd.watch = watchCreate(t, 1, ".tmp-checkpoint", filepath.Join(campaignC, ".wafer"))
			}
			rd.children = []*killChild{startKillChild(t, kt.tmp, []string{"fuzz", "--keep-going", "--max-total-time", "0.5", "-o", campaignC, kt.cexpr}, nil)}
			rd.check = func(bool) { kt.checkCampaign(t, "checkpoint write", campaignC) }
			return rd
		}},
		{"queue write", func(t *testing.T, k int, r *rand.Rand) *killRound {
			// The n-th queue entry of a new campaign.
			dir := filepath.Join(kt.tmp, fmt.Sprintf("fresh%d", k))
			rd := &killRound{}
			rd.atTrigger = func() { rd.watch = watchCreate(t, 1+r.IntN(40), ".tmp-", filepath.Join(dir, "queue")) }
			os.MkdirAll(filepath.Join(dir, "queue"), 0o755)
			args := []string{"fuzz", "--max-total-time", "1", "-o", dir, kt.cexpr}
			rd.children = []*killChild{startKillChild(t, kt.tmp, args, nil)}
			rd.check = func(bool) { kt.checkThenDrop(t, "queue write", dir, "fuzz", "--runs", "500", "-o", dir, kt.cexpr) }
			return rd
		}},
		persistent("generator json", gen, nil, 900*time.Millisecond, func(k int) []string {
			return append([]string{"fuzz", "--generator", "json", "--max-total-time", "1", "-o", gen, kt.cexpr}, fsync(k)...)
		}),
		persistent("grammar Expr.g4", gram, nil, 900*time.Millisecond, func(k int) []string {
			return append([]string{"fuzz", "--grammar", kt.grammar, "--max-total-time", "1", "-o", gram, kt.cexpr}, fsync(k)...)
		}),
		{"end-of-campaign shrinking", func(t *testing.T, k int, r *rand.Rand) *killRound {
			dir := filepath.Join(kt.tmp, fmt.Sprintf("shrink%d", k))
			rd := &killRound{trigger: shrinking, delay: delayed(t, "end-of-campaign shrinking", r, 10*time.Millisecond)}
			rd.atTrigger = func() { kt.record(t, dir) }
			rd.children = []*killChild{startKillChild(t, kt.tmp, shrinkArgs(dir, fsync(k)...), shrinking)}
			rd.check = func(bool) { kt.checkThenDrop(t, "end-of-campaign shrinking", dir, shrinkArgs(dir, "--runs", "500")...) }
			return rd
		}},
		{"shrunk crash write", func(t *testing.T, k int, r *rand.Rand) *killRound {
			// The 1st to 3rd file written once shrinking is done: the
			// original (crashes/<name>.orig), the sidecar, the input.
			dir := filepath.Join(kt.tmp, fmt.Sprintf("shrinkw%d", k))
			rd := &killRound{trigger: shrinking}
			rd.atTrigger = func() {
				kt.record(t, dir)
				rd.watch = watchCreate(t, 1+r.IntN(3), ".tmp-", filepath.Join(dir, "crashes"), filepath.Join(dir, ".wafer", "meta", "crashes"))
			}
			rd.children = []*killChild{startKillChild(t, kt.tmp, shrinkArgs(dir), shrinking)}
			rd.check = func(bool) { kt.checkThenDrop(t, "shrunk crash write", dir, shrinkArgs(dir, "--runs", "500")...) }
			return rd
		}},
		{"sync import (-M a, -S b)", func(t *testing.T, k int, r *rand.Rand) *killRound {
			// b, new, imports a's queue at its start while a runs and
			// imports b's: both killed a random delay after b says so.
			name := fmt.Sprintf("b%d", k)
			a, b := filepath.Join(kt.syncRoot, "a"), filepath.Join(kt.syncRoot, name)
			imported := func(l string) bool {
				return strings.HasPrefix(l, "INFO: sync: ") && !strings.HasPrefix(l, "INFO: sync: 0 entries")
			}
			rd := &killRound{trigger: imported, delay: delayed(t, "sync import (-M a, -S b)", r, 100*time.Millisecond)}
			rd.atTrigger = func() { kt.record(t, a); kt.record(t, b) }
			sargs := func(n string) []string {
				return []string{"fuzz", "--no-fsync", "--sync-interval", "0.2", "--max-total-time", "1", "-o", kt.syncRoot, "-S", n, kt.cexpr}
			}
			rd.children = []*killChild{startKillChild(t, kt.tmp, sargs(name), imported), startKillChild(t, kt.tmp, sargs("a"), nil)}
			rd.check = func(bool) {
				kt.checkCampaign(t, "sync import (-M a, -S b)", a)
				kt.checkCampaign(t, "sync import (-M a, -S b)", b)
				kt.resume(t, "sync import (-M a, -S b)", b, "fuzz", "--runs", "500", "-o", kt.syncRoot, "-S", name, kt.cexpr)
				os.RemoveAll(b)
				delete(kt.rec, b)
			}
			return rd
		}},
		{"wafer merge", func(t *testing.T, k int, r *rand.Rand) *killRound {
			// A random delay into the run (even rounds) or the n-th
			// output file's write (odd rounds).
			out := filepath.Join(kt.tmp, fmt.Sprintf("merged%d", k))
			merging := func(l string) bool { return strings.HasPrefix(l, "MERGE-OUTER: ") }
			rd := &killRound{trigger: merging, delay: delayed(t, "wafer merge", r, 100*time.Millisecond)}
			rd.atTrigger = func() {
				kt.recordFlat(t, out)
				if k%2 == 1 {
					rd.watch = watchCreate(t, 1+r.IntN(40), ".tmp-", out)
				}
			}
			args := []string{"merge", "-o", out, kt.cexpr, filepath.Join(campaignC, "queue"), filepath.Join(gen, "queue"), filepath.Join(kt.syncRoot, "a", "queue")}
			rd.children = []*killChild{startKillChild(t, kt.tmp, args, merging)}
			rd.check = func(bool) {
				kt.checkFlat(t, "wafer merge", out)
				kt.resume(t, "wafer merge", "", args...)
				kt.checkFlat(t, "wafer merge", out)
				noTemps(t, "wafer merge", out, ".tmp-")
				os.RemoveAll(out)
				delete(kt.rec, out)
			}
			return rd
		}},
		{"wafer minimize", func(t *testing.T, k int, r *rand.Rand) *killRound {
			// -o FILE, or (odd rounds) the default minimized-from-<sha1>
			// next to the crash.
			dir := filepath.Join(kt.tmp, fmt.Sprintf("min%d", k))
			os.MkdirAll(dir, 0o755)
			crash := filepath.Join(dir, "crash")
			data, _ := os.ReadFile(kt.bigCrash)
			os.WriteFile(crash, data, 0o644)
			args := []string{"minimize", kt.tlv, crash}
			out := filepath.Join(dir, "minimized-from-"+corpus.SHA1(data))
			if k%2 == 0 {
				out = filepath.Join(dir, "small")
				args = append([]string{"minimize", "-o", out}, args[1:]...)
			}
			minimising := func(l string) bool { return strings.HasPrefix(l, "INFO: minimising ") }
			rd := &killRound{trigger: minimising, delay: delayed(t, "wafer minimize", r, 5*time.Millisecond)}
			rd.atTrigger = func() {}
			if r.IntN(2) == 0 {
				// the output's write (its temporary file)
				rd.watch = watchCreate(t, 1, ".", dir)
			}
			rd.children = []*killChild{startKillChild(t, kt.tmp, args, minimising)}
			rd.check = func(bool) {
				kt.checkMinimize(t, dir, crash, data, out)
				kt.resume(t, "wafer minimize", "", args...)
				kt.checkMinimize(t, dir, crash, data, out)
				noTemps(t, "wafer minimize", dir, "."+filepath.Base(out)+".tmp")
				if b, err := os.ReadFile(out); err != nil || !bytes.Equal(b, kt.minRef) {
					t.Errorf("wafer minimize: after the rerun %s holds %q (%v), expected %q", out, b, err, kt.minRef)
				}
				os.RemoveAll(dir)
			}
			return rd
		}},
	}
}

// runRound runs one round of moment m and reports whether a kill landed.
func (kt *killTest) runRound(t *testing.T, m killMoment, k int, r *rand.Rand) bool {
	before := leftovers(kt.tmp)
	rd := m.run(t, k, r)
	first := rd.children[0]
	began := time.Now()
	if rd.trigger == nil {
		rd.atTrigger()
	} else {
		select {
		case <-first.fired:
			began = time.Now()
			rd.atTrigger()
		case <-first.exited:
		}
	}
	if rd.watch != nil {
		select {
		case <-rd.watch.fired:
		case <-first.exited:
		}
		rd.watch.close()
	} else {
		select {
		case <-time.After(rd.delay):
		case <-first.exited:
		}
	}
	for _, c := range rd.children {
		c.cmd.Process.Signal(syscall.SIGKILL)
	}
	for _, c := range rd.children {
		<-c.exited
		if !c.killed && c.code != exitOK && c.code != exitCrash {
			t.Errorf("%s, round %d: %s: exit %d, expected a clean end:\n%s", m.name, k, strings.Join(c.args, " "), c.code, c.tail())
		}
	}
	if first.killed {
		kt.st.kills[m.name]++
	} else {
		kt.st.missed[m.name]++
		kt.est[m.name] = time.Since(began) // the phase ended before the kill
	}
	if first.killed && leftovers(kt.tmp) > before {
		kt.st.midWrite[m.name]++
	}
	rd.check(first.killed)
	return first.killed
}

// leftovers counts the temporary files under dir: a kill that leaves one
// landed in the middle of a write.
func leftovers(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), ".") && strings.Contains(d.Name(), "tmp") {
			n++
		}
		return nil
	})
	return n
}

// record adds the files now in dir's queue/, crashes/ and hangs/ to what
// must survive.
func (kt *killTest) record(t *testing.T, dir string) {
	rec := kt.rec[dir]
	if rec == nil {
		rec = map[string]string{}
		kt.rec[dir] = rec
	}
	for _, sub := range []string{corpus.QueueDir, corpus.CrashesDir, corpus.HangsDir} {
		des, _ := os.ReadDir(filepath.Join(dir, sub))
		for _, de := range des {
			if strings.HasPrefix(de.Name(), ".") || de.IsDir() {
				continue
			}
			rel := filepath.Join(sub, de.Name())
			b, err := os.ReadFile(filepath.Join(dir, rel))
			if err != nil {
				t.Errorf("%s: %v", rel, err)
				continue
			}
			rec[rel] = string(b)
		}
	}
}

// checkCampaign opens dir as a resume does and checks every recorded
// file, then records the directory as it is now.
func (kt *killTest) checkCampaign(t *testing.T, moment, dir string) {
	t.Helper()
	d, skipped, err := corpus.Open(context.Background(), dir, corpus.Options{NoSync: true, Verify: true})
	if err != nil {
		t.Fatalf("%s: open %s after the kill: %v", moment, dir, err)
	}
	if skipped != nil {
		t.Errorf("%s: %s after the kill: corrupt or half-written files: %v", moment, dir, skipped)
	}
	nq, nf := len(d.Entries()), len(d.Failures())
	d.Close()
	filepath.WalkDir(dir, func(p string, de os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(de.Name(), ".tmp-") {
			t.Errorf("%s: %s: a temporary file stays after the resume's Open", moment, p)
		}
		return nil
	})
	rels := slices.Sorted(func(yield func(string) bool) {
		for rel := range kt.rec[dir] {
			if !yield(rel) {
				return
			}
		}
	})
	for _, rel := range rels {
		want := kt.rec[dir][rel]
		kt.st.entries[moment]++
		got, err := os.ReadFile(filepath.Join(dir, rel))
		if err == nil && string(got) == want {
			continue
		}
		if strings.HasPrefix(rel, corpus.CrashesDir) || strings.HasPrefix(rel, corpus.HangsDir) {
			// Replaced by a smaller reproducer: the bytes seen are kept
			// in <name>.orig.
			orig, oerr := os.ReadFile(filepath.Join(dir, rel+corpus.OrigSuffix))
			if err == nil && oerr == nil && string(orig) == want && len(got) <= len(want) {
				kt.st.replaced[moment]++
				continue
			}
		}
		kt.st.lost++
		t.Errorf("%s: %s/%s: lost or changed after the kill (%d bytes recorded; now %d bytes, %v)", moment, dir, rel, len(want), len(got), err)
	}
	kt.record(t, dir)
	var files, failures int
	for rel := range kt.rec[dir] {
		switch {
		case strings.HasPrefix(rel, corpus.QueueDir):
			files++
		case !strings.HasSuffix(rel, corpus.OrigSuffix):
			failures++
		}
	}
	if files != nq || failures != nf {
		t.Errorf("%s: %s: corpus.Open loaded %d entries and %d failures, the directory has %d and %d files", moment, dir, nq, nf, files, failures)
	}
}

// recordFlat adds the files now in a flat directory (merge's output).
func (kt *killTest) recordFlat(t *testing.T, dir string) {
	rec := kt.rec[dir]
	if rec == nil {
		rec = map[string]string{}
		kt.rec[dir] = rec
	}
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		if strings.HasPrefix(de.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, de.Name()))
		if err != nil {
			t.Errorf("%s: %v", de.Name(), err)
			continue
		}
		rec[de.Name()] = string(b)
	}
}

// checkFlat checks that merge's output has every recorded file and that
// each file holds the bytes its name says (SHA-1).
func (kt *killTest) checkFlat(t *testing.T, moment, dir string) {
	t.Helper()
	for name, want := range kt.rec[dir] {
		kt.st.entries[moment]++
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != want {
			kt.st.lost++
			t.Errorf("%s: %s/%s: lost or changed after the kill (%v)", moment, dir, name, err)
		}
	}
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		if strings.HasPrefix(de.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, de.Name()))
		if err != nil || corpus.SHA1(b) != de.Name() {
			t.Errorf("%s: %s/%s: half-written: %d bytes with SHA-1 %s (%v)", moment, dir, de.Name(), len(b), corpus.SHA1(b), err)
		}
	}
	kt.recordFlat(t, dir)
}

// checkMinimize checks that minimize left the crash as it was and wrote
// its output whole or not at all, and nothing else but its temporary
// file.
func (kt *killTest) checkMinimize(t *testing.T, dir, crash string, data []byte, out string) {
	t.Helper()
	kt.st.entries["wafer minimize"]++
	if b, err := os.ReadFile(crash); err != nil || !bytes.Equal(b, data) {
		kt.st.lost++
		t.Errorf("wafer minimize: the crash file %s changed (%v)", crash, err)
	}
	if b, err := os.ReadFile(out); err == nil && !bytes.Equal(b, kt.minRef) {
		t.Errorf("wafer minimize: %s holds %q, expected nothing or %q", out, b, kt.minRef)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Error(err)
	}
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		if n := de.Name(); n != filepath.Base(crash) && n != filepath.Base(out) && !strings.HasPrefix(n, ".") {
			t.Errorf("wafer minimize: unexpected file %s in %s", n, dir)
		}
	}
}

// noTemps checks that the rerun after a kill removed the killed run's
// temporary files (names starting with prefix) from dir.
func noTemps(t *testing.T, moment, dir, prefix string) {
	t.Helper()
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		if strings.HasPrefix(de.Name(), prefix) {
			t.Errorf("%s: the rerun left the killed run's temporary file %s in %s", moment, de.Name(), dir)
		}
	}
}

// checkThenDrop checks a killed campaign's directory, resumes it with
// args, and forgets it: the next round of the moment starts afresh.
func (kt *killTest) checkThenDrop(t *testing.T, moment, dir string, args ...string) {
	kt.checkCampaign(t, moment, dir)
	kt.resume(t, moment, dir, args...)
	os.RemoveAll(dir)
	delete(kt.rec, dir)
}

// resume runs the command line again to its end (in dir's parent; dir ""
// for none) and checks the campaign directory again.
func (kt *killTest) resume(t *testing.T, moment, dir string, args ...string) {
	t.Helper()
	kt.runToEnd(t, kt.tmp, args...)
	if dir != "" {
		kt.checkCampaign(t, moment, dir)
	}
}

// logTable logs the kills per moment.
func (kt *killTest) logTable(t *testing.T, moments []killMoment, took time.Duration) {
	var b strings.Builder
	fmt.Fprintf(&b, "kill test, %v:\n", took.Round(time.Second))
	fmt.Fprintf(&b, "%-28s %6s %7s %10s %9s %14s\n", "moment", "kills", "missed", "mid-write", "entries", "orig kept")
	var tk, tm, tw, te, tr int
	for _, m := range moments {
		s := kt.st
		fmt.Fprintf(&b, "%-28s %6d %7d %10d %9d %14d\n", m.name, s.kills[m.name], s.missed[m.name], s.midWrite[m.name], s.entries[m.name], s.replaced[m.name])
		tk += s.kills[m.name]
		tm += s.missed[m.name]
		tw += s.midWrite[m.name]
		te += s.entries[m.name]
		tr += s.replaced[m.name]
	}
	covered := 0
	for _, m := range moments {
		if kt.st.kills[m.name] > 0 {
			covered++
		}
	}
	fmt.Fprintf(&b, "%-28s %6d %7d %10d %9d %14d\n", "total", tk, tm, tw, te, tr)
	fmt.Fprintf(&b, "moments covered %d of %d; entries lost or changed: %d\n", covered, len(moments), kt.st.lost)
	b.WriteString("(missed: the child ended before its kill; mid-write: the kill left a temporary file; entries: recorded files checked after kills and reruns; orig kept: a crash replaced by its shrunk form, its recorded bytes found in <name>.orig)")
	t.Log(b.String())
}

// killChild is a wafer command line running as a child process (this test
// binary, TestKillChild).
type killChild struct {
	args   []string
	cmd    *exec.Cmd
	fired  chan struct{} // closed at the first output line trigger accepts
	exited chan struct{} // closed once the process is reaped
	killed bool          // ended by SIGKILL
	code   int

	mu  sync.Mutex
	out []string // the last lines of output
}

func startKillChild(t *testing.T, dir string, args []string, trigger func(string) bool) *killChild {
	t.Helper()
	c := &killChild{args: args, fired: make(chan struct{}), exited: make(chan struct{})}
	c.cmd = exec.Command(os.Args[0], "-test.run=^TestKillChild$", "-test.count=1")
	c.cmd.Dir = dir
	c.cmd.Env = append(os.Environ(), killChildEnv+"="+strings.Join(args, killSep))
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c.cmd.Stdout, c.cmd.Stderr = pw, pw
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		fired := false
		for sc.Scan() {
			l := sc.Text()
			c.mu.Lock()
			c.out = append(c.out, l)
			if len(c.out) > 40 {
				c.out = c.out[1:]
			}
			c.mu.Unlock()
			if !fired && trigger != nil && trigger(l) {
				fired = true
				close(c.fired)
			}
		}
		pr.Close()
		c.cmd.Wait()
		if ws, ok := c.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			c.killed = true
		}
		c.code = c.cmd.ProcessState.ExitCode()
		close(c.exited)
	}()
	return c
}

// tail returns the child's last output lines.
func (c *killChild) tail() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.out, "\n")
}

// createWatch fires when the n-th file whose name starts with prefix is
// created in one of its directories (inotify).
type createWatch struct {
	f     *os.File
	fired chan struct{}
}

func watchCreate(t *testing.T, n int, prefix string, dirs ...string) *createWatch {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		t.Fatalf("inotify: %v", err)
	}
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := syscall.InotifyAddWatch(fd, d, syscall.IN_CREATE); err != nil {
			t.Fatalf("inotify %s: %v", d, err)
		}
	}
	w := &createWatch{f: os.NewFile(uintptr(fd), "inotify"), fired: make(chan struct{})}
	go func() {
		buf := make([]byte, 64<<10)
		seen := 0
		for {
			m, err := w.f.Read(buf)
			if err != nil {
				return
			}
			// struct inotify_event: wd, mask, cookie, len (4 bytes
			// each), then len bytes of NUL-padded name.
			for off := 0; off+16 <= m; {
				l := int(binary.NativeEndian.Uint32(buf[off+12:]))
				name := strings.TrimRight(string(buf[off+16:min(m, off+16+l)]), "\x00")
				off += 16 + l
				if strings.HasPrefix(name, prefix) {
					if seen++; seen == n {
						close(w.fired)
						return
					}
				}
			}
		}
	}()
	return w
}

func (w *createWatch) close() { w.f.Close() }
