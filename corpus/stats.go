package corpus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Stats is the content of fuzzer_stats: AFL++'s keys plus wafer's own
// (docs/ALGORITHMS.md §6). Zero values are written as 0; times are Unix
// seconds (zero time = 0).
type Stats struct {
	Start          time.Time     // start_time
	LastUpdate     time.Time     // last_update
	RunTime        time.Duration // run_time (seconds)
	PID            int           // fuzzer_pid
	Cycles         uint64        // cycles_done
	Execs          uint64        // execs_done
	ExecsPerSec    float64       // execs_per_sec
	CorpusCount    int           // corpus_count
	CorpusFound    int           // corpus_found
	CorpusImported int           // corpus_imported
	SavedCrashes   int           // saved_crashes (unique)
	SavedHangs     int           // saved_hangs (unique)
	CrashSites     int           // crash_sites (wafer): saved crashes grouped by crash site, the bugs found
	FlakyCrashes   int           // flaky_crashes (wafer): crashes that did not crash again when rerun, not saved
	LastFind       time.Time     // last_find
	LastCrash      time.Time     // last_crash
	LastHang       time.Time     // last_hang
	EdgesFound     int           // edges_found: covered branches
	TotalEdges     int           // total_edges: instrumented branches
	ValidEdges     int           // valid_edges (wafer): branches covered by valid runs
	UniqueTraces   uint64        // unique_traces (wafer)
	ValidPct       float64       // valid_pct (wafer), 0..100
	B0, B1, B2     float64       // b0, b1, b2 (wafer): Hill numbers, BeDivFuzz
	MutatePct      float64       // time_mutate_pct (wafer), 0..100
	GeneratePct    float64       // time_generate_pct (wafer)
	ExecutePct     float64       // time_execute_pct (wafer)
	HandlePct      float64       // time_handle_pct (wafer)
	Banner         string        // afl_banner
	Version        string        // afl_version
	TargetMode     string        // target_mode
	CommandLine    string        // command_line
	// Arms are a portfolio campaign's arms (wafer fuzz --strategy auto),
	// written as arm_NAME_KEY lines; nil otherwise.
	Arms []ArmStat
	// Extra holds any other key (written sorted after the known ones;
	// ReadStats puts unknown keys here). Nil means none.
	Extra map[string]string
}

// ArmStat is one arm of a portfolio campaign in fuzzer_stats.
type ArmStat struct {
	Name     string  // the arm's strategy name
	Execs    uint64  // arm_NAME_execs: executions of its jobs
	SharePct float64 // arm_NAME_share_pct: its share of the schedule now, 0..100
	Branches int     // arm_NAME_branches: new branches its children covered
	Entries  int     // arm_NAME_entries: queue entries it saved
	Crashes  int     // arm_NAME_crashes: the unique crashes it found
}

// armKeys are the ArmStat keys, in the order they are written.
var armKeys = []string{"execs", "share_pct", "branches", "entries", "crashes"}

