package cli

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/wafer-fuzz/wafer/campaign"
	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/generators"
	"github.com/wafer-fuzz/wafer/generators/grammar"
	"github.com/wafer-fuzz/wafer/gofuzz"
)

const fuzzHelp = `usage: wafer fuzz [flags] TARGET.wasm [CORPUS_DIR|FILE...]
       wafer fuzz [flags] PKG:FuzzXxx [CORPUS_DIR|FILE...]

Runs a coverage-guided campaign on TARGET.wasm until --runs or
--max-total-time is reached, or the first crash (unless --keep-going).

PKG:FuzzXxx (or --go-test FuzzXxx PKG) is a Go package's fuzz test, func
FuzzXxx(f *testing.F), run as go test -fuzz runs it: wafer builds it for
wasip1 (the package's files unchanged; the build cached by content), seeds
it with its f.Add values and testdata/fuzz/FuzzXxx files, and writes each
crash there too (--go-testdata), so go test -run=FuzzXxx/NAME replays it.
t.Fatal, t.Error and panics are crashes; t.Skip is an invalid input.
--strategy zest, bedivfuzz or spoton draw its typed arguments (frames
named after its parameters); the other strategies mutate their encoding.
Seeds come from the CORPUS_DIRs and -i: raw files, libFuzzer corpus
directories and Go's testdata/fuzz/FuzzXxx files ("go test fuzz v1") are
all read. With --grammar, seeds are parsed with the grammar and the
campaign starts from the choice sequences that regenerate them (seeds
that do not parse are named and left out; wafer gen --parse shows why).
Findings, the queue and stats go to the output directory (-o) in
AFL++'s layout: queue/, crashes/, hangs/, fuzzer_stats, plot_data.

Flags accept libFuzzer's spelling too: -max_total_time=60 is
--max-total-time=60. Durations are seconds (60) or Go durations (1m30s).

exit status: 0 no finding, 77 crash (--error-exitcode), 70 hang/timeout
(--timeout-exitcode), 71 out of memory, 1 wafer error, 2 bad invocation.

examples:
  wafer fuzz --max-total-time 60 -o tlv-out examples/tlv/tlv.wasm
  wafer fuzz --max-total-time 60 ./examples/gotest:FuzzJSON
  wafer fuzz -i examples/cexpr/seeds -o out -j 2 --runs 100000 examples/cexpr/cexpr.wasm
  wafer fuzz --generator json --max-total-time 5m -o json-out examples/gojson/gojson.wasm
  wafer fuzz --grammar generators/grammars/JSON.g4 -i examples/gojson/seeds examples/gojson/gojson.wasm
  wafer fuzz --harness command --invalid-exit-code 1 --generator xml examples/gostdin/gostdin.wasm
  wafer fuzz -max_total_time=30 -seed=7 examples/tlv/tlv.wasm examples/tlv/seeds
  wafer fuzz -o sync -M a --seed 1 t.wasm & wafer fuzz -o sync -S b --seed 2 t.wasm

Live sync (AFL's -M/-S): campaigns under one parent directory (-o
PARENT -M NAME, or -o PARENT/NAME --sync) poll each other's queues at
start and every --sync-interval, keep the entries that add coverage, and
do not save again a crash a peer has saved.
`

type fuzzFlags struct {
	fs *pflag.FlagSet

	// opts holds the campaign options flags set directly: a flag that maps
	// onto a field of campaign.Options is its registration alone.
	opts campaign.Options

	// Budget and search, the flags that need translating.
	runs         int64
	maxTotalTime seconds
	jobs         int
	generator    string
	grammar      grammarFlags
	useCmp       int
	dict         []string

	target      targetFlags
	warmUpSeeds bool
	goTest      goTestFlags
	// wasmPath is the target's .wasm file: the argument, or the build of
	// the Go fuzz test it names (goFound).
	wasmPath string
	goFound  *gofuzz.Test

	// Input and output.
	input             []string
	output            string
	artifactPrefix    string
	exactArtifactPath string
	closeFDMask       int
	noSync            bool
	sync              bool
	syncInterval      seconds
	syncMain          string // AFL's -M NAME
	syncSecondary     string // AFL's -S NAME

	// libFuzzer actions and exit codes.
	minimizeCrash   int
	merge           int
	fork            int
	ignoreCrashes   int
	errorExitcode   int
	timeoutExitcode int
	printFinalStats int
	useValueProfile int
	ignored         []string
}

// libfuzzerIgnored are libFuzzer flags that wafer accepts so existing
// runners keep working, but that change nothing here; each one used is
// reported on stderr as INFO.
var libfuzzerIgnored = []string{
	"verbosity", "detect_leaks", "reload", "len_control",
	"entropic", "ignore_timeouts", "ignore_ooms", "merge_control_file",
	"report_slow_units", "shrink", "reduce_inputs",
	"use_counters", "mutate_depth", "prefer_small", "only_ascii", "cross_over",
	"print_pcs", "print_coverage", "print_corpus_stats", "dump_coverage",
	"create_missing_dirs", "purge_allocator_interval", "trace_malloc",
	"handle_segv", "handle_bus", "handle_abrt", "handle_ill", "handle_fpe",
	"handle_int", "handle_term", "handle_xfsz", "handle_usr1", "handle_usr2",
	"use_memmem", "keep_seed", "focus_function", "data_flow_trace",
	"collect_data_flow", "experimental_len_control", "max_number_of_runs",
	"ignore_remaining_args", "features_dir", "reduce_depth", "entropic_feature_frequency_threshold",
	"entropic_number_of_rarest_features", "entropic_scale_per_exec_time",
}

