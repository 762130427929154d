package wafertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/wafer-fuzz/wafer/campaign"
	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/generators"
)

// EnvFuzz is the environment variable that turns a plain `go test` into
// a campaign: WAFER_FUZZ=1 (any value but "" and "0").
const EnvFuzz = "WAFER_FUZZ"

// DefaultMaxTotalTime is a campaign's budget when Options gives none.
const DefaultMaxTotalTime = 10 * time.Second

// Options configure Fuzz. The zero value replays the corpus, and with
// WAFER_FUZZ=1 fuzzes raw bytes with havoc for DefaultMaxTotalTime.
type Options struct {
	// Generator makes inputs from choice sequences; nil fuzzes raw bytes
	// (the corpus files are then the seeds).
	Generator generators.Generator
	// Strategy is the search strategy (campaign.Strategies); empty means
	// havoc without a Generator, zest with one.
	Strategy string
	// Target says how the module is built and run.
	Target campaign.TargetOptions
	// MaxTotalTime is the campaign's budget; zero means
	// DefaultMaxTotalTime, unless Runs is set.
	MaxTotalTime time.Duration
	// Runs stops the campaign after this many executions; zero means no
	// limit but the time.
	Runs int64
	// Seed seeds the campaign's PRNGs: the same seed gives the same
	// executions.
	Seed uint64
	// Seeds are inputs the campaign starts from besides the corpus files
	// (raw mode).
	Seeds [][]byte
	// Workers is the number of parallel workers; zero means 1.
	Workers int
	// Fuzz runs the campaign whatever the environment says.
	Fuzz bool
}

// TB is the part of testing.TB that Fuzz uses (*testing.T has it).
type TB interface {
	Helper()
	Name() string
	Context() context.Context
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
}

// Fuzz replays the corpus of the test t, and with WAFER_FUZZ=1 (or
// opts.Fuzz) runs a campaign on the module at wasmPath (see the package
// doc). It fails t for each failing input.
func Fuzz(t TB, wasmPath string, opts Options) {
	t.Helper()
	wasm, err := os.ReadFile(wasmPath)
	if err != nil {
		t.Fatalf("wafertest: %v", err)
		return
	}
	target, err := campaign.Load(wasmPath, wasm, opts.Target)
	if err != nil {
		t.Fatalf("wafertest: %v", err)
		return
	}
	ctx := t.Context()
	dir := CorpusDir(t.Name())
	seeds, err := readCorpus(ctx, t, dir, filepath.Join("testdata", "fuzz", t.Name()))
	if err != nil {
		t.Fatalf("wafertest: %v", err)
		return
	}
	if !fuzzing(opts) || opts.Generator != nil {
		// (a campaign with a generator does not start from inputs)
		replay(ctx, t, target, seeds)
	}
	if fuzzing(opts) {
		fuzz(ctx, t, target, dir, seeds, &opts)
	}
}

// CorpusDir is the directory of a test's saved inputs:
// testdata/wafer/<test name>, a sub-test's in its parent's.
func CorpusDir(testName string) string {
	return filepath.Join("testdata", "wafer", filepath.FromSlash(safeName(testName)))
}

// safeName keeps a test name's characters that are safe in a path on
// every OS ("/" separates a sub-test's directory).
func safeName(name string) string {
	return regexp.MustCompile(`[^A-Za-z0-9_./-]`).ReplaceAllString(name, "_")
}

func fuzzing(opts Options) bool {
	v := os.Getenv(EnvFuzz)
	return opts.Fuzz || (v != "" && v != "0")
}

