package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/wafer-fuzz/wafer/campaign"
	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/covreport"
	"github.com/wafer-fuzz/wafer/internal/atomicfile"
	"github.com/wafer-fuzz/wafer/plot"
)

const covHelp = `usage: wafer cov [-o DIR] [--lcov FILE] [--source-root DIR]... TARGET.wasm|PKG:FuzzXxx CORPUS_DIR|FILE...

Replays a corpus (a campaign's output directory, whose queue/ is read, a
libFuzzer corpus directory, or input files) on TARGET.wasm instrumented as
'wafer fuzz' builds it, or on a Go package's fuzz test as 'wafer fuzz
PKG:FuzzXxx' builds and runs it, and writes a coverage report: DIR/index.html
lists the source files and functions by uncovered branch arms, with a page
per source file marking every line covered, partly covered (an arm of its
branch never taken, named on the page) or not covered, and a page per
function without source. Sources are read at their DWARF paths (a Go
module's: its own line table's, with Go's names; its main module's
packages are the program, other modules' its dependencies, the runtime
and standard library apart), or under --source-root when they moved.
With a campaign's output directory the
summary page shows its plot. Inputs that crash or hang are listed and add
no coverage, as in the campaign. Prints a one-line summary; the branch
numbers are the campaign's edges_found and valid_edges.

examples:
  wafer cov -o tlv-cov tlv-out examples/tlv/tlv.wasm
  wafer cov --lcov tlv.info -o tlv-cov examples/tlv/tlv.wasm tlv-out
  wafer cov --skip 'runtime.*' --source-root ~/src/app -o cov app.wasm corpus/
  wafer cov --source-root . --source-root "$(go env GOMODCACHE)" --source-root "$(go env GOROOT)/src" -o cov app.wasm app-out
`

type covFlags struct {
	fs          *pflag.FlagSet
	out         string
	lcov        string
	sourceRoots []string
	target      targetFlags
	goTest      goTestFlags
}

func newCovFlags() *covFlags {
	f := &covFlags{fs: newFlagSet("cov")}
	f.fs.StringVarP(&f.out, "output", "o", "wafer-cov", "write the HTML report into `DIR`")
	f.fs.StringVar(&f.lcov, "lcov", "", "also write an lcov tracefile to `FILE` (genhtml, Codecov, editors' coverage gutters)")
	f.fs.StringArrayVar(&f.sourceRoots, "source-root", nil, "look for source files under `DIR` when their DWARF paths do not exist (repeatable)")
	f.target.register(f.fs)
	f.goTest.register(f.fs, false)
	return f
}

func (c *cli) cov(ctx context.Context, args []string) error {
	f := newCovFlags()
	if err := parseFlags(f.fs, args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return c.help(ctx, []string{"cov"})
		}
		return err
	}
	if f.fs.NArg() < 2 {
		return usagef("cov: expected TARGET.wasm and at least one CORPUS_DIR, got %d arguments (run 'wafer help cov')", f.fs.NArg())
	}
	target, dirs := f.fs.Arg(0), f.fs.Args()[1:]
	name := filepath.Base(target)
	// PKG:FuzzXxx: the build a campaign of it ran (the same cache), with
	// the files near the package the test may read.
	if test, built, err := f.goTest.resolve(ctx, c, target, &f.target); err != nil {
		return err
	} else if test != nil {
		target, name = built, test.ImportPath+":"+test.Name
	}
	wasm, err := readModule(target)
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); err != nil {
			return fileError(d, err)
		}
	}
	if f.lcov != "" {
		if err := ensureWritableFile(f.lcov); err != nil {
			return err
		}
	}
	if err := ensureWritableDir(f.out); err != nil {
		return err
	}
	seeds, err := c.readSeeds(ctx, dirs)
	if err != nil {
		return err
	}
	if len(seeds) == 0 {
		return fmt.Errorf("cov: no inputs in %v", dirs)
	}
	cov, err := c.replayCorpus(ctx, target, wasm, &f.target, seeds)
	if err != nil {
		return err
	}
	opts := covreport.Options{Target: name, SourceRoots: f.sourceRoots}
	// The campaigns among the corpus directories: their plot on the
	// summary page.
	var series []plot.Series
	for _, d := range dirs {
		if s, err := plot.Read(d); err == nil {
			series = append(series, s)
		}
	}
	if len(series) > 0 {
		if opts.PlotSVG, err = plot.Render(series, plot.Options{}, "svg"); err != nil {
			return err
		}
	}
	rep := covreport.Build(cov, opts)
	if err := rep.WriteHTML(f.out); err != nil {
		return err
	}
	if f.lcov != "" {
		if err := atomicfile.Write(f.lcov, rep.LCOV()); err != nil {
			return err
		}
	}
	fmt.Fprintf(c.stdout, "%s; report in %s\n", rep.Summary(), filepath.Join(f.out, covreport.IndexPage))
	return nil
}

// replayCorpus runs every seed once on the campaign's build
// (campaign.Replayer: counters, fuel, dirty pages, the same --skip) and
// hands each outcome and counter view to a covreport.Coverage.
func (c *cli) replayCorpus(ctx context.Context, target string, wasm []byte, t *targetFlags, seeds []corpus.Seed) (*covreport.Coverage, error) {
	tg, err := t.loadTarget(ctx, target, wasm)
	if err != nil {
		return nil, err
	}
	rp, err := tg.NewReplayer(ctx, maxSeedLen(seeds))
	if err != nil {
		return nil, err
	}
	defer rp.Close()
	cov := covreport.NewCoverage(rp.SiteMap())
	for _, s := range seeds {
		r, err := rp.Run(ctx, s.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Path, err)
		}
		in := covreport.Input{Path: s.Path, Size: len(s.Data)}
		switch r.Outcome {
		case campaign.Valid:
			in.Outcome = covreport.Valid
		case campaign.Invalid:
			in.Outcome = covreport.Invalid
		case campaign.Crash:
			in.Outcome = covreport.Crash
		case campaign.Hang:
			in.Outcome = covreport.Hang
		}
		if r.Failure != nil {
			in.Failure = r.Failure.Error()
			if top := r.Failure.Top(); top != "" {
				in.Failure += " in " + top
			}
		}
		if err := cov.Add(in, r.Counters); err != nil {
			return nil, err
		}
	}
	return cov, nil
}
