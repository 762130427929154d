package campaign

import (
	"bytes"
	"context"
	"slices"
	"testing"
)

// TestSeedWarmUp: only a Go reactor whose runs start from a snapshot, and
// whose options give no warm-up, gets seeds as warm-up: the first
// MaxWarmUpSeeds non-empty ones within MaxWarmUpBytes.
func TestSeedWarmUp(t *testing.T) {
	goWasm := readFile(t, "../testdata/goreactor/goreactor.wasm")
	cWasm := readFile(t, "../examples/tlv/tlv.wasm")
	big := bytes.Repeat([]byte("x"), MaxWarmUpBytes-10)
	many := make([][]byte, 40)
	for i := range many {
		many[i] = []byte{byte(i)}
	}
	for _, tc := range []struct {
		name  string
		wasm  []byte
		opts  TargetOptions
		seeds [][]byte
		want  []int
	}{
		{"go reactor", goWasm, TargetOptions{}, [][]byte{[]byte("a"), nil, []byte("b")}, []int{0, 2}},
		{"at most MaxWarmUpSeeds", goWasm, TargetOptions{}, many, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
		{"at most MaxWarmUpBytes", goWasm, TargetOptions{}, [][]byte{big, bytes.Repeat([]byte("y"), 11), []byte("z")}, []int{0, 2}},
		{"fresh instances", goWasm, TargetOptions{Reset: ResetFresh}, [][]byte{[]byte("a")}, nil},
		{"a warm-up given", goWasm, TargetOptions{WarmUp: [][]byte{[]byte("w")}}, [][]byte{[]byte("a")}, nil},
		{"not a go reactor", cWasm, TargetOptions{}, [][]byte{[]byte("a")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg, err := Load(tc.name+".wasm", tc.wasm, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := tg.SeedWarmUp(tc.seeds); !slices.Equal(got, tc.want) {
				t.Errorf("SeedWarmUp = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestBugs: saved failures group by crash site in the order first saved,
// a failure without a site is a bug of its own, this session's hits
// attach to the state of the same identity and outcome, and the found
// line counts bugs, states and hangs with the session's share.
func TestBugs(t *testing.T) {
	sum := &Summary{
		Saved: []Saved{
			{Path: "c/1", Identity: "i1", Site: "f:1"},
			{Path: "h/1", Identity: "i1", Hang: true},
			{Path: "c/2", Identity: "i2", Site: "g:2"},
			{Path: "c/3", Identity: "i3", Site: "f:1"},
		},
		Findings: []Finding{
			{Outcome: Crash, Identity: "crash: i1", Hits: 3},
			{Outcome: Hang, Identity: "hang: i1", Hits: 1},
			{Outcome: Crash, Identity: "crash: i3", Hits: 2},
		},
	}
	sum.Stats.Crashes, sum.Stats.Hangs = 3, 1
	type state struct {
		path string
		hits int64
	}
	var got [][]state
	var sites []string
	for _, b := range sum.Bugs() {
		sites = append(sites, b.Site)
		var ss []state
		for _, cf := range b.States {
			ss = append(ss, state{cf.Path, cf.SessionHits})
		}
		got = append(got, ss)
	}
	if want := []string{"f:1", "identity i1", "g:2"}; !slices.Equal(sites, want) {
		t.Errorf("sites %q, want %q", sites, want)
	}
	want := [][]state{{{"c/1", 3}, {"c/3", 2}}, {{"h/1", 1}}, {{"c/2", 0}}}
	if !slices.EqualFunc(got, want, func(a, b []state) bool { return slices.Equal(a, b) }) {
		t.Errorf("states %v, want %v", got, want)
	}
	if got, want := sum.FoundLine(), "2 bugs (3 crash states), hangs 1"; got != want {
		t.Errorf("FoundLine = %q, want %q", got, want)
	}
	sum.Stats.Crashes = 1 // two of the three were found by earlier sessions
	if got, want := sum.FoundLine(), "2 bugs (3 crash states, 1 new), hangs 1 (1 new)"; got != want {
		t.Errorf("FoundLine = %q, want %q", got, want)
	}
}

// TestBugsOfACampaign: the saved failures of a real campaign directory
// carry this session's hits of the finding with the same identity (the
// directory and the engine spell identities apart: the test ties them).
func TestBugsOfACampaign(t *testing.T) {
	tg := loadTLV(t)
	sum, err := tg.Fuzz(context.Background(), Options{Output: t.TempDir(), NoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Findings) != 1 || len(sum.Saved) != 1 {
		t.Fatalf("expected tlv's one crash found and saved, got %d findings, %d saved", len(sum.Findings), len(sum.Saved))
	}
	bugs := sum.Bugs()
	if len(bugs) != 1 || len(bugs[0].States) != 1 {
		t.Fatalf("expected one bug of one state, got %+v", bugs)
	}
	if got, want := bugs[0].States[0].SessionHits, sum.Findings[0].Hits; got != want || got < 1 {
		t.Errorf("expected the state's session hits to be the finding's (%d), got %d", want, got)
	}
	if got, want := sum.FoundLine(), "1 bug (1 crash state), hangs 0"; got != want {
		t.Errorf("FoundLine = %q, want %q", got, want)
	}
}
