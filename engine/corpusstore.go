package engine

import (
	"context"
	"encoding/binary"
	"os"
	"time"

	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/runtime"
)

// CorpusStore adapts a corpus.Dir (AFL++'s layout: queue/, crashes/,
// hangs/, fuzzer_stats, plot_data) to Store. Resuming a directory replays
// its queue; executions and time continue from its last checkpoint in the
// stats files. Not safe for concurrent use (the coordinator calls it).
type CorpusStore struct {
	// Dir is the open campaign directory.
	Dir *corpus.Dir
	// Raw is true in raw mode: entries store no separate choice sequence.
	Raw bool
	// Repro is the reproduction command stored with each failure; "{input}"
	// is replaced by the saved input's path (e.g. "wafer repro t.wasm {input}").
	// HangRepro, when set, is the one stored with each hang instead.
	Repro, HangRepro string
	// TotalEdges is the number of instrumented branch sites (fuzzer_stats'
	// total_edges and plot_data's map_size); zero when unknown.
	TotalEdges int
	// Banner and CommandLine go to fuzzer_stats.
	Banner, CommandLine string
	// CheckpointEvery is the period of checkpoints (they also happen at the
	// end); zero means 5 seconds.
	CheckpointEvery time.Duration
	// RSS, when set, returns the process's resident memory in KiB, written
	// to each plot_data row (rss_kib; 0 means unknown).
	RSS func() uint64

	start     time.Time
	resumed   corpus.Checkpoint
	ids       []int // engine entry ID → corpus id
	lastCkpt  time.Duration
	lastFind  time.Time
	lastCrash time.Time
	lastHang  time.Time
	found     int
	imported  int // entries kept from other campaigns (corpus_imported)
}

// stateMagic starts the engine state kept in corpus checkpoints, followed
// by the job counter (uint64, little-endian).
const stateMagic = "wafer engine v1\n"

// ResumeJobs implements Resumer: the job counter of the last checkpoint
// (0 for a new campaign or a checkpoint without engine state).
func (s *CorpusStore) ResumeJobs() uint64 {
	st := s.resumed.State
	if len(st) != len(stateMagic)+8 || string(st[:len(stateMagic)]) != stateMagic {
		return 0
	}
	return binary.LittleEndian.Uint64(st[len(stateMagic):])
}

// NewCorpusStore returns a Store over d.
func NewCorpusStore(d *corpus.Dir, raw bool) *CorpusStore {
	return &CorpusStore{Dir: d, Raw: raw, start: time.Now(), resumed: d.Resumed()}
}

// Load implements Store: the previous queue's choice sequences (inputs in
// raw mode), oldest first.
func (s *CorpusStore) Load(context.Context) ([][]byte, error) {
	var seqs [][]byte
	for _, e := range s.Dir.Entries() {
		if !s.Raw && e.Choices != nil {
			seqs = append(seqs, e.Choices)
		} else {
			seqs = append(seqs, e.Input)
		}
	}
	return seqs, nil
}

// Features returns the coverage features of a sparse trace: one uint32 per
// hit site, site<<8 | AFL bucket bit (the ids corpus stores and merges).
func Features(trace []byte) []uint32 {
	f := make([]uint32, len(trace)/traceEntry)
	for i := range f {
		site, bk := traceSite(trace, i)
		f[i] = site<<8 | uint32(bk)
	}
	return f
}

// CountersFeatures returns the features of one run's counters (for merge
// and minimise commands that run inputs outside a campaign).
func CountersFeatures(counters []byte) []uint32 {
	s := newScanner()
	s.scan(counters, Valid)
	return Features(s.trace)
}

func (s *CorpusStore) elapsed() time.Duration { return s.resumed.Time + time.Since(s.start) }

// AddEntry implements Store.
func (s *CorpusStore) AddEntry(ctx context.Context, e *Entry) error {
	ce := corpus.Entry{
		Input:    e.Input,
		Op:       string(e.Op),
		NewCov:   e.NewCov,
		Valid:    e.Outcome == Valid,
		Coverage: Features(e.Trace),
		Time:     s.elapsed(),
		Execs:    s.resumed.Execs + uint64(e.Execs),
	}
	if !s.Raw {
		ce.Choices = e.Choices
	}
	if e.Parent >= 0 && e.Parent < len(s.ids) && s.ids[e.Parent] >= 0 {
		ce.Parents = []int{s.ids[e.Parent]}
	}
	name, dup, err := s.Dir.AddEntry(ctx, ce)
	if err != nil {
		return err
	}
	id, ok := corpus.ParseID(name)
	if !ok {
		id = -1
	}
	for len(s.ids) <= e.ID {
		s.ids = append(s.ids, -1)
	}
	s.ids[e.ID] = id
	if !dup && e.Imported {
		s.imported++
	} else if !dup && e.Op != OpSeed {
		s.found++
		s.lastFind = time.Now()
	}
	return nil
}

// AddFailure implements Store.
func (s *CorpusStore) AddFailure(ctx context.Context, f *Finding) error {
	fl := f.Failure
	if fl == nil {
		fl = &Failure{}
	}
	repro := s.Repro
	if f.Outcome == Hang && s.HangRepro != "" {
		repro = s.HangRepro
	}
	msg := fl.Message
	if fl.Text != "" {
		msg += "\n\n" + fl.Text
	}
	cf := corpus.Failure{
		Entry: corpus.Entry{
			Input: f.Input,
			Op:    string(f.Op),
			Time:  s.resumed.Time + f.Found, // when found, not when shrunk and saved
			Execs: s.resumed.Execs + uint64(f.Execs),
		},
		Kind:    kindName(f.Outcome, fl.Kind),
		Hang:    f.Outcome == Hang,
		Message: msg,
		Frames:  fl.Frames,
		Repro:   repro,
		Site:    fl.Site,
		Hits:    uint64(max(f.Count, 0)),
		Shrunk:  f.Shrunk && f.Outcome == Crash,
	}
	if !s.Raw {
		cf.Choices = f.Choices
	}
	if _, _, err := s.Dir.AddFailure(ctx, cf); err != nil {
		return err
	}
	if f.Outcome == Hang {
		s.lastHang = time.Now()
	} else {
		s.lastCrash = time.Now()
	}
	return nil
}

