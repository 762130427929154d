package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/corpus"
)

// TestFuzzAuto runs --strategy auto on examples/cexpr for a bounded number
// of executions: fuzzer_stats has each arm's share and finds, plot_data
// the shares under a header naming them, the queue entries the arm that
// found them, and wafer plot draws the shares' panel.
func TestFuzzAuto(t *testing.T) {
	cexpr := filepath.Join(exampleDir(t, "cexpr"), "cexpr.wasm")
	tmp := t.TempDir()
	out := filepath.Join(tmp, "out")
	r := wafer(t, tmp, "fuzz", "--strategy", "auto", "--runs", "20000", "--no-fsync", "-o", out, cexpr)
	notLanded(t, r)
	if r.code != 0 {
		t.Fatalf("expected exit 0, got %d: %s", r.code, tail(r.stderr))
	}
	data, err := os.ReadFile(filepath.Join(out, corpus.StatsFile))
	if err != nil {
		t.Fatal(err)
	}
	st, err := corpus.ParseStats(data)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var execs uint64
	for _, a := range st.Arms {
		names = append(names, a.Name)
		execs += a.Execs
	}
	if strings.Join(names, ",") != "fairfuzz,havoc,levy" || execs == 0 || execs > st.Execs || st.TargetMode != "auto" {
		t.Fatalf("fuzzer_stats: expected arms fairfuzz, havoc, levy with executions, got %+v (execs_done %d)\n%s", st.Arms, st.Execs, data)
	}
	plotData, err := os.ReadFile(filepath.Join(out, corpus.PlotFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(plotData), corpus.PlotHeader+", share_fairfuzz, share_havoc, share_levy\n") {
		t.Fatalf("plot_data: expected the shares' header, got\n%s", plotData)
	}
	rows, err := corpus.ParsePlot(plotData)
	if err != nil || len(rows) == 0 || len(rows[len(rows)-1].Shares) != 3 {
		t.Fatalf("plot_data: expected rows with 3 shares, got %d rows: %v", len(rows), err)
	}
	var sum float64
	for _, s := range rows[len(rows)-1].Shares {
		sum += s.Share
	}
	if sum < 0.99 || sum > 1.01 {
		t.Errorf("plot_data: expected the shares to add up to 1, got %v", rows[len(rows)-1].Shares)
	}
	ops := map[string]bool{}
	for _, n := range files(t, filepath.Join(out, "queue")) {
		if _, op, ok := strings.Cut(n, ",op:"); ok {
			op, _, _ = strings.Cut(op, ",")
			ops[op] = true
		}
	}
	if !ops["havoc"] || ops["auto"] {
		t.Errorf("queue: expected entries named after the arm that found them, got ops %v", ops)
	}
	svg := filepath.Join(tmp, "p.svg")
	if r := wafer(t, tmp, "plot", "-o", svg, out); r.code != 0 {
		t.Fatalf("plot: exit %d: %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(svg); !strings.Contains(string(b), "share of the schedule") {
		t.Error("plot: expected the shares' panel")
	}
}

// TestFuzzAutoArmsUsage: --auto-arms needs --strategy auto and names of
// strategies other than auto; arms that cannot share a queue are refused.
func TestFuzzAutoArmsUsage(t *testing.T) {
	cexpr := filepath.Join(exampleDir(t, "cexpr"), "cexpr.wasm")
	tmp := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--auto-arms", "havoc,random"}, 2, `--auto-arms: expected --strategy auto, got ""`},
		{[]string{"--strategy", "auto", "--auto-arms", "havoc,auto"}, 2, `--auto-arms: expected names from bedivfuzz, fairfuzz, havoc, levy, random, spoton, tree, zest, got "auto"`},
		{[]string{"--strategy", "auto", "--auto-arms", "bedivfuzz,spoton"}, 1, "auto: arms bedivfuzz and spoton lay out choice sequences differently"},
	} {
		args := append(append([]string{"fuzz", "--runs", "10", "--no-fsync", "-o", filepath.Join(tmp, "out")}, tc.args...), cexpr)
		r := wafer(t, tmp, args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: expected exit %d and %q, got %d: %s", tc.args, tc.code, tc.want, r.code, tail(r.stderr))
		}
	}
}