func newFuzzFlags() *fuzzFlags {
	f := &fuzzFlags{fs: newFlagSet("fuzz")}
	fs := f.fs
	fs.Int64Var(&f.runs, "runs", -1, "stop after `N` executions (-1: no limit; 0: run the seed inputs only, as libFuzzer's -runs=0)")
	fs.Var(&f.maxTotalTime, "max-total-time", "stop after this long (seconds or duration; 0: no limit)")
	fs.Uint64Var(&f.opts.Seed, "seed", 0, "PRNG seed; the same seed gives the same executions (0 is a fixed seed too)")
	fs.IntVarP(&f.opts.Workers, "workers", "j", 1, "parallel workers, one target instance each")
	fs.IntVar(&f.jobs, "jobs", 0, "libFuzzer's -jobs: without --workers, run min(N, cores/2) in-process workers (one campaign, not N processes)")
	fs.StringVar(&f.opts.Strategy, "strategy", "", "search strategy: "+strings.Join(campaign.Strategies(), ", ")+" (default: havoc, or zest with --generator)")
	fs.StringVar(&f.generator, "generator", "", "structured input generator: "+strings.Join(generators.Names(), ", ")+" (default: raw bytes)")
	f.grammar.register(fs)
	fs.BoolVar(&f.opts.KeepGoing, "keep-going", false, "keep fuzzing after the first crash")
	fs.BoolVar(&f.warmUpSeeds, "warm-up-seeds", true, fmt.Sprintf("on a Go reactor or Go fuzz test given no --warm-up, run the first %d seeds (%d KiB at most) as warm-up inputs before the snapshot, so runs start with the first-use state of the Go runtime and the program built (--warm-up-seeds=false: off)", campaign.MaxWarmUpSeeds, campaign.MaxWarmUpBytes>>10))
	fs.BoolVar(&f.opts.NoShrink, "no-shrink", false, "save crashes as found, without minimising them at the end")
	fs.BoolVar(&f.opts.Deterministic, "deterministic", false, "with several workers, run exactly the executions one seed implies, whatever the scheduling")
	fs.StringArrayVar(&f.dict, "dict", nil, "AFL/libFuzzer dictionary `FILE` (repeatable)")
	fs.IntVar(&f.opts.MaxLen, "max-len", 0, "maximum length in bytes of the inputs wafer makes (0: 10240); longer seeds run whole")
	fs.IntVar(&f.useCmp, "use-cmp", 1, "1: input-to-state mutation without --generator: a second build of the target logs the operands of its comparisons and memcmp/strcmp calls, run once per queue entry (seeds included) that reached a new branch; 0: off (libFuzzer's -use_cmp)")
	// Strategy knobs (docs/ALGORITHMS.md §1, §3, §4), the contract's defaults.
	fs.IntVar(&f.opts.Havoc.Depth, "havoc-depth", 5, "havoc, fairfuzz: a child stacks 1 to N operations")
	fs.IntVar(&f.opts.Havoc.StackPow2, "havoc-stack-pow2", 0, "havoc, fairfuzz: a child stacks 2^(1..N) operations instead (7: AFL, the FairFuzz paper's baseline; 4: AFL++; 0: --havoc-depth)")
	fs.IntVar(&f.opts.FairFuzz.PlainEvery, "fairfuzz-plain-every", 4, "fairfuzz: every Nth queue cycle is plain (every entry, no mask); -1: never")
	fs.Int64Var(&f.opts.FairFuzz.PlainExecs, "fairfuzz-plain-execs", 1000, "fairfuzz: the first N executions are plain; -1: none")
	fs.IntVar(&f.opts.FairFuzz.MaskPositions, "fairfuzz-mask-positions", 4096, "fairfuzz: probe at most N positions (3 runs each), a uniform sample beyond")
	fs.BoolVar(&f.opts.FairFuzz.NoTrim, "fairfuzz-no-trim", false, "fairfuzz: no relaxed trimming before the mask probes")
	fs.BoolVar(&f.opts.FairFuzz.NoMask, "fairfuzz-no-mask", false, "fairfuzz: target rare branches with unmasked havoc (no trimming, no probes)")
	fs.IntVar(&f.opts.FairFuzz.ProbeRounds, "fairfuzz-probe-rounds", 2, "fairfuzz: at most N rounds' trimming and mask probes in flight")
	fs.StringSliceVar(&f.opts.AutoArms, "auto-arms", nil, "auto: the strategies it schedules, comma-separated (default: fairfuzz,havoc,levy; zest,bedivfuzz with a generator)")
	fs.IntVar(&f.opts.Levy.Batch, "levy-batch", 64, "levy: children per batch (k_gen)")
	fs.IntVar(&f.opts.Levy.History, "levy-history", 4096, "levy: test cases in the FIFO history (k_max)")
	fs.BoolVar(&f.opts.Levy.Unbounded, "levy-unbounded", false, "levy: keep every test case in the history (k_max = ∞)")
	fs.Float64Var(&f.opts.Levy.B1, "levy-b1", 3, "levy: b of the offset walk's α = 2/(1+e^(b−Ē))")
	fs.Func("levy-quality", "levy: the quality α follows: relative (Ē over the recent batches' mean, α = 2/(1+e^(b·(1−Ē/Ē̄)))) or absolute (the paper's Ē) (default relative)", func(v string) error {
		q, err := campaign.ParseLevyQuality(v)
		f.opts.Levy.Quality = q
		return err
	})
	fs.Float64Var(&f.opts.Levy.B2, "levy-b2", 3, "levy: b of the value walk's α")
	fs.Float64Var(&f.opts.Levy.Alpha0, "levy-alpha0", 1, "levy: both walks' starting α")
	fs.IntVar(&f.opts.Levy.SegmentBits, "levy-segment-bits", 8, "levy: segment size in bits: 8, 16 or 32")
	fs.IntVar(&f.opts.Levy.Flights, "levy-flights", 0, "levy: number of flights (0: one per worker)")

	// Generator-mode strategies and baselines (issue 31): each maps onto
	// campaign.Options.Generative, ValidHill, DictProb or IntBias; a 0
	// given here means none (the zero values of those fields mean the
	// defaults).
	prob := func(dst *float64) func(string) error {
		return func(v string) error {
			p, err := strconv.ParseFloat(v, 64)
			if err != nil || p < 0 || p > 1 {
				return fmt.Errorf("expected a probability in [0, 1], got %q", v)
			}
			if *dst = p; p == 0 {
				*dst = -1
			}
			return nil
		}
	}
	fs.BoolVar(&f.opts.Generative.BeDivSimple, "bedivfuzz-simple", false, "bedivfuzz: the \"simple\" config (save valid children with new coverage, no structural signature condition) instead of \"structure\"")
	fs.Func("epsilon", "bedivfuzz: probability of choosing the stream to mutate by a coin instead of by score (default 0.2)", prob(&f.opts.Generative.Epsilon))
	fs.Func("spoton-targeted", "spoton: share of targeted children (default 0.5)", prob(&f.opts.Generative.Targeted))
	fs.BoolVar(&f.opts.Generative.NoFuelBound, "spoton-count-bound", false, "spoton: give each parent Zest's count of children instead of a fuel budget")
	fs.Float64Var(&f.opts.Generative.MaxDistance, "spoton-max-distance", 1000, "spoton: cap of a type's distance d_T")
	fs.IntVar(&f.opts.Generative.TypeDraws, "spoton-type-draws", 10, "spoton: type draws per targeted child before falling back to plain mutation")
	fs.IntVar(&f.opts.Generative.MeanMutations, "mean-mutations", 4, "zest, bedivfuzz, spoton: mean number of runs of the choice sequence rewritten per child (geometric m of docs/ALGORITHMS.md §1)")
	fs.IntVar(&f.opts.Generative.MeanLength, "mean-length", 4, "zest, bedivfuzz, spoton: mean length of a rewritten run (geometric l of docs/ALGORITHMS.md §1; bytes, or choices when targeted)")
	fs.Func("tree-share", "zest, bedivfuzz, spoton: share of children made by a tree mutation of a generator's subtrees (typed frames, grammar rules); 0: none (default 0.2)", prob(&f.opts.Generative.Tree.Share))
	fs.Func("tree-mutations", "zest, bedivfuzz, spoton: the tree mutations drawn, comma-separated: replace, splice, recurse, duplicate; all or none (default all)", func(v string) error {
		on, err := campaign.ParseTreeOps(v)
		if err != nil {
			return err
		}
		f.opts.Generative.Tree.Off = campaign.AllTreeOps &^ on
		return nil
	})
	fs.Func("dict-prob", "with --generator: probability that a string draw takes a target constant (integer draws: a fifth of it); 0: no dictionary, the papers' baselines (default 0.5)", prob(&f.opts.DictProb))
	fs.Func("int-bias", "with --generator: probability that an integer draw takes a range boundary; 0: uniform, the papers' baselines (default 0.0625)", prob(&f.opts.IntBias))
	fs.Func("hill", "which unique traces the Hill numbers B(0..2) count: all or valid (default all)", func(v string) error {
		switch v {
		case "all", "valid":
			f.opts.ValidHill = v == "valid"
			return nil
		}
		return fmt.Errorf("expected all or valid, got %q", v)
	})

	f.target.register(fs)
	f.goTest.register(fs, true)

	fs.StringArrayVarP(&f.input, "input", "i", nil, "seed corpus `DIR` or file (repeatable; AFL's -i)")
	fs.StringVarP(&f.output, "output", "o", "", "output `DIR`: queue/, crashes/, hangs/, fuzzer_stats, plot_data (AFL's -o; default wafer-out)")
	fs.StringVar(&f.artifactPrefix, "artifact-prefix", "", "also write each finding to `PREFIX`crash-<sha1> / timeout-<sha1> (libFuzzer)")
	fs.StringVar(&f.exactArtifactPath, "exact-artifact-path", "", "write the first finding to exactly this `FILE` (libFuzzer)")
	fs.BoolVar(&f.sync, "sync", false, "live sync: at start and every --sync-interval, import the new queue entries of the sibling campaign directories of -o (-o sync/NAME) that add coverage here; their saved crashes count as known")
	f.syncInterval = seconds(time.Minute)
	fs.Var(&f.syncInterval, "sync-interval", "period of --sync's polls (seconds or duration)")
	fs.StringVarP(&f.syncMain, "sync-main", "M", "", "AFL's -M `NAME`: --sync with the campaign in -o's NAME subdirectory (-o is the parent: -o sync -M a is -o sync/a --sync)")
	fs.StringVarP(&f.syncSecondary, "sync-secondary", "S", "", "AFL's -S `NAME`: the same as -M in wafer (every campaign runs the same search)")
	fs.BoolVar(&f.noSync, "no-fsync", false, "do not fsync output files: faster early in a campaign, but a machine crash may lose recent files")
	fs.IntVar(&f.closeFDMask, "close-fd-mask", 0, "1: drop the target's stdout, 2: its stderr, 3: both (libFuzzer)")

	fs.IntVar(&f.minimizeCrash, "minimize-crash", 0, "1: minimise the crash FILE given instead of fuzzing (libFuzzer)")
	fs.IntVar(&f.merge, "merge", 0, "1: merge the CORPUS_DIRs after the first into the first (libFuzzer)")
	fs.IntVar(&f.fork, "fork", 0, "libFuzzer's -fork=N: without --workers, N workers (one campaign in this process, not N processes)")
	fs.IntVar(&f.ignoreCrashes, "ignore-crashes", 0, "libFuzzer's -ignore_crashes=1: --keep-going")
	fs.IntVar(&f.errorExitcode, "error-exitcode", exitCrash, "exit status after a crash")
	fs.IntVar(&f.timeoutExitcode, "timeout-exitcode", exitTimeout, "exit status after a hang or timeout")
	fs.IntVar(&f.useValueProfile, "use-value-profile", 0, "libFuzzer's -use_value_profile=1: --value-profile (unless --value-profile is given)")
	fs.IntVar(&f.printFinalStats, "print-final-stats", 1, "print libFuzzer's stat:: lines at exit (1: yes; wafer fuzz prints them only when the flag is given, libFuzzer-style runs unless it is 0)")
	for _, name := range libfuzzerIgnored {
		fs.String(name, "", "accepted for libFuzzer compatibility; no effect")
		fs.MarkHidden(strings.ReplaceAll(name, "_", "-"))
	}
	return f
}

