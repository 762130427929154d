package campaign

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/engine"
	"github.com/wafer-fuzz/wafer/generators"
	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/runtime"
)

// Stop is why a campaign ended: StopRuns, StopTime, StopCrash,
// StopCanceled or StopError.
type Stop = engine.Stop

// The reasons a campaign ends.
const (
	StopRuns     = engine.StopRuns
	StopTime     = engine.StopTime
	StopCrash    = engine.StopCrash
	StopCanceled = engine.StopCanceled
	StopError    = engine.StopError
)

// Op names how a queue entry or finding was made: OpSeed, or the
// strategy's name ("havoc", "zest", ...), OpInputToState, OpChecked.
type Op = engine.Op

// The Ops that are not a strategy's name.
const (
	OpSeed         = engine.OpSeed
	OpInputToState = engine.OpInputToState
	OpChecked      = engine.OpChecked
)

// Stats are a campaign's metrics (docs/ALGORITHMS.md §6).
type Stats = engine.Stats

// DefaultMaxLen is Options.MaxLen's default.
const DefaultMaxLen = engine.DefaultMaxLen

// Strategies lists the search strategies Options.Strategy accepts.
func Strategies() []string { return engine.Strategies() }

// ParseDict reads an AFL/libFuzzer dictionary file's tokens; its error is
// a *DictError.
func ParseDict(b []byte) ([][]byte, error) { return engine.ParseDict(b) }

// DictError is ParseDict's error: the 1-based line of the dictionary
// (Line) and what is wrong with it (Err).
type DictError = engine.DictError

// Search is the search's options (engine's, documented there): the
// strategy and its knobs, the seed, the workers and the limits; Options
// embed it. HavocOptions, FairFuzzOptions and LevyOptions are the knobs of
// the havoc, fairfuzz and levy strategies.
type (
	Search          = engine.Search
	HavocOptions    = engine.HavocConfig
	FairFuzzOptions = engine.FairFuzzConfig
	LevyOptions     = engine.LevyConfig
)

// TreeOptions (Search.Generative.Tree) configure the tree mutations the
// generator strategies draw; TreeOps is a set of them (docs/ALGORITHMS.md
// §12).
type (
	TreeOptions = engine.TreeOptions
	TreeOps     = engine.TreeOps
)

// AllTreeOps is every tree mutation.
const AllTreeOps = engine.AllTreeOps

// ParseTreeOps reads a comma-separated list of tree mutations (replace,
// splice, recurse, duplicate), "all" or "none".
func ParseTreeOps(s string) (TreeOps, error) { return engine.ParseTreeOps(s) }

// LevyQuality (LevyOptions.Quality) is the quality Lévy's α is computed
// from: LevyRelative, the default, or the paper's LevyAbsolute
// (docs/ALGORITHMS.md §4).
type LevyQuality = engine.LevyQuality

// The forms of LevyQuality.
const (
	LevyRelative = engine.LevyRelative
	LevyAbsolute = engine.LevyAbsolute
)

// ParseLevyQuality reads "relative" or "absolute".
func ParseLevyQuality(s string) (LevyQuality, error) { return engine.ParseLevyQuality(s) }