// FormatStats renders s in AFL's fuzzer_stats layout ("key" padded to 18
// columns, " : ", value).
func FormatStats(s Stats) []byte {
	var b bytes.Buffer
	kv := func(k, v string) { fmt.Fprintf(&b, "%-18s: %s\n", k, v) }
	unix := func(t time.Time) string {
		if t.IsZero() {
			return "0"
		}
		return strconv.FormatInt(t.Unix(), 10)
	}
	u := func(n uint64) string { return strconv.FormatUint(n, 10) }
	i := func(n int) string { return strconv.Itoa(n) }
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	kv("start_time", unix(s.Start))
	kv("last_update", unix(s.LastUpdate))
	kv("run_time", strconv.FormatInt(int64(s.RunTime/time.Second), 10))
	kv("fuzzer_pid", i(s.PID))
	kv("cycles_done", u(s.Cycles))
	kv("execs_done", u(s.Execs))
	kv("execs_per_sec", f(s.ExecsPerSec))
	kv("corpus_count", i(s.CorpusCount))
	kv("corpus_found", i(s.CorpusFound))
	kv("corpus_imported", i(s.CorpusImported))
	kv("saved_crashes", i(s.SavedCrashes))
	kv("saved_hangs", i(s.SavedHangs))
	kv("crash_sites", i(s.CrashSites))
	kv("flaky_crashes", i(s.FlakyCrashes))
	kv("last_find", unix(s.LastFind))
	kv("last_crash", unix(s.LastCrash))
	kv("last_hang", unix(s.LastHang))
	cvg := 0.0
	if s.TotalEdges > 0 {
		cvg = 100 * float64(s.EdgesFound) / float64(s.TotalEdges)
	}
	kv("bitmap_cvg", f(cvg)+"%")
	kv("edges_found", i(s.EdgesFound))
	kv("total_edges", i(s.TotalEdges))
	kv("valid_edges", i(s.ValidEdges))
	kv("unique_traces", u(s.UniqueTraces))
	kv("valid_pct", f(s.ValidPct))
	kv("b0", f(s.B0))
	kv("b1", f(s.B1))
	kv("b2", f(s.B2))
	kv("time_mutate_pct", f(s.MutatePct))
	kv("time_generate_pct", f(s.GeneratePct))
	kv("time_execute_pct", f(s.ExecutePct))
	kv("time_handle_pct", f(s.HandlePct))
	kv("afl_banner", oneLine(s.Banner))
	kv("afl_version", oneLine(s.Version))
	kv("target_mode", oneLine(s.TargetMode))
	kv("command_line", oneLine(s.CommandLine))
	for _, a := range s.Arms {
		if !validStatsKey(a.Name) {
			continue
		}
		for _, k := range armKeys {
			kv("arm_"+a.Name+"_"+k, a.value(k))
		}
	}
	keys := make([]string, 0, len(s.Extra))
	for k := range s.Extra {
		if validStatsKey(k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		kv(k, oneLine(s.Extra[k]))
	}
	return b.Bytes()
}

// value is the formatted value of key k.
func (a *ArmStat) value(k string) string {
	switch k {
	case "execs":
		return strconv.FormatUint(a.Execs, 10)
	case "share_pct":
		return strconv.FormatFloat(a.SharePct, 'f', 2, 64)
	case "branches":
		return strconv.Itoa(a.Branches)
	case "entries":
		return strconv.Itoa(a.Entries)
	default:
		return strconv.Itoa(a.Crashes)
	}
}

// setArm sets an arm_NAME_KEY line's value; false when k is not one.
func (s *Stats) setArm(k, v string) (bool, error) {
	rest, ok := strings.CutPrefix(k, "arm_")
	if !ok {
		return false, nil
	}
	for _, key := range armKeys {
		name, ok := strings.CutSuffix(rest, "_"+key)
		if !ok || name == "" {
			continue
		}
		i := slices.IndexFunc(s.Arms, func(a ArmStat) bool { return a.Name == name })
		if i < 0 {
			s.Arms = append(s.Arms, ArmStat{Name: name})
			i = len(s.Arms) - 1
		}
		a := &s.Arms[i]
		var err error
		switch key {
		case "execs":
			a.Execs, err = strconv.ParseUint(v, 10, 64)
		case "share_pct":
			a.SharePct, err = strconv.ParseFloat(v, 64)
		case "branches":
			a.Branches, err = strconv.Atoi(v)
		case "entries":
			a.Entries, err = strconv.Atoi(v)
		default:
			a.Crashes, err = strconv.Atoi(v)
		}
		return true, err
	}
	return false, nil
}

func oneLine(s string) string {
	s = strings.NewReplacer("\n", " ", "\r", " ").Replace(s)
	return strings.TrimSpace(s)
}

func validStatsKey(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range []byte(k) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// ParseStats reads a fuzzer_stats file (AFL's or wafer's). Unknown keys go
// to Extra; a line that is not "key : value" or a known key with a bad
// value is an error naming the line.
func ParseStats(data []byte) (Stats, error) {
	var s Stats
	for n, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || !validStatsKey(k) {
			return Stats{}, fmt.Errorf("line %d: expected \"key : value\", got %.40q", n+1, line)
		}
		if err := s.set(k, v); err != nil {
			return Stats{}, fmt.Errorf("line %d: %s: %w", n+1, k, err)
		}
	}
	return s, nil
}

func (s *Stats) set(k, v string) error {
	var err error
	unix := func(t *time.Time) {
		var n int64
		if n, err = strconv.ParseInt(v, 10, 64); err == nil {
			if n == 0 {
				*t = time.Time{}
			} else {
				*t = time.Unix(n, 0)
			}
		}
	}
	u := func(p *uint64) { *p, err = strconv.ParseUint(v, 10, 64) }
	i := func(p *int) { *p, err = strconv.Atoi(v) }
	f := func(p *float64) { *p, err = strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64) }
	switch k {
	case "start_time":
		unix(&s.Start)
	case "last_update":
		unix(&s.LastUpdate)
	case "run_time":
		var n int64
		if n, err = strconv.ParseInt(v, 10, 64); err == nil {
			if n < 0 || n > int64(1<<63-1)/int64(time.Second) {
				return fmt.Errorf("expected seconds in range, got %d", n)
			}
			s.RunTime = time.Duration(n) * time.Second
		}
	case "fuzzer_pid":
		i(&s.PID)
	case "cycles_done":
		u(&s.Cycles)
	case "execs_done":
		u(&s.Execs)
	case "execs_per_sec":
		f(&s.ExecsPerSec)
	case "corpus_count":
		i(&s.CorpusCount)
	case "corpus_found":
		i(&s.CorpusFound)
	case "corpus_imported":
		i(&s.CorpusImported)
	case "saved_crashes":
		i(&s.SavedCrashes)
	case "saved_hangs":
		i(&s.SavedHangs)
	case "crash_sites":
		i(&s.CrashSites)
	case "flaky_crashes":
		i(&s.FlakyCrashes)
	case "last_find":
		unix(&s.LastFind)
	case "last_crash":
		unix(&s.LastCrash)
	case "last_hang":
		unix(&s.LastHang)
	case "bitmap_cvg":
		// derived from edges_found/total_edges
	case "edges_found":
		i(&s.EdgesFound)
	case "total_edges":
		i(&s.TotalEdges)
	case "valid_edges":
		i(&s.ValidEdges)
	case "unique_traces":
		u(&s.UniqueTraces)
	case "valid_pct":
		f(&s.ValidPct)
	case "b0":
		f(&s.B0)
	case "b1":
		f(&s.B1)
	case "b2":
		f(&s.B2)
	case "time_mutate_pct":
		f(&s.MutatePct)
	case "time_generate_pct":
		f(&s.GeneratePct)
	case "time_execute_pct":
		f(&s.ExecutePct)
	case "time_handle_pct":
		f(&s.HandlePct)
	case "afl_banner":
		s.Banner = v
	case "afl_version":
		s.Version = v
	case "target_mode":
		s.TargetMode = v
	case "command_line":
		s.CommandLine = v
	default:
		if ok, err := s.setArm(k, v); ok {
			return err
		}
		if s.Extra == nil {
			s.Extra = map[string]string{}
		}
		s.Extra[k] = v
	}
	return err
}