// parse parses args and records which ignored libFuzzer flags were used.
func (f *fuzzFlags) parse(args []string) error {
	if err := parseFlags(f.fs, args); err != nil {
		return err
	}
	for _, name := range libfuzzerIgnored {
		if f.fs.Changed(name) {
			f.ignored = append(f.ignored, name)
		}
	}
	if f.opts.Workers < 1 {
		return usagef("fuzz: --workers: expected at least 1, got %d", f.opts.Workers)
	}
	if f.jobs > 0 && !f.fs.Changed("workers") {
		// libFuzzer's rule for -workers=0: min(jobs, cores/2).
		f.opts.Workers = max(1, min(f.jobs, goruntime.NumCPU()/2))
	}
	if f.fork > 0 && !f.fs.Changed("workers") {
		f.opts.Workers = f.fork
	}
	if f.ignoreCrashes != 0 {
		f.opts.KeepGoing = true
	}
	if f.useValueProfile < 0 {
		return usagef("-use_value_profile: expected 0 or more, got %d", f.useValueProfile)
	}
	if f.useValueProfile != 0 && !f.fs.Changed("value-profile") {
		f.target.valueProf = true
	}
	if f.fs.NArg() < 1 {
		return usagef("fuzz: missing TARGET.wasm (run 'wafer help fuzz')")
	}
	if f.opts.Strategy != "" && !slices.Contains(campaign.Strategies(), f.opts.Strategy) {
		return usagef("--strategy: expected one of %s, got %q", strings.Join(campaign.Strategies(), ", "), f.opts.Strategy)
	}
	if len(f.opts.AutoArms) > 0 && f.opts.Strategy != "auto" {
		return usagef("--auto-arms: expected --strategy auto, got %q", f.opts.Strategy)
	}
	for _, a := range f.opts.AutoArms {
		if a == "auto" || !slices.Contains(campaign.Strategies(), a) {
			return usagef("--auto-arms: expected names from %s, got %q", strings.Join(slices.DeleteFunc(campaign.Strategies(), func(s string) bool { return s == "auto" }), ", "), a)
		}
	}
	if _, ok := generators.Lookup(f.generator); f.generator != "" && !ok {
		return usagef("--generator: expected one of %s, got %q", strings.Join(generators.Names(), ", "), f.generator)
	}
	if f.opts.MaxLen < 0 {
		return usagef("--max-len: expected a length >= 0, got %d", f.opts.MaxLen)
	}
	if f.grammar.path != "" && f.generator != "" {
		return usagef("--grammar and --generator: expected one of them, got both")
	}
	if f.useCmp != 0 && f.useCmp != 1 {
		return usagef("--use-cmp: expected 0 or 1, got %d", f.useCmp)
	}
	return nil
}

