package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/wafer-fuzz/wafer/campaign"
	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/evalstats"
	"github.com/wafer-fuzz/wafer/internal/atomicfile"
	"github.com/wafer-fuzz/wafer/plot"
)

const compareHelp = `usage: wafer compare [--strategies a,b,...] [--seeds N] [--runs N | --max-total-time D] [-o DIR] TARGET.wasm [flags of wafer fuzz]

Runs a campaign of each strategy on TARGET.wasm with seeds 1..N, one at a
time, each with the same budget: --runs executions (the default, so the
machine's load does not change the result) or --max-total-time. Campaigns
keep going after crashes. Prints and writes to DIR/compare.txt, per
strategy and metric, the median [min, max] over seeds of branch coverage
(all and valid runs), valid %, unique traces, B(0..2), unique crashes,
executions to the first crash and execs/s, with the Mann-Whitney U p-value
and the Vargha-Delaney A12 of each strategy against the first; draws
coverage over executions of every campaign into DIR/compare.svg. Each
campaign's output directory stays, as DIR/STRATEGY-seedN, for wafer cov and
wafer plot. A strategy auto:ARM+ARM+... is the portfolio of those arms
(--strategy auto --auto-arms ARM,ARM,...; its directories are named
auto-ARM+ARM+...-seedN). With 3 seeds the exact test cannot go below
p=0.1: use 10 or more seeds for significance.

examples:
  wafer compare --strategies havoc,random --seeds 10 --runs 1000000 examples/tlv/tlv.wasm
  wafer compare --strategies havoc,zest --seeds 5 --max-total-time 60 -o cmp examples/cexpr/cexpr.wasm -i examples/cexpr/seeds
  wafer compare --strategies zest,auto,auto:zest+spoton+tree --runs 20000 examples/gojson/gojson.wasm --grammar generators/grammars/JSON.g4
`

type compareFlags struct {
	fs         *pflag.FlagSet
	strategies string
	seeds      int
	runs       int64
	maxTime    seconds
	out        string
}

func newCompareFlags() *compareFlags {
	f := &compareFlags{fs: newFlagSet("compare")}
	f.fs.StringVar(&f.strategies, "strategies", "havoc,zest", "comma-separated strategies, the first the baseline: "+strings.Join(campaign.Strategies(), ", "))
	f.fs.IntVar(&f.seeds, "seeds", 5, "campaigns per strategy, with seeds 1..`N`")
	f.fs.Int64Var(&f.runs, "runs", 0, "executions per campaign (default 1000000 unless --max-total-time)")
	f.fs.Var(&f.maxTime, "max-total-time", "time per campaign instead of executions (seconds or duration)")
	f.fs.StringVarP(&f.out, "output", "o", "wafer-compare", "`DIR` of the campaigns' output directories, the table and the plot")
	return f
}

// splitCompareArgs takes compare's own flags (in any spelling pflag
// accepts: --runs 5, --runs=5, -runs=5, -o DIR) out of args; the rest are
// wafer fuzz's, the target among them.
func splitCompareArgs(f *compareFlags, args []string) (own, fuzz []string) {
	for i := 0; i < len(args); i++ {
		a := translateArgs(args[i : i+1])[0]
		var name string
		hasValue := false
		switch {
		case a == "-o":
			name = "output"
		case strings.HasPrefix(a, "-o="):
			name, hasValue = "output", true
		case strings.HasPrefix(a, "--") && len(a) > 2:
			name, _, hasValue = strings.Cut(a[2:], "=")
			name = strings.ReplaceAll(name, "_", "-")
		}
		fl := f.fs.Lookup(name)
		if fl == nil {
			fuzz = append(fuzz, args[i])
			continue
		}
		own = append(own, a)
		if !hasValue && i+1 < len(args) {
			i++
			own = append(own, args[i])
		}
	}
	return own, fuzz
}