// WriteStats replaces OUT/fuzzer_stats atomically.
func (d *Dir) WriteStats(ctx context.Context, s Stats) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return d.w.write(filepath.Join(d.path, StatsFile), FormatStats(s))
}

// PlotRow is one line of plot_data: AFL++'s 13 columns, then wafer's.
type PlotRow struct {
	RelTime      time.Duration // relative_time (seconds)
	Cycles       uint64        // cycles_done
	CurItem      int           // cur_item
	CorpusCount  int           // corpus_count
	PendingTotal int           // pending_total
	PendingFavs  int           // pending_favs
	MapSize      float64       // map_size, percent of branches covered
	SavedCrashes int           // saved_crashes
	SavedHangs   int           // saved_hangs
	MaxDepth     int           // max_depth
	ExecsPerSec  float64       // execs_per_sec
	TotalExecs   uint64        // total_execs
	EdgesFound   int           // edges_found
	ValidEdges   int           // valid_edges (wafer)
	UniqueTraces uint64        // unique_traces (wafer)
	ValidPct     float64       // valid_pct (wafer)
	B0, B1, B2   float64       // b0, b1, b2 (wafer)
	// RSS is the process's resident memory in KiB (rss_kib, wafer); 0
	// when unknown (a platform without it, or rows of 13 or 19 columns).
	RSS uint64
	// Shares are a portfolio campaign's arms' shares of the schedule
	// (share_NAME columns after rss_kib, named by the header above the
	// row: see PlotHeaderOf); nil otherwise.
	Shares []ArmShare
}

