package corpus

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestStatsRoundTrip(t *testing.T) {
	s := Stats{
		Start: time.Unix(1700000000, 0), LastUpdate: time.Unix(1700000100, 0), RunTime: 100 * time.Second,
		PID: 42, Cycles: 3, Execs: 123456, ExecsPerSec: 1234.5, CorpusCount: 10, CorpusFound: 8, CorpusImported: 2,
		SavedCrashes: 1, SavedHangs: 2, LastFind: time.Unix(1700000090, 0), EdgesFound: 50, TotalEdges: 200,
		ValidEdges: 40, UniqueTraces: 77, ValidPct: 55.5, B0: 3, B1: 2.5, B2: 2.25,
		MutatePct: 10, GeneratePct: 20, ExecutePct: 60, HandlePct: 10,
		Banner: "target.wasm", Version: "wafer 0.1", TargetMode: "libfuzzer", CommandLine: "wafer fuzz\nx",
		Extra: map[string]string{"strategy": "zest"},
	}
	out := FormatStats(s)
	for _, line := range []string{"execs_done        : 123456\n", "bitmap_cvg        : 25.00%\n", "command_line      : wafer fuzz x\n", "strategy          : zest\n"} {
		if !strings.Contains(string(out), line) {
			t.Fatalf("expected line %q in\n%s", line, out)
		}
	}
	got, err := ParseStats(out)
	if err != nil {
		t.Fatal(err)
	}
	s.CommandLine = "wafer fuzz x"
	if FormatStats(got) == nil || string(FormatStats(got)) != string(out) || got.Execs != s.Execs || got.Start != s.Start || got.RunTime != s.RunTime || got.Extra["strategy"] != "zest" || got.CommandLine != s.CommandLine {
		t.Fatalf("round trip: expected %+v, got %+v", s, got)
	}
	// AFL++'s own file parses; unknown keys are kept.
	afl := "start_time        : 1587211111\nexecs_done        : 12\nexecs_per_sec     : 5.77\nbitmap_cvg        : 0.31%\nstability         : 100.00%\n"
	a, err := ParseStats([]byte(afl))
	if err != nil || a.Execs != 12 || a.ExecsPerSec != 5.77 || a.Extra["stability"] != "100.00%" {
		t.Fatalf("AFL++ stats: %+v %v", a, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"no colon here\n", `line 1: expected "key : value", got "no colon here"`},
		{"execs_done : x\n", `line 1: execs_done: strconv.ParseUint: parsing "x": invalid syntax`},
		{"\n\nrun_time : 99999999999999\n", "line 3: run_time: expected seconds in range, got 99999999999999"},
	} {
		if _, err := ParseStats([]byte(tc.in)); err == nil || err.Error() != tc.want {
			t.Errorf("ParseStats(%q): expected %q, got %v", tc.in, tc.want, err)
		}
	}
}

func TestPlot(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d := openT(t, dir, Options{NoSync: true})
	rows := []PlotRow{
		{RelTime: time.Second, Cycles: 1, CorpusCount: 5, MapSize: 1.5, ExecsPerSec: 1000, TotalExecs: 1000, EdgesFound: 30, ValidEdges: 20, UniqueTraces: 9, ValidPct: 50, B0: 1, B1: 2, B2: 3, RSS: 123456},
		{RelTime: 2 * time.Second, TotalExecs: 2000},
	}
	for _, r := range rows {
		if err := d.AppendPlot(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, PlotFile)
	// A kill tears the last line; the next campaign closes it off.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("3, 1, 0")
	f.Close()
	d2 := openT(t, dir, Options{NoSync: true})
	if err := d2.AppendPlot(ctx, PlotRow{RelTime: 4 * time.Second}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), PlotHeader+"\n1, 1, 0, 5, 0, 0, 1.50%, 0, 0, 0, 1000.00, 1000, 30, 20, 9, 50.00, 1.00, 2.00, 3.00, 123456\n") {
		t.Fatalf("unexpected plot_data:\n%s", data)
	}
	got, err := ParsePlot(data)
	if err == nil || err.Error() != "line 4: expected 13, 19 or 20 columns, got 3" {
		t.Fatalf("expected the torn line reported, got %v", err)
	}
	if len(got) != 3 || !reflect.DeepEqual(got[0], rows[0]) || !reflect.DeepEqual(got[1], rows[1]) || got[2].RelTime != 4*time.Second {
		t.Fatalf("rows: %+v", got)
	}
	// AFL++'s 13 columns.
	afl := "# relative_time, cycles_done, cur_item, corpus_count, pending_total, pending_favs, map_size, saved_crashes, saved_hangs, max_depth, execs_per_sec, total_execs, edges_found\n10, 0, 1, 2, 2, 1, 0.05%, 0, 0, 2, 1500.12, 15000, 12\n"
	r, err := ParsePlot([]byte(afl))
	if err != nil || len(r) != 1 || r[0].EdgesFound != 12 || r[0].MapSize != 0.05 || r[0].TotalExecs != 15000 {
		t.Fatalf("AFL++ plot_data: %+v %v", r, err)
	}
	// wafer's 19 columns before rss_kib: read, RSS unknown.
	old := "5, 1, 0, 5, 0, 0, 1.50%, 0, 0, 0, 1000.00, 1000, 30, 20, 9, 50.00, 1.00, 2.00, 3.00\n"
	r, err = ParsePlot([]byte(old))
	if err != nil || len(r) != 1 || r[0].B2 != 3 || r[0].UniqueTraces != 9 || r[0].RSS != 0 {
		t.Fatalf("19-column plot_data: %+v %v", r, err)
	}
}