// Options configure a campaign. The zero value works: raw-byte havoc from
// the empty input, one worker, seed 0, until the first crash, nothing
// written to disk.
type Options struct {
	// Search is the search: the strategy and its knobs, the seed, the
	// workers and the limits (engine.Search; each zero value is
	// documented there, and is docs/ALGORITHMS.md's default).
	Search
	// Generator makes inputs from choice sequences (any Go function over
	// *generators.Source); nil fuzzes raw bytes. The strategies that use a
	// choice sequence's structure (zest, and those after it) get it from
	// the generator's draws.
	Generator generators.Generator
	// Seeds are the first inputs. A Generator starts from choice
	// sequences: with ReadSeed, each seed it reads back, otherwise none.
	Seeds [][]byte
	// ReadSeed, with a Generator, returns the choice sequence from which
	// the generator makes a seed (a generator's inverse: generators.ReadJSON
	// for generators.JSON, generators.LookupReader for a built-in one by
	// name, a grammar's Seeds.ReadSeed). Seeds it cannot read are left
	// out, and counted in one line of Log. Nil: seeds are not used with a
	// Generator.
	ReadSeed generators.SeedReader
	// SeedsOnly runs the seeds (and a resumed queue) and nothing more, as
	// libFuzzer's -runs=0; the empty input when there is none.
	SeedsOnly bool
	// DictProb and IntBias set the generator's dictionary and integer
	// boundary probabilities (generators.Options; zero: the defaults,
	// negative: none, the papers' baselines).
	DictProb, IntBias float64
	// NoCompares turns off input-to-state mutation (raw mode): by default
	// a second build of the target logs the operands of its comparisons,
	// run once per queue entry that reached a new branch.
	NoCompares bool

	// Output is the campaign directory in AFL++'s layout (queue/,
	// crashes/, hangs/, fuzzer_stats, plot_data); a campaign resumes from
	// it. Empty keeps everything in memory (the Summary has it).
	Output string
	// NoFsync skips fsync of the output files.
	NoFsync bool
	// Sync imports the new queue entries of the sibling campaigns of
	// Output (AFL's -M/-S layout: Output is PARENT/NAME, the siblings
	// PARENT/*), at start and every SyncInterval while the campaign runs,
	// keeping those that add coverage here; the siblings' saved failures
	// count as known (not saved again). Ignored without Output, and with
	// SeedsOnly (which runs this campaign's own inputs only).
	Sync bool
	// SyncInterval is the period of Sync's polls; zero means
	// engine.DefaultSyncInterval (a minute).
	SyncInterval time.Duration
	// CorpusDir is a flat corpus directory (libFuzzer's) that gets each
	// new input under its SHA-1: as found without Output, at the end with
	// it.
	CorpusDir string
	// Repro and HangRepro are the commands saved with each crash and hang
	// in Output ("{input}" stands for the file).
	Repro, HangRepro string
	// CommandLine is saved in Output's fuzzer_stats.
	CommandLine string

	// Log receives progress lines ("INFO: ..."): files skipped, slow
	// compiles, missing names. Nil discards them.
	Log io.Writer
	// Status receives the live metrics every second: a status line
	// redrawn in place when StatusTTY, one JSON object a line otherwise.
	// Nil: none.
	Status    io.Writer
	StatusTTY bool
	// OnStart, when set, is called once the target is compiled, before the
	// first execution.
	OnStart func(Start)

	pollHook *pollHook // tests only: see each sync poll
	// fs, in tests only, is Output's file system (a full disk, a
	// read-only one); nil: the host's.
	fs corpus.FS
}

// Start describes a campaign about to run.
type Start struct {
	// Counters is the number of coverage counters of the target's build.
	Counters int
}

// Finding is a unique failure of a campaign.
type Finding struct {
	Outcome Outcome
	// Identity is the deduplication key (runtime.Result.Identity).
	Identity string
	// Kind is the failure's class; KindNone when the run gave no failure.
	Kind Kind
	// Message is the one-line message; Report the full report (failure,
	// Wasm stack with source lines, output tails).
	Message, Report string
	// Input is the failing input (shrunk unless Options.NoShrink); Choices
	// its choice sequence (with a Generator; Input itself otherwise).
	Input, Choices []byte
	// Op is how it was found.
	Op Op
	// Shrunk is true once the input was minimised.
	Shrunk bool
	// Site is the crash site (runtime.Result.CrashSite); Hits how many
	// runs of this session had this identity.
	Site string
	Hits int64
}

// Saved is a unique failure of the Output directory (earlier sessions'
// included).
type Saved struct {
	// Path is the input's file.
	Path string
	// Kind is the failure's kind name.
	Kind string
	// Hang is true for hangs/, false for crashes/.
	Hang bool
	// Identity and Site are its identity and crash site; Hits how often
	// it was met, as the directory counts.
	Identity, Site string
	Hits           uint64
	// SessionHits is how many runs of this session had its identity (set
	// by Summary.Bugs).
	SessionHits int64
}

// Summary is what a campaign returns.
type Summary struct {
	Stop  Stop
	Stats Stats
	// Elapsed is the campaign's wall time, compile excluded.
	Elapsed time.Duration
	// Findings are this session's unique failures, in discovery order.
	Findings []Finding
	// NewInputs are the queue entries this session added (seeds and
	// resumed entries left out).
	NewInputs [][]byte
	// Saved are the Output directory's failures; nil without Output.
	Saved []Saved
}

