package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/campaign"
)

// TestReproCommand: a finding's repro command carries the flags that
// change how the target runs (fuel, the memory cap, warm-up inputs, no
// heap guard), and
// leaves defaults out.
func TestReproCommand(t *testing.T) {
	def := targetFlags{rssLimitMB: defaultRSSLimitMB, heapMB: campaign.DefaultHeapReserveMB, heapGuard: true, heapCheck: defaultHeapCheck, stackDepth: true, callPairs: true}
	if got := reproCommand("t.wasm", &def, false); got != "wafer repro t.wasm {input}" {
		t.Errorf("defaults: got %q", got)
	}
	// A hang reproduces as one only with the campaign's fuel.
	if got, want := reproCommand("t.wasm", &def, true), fmt.Sprintf("wafer repro --fuel %d t.wasm {input}", campaign.DefaultFuel); got != want {
		t.Errorf("defaults, hang: expected %q, got %q", want, got)
	}
	set := def
	set.fuel, set.rssLimitMB, set.warmUp, set.heapGuard = 2000, 4, []string{"seeds dir"}, false
	if got := reproCommand("t.wasm", &set, true); !strings.Contains(got, "--fuel 2000 ") || strings.Count(got, "--fuel") != 1 {
		t.Errorf("--fuel 2000, hang: got %q", got)
	}
	got := reproCommand("t.wasm", &set, false)
	for _, want := range []string{"--fuel 2000", "--rss-limit-mb 4", "--warm-up 'seeds dir'", "--heap-guard=false"} {
		if !strings.Contains(got, want) {
			t.Errorf("expected %q in %q", want, got)
		}
	}
}

// TestSeedWarmUp: on a Go reactor, wafer fuzz runs the seeds as warm-up
// inputs by default (--warm-up-seeds) and names them in the repro
// command, which reproduces the crash; a seed that crashes is left out of
// the warm-up and found as a crash. --warm-up-seeds=false and a C target
// get no warm-up.
func TestSeedWarmUp(t *testing.T) {
	tmp := t.TempDir()
	seeds := filepath.Join(tmp, "seeds")
	if err := os.MkdirAll(seeds, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"c": "Cx", "p": "Pboom", "empty": ""} {
		if err := os.WriteFile(filepath.Join(seeds, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goTarget := filepath.Join(repoDir(t), "testdata", "goreactor", "goreactor.wasm")
	const info = "INFO: 2 of 3 seed inputs run as warm-up"
	r := wafer(t, tmp, "fuzz", "--runs", "200", "--seed", "1", "-o", "out", goTarget, "seeds")
	if r.code != 77 || !strings.Contains(r.stderr, info) || !strings.Contains(r.stdout, "wafer repro --warm-up seeds/c --warm-up seeds/p ") {
		t.Fatalf("expected the crash, the warm-up and its repro command, got %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	crashes, err := filepath.Glob(filepath.Join(tmp, "out", "crashes", "id:000000,*"))
	if err != nil || len(crashes) != 1 || !strings.HasSuffix(crashes[0], "op:seed") {
		t.Fatalf("expected the seed's crash file, got %v (%v)", crashes, err)
	}
	if r := wafer(t, tmp, "repro", "--warm-up", "seeds/c", "--warm-up", "seeds/p", goTarget, crashes[0]); r.code != 77 {
		t.Errorf("repro with the warm-up: expected exit 77, got %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = wafer(t, tmp, "fuzz", "--runs", "200", "--seed", "1", "--warm-up-seeds=false", "-o", "off", goTarget, "seeds")
	if r.code != 77 || strings.Contains(r.stderr, "warm-up") || strings.Contains(r.stdout, "--warm-up") {
		t.Errorf("--warm-up-seeds=false: expected the crash without warm-up, got %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	tlv := filepath.Join(repoDir(t), "examples", "tlv")
	r = wafer(t, tmp, "fuzz", "--runs", "50", "--seed", "1", "-o", "tlv", filepath.Join(tlv, "tlv.wasm"), filepath.Join(tlv, "seeds"))
	if strings.Contains(r.stderr, "warm-up") {
		t.Errorf("a C target: expected no warm-up, got\n%s", r.stderr)
	}
}