// budget is the campaign's wall-clock limit, 0 for none.
func (f *fuzzFlags) budget() time.Duration { return time.Duration(f.maxTotalTime) }

func (c *cli) fuzz(ctx context.Context, args []string) error {
	f := newFuzzFlags()
	if err := f.parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return c.help(ctx, []string{"fuzz"})
		}
		return err
	}
	return c.runFuzz(ctx, f, false)
}

// runFuzz is shared by 'wafer fuzz' and the libFuzzer invocation; lf selects
// libFuzzer's conventions for where new inputs and artifacts go.
func (c *cli) runFuzz(ctx context.Context, f *fuzzFlags, lf bool) error {
	for _, name := range f.ignored {
		fmt.Fprintf(c.stderr, "INFO: -%s has no effect in wafer\n", name)
	}
	target := f.fs.Arg(0)
	if test, wasm, err := f.goTest.resolve(ctx, c, target, &f.target); err != nil {
		return err
	} else if test != nil {
		target, f.goFound = wasm, test
	}
	f.wasmPath = target
	if st, err := os.Stat(target); err == nil && st.IsDir() {
		return usagef("fuzz: %s is a directory, expected TARGET.wasm first (wafer fuzz [flags] TARGET.wasm [CORPUS_DIR...])", target)
	}
	wasm, err := readModule(target)
	if err != nil {
		return err
	}
	rest := f.fs.Args()[1:]
	// AFL's "-i -" resumes from -o, which wafer always does
	f.input = slices.DeleteFunc(f.input, func(d string) bool { return d == "-" })
	for _, d := range f.input {
		if _, err := os.Stat(d); err != nil {
			return fileError(d, err) // as a missing positional corpus
		}
	}
	switch {
	case f.merge != 0:
		return c.runMerge(ctx, f, wasm, rest)
	case f.minimizeCrash != 0:
		if len(rest) != 1 {
			return usagef("-minimize_crash=1: expected one crash file, got %d", len(rest))
		}
		return c.runMinimize(ctx, f, wasm, rest[0])
	}
	// libFuzzer runs individual inputs when the arguments are files.
	if lf && len(rest) > 0 && allFiles(rest) {
		return c.runInputs(ctx, f, wasm, rest)
	}
	for _, d := range rest {
		if _, err := os.Stat(d); err != nil {
			return fileError(d, err)
		}
	}
	out := f.output
	if out == "" && !lf {
		out = "wafer-out"
	}
	if name, err := f.syncName(); err != nil {
		return err
	} else if name != "" {
		if out == "" {
			return usagef("-M/-S need -o PARENT (the campaign is PARENT/NAME)")
		}
		out = filepath.Join(out, name)
		f.sync = true
	}
	return c.campaign(ctx, f, wasm, rest, out, lf)
}

// seedWarmUp picks the files of the seeds that run as warm-up inputs
// (--warm-up-seeds; campaign's Target.SeedWarmUp decides which) unless
// --warm-up gives some; with a generator too, which does not run the
// seeds.
func (f *fuzzFlags) seedWarmUp(tg *campaign.Target, seeds []corpus.Seed) []string {
	if !f.warmUpSeeds || len(f.target.warmUp) > 0 {
		return nil
	}
	data := make([][]byte, len(seeds))
	for i, s := range seeds {
		data[i] = s.Data
	}
	var paths []string
	for _, i := range tg.SeedWarmUp(data) {
		paths = append(paths, seeds[i].Path)
	}
	return paths
}