// Fuzz runs a campaign on t. It returns when a limit of opts is reached,
// at the first crash (unless KeepGoing), or when ctx is canceled (Stop
// StopCanceled and no error: the campaign is saved and resumes). An error
// means wafer itself failed; the Summary is then still non-nil when the
// campaign ran, with what it found before.
func (t *Target) Fuzz(ctx context.Context, opts Options) (*Summary, error) {
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	// The output directory first: the input buffer must hold every input
	// the campaign replays (seeds, the resumed queue; peers' entries that
	// do not fit are left out, see syncImporter).
	out, err := openCampaignDir(ctx, logw, &opts)
	if err != nil {
		return nil, err
	}
	defer out.close()
	maxIn := opts.MaxLen
	for _, s := range opts.Seeds {
		maxIn = max(maxIn, len(s))
	}
	for _, e := range out.resumed {
		maxIn = max(maxIn, len(e.Input))
	}
	b, err := t.compileBuilds(ctx, logw, &opts, maxIn)
	if err != nil {
		return nil, err
	}
	defer b.close(context.WithoutCancel(ctx))
	fmt.Fprint(logw, t.NoNamesInfo())
	cfg := engine.Config{Search: opts.Search, Conditionals: b.sm.Conditionals(), ValueFrom: b.sm.ValueFrom()}
	cfg.Runs = max(0, cfg.Runs)
	deps, err := t.engineDeps(ctx, logw, &opts, b, out, maxIn)
	if err != nil {
		return nil, err
	}
	// The engine replays the resumed queue, then the seeds, then the
	// peers' entries (its first sync poll), before it mutates anything.
	if opts.SeedsOnly {
		cfg.Runs = max(1, int64(len(out.resumed)+len(deps.Seeds)))
	}
	if opts.OnStart != nil {
		opts.OnStart(Start{Counters: b.sm.Counted()})
	}
	return runEngine(ctx, cfg, deps, &opts, out)
}

// campaignDir is a campaign's Output directory, locked, and what the
// campaign resumes from it; the zero value is a campaign without Output.
type campaignDir struct {
	dir     *corpus.Dir
	syncer  *corpus.Syncer // with Options.Sync
	resumed []corpus.Entry // the queue the engine replays first
	unlock  func()
}

// openCampaignDir locks and opens opts.Output, when set.
func openCampaignDir(ctx context.Context, logw io.Writer, opts *Options) (*campaignDir, error) {
	out := &campaignDir{}
	if opts.Output == "" {
		return out, nil
	}
	unlock, err := lockOutput(opts.Output)
	if err != nil {
		return nil, err
	}
	if out.dir, out.syncer, err = openOutput(ctx, logw, opts); err != nil {
		unlock()
		return nil, err
	}
	out.unlock = unlock
	out.resumed = out.dir.Entries()
	return out, nil
}

func (out *campaignDir) close() {
	if out.dir != nil {
		out.dir.Close()
		out.unlock()
	}
}

// campaignBuilds are the compiled builds of a campaign: at most two. The
// campaign's (counters) runs the inputs; a second one logs comparisons
// for input-to-state mutation (raw mode) and has the heap check when the
// options ask for it, so the one in every inputs the heap check samples
// runs on it too (the comparison log costs them a call per comparison; a
// third build would cost its compiled code and decoded module: 26 MB on
// csqlite). Without comparisons, the second build is the heap check's
// alone.
type campaignBuilds struct {
	tgt *runtime.Target
	sm  *instrument.SiteMap
	// cmp waits for the compare build (nil: none); cmpDone cancels it if
	// unfinished and closes it.
	cmp     func() (*runtime.Target, *instrument.SiteMap, error)
	cmpDone func()
	// checked is the heap check's own build, when it is not the compare
	// build; sampled says whether one input in every runs on a checked
	// build.
	checked    *runtime.Target
	checkedMap *instrument.SiteMap
	every      int
	sampled    bool
}

