package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/corpus"
)

// TestCompare runs wafer compare on examples/tlv with two strategies and
// three seeds at a small budget of executions: every campaign's directory
// stays with the budget spent, the table has a line per strategy for
// each metric with the tests against the first, and the plot is written.
func TestCompare(t *testing.T) {
	tmp := t.TempDir()
	target := filepath.Join(exampleDir(t, "tlv"), "tlv.wasm")
	out := filepath.Join(tmp, "cmp")
	r := wafer(t, tmp, "compare", "--strategies", "havoc,random", "--seeds", "3", "--runs", "3000", "-o", out, target, filepath.Join(exampleDir(t, "tlv"), "seeds"), "--use-cmp", "0")
	if r.code != 0 {
		t.Fatalf("compare: exit %d\n%s", r.code, r.stderr)
	}
	for _, s := range []string{"havoc", "random"} {
		for _, seed := range []string{"1", "2", "3"} {
			data, err := os.ReadFile(filepath.Join(out, s+"-seed"+seed, corpus.StatsFile))
			if err != nil {
				t.Fatal(err)
			}
			st, err := corpus.ParseStats(data)
			if err != nil {
				t.Fatal(err)
			}
			if st.Execs < 3000 || st.Execs > 3100 {
				t.Errorf("%s seed %s: %d executions, want the budget of 3000", s, seed, st.Execs)
			}
		}
	}
	// A line per strategy under each metric; random against havoc has a
	// p-value and an A12.
	for _, metric := range []string{"branches", "valid branches", "unique traces", "B(2)", "execs/s"} {
		re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(metric) + `\n  havoc +[0-9.]+ \[[0-9.]+, [0-9.]+\]\n  random +[0-9.]+ \[[0-9.]+, [0-9.]+\]  p=[0-9.e-]+ A12=[0-9.]+$`)
		if !re.MatchString(r.stdout) {
			t.Errorf("no %q block in the table:\n%s", metric, r.stdout)
		}
	}
	txt, err := os.ReadFile(filepath.Join(out, "compare.txt"))
	if err != nil || string(txt) != r.stdout {
		t.Errorf("compare.txt is not the printed table: %v", err)
	}
	if st, err := os.Stat(filepath.Join(out, "compare.svg")); err != nil || st.Size() < 1000 {
		t.Errorf("compare.svg: %v", err)
	}
	// Running again into the same directory would resume campaigns.
	if r := wafer(t, tmp, "compare", "--seeds", "1", "--runs", "10", "-o", out, target); r.code != 1 || !strings.Contains(r.stderr, "exists and is not empty") {
		t.Errorf("compare into a used directory: exit %d, %q", r.code, r.stderr)
	}
}

// TestComparePortfolio: an entry auto:ARM+ARM runs auto with those arms
// (its fuzzer_stats name them), beside plain auto; malformed entries are
// usage errors.
func TestComparePortfolio(t *testing.T) {
	tmp := t.TempDir()
	target := filepath.Join(exampleDir(t, "tlv"), "tlv.wasm")
	out := filepath.Join(tmp, "cmp")
	r := wafer(t, tmp, "compare", "--strategies", "auto,auto:havoc+random", "--seeds", "1", "--runs", "3000", "-o", out, target, filepath.Join(exampleDir(t, "tlv"), "seeds"), "--use-cmp", "0")
	if r.code != 0 {
		t.Fatalf("compare: exit %d\n%s", r.code, r.stderr)
	}
	for dir, arms := range map[string][2]string{"auto-seed1": {"levy", "random"}, "auto-havoc+random-seed1": {"random", "levy"}} {
		data, err := os.ReadFile(filepath.Join(out, dir, corpus.StatsFile))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "arm_"+arms[0]+"_execs") || strings.Contains(string(data), "arm_"+arms[1]+"_execs") {
			t.Errorf("%s: expected arm %s and not %s in fuzzer_stats:\n%s", dir, arms[0], arms[1], data)
		}
	}
	if !strings.Contains(r.stdout, "auto:havoc+random") {
		t.Errorf("expected the portfolio's row in the table:\n%s", r.stdout)
	}
	for _, bad := range []string{"havoc:random", "auto:auto", "auto:havoc+nope", "auto:"} {
		if r := wafer(t, tmp, "compare", "--strategies", "havoc,"+bad, "--runs", "10", "-o", filepath.Join(tmp, "x"), target); r.code != 2 || !strings.Contains(r.stderr, "--strategies") {
			t.Errorf("%s: expected a usage error naming --strategies, got exit %d, %q", bad, r.code, r.stderr)
		}
	}
}

// TestPlotCommand draws a campaign to PNG and checks the image; a
// directory without plot_data is one error line naming it.
func TestPlotCommand(t *testing.T) {
	tmp := t.TempDir()
	target := filepath.Join(exampleDir(t, "tlv"), "tlv.wasm")
	camp := filepath.Join(tmp, "camp")
	if r := wafer(t, tmp, "fuzz", "--runs", "2000", "--keep-going", "-o", camp, target); r.code != 0 && r.code != 77 {
		t.Fatalf("fuzz: exit %d\n%s", r.code, r.stderr)
	}
	png := filepath.Join(tmp, "p.png")
	if r := wafer(t, tmp, "plot", "-o", png, camp, camp); r.code != 0 {
		t.Fatalf("plot: exit %d\n%s", r.code, r.stderr)
	}
	checkPNG(t, png, 2133, 1067)
	empty := filepath.Join(tmp, "empty")
	os.Mkdir(empty, 0o755)
	r := wafer(t, tmp, "plot", "-o", png, camp, empty)
	if r.code != 1 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, empty+": no plot_data") {
		t.Errorf("plot of a directory without plot_data: exit %d, %q", r.code, r.stderr)
	}
}
