package engine

import (
	"context"
	"fmt"
	"github.com/wafer-fuzz/wafer/generators"
	"io"
	"time"
)

// DefaultMaxLen is Config.MaxLen's default.
const DefaultMaxLen = 10240

// Search holds the options of a search that a campaign's user sets: the
// strategy and its knobs, the seed, the workers and the limits. Package
// campaign's Options embed it as it is, so each option is declared once.
// The zero value works: raw-mode havoc (zest with a generator), one
// worker, seed 0, no limits.
type Search struct {
	// Strategy names the search technique (Strategies lists them). Empty
	// means "havoc" without a generator and "zest" with one.
	Strategy string
	// AutoArms names the arms of Strategy "auto" (docs/ALGORITHMS.md
	// §13); nil means AutoArms(raw mode). Only with "auto".
	AutoArms []string
	// Workers is the number of parallel workers, each with its own
	// Executor. Zero or negative means 1.
	Workers int
	// Deterministic makes the executions a function of Seed and Workers
	// whatever the scheduling: jobs go out in batches, results are merged
	// strictly in issue order and batch m+L (L = max(4, 2·Workers)
	// batches in flight) is made right after batch m is merged (later
	// while the strategy waits for a dependent job: see Dependent); with
	// Workers ≤ 2 (L = 4) one and two workers run the very same inputs.
	// Without it results are merged as they arrive (a slow batch never
	// holds the others back). With one worker the two are the same, and
	// always deterministic.
	Deterministic bool
	// Seed seeds every PRNG: job j's mutations use PCG(Seed, j).
	Seed uint64
	// Runs stops after this many executions (seed replays included,
	// shrinking runs not); zero means no limit.
	Runs int64
	// MaxTotalTime stops the campaign after this much wall time; zero means
	// no limit.
	MaxTotalTime time.Duration
	// KeepGoing continues after a crash; by default the campaign stops at
	// the first crash (hangs never stop it).
	KeepGoing bool
	// MaxLen caps the length of a mutated child (raw input or choice
	// sequence); zero means DefaultMaxLen (docs/ALGORITHMS.md §1, impl.). Keep it
	// within what the Executor accepts (runtime's Config.MaxInputLen): an
	// executor error stops the campaign. Seeds are run as given.
	MaxLen int
	// Dict holds dictionary tokens (ParseDict reads -dict files); the
	// target's constant dictionary (Deps.TargetDict) is added to them.
	Dict [][]byte
	// NoShrink disables minimising the unique crashes at the end of the
	// campaign (hangs are never shrunk: each attempt may burn the whole fuel
	// budget; Config.ShrinkBudget bounds the runs per crash). Shrinking is
	// skipped when ctx was canceled.
	NoShrink bool
	// Generative holds the numbers of the generator-mode strategies
	// (zest's mutation means, bedivfuzz, spoton); the zero value is docs/ALGORITHMS.md's defaults.
	Generative GenerativeOptions
	// ValidHill makes Stats.B0, B1 and B2 the Hill numbers of the
	// abundance over unique valid traces (docs/ALGORITHMS.md §2, ours) instead
	// of all unique traces; Stats.ValidB0..2 always hold them.
	ValidHill bool
	// TraceMemory bounds each of the coordinator's two sets of unique
	// traces (of all runs, of valid runs) to about this many bytes: an
	// exact table, then a fixed Bloom filter, past which unique traces
	// (Stats.UniqueTraces, the abundances of the Hill numbers) are
	// undercounted (docs/ALGORITHMS.md §6). Zero means DefaultTraceMemory.
	TraceMemory int64
	// Havoc, FairFuzz and Levy are the knobs of those strategies
	// (docs/ALGORITHMS.md §1, §3, §4); their zero values are the contract's
	// defaults.
	Havoc    HavocConfig
	FairFuzz FairFuzzConfig
	Levy     LevyConfig
	// SyncInterval is how often the coordinator polls Deps.Importer while
	// the campaign runs (it also polls once before the first execution);
	// zero means DefaultSyncInterval. Unused without an Importer.
	SyncInterval time.Duration
}