// goSeedWarmUp picks a Go fuzz test's seeds (goTest.seeds: its f.Add
// values and testdata files in the tuple encoding, which no file holds)
// that run as warm-up inputs, as seedWarmUp picks a Go reactor's: unless
// --warm-up-seeds=false or --warm-up.
func (f *fuzzFlags) goSeedWarmUp(tg *campaign.Target, seeds [][]byte) [][]byte {
	if !f.warmUpSeeds || len(f.target.warmUp) > 0 {
		return nil
	}
	var out [][]byte
	for _, i := range tg.SeedWarmUp(seeds) {
		out = append(out, seeds[i])
	}
	return out
}

func allFiles(paths []string) bool {
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || st.IsDir() {
			return false
		}
	}
	return true
}

// campaign runs 'wafer fuzz' and the libFuzzer invocation (lf): seeds,
// dictionaries and flags into campaign.Options, then the report,
// artifacts and exit status.
func (c *cli) campaign(ctx context.Context, f *fuzzFlags, wasm []byte, corpusDirs []string, out string, lf bool) error {
	target := f.wasmPath
	gt, err := describeGoTest(ctx, f.goFound, wasm, f.target.sys)
	if err != nil {
		return err
	}
	read := corpus.ReadSeeds
	if gt != nil {
		read = corpus.ReadRawSeeds // gt.seeds converts go test's corpus files
	}
	seeds, err := c.readSeedsWith(ctx, read, append(append([]string(nil), f.input...), corpusDirs...))
	if err != nil {
		return err
	}
	dict, err := readDicts(f.dict)
	if err != nil {
		var de *campaign.DictError
		if lf && errors.As(err, &de) {
			// libFuzzer's words, which ClusterFuzz reports as a bad
			// dictionary (libFuzzer/engine.py, DICT_PARSING_FAILED_REGEX)
			fmt.Fprintf(c.stderr, "ParseDictionaryFile: error in line %d\n", de.Line)
		}
		return err
	}
	gen, useGen := generators.Lookup(f.generator)
	useGen, genFlag := useGen && f.generator != "raw", "--generator "+f.generator
	f.grammar.log = c.stderr
	if g, ok, err := f.grammar.generator(); err != nil {
		return err
	} else if ok {
		gen, useGen, genFlag = g, true, "--grammar "+f.grammar.path
	}
	if lf && f.target.timeout != 0 {
		// Runners pass -timeout=25 to every libFuzzer binary; a per-run
		// wall-clock deadline halves wazero's speed, and fuel already
		// catches hangs deterministically.
		fmt.Fprintf(c.stderr, "INFO: -timeout=%s: hangs are found by fuel; no per-input wall-clock backstop while fuzzing\n", &f.target.timeout)
		f.target.timeout = 0
	}
	tg, err := f.target.loadTarget(ctx, target, wasm)
	if err != nil {
		return err
	}
	// The module is known good before anything is written.
	if out != "" {
		if err := ensureWritableDir(out); err != nil {
			return err
		}
	}
	if f.artifactPrefix != "" {
		if err := ensureWritableFile(f.artifactPrefix + "x"); err != nil {
			return err
		}
	}
	var goSeeds [][]byte
	if gt != nil {
		goSeeds = gt.seeds(c, seeds)
		if warm := f.goSeedWarmUp(tg, goSeeds); len(warm) > 0 {
			f.target.warmUpInputs = warm
			if tg, err = f.target.loadTarget(ctx, target, wasm); err != nil {
				return err
			}
			fmt.Fprintf(c.stderr, "INFO: %d of %d seed inputs (f.Add values, testdata/fuzz files, then the given ones) run as warm-up before the Go fuzz test's snapshot: runs start warm, and branches only a first use reaches are not counted (wafer cov replays cold; --warm-up-seeds=false: off)\n", len(warm), len(goSeeds))
		}
	} else if paths := f.seedWarmUp(tg, seeds); len(paths) > 0 {
		f.target.warmUp = paths // in the repro commands too
		if tg, err = f.target.loadTarget(ctx, target, wasm); err != nil {
			return err
		}
		fmt.Fprintf(c.stderr, "INFO: %d of %d seed inputs run as warm-up before the Go reactor's snapshot: runs start warm, and branches only a first use reaches are not counted (wafer cov replays cold; --warm-up-seeds=false: off)\n", len(paths), len(seeds))
	}
	opts := f.opts
	opts.Dict = dict
	opts.Runs = max(0, f.runs)
	opts.SeedsOnly = f.runs == 0 // libFuzzer's -runs=0
	opts.MaxTotalTime = f.budget()
	opts.NoCompares = f.useCmp == 0
	opts.Output = out
	opts.NoFsync = f.noSync
	opts.Sync = f.sync
	opts.SyncInterval = time.Duration(f.syncInterval)
	reproTarget := target
	if f.goFound != nil {
		reproTarget = f.fs.Arg(0) // wafer repro builds PKG:FuzzXxx too
		if f.goTest.name != "" {
			reproTarget += ":" + f.goTest.name
		}
	}
	opts.Repro = reproCommand(reproTarget, &f.target, false)
	opts.HangRepro = reproCommand(reproTarget, &f.target, true)
	opts.CommandLine = strings.Join(append([]string{"wafer"}, c.args...), " ")
	opts.Log = c.stderr
	opts.Status = c.stderr
	opts.StatusTTY = isTerminal(c.stderr)
	if lf {
		opts.Status, opts.StatusTTY = &libFuzzerStatus{w: c.stderr}, false
	}
	if lf && len(corpusDirs) > 0 {
		opts.CorpusDir = corpusDirs[0]
	}
	seedData := make([][]byte, len(seeds))
	for i, s := range seeds {
		seedData[i] = s.Data
	}
	if gt != nil {
		seedData = goSeeds
		if !useGen && typedStrategies[f.opts.Strategy] {
			gen, opts.ReadSeed = gt.generator(f.opts.MaxLen)
			useGen = true
		}
	}
	if f.grammar.path != "" && len(seeds) > 0 {
		if gen, opts.ReadSeed, seedData, err = c.grammarSeeds(f, seeds, seedData); err != nil {
			return err
		}
	}
	if read, ok := generators.LookupReader(f.generator); ok && useGen && f.grammar.path == "" && gt == nil && len(seeds) > 0 {
		opts.ReadSeed = read
		seedData = c.generatorSeeds(genFlag, gen, read, seeds, generators.Options{DictProb: opts.DictProb, IntBias: opts.IntBias})
	}
	if useGen && opts.ReadSeed != nil {
		opts.Generator, opts.Seeds = gen, seedData
	} else if useGen {
		opts.Generator = gen
		if len(seeds) > 0 {
			fmt.Fprintf(c.stderr, "INFO: %s: %d seed inputs not used (a generator starts from choice sequences)\n", genFlag, len(seeds))
		}
	} else {
		long, maxLen := 0, f.opts.MaxLen
		if maxLen <= 0 {
			maxLen = campaign.DefaultMaxLen
		}
		for _, s := range seedData {
			opts.Seeds = append(opts.Seeds, s)
			if len(s) > maxLen {
				long++
			}
		}
		if long > 0 {
			fmt.Fprintf(c.stderr, "INFO: %d seed inputs are longer than --max-len %d: they run whole, inputs made from them are cut to %d bytes\n", long, maxLen, maxLen)
		}
	}
	if lf {
		opts.OnStart = func(s campaign.Start) {
			fmt.Fprintf(c.stderr, "INFO: Seed: %d\n", f.opts.Seed)
			// with libFuzzer's ": N [...]" tail, which OSS-Fuzz's
			// bad_build_check greps for the number of edges
			fmt.Fprintf(c.stderr, "INFO: Loaded 1 modules   (%d inline 8-bit counters): %d [%s]\n", s.Counters, s.Counters, filepath.Base(target))
		}
	}
	search, done := c.campaignSettings()
	defer done()
	onStart := opts.OnStart
	opts.OnStart = func(s campaign.Start) {
		search()
		if onStart != nil {
			onStart(s)
		}
	}
	sum, err := tg.Fuzz(ctx, opts)
	if err != nil {
		if sum != nil {
			// What was found before the error is still reported (and
			// written as artifacts in libFuzzer mode).
			c.reportFindings(f, sum, lf, c.findingFailures(ctx, tg, sum, lf))
		}
		return err
	}
	code, err := c.reportFindings(f, sum, lf, c.findingFailures(ctx, tg, sum, lf))
	if err != nil {
		return err
	}
	if gt != nil && f.goTest.testdata {
		if err := gt.writeFindings(c, sum); err != nil {
			return err
		}
	}
	if !lf && out != "" {
		c.printSummary(f, reproTarget, out, sum)
	}
	if lf {
		if sum.Stop == campaign.StopCanceled {
			fmt.Fprintf(c.stderr, "==%d== libFuzzer: run interrupted; exiting\n", os.Getpid())
			if code == exitOK {
				code = exitInterrupted
			}
		} else {
			fmt.Fprintf(c.stderr, "Done %d runs in %d second(s)\n", sum.Stats.Execs, int64(sum.Elapsed/time.Second))
		}
	}
	if (lf && f.printFinalStats != 0) || (!lf && f.fs.Changed("print-final-stats") && f.printFinalStats != 0) {
		printFinalStats(c.stderr, finalStats{execs: uint64(sum.Stats.Execs), elapsed: sum.Elapsed, newUnits: uint64(len(sum.NewInputs))})
	}
	if code != exitOK {
		return &exitCodeError{code: code}
	}
	return nil
}

