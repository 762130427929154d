package corpus

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
)

const killChildEnv = "WAFER_CORPUS_KILL_CHILD"

// killInput builds the k-th run's i-th input: a header giving its length,
// then a pattern, so a truncated or mixed file is recognised.
func killInput(k, i int, r *rand.Rand) []byte {
	n := r.IntN(8192)
	b := fmt.Appendf(nil, "k=%d i=%d n=%d|", k, i, n)
	for j := range n {
		b = append(b, byte('a'+(k+i+j)%26))
	}
	return b
}

// wellFormed checks an input built by killInput.
func wellFormed(b []byte) bool {
	head, body, ok := bytes.Cut(b, []byte("|"))
	if !ok {
		return false
	}
	var k, i, n int
	if _, err := fmt.Sscanf(string(head), "k=%d i=%d n=%d", &k, &i, &n); err != nil || len(body) != n {
		return false
	}
	for j := range n {
		if body[j] != byte('a'+(k+i+j)%26) {
			return false
		}
	}
	return true
}

// TestKillChild is the child of TestKill: it writes entries, failures and
// checkpoints in a loop and reports each completed call on stdout.
func TestKillChild(t *testing.T) {
	dir := os.Getenv(killChildEnv)
	if dir == "" {
		t.Skip("child of TestKill only")
	}
	k, _ := strconv.Atoi(os.Getenv(killChildEnv + "_K"))
	ctx := context.Background()
	// Odd runs skip fsync: a process kill (unlike a power cut) must not
	// need it, and the faster loop puts kills at many more points.
	d, _, err := Open(ctx, dir, Options{NoSync: k%2 == 1})
	if err != nil {
		fmt.Printf("ERR %v\n", err)
		os.Exit(1)
	}
	execs := d.Resumed().Execs
	r := rand.New(rand.NewPCG(uint64(k), 7))
	say := func(format string, args ...any) { os.Stdout.Write(fmt.Appendf(nil, format+"\n", args...)) }
	say("R")
	for i := 0; ; i++ {
		in := killInput(k, i, r)
		execs += 10
		switch i % 4 {
		case 3:
			kind := []string{"panic", "oob", "unreachable"}[r.IntN(3)]
			name, _, err := d.AddFailure(ctx, Failure{Entry: Entry{Input: in, Op: "kill"}, Kind: kind, Message: "boom " + kind, Frames: []string{kind + "_f"}})
			if err != nil {
				say("ERR %v", err)
				os.Exit(1)
			}
			say("F %s %016x %d", name, xxhash.Sum64(in), len(in))
		case 2:
			if err := d.Checkpoint(ctx, Checkpoint{Execs: execs, Time: time.Duration(execs)}); err != nil {
				say("ERR %v", err)
				os.Exit(1)
			}
			say("C %d", execs)
		default:
			name, dup, err := d.AddEntry(ctx, Entry{Input: in, Choices: in[:min(len(in), 16)], Op: "kill", Parents: []int{i}, Execs: execs, Coverage: []uint32{uint32(i)}})
			if err != nil {
				say("ERR %v", err)
				os.Exit(1)
			}
			if !dup {
				say("E %s %016x", name, xxhash.Sum64(in))
			}
		}
	}
}

// TestKill kills a writing child with SIGKILL at random moments (fixed
// seed) and checks after each kill that a resume finds every entry and
// failure whose write returned, intact, takes no partial file, and
// restores the last checkpoint.
func TestKill(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	kills := 100
	if os.Getenv("WAFER_FULL") == "1" {
		kills = 300
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(2026, 11))
	entries := map[string]string{} // name -> hash
	failures := map[string]int{}   // name -> smallest reported length
	var lastExecs uint64
	var reportedEntries, reportedFailures, checkpoints, extra, earlyKills int
	start := time.Now()
	for k := range kills {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), killChildEnv+"="+dir, killChildEnv+"_K="+strconv.Itoa(k))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan []string)
		ready := make(chan bool, 1)
		go func() {
			var got []string
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if sc.Text() == "R" {
					ready <- true
				}
				got = append(got, sc.Text())
			}
			lines <- got
		}()
		// Kill at a random moment of the write loop (after Open), or,
		// one time in five, at a random moment from the start (during
		// Open's own repairs: orphan removal, index tail cut).
		if k%5 == 0 {
			time.Sleep(time.Duration(r.IntN(30000)) * time.Microsecond)
			earlyKills++
		} else {
			select {
			case <-ready:
			case <-time.After(10 * time.Second):
				t.Fatalf("kill %d: child did not start", k)
			}
			time.Sleep(time.Duration(r.IntN(100000)) * time.Microsecond)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		got := <-lines
		cmd.Wait()
		for _, l := range got {
			f := strings.Fields(l)
			switch {
			case len(f) == 0:
			case f[0] == "ERR":
				t.Fatalf("child: %s", l)
			case f[0] == "E" && len(f) == 3:
				entries[f[1]] = f[2]
				reportedEntries++
			case f[0] == "F" && len(f) == 4:
				n, _ := strconv.Atoi(f[3])
				if old, ok := failures[f[1]]; !ok || n < old {
					failures[f[1]] = n
				}
				reportedFailures++
			case f[0] == "C" && len(f) == 2:
				lastExecs, _ = strconv.ParseUint(f[1], 10, 64)
				checkpoints++
			}
		}
		d, skipped, err := Open(context.Background(), dir, Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		if skipped != nil {
			t.Fatalf("kill %d: a kill must not leave corrupt files: %v", k, skipped)
		}
		have := map[string]bool{}
		for _, e := range d.Entries() {
			if !wellFormed(e.Input) {
				t.Fatalf("kill %d: entry %s is not a complete input (%d bytes)", k, e.Name, len(e.Input))
			}
			have[e.Name] = true
			if h, ok := entries[e.Name]; ok && h != fmt.Sprintf("%016x", e.Hash) {
				t.Fatalf("kill %d: entry %s has hash %016x, child saved %s", k, e.Name, e.Hash, h)
			}
			if _, ok := entries[e.Name]; !ok {
				// Written and renamed, killed before it was reported.
				entries[e.Name] = fmt.Sprintf("%016x", e.Hash)
				extra++
			}
		}
		for name := range entries {
			if !have[name] {
				t.Fatalf("kill %d: entry %s was saved but is missing after resume", k, name)
			}
		}
		fs := map[string]Failure{}
		for _, f := range d.Failures() {
			if !wellFormed(f.Input) {
				t.Fatalf("kill %d: failure %s is not a complete input", k, f.Name)
			}
			fs[f.Name] = f
		}
		for name, n := range failures {
			f, ok := fs[name]
			if !ok {
				t.Fatalf("kill %d: failure %s was saved but is missing after resume", k, name)
			}
			if len(f.Input) > n {
				t.Fatalf("kill %d: failure %s has a %d-byte reproducer, a %d-byte one was saved", k, name, len(f.Input), n)
			}
		}
		if c := d.Resumed(); c.Execs < lastExecs {
			t.Fatalf("kill %d: checkpoint execs %d, child checkpointed %d", k, c.Execs, lastExecs)
		}
		d.Close()
	}
	t.Logf("kills: %d in %v (%d of them from process start); entries reported complete: %d, found after the last resume: %d (of which written but killed before reporting: %d); failure writes reported: %d, unique failures: %d; checkpoints reported: %d, last execs %d",
		kills, time.Since(start).Round(time.Millisecond), earlyKills, reportedEntries, len(entries), extra, reportedFailures, len(failures), checkpoints, lastExecs)
}