// ArmShare is one arm's share of the schedule (0..1) in a plot_data row.
type ArmShare struct {
	Name  string
	Share float64
}

// PlotHeader is the first line of plot_data.
const PlotHeader = "# relative_time, cycles_done, cur_item, corpus_count, pending_total, pending_favs, map_size, saved_crashes, saved_hangs, max_depth, execs_per_sec, total_execs, edges_found, valid_edges, unique_traces, valid_pct, b0, b1, b2, rss_kib"

// PlotHeaderOf is the header line (without the newline) of the rows
// shaped as r: PlotHeader, then a share_NAME column per arm. A row whose
// header differs from the file's last one gets its header written first
// (AppendPlot), so a resumed file keeps every row readable.
func PlotHeaderOf(r PlotRow) string {
	if len(r.Shares) == 0 {
		return PlotHeader
	}
	var b strings.Builder
	b.WriteString(PlotHeader)
	for _, a := range r.Shares {
		b.WriteString(", share_")
		b.WriteString(a.Name)
	}
	return b.String()
}

// shareNames returns the arm names of a header line's share_NAME columns
// (nil for a header without them, or a comment that is not a header).
func shareNames(line string) ([]string, bool) {
	if !strings.HasPrefix(line, "# relative_time") {
		return nil, false
	}
	var names []string
	for _, c := range strings.Split(line, ",") {
		if n, ok := strings.CutPrefix(strings.TrimSpace(c), "share_"); ok {
			names = append(names, n)
		}
	}
	return names, true
}

// FormatPlotRow renders r as one plot_data line (with the newline); its
// share columns need PlotHeaderOf(r) above them.
func FormatPlotRow(r PlotRow) []byte {
	b := formatPlotBase(r)
	if len(r.Shares) == 0 {
		return b
	}
	b = b[:len(b)-1]
	for _, a := range r.Shares {
		b = fmt.Appendf(b, ", %.4f", a.Share)
	}
	return append(b, '\n')
}

func formatPlotBase(r PlotRow) []byte {
	return fmt.Appendf(nil, "%d, %d, %d, %d, %d, %d, %.2f%%, %d, %d, %d, %.2f, %d, %d, %d, %d, %.2f, %.2f, %.2f, %.2f, %d\n",
		int64(r.RelTime/time.Second), r.Cycles, r.CurItem, r.CorpusCount, r.PendingTotal, r.PendingFavs,
		r.MapSize, r.SavedCrashes, r.SavedHangs, r.MaxDepth, r.ExecsPerSec, r.TotalExecs, r.EdgesFound,
		r.ValidEdges, r.UniqueTraces, r.ValidPct, r.B0, r.B1, r.B2, r.RSS)
}

// ParsePlot reads plot_data (AFL++'s, whose rows have 13 columns, or
// wafer's with 20; 19 before rss_kib). Comment lines are skipped. Bad lines (e.g. a line
// torn by a kill) are left out and described in err, next to the good
// rows: err never means the rows are unusable.
func ParsePlot(data []byte) (rows []PlotRow, err error) {
	var bad []error
	var names []string // the share columns of the last header
	for n, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "#") {
			if ns, ok := shareNames(line); ok {
				names = ns
			}
			continue
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		r, err := parsePlotRow(line, names)
		if err != nil {
			bad = append(bad, fmt.Errorf("line %d: %w", n+1, err))
			continue
		}
		rows = append(rows, r)
	}
	return rows, errors.Join(bad...)
}