// compileBuilds compiles the campaign's builds. The compare build
// compiles on another goroutine meanwhile (compiling is one core's work:
// on gojson, 2.5 s of a cold start); the heap check's alone waits for the
// campaign's build, which says whether the module has a heap to check
// (instrument's heap guard wrapped an allocator: never in a Go module).
func (t *Target) compileBuilds(ctx context.Context, logw io.Writer, opts *Options, maxIn int) (*campaignBuilds, error) {
	b := &campaignBuilds{every: t.opts.heapCheck()}
	b.sampled = t.opts.checkedBuild() == buildChecked && b.every > 1
	if opts.Generator == nil && !opts.NoCompares {
		b.cmp, b.cmpDone = t.compileAside(ctx, buildCompares, maxIn)
	}
	// A first campaign on a module waits seconds for wazero to compile it
	// (a later one reads the compilation cache): say so when it is slow.
	slow := time.AfterFunc(time.Second, func() {
		fmt.Fprintf(logw, "INFO: compiling %s (%d bytes) with wazero; later campaigns read it from the compilation cache\n", filepath.Base(t.name), len(t.wasm))
	})
	main := buildCounters
	if b.every == 1 {
		main = t.opts.checkedBuild() // every input checked: the one build
	}
	var err error
	b.tgt, b.sm, err = t.compile(ctx, main, maxIn, ResetDefault, false)
	slow.Stop()
	if err != nil {
		b.close(context.WithoutCancel(ctx))
		return nil, err
	}
	// The build the heap check's samples run on: none without a heap
	// check asked for or a heap to check, else the compare build (see
	// engineDeps, when it compiled) or the heap check's own.
	b.sampled = b.sampled && b.sm.Layout.HeapExport != ""
	if b.sampled && b.cmp == nil {
		if b.checked, b.checkedMap, err = t.compile(ctx, buildChecked, maxIn, ResetDefault, false); err != nil {
			b.close(context.WithoutCancel(ctx))
			return nil, err
		}
	}
	return b, nil
}

// close closes the builds (the compare build through cmpDone, which
// waits for it).
func (b *campaignBuilds) close(ctx context.Context) {
	if b.checked != nil && b.cmp == nil {
		b.checked.Close(ctx)
	}
	if b.tgt != nil {
		b.tgt.Close(ctx)
	}
	if b.cmpDone != nil {
		b.cmpDone()
	}
}

// engineDeps wires the builds, the generator or seeds, the store and the
// sync importer into the engine's Deps.
func (t *Target) engineDeps(ctx context.Context, logw io.Writer, opts *Options, b *campaignBuilds, out *campaignDir, maxIn int) (engine.Deps, error) {
	deps := engine.Deps{
		TargetDict: b.sm.Dictionary,
		Status:     opts.Status,
		StatusTTY:  opts.StatusTTY,
		Log:        logw,
	}
	useGen := opts.Generator != nil
	checked, checkedMap := b.checked, b.checkedMap
	if useGen {
		gopts := generators.Options{Dictionary: b.sm.Dictionary, DictProb: opts.DictProb, IntBias: opts.IntBias}
		deps.Generator = engine.FromGenerator(opts.Generator, gopts)
		deps.SeedSequences = seedSequences(logw, opts, gopts)
	} else {
		deps.Seeds = append(deps.Seeds, opts.Seeds...)
		if b.cmp != nil {
			// The campaign does not need it: without it, say why and go on
			// (without the heap check's samples too).
			switch ct, csm, err := b.cmp(); {
			case err != nil && ctx.Err() != nil:
				return deps, err
			case err != nil:
				fmt.Fprintf(logw, "INFO: no input-to-state mutation: %v\n", err)
			default:
				deps.NewComparer = comparers(ct)
				if b.sampled {
					checked, checkedMap = ct, csm
				}
			}
		}
	}
	deps.NewExecutor = Executors(b.tgt)
	if checked != nil && checkedMap.Layout.ShadowBytes > 0 {
		if len(checkedMap.Sites) != len(b.sm.Sites) {
			// both builds' counters feed one coverage map
			return deps, fmt.Errorf("%s: internal error: the heap check's build has %d sites, the campaign's %d", t.name, len(checkedMap.Sites), len(b.sm.Sites))
		}
		deps.NewExecutor = sampledExecutors(b.tgt, checked, b.every, max(1, opts.Workers))
	}
	if opts.CorpusDir != "" {
		// Other campaigns may share the directory: only stale temporaries go.
		if err := (corpus.Flat{Path: opts.CorpusDir}).RemoveTemps(corpus.StaleTemp); err != nil {
			return deps, fmt.Errorf("corpus %s: %w", opts.CorpusDir, err)
		}
	}
	switch {
	case out.dir != nil:
		renames := frameRenames(b.sm)
		deps.Store = newStore(opts, out.dir, t.name, b.sm, renames, &deps)
		if out.syncer != nil && !opts.SeedsOnly {
			deps.Importer = &syncImporter{s: out.syncer, gen: useGen, maxIn: max(maxIn, runtime.DefaultMaxInputLen), logw: logw, output: opts.Output, hook: opts.pollHook, renames: renames}
		}
	case opts.CorpusDir != "":
		deps.Store = flatStore{w: corpus.Flat{Path: opts.CorpusDir}.Writer(0)}
	}
	return deps, nil
}