// RecordHits implements HitStore: the directory keeps the larger of its
// count and f.Count for f's identity (saved already: the input is kept
// unless f's is smaller).
func (s *CorpusStore) RecordHits(ctx context.Context, f *Finding) error {
	last := s.lastCrash
	lastHang := s.lastHang
	err := s.AddFailure(ctx, f)
	s.lastCrash, s.lastHang = last, lastHang // not a new finding
	return err
}

// AddFlaky implements FlakyStore: the crash goes to the directory's
// flaky/ list.
func (s *CorpusStore) AddFlaky(ctx context.Context, f *Finding) error {
	fl := f.Failure
	if fl == nil {
		fl = &Failure{}
	}
	msg := fl.Message
	if fl.Text != "" {
		msg += "\n\n" + fl.Text
	}
	cf := corpus.Failure{
		Entry:   corpus.Entry{Input: f.Input, Op: string(f.Op), Time: s.elapsed(), Execs: s.resumed.Execs + uint64(f.Execs)},
		Kind:    kindName(f.Outcome, fl.Kind),
		Message: msg,
		Frames:  fl.Frames,
		Repro:   s.Repro,
		Site:    fl.Site,
	}
	_, err := s.Dir.AddFlaky(ctx, cf)
	return err
}

// WriteStats implements Store: fuzzer_stats, a plot_data row and, every
// CheckpointEvery and at the end, a checkpoint.
func (s *CorpusStore) WriteStats(ctx context.Context, st *Stats) error {
	now := time.Now()
	execs := s.resumed.Execs + uint64(st.Execs)
	fs := corpus.Stats{
		Start:          s.start,
		LastUpdate:     now,
		RunTime:        s.elapsed(),
		PID:            os.Getpid(),
		Cycles:         uint64(st.Cycles),
		Execs:          execs,
		ExecsPerSec:    st.ExecsPerSec,
		CorpusCount:    st.Queue,
		CorpusFound:    s.found,
		CorpusImported: s.imported,
		SavedCrashes:   st.Crashes,
		SavedHangs:     st.Hangs,
		CrashSites:     s.Dir.CrashSites(),
		FlakyCrashes:   st.Flaky,
		LastFind:       s.lastFind,
		LastCrash:      s.lastCrash,
		LastHang:       s.lastHang,
		EdgesFound:     st.Coverage,
		TotalEdges:     s.TotalEdges,
		ValidEdges:     st.ValidCoverage,
		UniqueTraces:   uint64(st.UniqueTraces),
		ValidPct:       st.ValidPct,
		B0:             st.B0,
		B1:             st.B1,
		B2:             st.B2,
		MutatePct:      100 * st.MutateShare,
		GeneratePct:    100 * st.GenerateShare,
		ExecutePct:     100 * st.ExecuteShare,
		HandlePct:      100 * st.BookShare,
		Banner:         s.Banner,
		Version:        "wafer",
		TargetMode:     st.Strategy,
		CommandLine:    s.CommandLine,
	}
	for _, a := range st.Arms {
		fs.Arms = append(fs.Arms, corpus.ArmStat{Name: a.Name, Execs: uint64(a.Execs), SharePct: 100 * a.Share,
			Branches: int(a.Branches), Entries: int(a.Entries), Crashes: int(a.Crashes)})
	}
	if err := s.Dir.WriteStats(ctx, fs); err != nil {
		return err
	}
	row := corpus.PlotRow{
		RelTime:      s.elapsed(),
		Cycles:       uint64(st.Cycles),
		CorpusCount:  st.Queue,
		SavedCrashes: st.Crashes,
		SavedHangs:   st.Hangs,
		ExecsPerSec:  st.ExecsPerSec,
		TotalExecs:   execs,
		EdgesFound:   st.Coverage,
		ValidEdges:   st.ValidCoverage,
		UniqueTraces: uint64(st.UniqueTraces),
		ValidPct:     st.ValidPct,
		B0:           st.B0,
		B1:           st.B1,
		B2:           st.B2,
	}
	if s.RSS != nil {
		row.RSS = s.RSS()
	}
	for _, a := range st.Arms {
		row.Shares = append(row.Shares, corpus.ArmShare{Name: a.Name, Share: a.Share})
	}
	if s.TotalEdges > 0 {
		row.MapSize = 100 * float64(st.Coverage) / float64(s.TotalEdges)
	}
	if err := s.Dir.AppendPlot(ctx, row); err != nil {
		return err
	}
	every := s.CheckpointEvery
	if every <= 0 {
		every = 5 * time.Second
	}
	if el := s.elapsed(); st.Final || el-s.lastCkpt >= every {
		s.lastCkpt = el
		state := binary.LittleEndian.AppendUint64([]byte(stateMagic), st.Jobs)
		return s.Dir.Checkpoint(ctx, corpus.Checkpoint{Execs: execs, Time: el, State: state})
	}
	return nil
}

// kindName is the kind a failure is saved under: its Kind, or its outcome
// for a failure without one.
func kindName(o Outcome, k runtime.Kind) string {
	if k == runtime.KindNone {
		return o.String()
	}
	return k.String()
}