func (c *cli) compare(ctx context.Context, args []string) error {
	f := newCompareFlags()
	own, fuzzArgs := splitCompareArgs(f, args)
	if slices.Contains(args, "-h") || slices.Contains(args, "--help") {
		return c.help(ctx, []string{"compare"})
	}
	if err := parseFlags(f.fs, own); err != nil {
		return err
	}
	strategies := strings.Split(f.strategies, ",")
	for _, s := range strategies {
		name, arms, ok := strings.Cut(s, ":")
		if !slices.Contains(campaign.Strategies(), name) || ok && name != "auto" {
			return usagef("--strategies: expected names from %s, or auto:ARM+ARM+..., got %q", strings.Join(campaign.Strategies(), ", "), s)
		}
		for _, a := range strings.Split(arms, "+") {
			if ok && (a == "auto" || !slices.Contains(campaign.Strategies(), a)) {
				return usagef("--strategies: expected arms of auto from %s, got %q in %q", strings.Join(slices.DeleteFunc(campaign.Strategies(), func(s string) bool { return s == "auto" }), ", "), a, s)
			}
		}
	}
	if f.seeds < 1 {
		return usagef("--seeds: expected at least 1, got %d", f.seeds)
	}
	if f.runs != 0 && f.maxTime != 0 {
		return usagef("compare: --runs and --max-total-time are two budgets: give one")
	}
	if f.runs == 0 && f.maxTime == 0 {
		f.runs = 1_000_000
	}
	// The fuzz flags are checked once before any campaign runs.
	probe := newFuzzFlags()
	if err := probe.parse(fuzzArgs); err != nil {
		return err
	}
	for _, name := range []string{"strategy", "seed", "runs", "max-total-time", "output", "keep-going"} {
		if probe.fs.Changed(name) {
			return usagef("compare: --%s is compare's to set for every campaign", name)
		}
	}
	if probe.fs.NArg() < 1 {
		return usagef("compare: missing TARGET.wasm (run 'wafer help compare')")
	}
	if err := ensureWritableDir(f.out); err != nil {
		return err
	}
	var campaigns []evalstats.Campaign
	var series []plot.Series
	for _, s := range strategies {
		for seed := 1; seed <= f.seeds; seed++ {
			dir := filepath.Join(f.out, fmt.Sprintf("%s-seed%d", strings.ReplaceAll(s, ":", "-"), seed))
			if des, err := os.ReadDir(dir); err == nil && len(des) > 0 {
				return fmt.Errorf("%s: exists and is not empty: a campaign there would resume; remove it or choose another -o", dir)
			}
			budget := []string{"--runs", strconv.FormatInt(f.runs, 10)}
			if f.maxTime != 0 {
				budget = []string{"--max-total-time", f.maxTime.String()}
			}
			name, arms, ok := strings.Cut(s, ":")
			run := append(append(slices.Clone(fuzzArgs), budget...), "--strategy", name, "--seed", strconv.Itoa(seed), "--keep-going", "-o", dir)
			if ok {
				run = append(run, "--auto-arms", strings.ReplaceAll(arms, "+", ","))
			}
			fmt.Fprintf(c.stderr, "compare: %s seed %d -> %s\n", s, seed, dir)
			camp, err := c.compareCampaign(ctx, s, uint64(seed), dir, run)
			if err != nil {
				return err
			}
			campaigns = append(campaigns, camp)
			ps, err := plot.Read(dir)
			if err != nil {
				return err
			}
			ps.Name = s
			series = append(series, ps)
		}
	}
	table := evalstats.Compare(campaigns, strategies).Format()
	header := fmt.Sprintf("wafer compare: %s, %d seeds per strategy, budget %s per campaign\n", filepath.Base(probe.fs.Arg(0)), f.seeds, budgetText(f))
	fmt.Fprint(c.stdout, header+table)
	if err := atomicfile.Write(filepath.Join(f.out, "compare.txt"), []byte(header+table)); err != nil {
		return err
	}
	return plot.Write(filepath.Join(f.out, "compare.svg"), series, plot.Options{X: plot.Execs, Title: "coverage over executions: " + strings.Join(strategies, " vs ")})
}

func budgetText(f *compareFlags) string {
	if f.maxTime != 0 {
		return f.maxTime.String()
	}
	return fmt.Sprintf("%d executions", f.runs)
}

// compareCampaign is wafer compare's one adapter to the wiring: it runs
// one campaign as 'wafer fuzz ARGS' would (its output quiet, its log in
// DIR.log), then reads the campaign's final fuzzer_stats and the
// executions at its first crash from the output directory. When the
// wiring moves to a public package, this is the function to re-point.
func (c *cli) compareCampaign(ctx context.Context, strategy string, seed uint64, dir string, args []string) (evalstats.Campaign, error) {
	log, err := os.Create(dir + ".log")
	if err != nil {
		return evalstats.Campaign{}, err
	}
	defer log.Close()
	quiet := &cli{stdout: log, stderr: log, args: append([]string{"fuzz"}, args...)}
	start := time.Now()
	err = quiet.fuzz(ctx, args)
	var ec *exitCodeError
	if err != nil && !errors.As(err, &ec) {
		return evalstats.Campaign{}, fmt.Errorf("campaign %s seed %d: %w (log in %s.log)", strategy, seed, err, dir)
	}
	fmt.Fprintf(c.stderr, "compare: %s seed %d done in %s\n", strategy, seed, time.Since(start).Round(time.Millisecond))
	data, err := os.ReadFile(filepath.Join(dir, corpus.StatsFile))
	if err != nil {
		return evalstats.Campaign{}, fileError(filepath.Join(dir, corpus.StatsFile), err)
	}
	st, err := corpus.ParseStats(data)
	if err != nil {
		return evalstats.Campaign{}, fmt.Errorf("%s: %w", filepath.Join(dir, corpus.StatsFile), err)
	}
	d, _, err := corpus.Open(ctx, dir, corpus.Options{})
	if err != nil {
		return evalstats.Campaign{}, err
	}
	defer d.Close()
	var first uint64
	for _, fl := range d.Failures() {
		if !fl.Hang && (first == 0 || fl.Execs < first) {
			first = max(fl.Execs, 1)
		}
	}
	return evalstats.FromStats(strategy, seed, dir, st, first), nil
}