// Config holds a campaign's options: the user's Search and what the
// wiring knows of the target. The zero value works, as Search's does.
type Config struct {
	Search
	// Conditionals describes the target's sites for strategies that treat
	// the arms of a conditional apart from other sites (FairFuzz's rare
	// branches, SpotOn's targets): Conditionals[i] is the id of the first
	// arm of the conditional site i is an arm of (the other arms of an if,
	// br_if or br_table share it), -1 for a site that is no arm (function
	// entries, stack depth, call pairs). Nil means nothing is known: every
	// site counts as an arm of a conditional of its own.
	Conditionals []int32
	// ValueFrom is the id of the first value-profile feature
	// (instrument.Options.ValueProfile: a region after every other site);
	// zero: none. A feature never seen before counts as a new hit-count
	// bucket, not a new branch: the child is saved (by the strategies that
	// save new buckets) but not favoured, gets no input-to-state stage,
	// and Stats.Coverage counts branches only (Stats.Features counts
	// features). Hit counts (FairFuzz) and abundance (Hill numbers) leave
	// features out.
	ValueFrom int
	// FreshLen is the length of a fresh random choice sequence (generator
	// mode; the generator extends it as needed) and the maximum length of a
	// fresh random input (raw mode). Zero means 64.
	FreshLen int
	// JobSize is the most children one job holds; zero means 64. Smaller
	// jobs spread a parent over workers sooner. (Jobs are handed out in
	// batches of up to ~256 children, so small jobs cost no extra
	// coordination.)
	JobSize int
	// ShrinkBudget bounds the runs per crash when shrinking; zero means 2,000.
	ShrinkBudget int
	// StatsInterval is the period of the status line, JSON stats and
	// fuzzer_stats/plot_data updates; zero means one second.
	StatsInterval time.Duration
}

// DefaultSyncInterval is Config.SyncInterval's default: AFL++'s own
// period between syncs is of this order (minutes), and a poll lists every
// peer's queue directory, which on a shared filesystem is not free.
const DefaultSyncInterval = time.Minute

// Deps are what Fuzz runs against. Only NewExecutor is required.
type Deps struct {
	// NewExecutor returns the executor of worker w (0 ≤ w < Workers); each
	// is used by one goroutine. Called once per worker before the loop,
	// for all the workers at once (concurrently: it must be safe for
	// concurrent use), and later with w == Workers, by one goroutine,
	// to verify crashes and to shrink them at the end. An executor
	// with a Close(context.Context) error method is closed when Fuzz is
	// done with it.
	NewExecutor func(ctx context.Context, w int) (Executor, error)
	// NewComparer, when set in raw mode, returns worker w's Comparer: the
	// build of the target that logs its comparisons, for input-to-state
	// mutation (compares.go). Called like NewExecutor (concurrently for
	// the workers, each right after its NewExecutor), and closed the same
	// way. Its runs are not counted as executions.
	NewComparer func(ctx context.Context, w int) (Comparer, error)
	// Generator turns choice sequences into inputs; nil is raw mode (the
	// choice sequence is the input). If it has a ForWorker(w int) Generator
	// method (FromGenerator's adapter does), each worker gets its own.
	Generator Generator
	// Store persists the queue, failures and stats; nil keeps everything
	// in memory (the Summary still has it).
	Store Store
	// Seeds are initial choice sequences (raw mode: initial inputs), run
	// before anything else; entries a Store.Load returns come first. With
	// no seed at all, raw mode starts from the empty input and generator
	// mode from one random sequence of FreshLen bytes.
	Seeds [][]byte
	// SeedSequences are initial choice sequences as a generator's runs
	// record them (generator mode only), run after Seeds: each is laid
	// out as the strategy reads sequences (BeDivFuzz's two streams or
	// Zest's one; seedChoices).
	SeedSequences []*generators.Sequence
	// KnownFailures are the identities (Failure.Identity) of failures an
	// earlier session of a resumed campaign saved: met again, they are not
	// new findings and do not stop the campaign.
	KnownFailures []string
	// Unshrunk are crashes of KnownFailures that an earlier session saved
	// but did not shrink (it was killed or stopped while shrinking, or
	// ran with NoShrink); each needs Identity, Input and, in generator
	// mode, Choices. Unless NoShrink they are shrunk at the end with this
	// session's crashes and handed to Store.AddFailure with Shrunk set.
	Unshrunk []*Finding
	// TargetDict is the target's constant dictionary (instrument's
	// SiteMap.Dictionary), used as havoc tokens.
	TargetDict [][]byte
	// Status receives the live metrics: a status line redrawn in place
	// when StatusTTY, one JSON object a line otherwise. Nil: no output.
	Status    io.Writer
	StatusTTY bool
	// OnRun, when set, is called on the worker goroutines before every
	// execution with the job's Seq, the child's index in the job and the
	// input (valid only during the call): a recorder for debugging and
	// determinism tests. It must be safe for concurrent use.
	OnRun func(job uint64, child int, input []byte)
	// Log, when set, receives progress lines ("INFO: ..."): the start of
	// the end-of-campaign shrinking. Nil: none.
	Log io.Writer
	// Importer, when set, brings other campaigns' inputs and failure
	// identities into this one (live sync, sync.go): polled before the
	// first execution and every Config.SyncInterval. Nil: none.
	Importer Importer
}