func parsePlotRow(line string, shares []string) (PlotRow, error) {
	var r PlotRow
	cols := strings.Split(line, ",")
	if len(cols) != 13 && len(cols) != 19 && len(cols) != 20 && (len(shares) == 0 || len(cols) != 20+len(shares)) {
		if len(shares) > 0 {
			return r, fmt.Errorf("expected 13, 19, 20 or %d columns (the header names %d shares), got %d", 20+len(shares), len(shares), len(cols))
		}
		return r, fmt.Errorf("expected 13, 19 or 20 columns, got %d", len(cols))
	}
	var err error
	col := 0
	next := func() string { c := strings.TrimSpace(cols[col]); col++; return c }
	u := func(p *uint64) {
		if err == nil {
			*p, err = strconv.ParseUint(next(), 10, 64)
		}
	}
	i := func(p *int) {
		if err == nil {
			*p, err = strconv.Atoi(next())
		}
	}
	f := func(p *float64) {
		if err == nil {
			*p, err = strconv.ParseFloat(strings.TrimSuffix(next(), "%"), 64)
		}
	}
	var secs uint64
	u(&secs)
	if err == nil && secs > uint64(1<<63-1)/uint64(time.Second) {
		err = fmt.Errorf("relative_time out of range: %d", secs)
	}
	r.RelTime = time.Duration(secs) * time.Second
	u(&r.Cycles)
	i(&r.CurItem)
	i(&r.CorpusCount)
	i(&r.PendingTotal)
	i(&r.PendingFavs)
	f(&r.MapSize)
	i(&r.SavedCrashes)
	i(&r.SavedHangs)
	i(&r.MaxDepth)
	f(&r.ExecsPerSec)
	u(&r.TotalExecs)
	i(&r.EdgesFound)
	if len(cols) >= 19 {
		i(&r.ValidEdges)
		u(&r.UniqueTraces)
		f(&r.ValidPct)
		f(&r.B0)
		f(&r.B1)
		f(&r.B2)
	}
	if len(cols) >= 20 {
		u(&r.RSS)
	}
	if len(cols) > 20 {
		r.Shares = make([]ArmShare, len(shares))
		for k, name := range shares {
			r.Shares[k].Name = name
			f(&r.Shares[k].Share)
		}
	}
	return r, err
}

// lastHeader returns plot_data's last header line when it names share
// columns, else PlotHeader (any header without them, AFL++'s too: rows
// without shares follow it unannounced, as before).
func lastHeader(data []byte) string {
	h := PlotHeader
	for _, line := range strings.Split(string(data), "\n") {
		if names, ok := shareNames(line); ok {
			h = PlotHeader
			if len(names) > 0 {
				h = line
			}
		}
	}
	return h
}

// AppendPlot appends one row to OUT/plot_data, writing the header first
// when the file is new. A line torn by a kill is closed off with a newline
// before the next row, so only that line is lost (ParsePlot reports it).
func (d *Dir) AppendPlot(ctx context.Context, r PlotRow) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	path := filepath.Join(d.path, PlotFile)
	var prefix []byte
	if !d.plotOpen {
		old, err := d.fs.ReadFile(path)
		d.plotHeader = ""
		switch {
		case errors.Is(err, fs.ErrNotExist) || err == nil && len(old) == 0:
		case err != nil:
			return &WriteError{Path: path, Err: err}
		default:
			d.plotHeader = lastHeader(old)
			if old[len(old)-1] != '\n' {
				prefix = []byte("\n")
			}
		}
	}
	if h := PlotHeaderOf(r); h != d.plotHeader {
		// a new file, or rows shaped differently from the file's last
		// header (a portfolio campaign resuming another's directory)
		prefix = append(prefix, h+"\n"...)
		d.plotHeader = h
	}
	f, err := d.fs.Append(path)
	if err != nil {
		return &WriteError{Path: path, Err: err}
	}
	// A failed write may leave part of the row: the next call checks the
	// file's end again.
	d.plotOpen = false
	if _, err := f.Write(append(prefix, FormatPlotRow(r)...)); err != nil {
		f.Close()
		return &WriteError{Path: path, Err: err}
	}
	if err := f.Close(); err != nil {
		return &WriteError{Path: path, Err: err}
	}
	d.plotOpen = true
	return nil
}