// readDicts reads AFL/libFuzzer dictionary files.
func readDicts(paths []string) ([][]byte, error) {
	var dict [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("-dict: %w", fileError(p, err))
		}
		toks, err := campaign.ParseDict(b)
		if err != nil {
			return nil, fmt.Errorf("-dict: %s: %w", p, err)
		}
		dict = append(dict, toks...)
	}
	return dict, nil
}

// findingKind is a failure's libFuzzer artifact kind and exit status.
func (f *fuzzFlags) findingKind(o campaign.Outcome, kind campaign.Kind) (string, int) {
	switch {
	case o == campaign.Hang:
		return "timeout", f.timeoutExitcode
	case kind == campaign.KindOutOfMemory, kind == campaign.KindMallocLimit:
		return "oom", exitOOM
	}
	return "crash", f.errorExitcode
}

// reportFindings prints each unique failure (libFuzzer's ERROR/SUMMARY
// lines in lf mode), writes libFuzzer artifacts when asked, and returns the
// exit status: crash beats out-of-memory beats hang.
func (c *cli) reportFindings(f *fuzzFlags, sum *campaign.Summary, lf bool, fails []*campaign.Failure) (int, error) {
	code := exitOK
	for i, fd := range sum.Findings {
		art, status := f.findingKind(fd.Outcome, fd.Kind)
		if lf {
			var fl *campaign.Failure
			if i < len(fails) {
				fl = fails[i]
			}
			printLibFuzzerFailure(c.stderr, art, fl, fd.Identity, fd.Report)
		} else {
			fmt.Fprintf(c.stdout, "found %s: %s\n", fd.Outcome, fd.Identity)
		}
		if lf || f.artifactPrefix != "" || f.exactArtifactPath != "" {
			if _, err := writeArtifact(c.stderr, f.artifactPrefix, f.exactArtifactPath, art, fd.Input); err != nil {
				return 0, err
			}
		}
		if code == exitOK || (code == f.timeoutExitcode && status != f.timeoutExitcode) || (code == exitOOM && status == f.errorExitcode) {
			code = status
		}
	}
	return code, nil
}

// findingFailures re-runs each finding of a libFuzzer-style campaign once
// for its failure with the Wasm stack's files and lines (the campaign's
// findings carry it as text); nil where that run did not fail the same
// way. Nil outside lf mode.
func (c *cli) findingFailures(ctx context.Context, tg *campaign.Target, sum *campaign.Summary, lf bool) []*campaign.Failure {
	if !lf || len(sum.Findings) == 0 {
		return nil
	}
	ctx = context.WithoutCancel(ctx) // an interrupted campaign still reports what it found
	maxLen := 0
	for _, fd := range sum.Findings {
		maxLen = max(maxLen, len(fd.Input))
	}
	rp, err := tg.NewReproducer(ctx, campaign.ReproOptions{MaxInputLen: maxLen})
	if err != nil {
		return nil
	}
	defer rp.Close()
	fails := make([]*campaign.Failure, len(sum.Findings))
	for i, fd := range sum.Findings {
		if r, err := rp.Run(ctx, fd.Input); err == nil && r.Identity == fd.Identity {
			fails[i] = r.Failure
		}
	}
	return fails
}