// Store persists a campaign. The corpus package's directory is adapted to
// it (see corpusstore.go); tests use an in-memory fake. Methods are called
// from the coordinator goroutine only.
type Store interface {
	// Load returns the choice sequences of a previous run's queue, oldest
	// first (empty for a new campaign).
	Load(ctx context.Context) ([][]byte, error)
	// AddEntry persists a new queue entry.
	AddEntry(ctx context.Context, e *Entry) error
	// AddFailure persists a unique failure (first of its identity in this
	// run). It is called again for the same identity with a smaller
	// reproducer after shrinking.
	AddFailure(ctx context.Context, f *Finding) error
	// WriteStats updates fuzzer_stats and appends a plot_data line.
	WriteStats(ctx context.Context, s *Stats) error
}

// Resumer is an optional Store interface: the job counter a previous run
// of the campaign reached, so a resumed campaign draws fresh PRNG streams
// (job j uses PCG(Seed, j)) instead of repeating the first run's.
// CorpusStore keeps it in the corpus checkpoint.
type Resumer interface {
	ResumeJobs() uint64
}

// Finding is a unique failure.
type Finding struct {
	Outcome  Outcome
	Identity string
	// Choices is the failing choice sequence, Input the generated input
	// (same bytes in raw mode).
	Choices, Input []byte
	Failure        *Failure
	// Execs is the execution count when it was merged, Found the time
	// since the campaign started; Count how many runs had this identity
	// so far.
	Execs int64
	Found time.Duration
	Count int64
	// Op is how it was found (OpSeed, or the strategy's name).
	Op Op
	// Shrunk is true once the reproducer was minimised.
	Shrunk bool
}

// Summary is what Fuzz returns.
type Summary struct {
	// Stop says why the campaign ended.
	Stop  Stop
	Stats Stats
	// Queue is the final queue; Failures the unique failures in discovery
	// order.
	Queue    []*Entry
	Failures []*Finding
	// Waited is the workers' total time waiting for a batch: over
	// Workers × Stats.Elapsed, the share of worker time the coordination
	// leaves idle (what benchmarks report as wait%).
	Waited time.Duration
	// Reported is the number of children the workers sent the
	// coordinator: failures, and runs whose trace or coverage a worker's
	// filter found new. Over Stats.Execs it is the coordination's load
	// (benchmarks report it as sent/kexec).
	Reported int64
}

func (c Config) withDefaults(hasGen bool) Config {
	if c.Strategy == "" {
		c.Strategy = "havoc"
		if hasGen {
			c.Strategy = "zest"
		}
	}
	if c.Workers <= 0 {
		c.Workers = 1
	}
	if c.MaxLen <= 0 {
		c.MaxLen = DefaultMaxLen
	}
	if c.FreshLen <= 0 {
		c.FreshLen = 64
	}
	if c.JobSize <= 0 {
		c.JobSize = 64
	}
	if c.StatsInterval <= 0 {
		c.StatsInterval = time.Second
	}
	if c.SyncInterval <= 0 {
		c.SyncInterval = DefaultSyncInterval
	}
	return c
}

// HavocConfig is havoc's stacking depth (also used by fairfuzz's havoc).
type HavocConfig struct {
	// Depth: a child stacks 1 + IntN(Depth) operations; zero means 5
	// (libFuzzer's depth, wafer's default).
	Depth int
	// StackPow2 > 0: a child stacks 2^(1+IntN(StackPow2)) operations
	// instead: 7 is AFL's (HAVOC_STACK_POW2, 2 to 128, the FairFuzz
	// paper's baseline), 4 AFL++'s. Zero: Depth's schedule.
	StackPow2 int
}

// FairFuzzConfig are FairFuzz's numbers (docs/ALGORITHMS.md §3).
type FairFuzzConfig struct {
	// PlainEvery: every PlainEvery-th queue cycle uses the plain schedule
	// (every entry, unmasked havoc); zero means 4. A negative value never
	// does (the paper's pure rare-branch schedule).
	PlainEvery int
	// PlainExecs: the first PlainExecs executions are plain (seeds get a
	// round of unmasked mutation before numHits means much); zero means
	// 1,000, negative none.
	PlainExecs int64
	// MaskPositions caps the positions the O/I/D mask probes test (3 runs
	// each); beyond it a uniform sample, the rest fully mutable. Zero
	// means 4,096.
	MaskPositions int
	// NoTrim disables the relaxed trimming before the mask probes.
	NoTrim bool
	// NoMask targets rare branches without trimming, probes or mask: the
	// round's children are unmasked havoc (the paper's comparison of
	// target hit rates, and an ablation).
	NoMask bool
	// ProbeRounds is the most rounds whose trimming and mask probes are in
	// flight at once (ours: the dependent jobs that keep the workers busy
	// while a round waits); zero means 2.
	ProbeRounds int
}