// readCorpus reads the inputs in the directories among dirs that exist:
// their files, not their subdirectories, which hold sub-tests' inputs.
func readCorpus(ctx context.Context, t TB, dirs ...string) ([]corpus.Seed, error) {
	var files []string
	for _, d := range dirs {
		des, err := os.ReadDir(d)
		if err != nil {
			continue // no corpus yet
		}
		for _, de := range des {
			if !de.IsDir() && !strings.HasPrefix(de.Name(), ".") {
				files = append(files, filepath.Join(d, de.Name()))
			}
		}
	}
	if len(files) == 0 {
		return nil, nil
	}
	seeds, skipped, err := corpus.ReadSeeds(ctx, nil, files...)
	if err != nil {
		return nil, err
	}
	if skipped != nil {
		t.Logf("wafertest: %v", skipped)
	}
	return seeds, nil
}

// replay runs each corpus input once and fails t for each crash or hang.
func replay(ctx context.Context, t TB, target *campaign.Target, seeds []corpus.Seed) {
	t.Helper()
	if len(seeds) == 0 {
		return
	}
	maxIn := 0
	for _, s := range seeds {
		maxIn = max(maxIn, len(s.Data))
	}
	rp, err := target.NewReproducer(ctx, campaign.ReproOptions{MaxInputLen: maxIn})
	if err != nil {
		t.Fatalf("wafertest: %v", err)
		return
	}
	defer rp.Close()
	for _, s := range seeds {
		r, err := rp.Run(ctx, s.Data)
		if err != nil {
			t.Fatalf("wafertest: %s: %v", s.Path, err)
			return
		}
		if r.Outcome.Failed() {
			t.Errorf("%s", failureText(t.Name(), target.Name(), s.Path, r.Outcome, r.Report))
		}
	}
}

// fuzz runs the campaign, saves each failing input under dir and fails t
// for it.
func fuzz(ctx context.Context, t TB, target *campaign.Target, dir string, seeds []corpus.Seed, opts *Options) {
	t.Helper()
	co := campaign.Options{Search: campaign.Search{Strategy: opts.Strategy, Seed: opts.Seed, Workers: opts.Workers, Runs: opts.Runs, MaxTotalTime: opts.MaxTotalTime}, Generator: opts.Generator, Seeds: append([][]byte(nil), opts.Seeds...)}
	if co.MaxTotalTime == 0 && co.Runs == 0 {
		co.MaxTotalTime = DefaultMaxTotalTime
	}
	if opts.Generator == nil {
		for _, s := range seeds {
			co.Seeds = append(co.Seeds, s.Data)
		}
	}
	sum, err := target.Fuzz(ctx, co)
	if err != nil && sum == nil {
		t.Fatalf("wafertest: %v", err)
		return
	}
	t.Logf("wafertest: %d executions in %s, stopped by %s; %d new inputs, %d failures",
		sum.Stats.Execs, sum.Elapsed.Round(time.Millisecond), sum.Stop, len(sum.NewInputs), len(sum.Findings))
	for _, f := range sum.Findings {
		path, werr := corpus.Flat{Path: dir}.Write(context.WithoutCancel(ctx), f.Outcome.String()+"-", f.Input)
		if werr != nil {
			t.Errorf("wafertest: saving a failing input: %v", werr)
			continue
		}
		t.Errorf("%s", failureText(t.Name(), target.Name(), path, f.Outcome, f.Report))
	}
	if err != nil {
		t.Fatalf("wafertest: %v", err)
	}
}

// failureText is a failing input's message: the report (failure, Wasm
// stack with source lines, output tails) and the commands that reproduce
// it: the test itself, and wafer's repro with the campaign's fuel for a
// hang.
func failureText(test, wasmPath, input string, o campaign.Outcome, report string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", input, o)
	for _, l := range strings.Split(strings.TrimRight(report, "\n"), "\n") {
		fmt.Fprintf(&b, "    %s\n", l)
	}
	parts := strings.Split(test, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	fmt.Fprintf(&b, "reproduce with:\n    go test -run '%s' .\n", strings.Join(parts, "/"))
	fuel := ""
	if o == campaign.Hang {
		fuel = fmt.Sprintf("--fuel %d ", campaign.DefaultFuel)
	}
	fmt.Fprintf(&b, "    wafer repro %s%s %s", fuel, wasmPath, input)
	return b.String()
}