// stopNames are the words the summary line gives the stop reasons, named
// for the flag that set the limit.
var stopNames = map[campaign.Stop]string{campaign.StopRuns: "--runs", campaign.StopTime: "--max-total-time", campaign.StopCrash: "crash", campaign.StopCanceled: "interrupt"}

// printSummary prints the campaign's last lines: counts, why it stopped,
// and where each unique failure of the directory is with its repro
// command, grouped into bugs (campaign's Summary.Bugs).
func (c *cli) printSummary(f *fuzzFlags, target, out string, sum *campaign.Summary) {
	stop, ok := stopNames[sum.Stop]
	if !ok {
		stop = string(sum.Stop)
	}
	found := sum.FoundLine()
	if sum.Stats.Flaky > 0 {
		found += fmt.Sprintf(", %d flaky (did not crash again; in %s)", sum.Stats.Flaky, filepath.Join(out, "flaky"))
	}
	// The search's time, as the final stats give it; shrinking after it
	// apart.
	took := sum.Stats.Elapsed.Round(time.Millisecond).String()
	if st := sum.Stats.ShrinkTime.Round(time.Millisecond); st > 0 {
		took += fmt.Sprintf(" (then %s shrinking)", st)
	}
	fmt.Fprintf(c.stdout, "%s: %d executions in %s, stopped by %s; queue %d, %s; output in %s\n",
		filepath.Base(target), sum.Stats.Execs, took, stop, sum.Stats.Queue, found, out)
	for _, bug := range sum.Bugs() {
		if len(bug.States) > 1 {
			fmt.Fprintf(c.stdout, "  bug at %s, %d crash states:\n", bug.Site, len(bug.States))
		}
		for _, cf := range bug.States {
			repro := reproCommand(target, &f.target, cf.Hang)
			n := ""
			switch h := cf.SessionHits; {
			case h == 1:
				n = " (1 hit)"
			case h > 1:
				n = fmt.Sprintf(" (%d hits)", h)
			}
			fmt.Fprintf(c.stdout, "  %s: %s%s\n    %s\n", cf.Kind, cf.Path, n, strings.ReplaceAll(repro, "{input}", cf.Path))
		}
	}
}

// grammarFlags are --grammar and --grammar-start: a generator compiled from
// an ANTLR 4 grammar file (package generators/grammar), usable wherever
// --generator is.
type grammarFlags struct {
	path    string
	start   string
	wide    float64
	profile string // --grammar-profile's directory
	log     io.Writer

	gr      *grammar.Grammar // loaded once: a profile belongs to its grammar
	learned *grammar.Profile
}

func (g *grammarFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&g.path, "grammar", "", "generate inputs from the ANTLR 4 grammar `FILE` (.g4; its imports and tokenVocab from the same directory), like --generator")
	fs.StringVar(&g.start, "grammar-start", "", "the grammar's start `RULE` (default: its first parser rule)")
	fs.Float64Var(&g.wide, "grammar-wide-chars", 0, "the share `P` of tokens whose characters come from the whole range their sets allow, not only the printable part (0: 1/64; negative: never)")
	fs.StringVar(&g.profile, "grammar-profile", "", "draw alternatives, repetition counts and token texts as often as the files in `DIR` that parse have them (a grammar profile learned from samples: the seeds, say), not uniformly")
}

// options are the grammar generator's options the flags set (with
// --grammar-profile, once load learned it).
func (g *grammarFlags) options() grammar.Options {
	return grammar.Options{Start: g.start, WideChars: g.wide, Profile: g.learned}
}

// grammarSeeds parses the seeds with --grammar: the generator with its
// limits raised to fit them, the reader of their choice sequences, and
// the seeds that parse. Those that do not are named in one line.
func (c *cli) grammarSeeds(f *fuzzFlags, seeds []corpus.Seed, data [][]byte) (generators.Generator, func([]byte, generators.Options) (*generators.Sequence, error), [][]byte, error) {
	gr, err := f.grammar.load()
	if err != nil {
		return nil, nil, nil, err
	}
	names := make([]string, len(seeds))
	for i, s := range seeds {
		names[i] = s.Path
	}
	start := time.Now()
	ss, err := gr.ReadSeeds(f.grammar.options(), names, data)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--grammar %s: %w", f.grammar.path, err)
	}
	fmt.Fprintf(c.stderr, "INFO: --grammar %s: %d of %d seed inputs parse (%s)\n", f.grammar.path, len(ss.Parsed), len(data), time.Since(start).Round(time.Millisecond))
	if n := len(ss.Failed); n > 0 {
		var few []string
		for _, e := range ss.Failed[:min(n, 3)] {
			few = append(few, filepath.Base(e.Name))
		}
		more := ""
		if n > 3 {
			more = fmt.Sprintf(" and %d more", n-3)
		}
		fmt.Fprintf(c.stderr, "INFO: %d seed inputs do not parse and are left out: %s%s (the first: %v; wafer gen --parse shows why)\n", n, strings.Join(few, ", "), more, ss.Failed[0].Err)
	}
	if o := ss.Options; o.MaxDepth+o.MaxSize+o.MaxRepeat+o.MaxTokenRepeat > 0 {
		fmt.Fprintf(c.stderr, "INFO: --grammar %s: limits raised to fit the seeds: depth %d, size %d, repeat %d, token repeat %d (defaults %d, %d, %d, %d)\n", f.grammar.path,
			cmp.Or(o.MaxDepth, grammar.DefaultMaxDepth), cmp.Or(o.MaxSize, grammar.DefaultMaxSize), cmp.Or(o.MaxRepeat, grammar.DefaultMaxRepeat), cmp.Or(o.MaxTokenRepeat, grammar.DefaultMaxTokenRepeat),
			grammar.DefaultMaxDepth, grammar.DefaultMaxSize, grammar.DefaultMaxRepeat, grammar.DefaultMaxTokenRepeat)
	}
	return ss.Generator, ss.ReadSeed, ss.Parsed, nil
}