// LevyConfig are the Lévy flights' numbers (docs/ALGORITHMS.md §4).
type LevyConfig struct {
	// Batch is k_gen, the children of one batch of a flight; zero means 64.
	Batch int
	// History is k_max, the test cases of the FIFO history the batch
	// quality is measured against; zero means 4,096. Unbounded keeps every
	// test case (k_max = ∞: the branches any child ever executed).
	History   int
	Unbounded bool
	// B1 and B2 are b_1 and b_2 of α_i = 2/(1+e^(b_i − Ē)); zero means 3.
	B1, B2 float64
	// Quality is the quality α is computed from: the zero value,
	// LevyRelative, is Ē relative to the campaign's recent batches;
	// LevyAbsolute is the paper's Ē.
	Quality LevyQuality
	// Alpha0 is the starting α of both walks; zero means 1.
	Alpha0 float64
	// SegmentBits is m, the bits of a segment: 8, 16 or 32; zero means 8.
	SegmentBits int
	// Flights is the number of flights; zero means one per worker.
	Flights int
}

func (h HavocConfig) withDefaults() HavocConfig {
	if h.Depth <= 0 {
		h.Depth = 5
	}
	return h
}

func (f FairFuzzConfig) withDefaults() FairFuzzConfig {
	if f.PlainEvery == 0 {
		f.PlainEvery = 4
	}
	if f.PlainExecs == 0 {
		f.PlainExecs = 1000
	}
	if f.MaskPositions <= 0 {
		f.MaskPositions = 4096
	}
	if f.ProbeRounds <= 0 {
		f.ProbeRounds = 2
	}
	return f
}

func (l LevyConfig) withDefaults(workers int) LevyConfig {
	if l.Batch <= 0 {
		l.Batch = 64
	}
	if l.History <= 0 {
		l.History = 4096
	}
	if l.B1 == 0 {
		l.B1 = 3
	}
	if l.B2 == 0 {
		l.B2 = 3
	}
	if l.Alpha0 == 0 {
		l.Alpha0 = 1
	}
	if l.SegmentBits == 0 {
		l.SegmentBits = 8
	}
	if l.Flights <= 0 {
		l.Flights = max(1, workers)
	}
	return l
}

// validate reports a knob out of its range.
func (c Config) validate() error {
	switch c.Levy.SegmentBits {
	case 0, 8, 16, 32:
	default:
		return fmt.Errorf("levy segment bits: expected 8, 16 or 32, got %d", c.Levy.SegmentBits)
	}
	if a := c.Levy.Alpha0; a < 0 || a > 2 {
		return fmt.Errorf("levy alpha0: expected 0 < α ≤ 2, got %g", a)
	}
	if c.Levy.B1 < 0 || c.Levy.B2 < 0 {
		return fmt.Errorf("levy b: expected b > 0, got %g and %g", c.Levy.B1, c.Levy.B2)
	}
	if len(c.AutoArms) > 0 && c.Strategy != "auto" {
		return fmt.Errorf("auto arms: expected strategy auto, got %q", c.Strategy)
	}
	if c.Havoc.StackPow2 > 12 {
		return fmt.Errorf("havoc stack pow2: expected at most 12, got %d", c.Havoc.StackPow2)
	}
	return nil
}

// Stop is why a campaign ended.
type Stop string

// The reasons a campaign ends.
const (
	StopRuns     Stop = "runs"     // Config.Runs executions done (or the seeds, with Runs == their count)
	StopTime     Stop = "time"     // Config.MaxTotalTime elapsed
	StopCrash    Stop = "crash"    // the first new crash, without Config.KeepGoing
	StopCanceled Stop = "canceled" // ctx was canceled: a clean stop, the campaign resumes
	StopError    Stop = "error"    // wafer itself failed (Fuzz returns the error)
)

// Op names how a queue entry or a finding was made: OpSeed, OpInputToState,
// OpChecked, or the name of the strategy whose child it was ("havoc",
// "zest", ...).
type Op string

// The Ops that are not a strategy's name.
const (
	OpSeed         Op = "seed"    // a seed input or a resumed queue entry, run as given
	OpInputToState Op = "i2s"     // a child of the input-to-state stage (compares.go)
	OpChecked      Op = "checked" // a queue entry's failure on the comparer's build, which checks what the campaign's may not
)