// seedSequences reads opts.Seeds back into choice sequences (Options.ReadSeed),
// with one line of logw for those it cannot read.
func seedSequences(logw io.Writer, opts *Options, gopts generators.Options) []*generators.Sequence {
	if opts.ReadSeed == nil {
		return nil
	}
	var seqs []*generators.Sequence
	var firstErr error
	for _, s := range opts.Seeds {
		q, err := opts.ReadSeed(s, gopts)
		if err != nil {
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		seqs = append(seqs, q)
	}
	if n := len(opts.Seeds) - len(seqs); n > 0 {
		fmt.Fprintf(logw, "INFO: %d of %d seed inputs not read back into choice sequences (the first: %v)\n", n, len(opts.Seeds), firstErr)
	}
	return seqs
}

// runEngine runs the search and turns its result into the Summary; the
// flat corpus directory gets the new inputs (as found without Output, at
// the end with it).
func runEngine(ctx context.Context, cfg engine.Config, deps engine.Deps, opts *Options, out *campaignDir) (*Summary, error) {
	start := time.Now()
	es, err := engine.Fuzz(ctx, cfg, deps)
	if flat, ok := deps.Store.(flatStore); ok {
		if werr := flat.w.Wait(); werr != nil && err == nil {
			err = fmt.Errorf("corpus: %w", werr)
		}
	}
	if err != nil {
		if es == nil {
			return nil, fmt.Errorf("campaign: %w", err)
		}
		// What was found before the error is still returned.
		return summary(es, time.Since(start), nil, ""), fmt.Errorf("campaign: %w", err)
	}
	sum := summary(es, time.Since(start), out.dir, opts.Output)
	if out.dir != nil && opts.CorpusDir != "" {
		w := corpus.Flat{Path: opts.CorpusDir}.Writer(0)
		for _, in := range sum.NewInputs {
			w.Write(context.WithoutCancel(ctx), "", in)
		}
		if err := w.Wait(); err != nil {
			return sum, fmt.Errorf("corpus: %w", err)
		}
	}
	return sum, nil
}

// summary turns the engine's summary into the package's.
func summary(es *engine.Summary, elapsed time.Duration, dir *corpus.Dir, out string) *Summary {
	sum := &Summary{Stop: es.Stop, Stats: es.Stats, Elapsed: elapsed}
	for _, f := range es.Failures {
		fd := Finding{Outcome: f.Outcome, Identity: f.Identity, Input: f.Input, Choices: f.Choices, Op: f.Op, Shrunk: f.Shrunk, Hits: f.Count}
		if fl := f.Failure; fl != nil {
			fd.Kind, fd.Message, fd.Report, fd.Site = fl.Kind, fl.Message, fl.Text, fl.Site
		}
		sum.Findings = append(sum.Findings, fd)
	}
	for _, e := range es.Queue {
		if e.Op != OpSeed {
			sum.NewInputs = append(sum.NewInputs, e.Input)
		}
	}
	if dir != nil {
		sum.Saved = []Saved{}
		for _, cf := range dir.Failures() {
			sub := "crashes"
			if cf.Hang {
				sub = "hangs"
			}
			sum.Saved = append(sum.Saved, Saved{Path: filepath.Join(out, sub, cf.Name), Kind: cf.Kind, Hang: cf.Hang, Identity: cf.Identity, Site: cf.Site, Hits: cf.Hits})
		}
	}
	return sum
}

// openOutput opens the campaign directory and, with Sync, its Syncer
// (the engine polls it through a syncImporter: at start and every
// SyncInterval).
func openOutput(ctx context.Context, logw io.Writer, opts *Options) (*corpus.Dir, *corpus.Syncer, error) {
	dir, skipped, err := corpus.Open(ctx, opts.Output, corpus.Options{NoSync: opts.NoFsync, FS: opts.fs, CheckWritable: true})
	if err != nil {
		return nil, nil, fmt.Errorf("output directory: %w", err)
	}
	logSkipped(logw, "", skipped)
	if !opts.Sync {
		return dir, nil, nil
	}
	return dir, dir.Syncer(), nil
}

func logSkipped(w io.Writer, prefix string, skipped error) {
	var se *corpus.SkipError
	if errors.As(skipped, &se) {
		for _, sf := range se.Files {
			fmt.Fprintf(w, "INFO: %sskipped %s: %v\n", prefix, sf.Path, sf.Err)
		}
	}
}

// newStore makes the campaign directory the engine's store, and tells the
// engine which failures it already holds (their frame keys renamed by
// renames, frameRenames).
func newStore(opts *Options, dir *corpus.Dir, target string, sm *instrument.SiteMap, renames map[string]string, deps *engine.Deps) *engine.CorpusStore {
	for _, fl := range dir.Failures() {
		id := savedIdentity(fl, renames)
		deps.KnownFailures = append(deps.KnownFailures, id)
		if !fl.Hang && !fl.Shrunk {
			f := &engine.Finding{Outcome: engine.Crash, Identity: id, Input: fl.Input, Choices: fl.Choices, Count: int64(fl.Hits)}
			if deps.Generator == nil {
				f.Choices = f.Input
			}
			if f.Choices != nil { // a generator's crash without its choices cannot be shrunk
				deps.Unshrunk = append(deps.Unshrunk, f)
			}
		}
	}
	store := engine.NewCorpusStore(dir, deps.Generator == nil)
	store.Repro = opts.Repro
	store.HangRepro = opts.HangRepro
	store.TotalEdges = sm.Counted()
	store.Banner = filepath.Base(target)
	store.CommandLine = opts.CommandLine
	store.RSS = residentKiB
	return store
}

// savedIdentity is the identity (runtime.Result.Identity) of a failure an
// earlier session saved, from what the directory keeps of it; renames
// (frameRenames) maps the frame keys of an older wafer's spelling to
// today's.
func savedIdentity(fl corpus.Failure, renames map[string]string) string {
	r := runtime.Result{Outcome: runtime.Crash, Failure: &runtime.Failure{Message: fl.Message}}
	if fl.Hang {
		r.Outcome = runtime.Hang
	}
	r.Failure.Kind, _ = runtime.ParseKind(fl.Kind)
	for _, f := range fl.Frames {
		if n, ok := renames[f]; ok {
			f = n
		}
		r.Failure.Stack = append(r.Failure.Stack, runtime.Frame{Func: f})
	}
	return r.Identity()
}

// frameRenames maps the frame key of each function's name-section name to
// that of its name (they differ for a Go function, which wafer names as
// Go prints it): a campaign directory written by a wafer that keyed Go
// frames by the name section still knows its failures, and a bug keeps
// one identity across the change.
func frameRenames(sm *instrument.SiteMap) map[string]string {
	renames := map[string]string{}
	for _, f := range sm.Funcs {
		if f.WasmName == "" || f.WasmName == f.Name {
			continue
		}
		if old, now := runtime.FrameKey(f.WasmName), runtime.FrameKey(f.Name); old != now {
			renames[old] = now
		}
	}
	return renames
}

// flatStore is the engine Store of a campaign without Output but with a
// CorpusDir: like libFuzzer, it writes each new input, as it is found,
// into the directory under its SHA-1, several at once (a campaign's first
// seconds find inputs faster than one writer fsyncs them, and a runner
// that stops the campaign waits only so long). Failures and stats live
// only in the process.
type flatStore struct{ w *corpus.FlatWriter }

func (s flatStore) Load(context.Context) ([][]byte, error) { return nil, nil }

func (s flatStore) AddEntry(ctx context.Context, e *engine.Entry) error {
	if e.Op == OpSeed {
		return nil
	}
	s.w.Write(context.WithoutCancel(ctx), "", e.Input)
	return nil
}

func (s flatStore) AddFailure(context.Context, *engine.Finding) error { return nil }

func (s flatStore) WriteStats(context.Context, *engine.Stats) error { return nil }