// generatorSeeds reads the seeds back with a built-in generator's reader
// (--generator json): those it reads, in one line with how many
// regenerate byte for byte, and the others named in one more.
func (c *cli) generatorSeeds(flag string, gen generators.Generator, read generators.SeedReader, seeds []corpus.Seed, gopts generators.Options) [][]byte {
	var ok [][]byte
	var failed []string
	var firstErr error
	same := 0
	for _, s := range seeds {
		q, err := read(s.Data, gopts)
		if err != nil {
			failed = append(failed, filepath.Base(s.Path))
			firstErr = cmp.Or(firstErr, fmt.Errorf("%s: %w", s.Path, err))
			continue
		}
		if out, _ := generators.Run(gen, q, gopts); bytes.Equal(out, s.Data) {
			same++
		}
		ok = append(ok, s.Data)
	}
	fmt.Fprintf(c.stderr, "INFO: %s: %d of %d seed inputs read back into choice sequences (%d regenerate byte for byte, the others as the same value)\n", flag, len(ok), len(seeds), same)
	if n := len(failed); n > 0 {
		more := ""
		if n > 3 {
			more = fmt.Sprintf(" and %d more", n-3)
		}
		fmt.Fprintf(c.stderr, "INFO: %d seed inputs the generator does not make are left out: %s%s (the first: %v)\n", n, strings.Join(failed[:min(n, 3)], ", "), more, firstErr)
	}
	return ok
}

// load reads the grammar of --grammar, once, and learns the profile of
// --grammar-profile's files with it.
func (g *grammarFlags) load() (*grammar.Grammar, error) {
	if g.gr != nil {
		return g.gr, nil
	}
	gr, err := grammar.Load(g.path)
	if err != nil {
		return nil, fmt.Errorf("--grammar: %w", err)
	}
	if g.profile != "" {
		if g.learned, err = g.learn(gr); err != nil {
			return nil, err
		}
	}
	g.gr = gr
	return gr, nil
}

// learn returns the profile of the files of --grammar-profile that parse
// with gr; none parsing is an error.
func (g *grammarFlags) learn(gr *grammar.Grammar) (*grammar.Profile, error) {
	files, _, err := corpus.ReadSeeds(context.Background(), nil, g.profile)
	if err != nil {
		return nil, fmt.Errorf("--grammar-profile: %w", err)
	}
	names := make([]string, len(files))
	data := make([][]byte, len(files))
	for i, f := range files {
		names[i], data[i] = f.Path, f.Data
	}
	ss, err := gr.ReadSeeds(g.options(), names, data)
	if err != nil {
		return nil, fmt.Errorf("--grammar %s: %w", g.path, err)
	}
	if len(ss.Parsed) == 0 {
		why := ""
		if len(ss.Failed) > 0 {
			why = fmt.Sprintf(" (the first: %v)", ss.Failed[0].Err)
		}
		return nil, fmt.Errorf("--grammar-profile %s: none of its %d files parse with %s%s", g.profile, len(files), g.path, why)
	}
	if g.log != nil {
		why := ""
		if len(ss.Parsed) < len(files) {
			why = " (the others do not parse)"
		}
		fmt.Fprintf(g.log, "INFO: --grammar-profile %s: learned from %d of %d files%s\n", g.profile, len(ss.Parsed), len(files), why)
	}
	return ss.Profile(), nil
}

// seedReader reads the grammar and prepares its seed parser.
func (g *grammarFlags) seedReader() (*grammar.SeedReader, error) {
	gr, err := g.load()
	if err != nil {
		return nil, err
	}
	sr, err := gr.NewSeedReader(g.options())
	if err != nil {
		return nil, fmt.Errorf("--grammar %s: %w", g.path, err)
	}
	return sr, nil
}

// generator compiles the grammar; ok is false without --grammar.
func (g *grammarFlags) generator() (gen generators.Generator, ok bool, err error) {
	if g.path == "" {
		return nil, false, nil
	}
	gr, err := g.load()
	if err != nil {
		return nil, false, err
	}
	gen, err = gr.Generator(g.options())
	if err != nil {
		return nil, false, fmt.Errorf("--grammar %s: %w", g.path, err)
	}
	return gen, true, nil
}

// syncName returns the campaign name of AFL's -M or -S (empty without
// either): a plain directory name, as afl-fuzz requires.
func (f *fuzzFlags) syncName() (string, error) {
	name, flag := f.syncMain, "-M"
	if f.syncSecondary != "" {
		if name != "" {
			return "", usagef("-M and -S exclude each other (one campaign name)")
		}
		name, flag = f.syncSecondary, "-S"
	}
	if f.syncMain == "" && f.syncSecondary == "" {
		return "", nil
	}
	if name == "." || name == ".." || strings.HasPrefix(name, ".") || strings.ContainsAny(name, `/\`) {
		return "", usagef("%s: expected a campaign name (letters, digits, -, _; no path and no leading dot), got %q", flag, name)
	}
	return name, nil
}

// campaignSettings puts the process's memory settings of a campaign's
// start in place: the soft limit c.startMemoryLimit while it instruments
// and compiles. search switches to the search's (at Options.OnStart): the
// previous limit, the start's garbage handed back to the system, and GOGC
// c.searchGCPercent; done puts back what search or the start changed. Each
// acts once, however often it is called; zero fields change nothing.
func (c *cli) campaignSettings() (search, done func()) {
	prevLimit, prevGC := int64(-1), -1
	if c.startMemoryLimit > 0 {
		prevLimit = debug.SetMemoryLimit(c.startMemoryLimit)
	}
	var searchOnce, doneOnce sync.Once
	search = func() {
		searchOnce.Do(func() {
			if prevLimit >= 0 {
				debug.SetMemoryLimit(prevLimit)
				debug.FreeOSMemory()
			}
			if c.searchGCPercent > 0 {
				prevGC = debug.SetGCPercent(c.searchGCPercent)
			}
		})
	}
	done = func() {
		doneOnce.Do(func() {
			search() // a campaign that never started lifts the limit too
			if prevGC >= 0 {
				debug.SetGCPercent(prevGC)
			}
		})
	}
	return search, done
}