func TestWriteStats(t *testing.T) {
	d := openT(t, t.TempDir(), Options{NoSync: true})
	if err := d.WriteStats(context.Background(), Stats{Execs: 5}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(d.Path(), StatsFile))
	if err != nil {
		t.Fatal(err)
	}
	if s, err := ParseStats(data); err != nil || s.Execs != 5 {
		t.Fatalf("%+v %v", s, err)
	}
}

// TestPlotTornByFullDisk: a row a full disk cut short is closed off before
// the next row, as a row a kill tore is, so only that row is lost.
func TestPlotTornByFullDisk(t *testing.T) {
	ctx := context.Background()
	m := newMemFS()
	d, _, err := Open(ctx, "out", Options{FS: m})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.AppendPlot(ctx, PlotRow{RelTime: time.Second, TotalExecs: 1}); err != nil {
		t.Fatal(err)
	}
	m.quota = m.used() + 10
	if err := d.AppendPlot(ctx, PlotRow{RelTime: 2 * time.Second, TotalExecs: 2}); err == nil {
		t.Fatal("expected the disk to be full")
	}
	m.quota = 0
	if err := d.AppendPlot(ctx, PlotRow{RelTime: 3 * time.Second, TotalExecs: 3}); err != nil {
		t.Fatal(err)
	}
	rows, err := ParsePlot(m.files["out/"+PlotFile])
	if err == nil || !strings.HasPrefix(err.Error(), "line 3: ") {
		t.Fatalf("expected the torn row (line 3) reported, got %v", err)
	}
	if len(rows) != 2 || rows[0].TotalExecs != 1 || rows[1].TotalExecs != 3 {
		t.Fatalf("expected rows 1 and 3, got %+v", rows)
	}
}

// TestPlotShares: a portfolio's rows carry share columns named by the
// header above them; a file resumed by a portfolio campaign gets the new
// header before its first such row, and the old rows still read.
func TestPlotShares(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d := openT(t, dir, Options{NoSync: true})
	if err := d.AppendPlot(ctx, PlotRow{RelTime: time.Second, EdgesFound: 3, RSS: 7}); err != nil {
		t.Fatal(err)
	}
	d2 := openT(t, dir, Options{NoSync: true})
	sh := []ArmShare{{Name: "havoc", Share: 0.625}, {Name: "fairfuzz", Share: 0.3125}, {Name: "levy", Share: 0.0625}}
	for i := range 2 {
		if err := d2.AppendPlot(ctx, PlotRow{RelTime: time.Duration(2+i) * time.Second, EdgesFound: 4, RSS: 7, Shares: sh}); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, PlotFile))
	want := PlotHeader + ", share_havoc, share_fairfuzz, share_levy\n"
	if strings.Count(string(data), want) != 1 || strings.Count(string(data), "# ") != 2 {
		t.Fatalf("expected the plain header, then the shares' header once:\n%s", data)
	}
	rows, err := ParsePlot(data)
	if err != nil || len(rows) != 3 {
		t.Fatalf("expected 3 rows, got %d: %v", len(rows), err)
	}
	if rows[0].Shares != nil || rows[0].EdgesFound != 3 || rows[0].RSS != 7 {
		t.Fatalf("old row: %+v", rows[0])
	}
	if !reflect.DeepEqual(rows[2].Shares, sh) || rows[2].RSS != 7 || rows[2].EdgesFound != 4 {
		t.Fatalf("share row: %+v", rows[2])
	}
	// a row with share columns and no header naming them is reported
	bad := strings.Replace(string(data), want, "", 1)
	if rows, err := ParsePlot([]byte(bad)); err == nil || len(rows) != 1 {
		t.Fatalf("expected the unnamed share rows reported, got %d rows, %v", len(rows), err)
	}
}

func TestStatsArms(t *testing.T) {
	in := Stats{Execs: 9, Arms: []ArmStat{
		{Name: "havoc", Execs: 600, SharePct: 61.5, Branches: 12, Entries: 30, Crashes: 1},
		{Name: "fair_fuzz", Execs: 300, SharePct: 38.5, Branches: 3, Entries: 4},
	}}
	data := FormatStats(in)
	if !strings.Contains(string(data), "arm_havoc_share_pct: 61.50\n") {
		t.Fatalf("expected arm_havoc_share_pct in:\n%s", data)
	}
	out, err := ParseStats(data)
	if err != nil || !reflect.DeepEqual(out.Arms, in.Arms) || out.Extra != nil {
		t.Fatalf("arms did not round-trip: %+v %v (extra %v)", out.Arms, err, out.Extra)
	}
	if _, err := ParseStats([]byte("arm_havoc_execs : x\n")); err == nil || !strings.Contains(err.Error(), "arm_havoc_execs") {
		t.Fatalf("expected a bad arm value reported with its key, got %v", err)
	}
}
