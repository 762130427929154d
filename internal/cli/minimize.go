package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/wafer-fuzz/wafer/campaign"
	"github.com/wafer-fuzz/wafer/internal/atomicfile"
)

const minimizeHelp = `usage: wafer minimize [flags] TARGET.wasm CRASH_FILE

Shrinks a failing input while its failure identity (kind and top frames of
the Wasm stack) stays the same, and writes the smallest one found.

examples:
  wafer minimize -o small.bin examples/tlv/tlv.wasm examples/tlv/testdata/crash-padded
  wafer minimize --runs 5000 examples/tlv/tlv.wasm tlv-out/crashes/id:000000,kind:divide-by-zero,op:havoc
`

type minimizeFlags struct {
	fs           *pflag.FlagSet
	out          string
	runs         int64
	maxTotalTime seconds
	target       targetFlags
}

func newMinimizeFlags() *minimizeFlags {
	f := &minimizeFlags{fs: newFlagSet("minimize")}
	f.fs.StringVarP(&f.out, "output", "o", "", "write the minimised input to `FILE` (default: minimized-from-<sha1> next to the input)")
	f.fs.Int64Var(&f.runs, "runs", 10000, "at most `N` executions")
	f.fs.Var(&f.maxTotalTime, "max-total-time", "stop after this long (seconds or duration; 0: no limit)")
	f.target.register(f.fs)
	return f
}

func (c *cli) minimize(ctx context.Context, args []string) error {
	f := newMinimizeFlags()
	if err := parseFlags(f.fs, args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return c.help(ctx, []string{"minimize"})
		}
		return err
	}
	if f.fs.NArg() != 2 {
		return usagef("minimize: expected TARGET.wasm and one crash file, got %d arguments (run 'wafer help minimize')", f.fs.NArg())
	}
	wasm, err := readModule(f.fs.Arg(0))
	if err != nil {
		return err
	}
	return c.minimizeInput(ctx, f, wasm, f.fs.Arg(1))
}

// shrink minimises the failing input at path and returns the original and
// the result.
func (c *cli) shrink(ctx context.Context, target string, wasm []byte, t *targetFlags, path string, runs int64) (orig []byte, m campaign.Minimized, err error) {
	seeds, err := c.readSeeds(ctx, []string{path})
	if err != nil {
		return nil, m, err
	}
	if len(seeds) != 1 {
		return nil, m, fmt.Errorf("%s: expected one input file", path)
	}
	orig = seeds[0].Data
	tg, err := t.loadTarget(ctx, target, wasm)
	if err != nil {
		return nil, m, err
	}
	m, err = tg.Minimize(ctx, orig, campaign.MinimizeOptions{Runs: runs, Log: c.stderr, Name: path})
	if errors.Is(err, campaign.ErrNoFailure) {
		return nil, m, fmt.Errorf("%s: %w", path, err)
	}
	return orig, m, err
}

func (c *cli) runMinimize(ctx context.Context, f *fuzzFlags, wasm []byte, crash string) error {
	if d := f.budget(); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	orig, m, err := c.shrink(ctx, f.fs.Arg(0), wasm, &f.target, crash, f.runs)
	if err != nil {
		return err
	}
	out := f.exactArtifactPath
	if out == "" {
		out = artifactName(f.artifactPrefix, "minimized-from", orig)
	}
	atomicfile.RemoveTemps(out) // a killed minimize's
	if err := atomicfile.Write(out, m.Input); err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "CRASH_MIN: minimized %d bytes to %d in %d runs; written to %s\n", len(orig), len(m.Input), m.Runs, out)
	return nil
}

func (c *cli) minimizeInput(ctx context.Context, f *minimizeFlags, wasm []byte, crash string) error {
	if d := time.Duration(f.maxTotalTime); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	if f.out != "" {
		if err := ensureWritableFile(f.out); err != nil {
			return err
		}
	}
	orig, m, err := c.shrink(ctx, f.fs.Arg(0), wasm, &f.target, crash, f.runs)
	if err != nil {
		return err
	}
	out := f.out
	if out == "" {
		out = filepath.Join(filepath.Dir(crash), artifactName("", "minimized-from", orig)) // next to the input, as the help says
	}
	atomicfile.RemoveTemps(out) // a killed minimize's
	if err := atomicfile.Write(out, m.Input); err != nil {
		return err
	}
	state := "local minimum"
	if !m.Done {
		state = "budget spent"
	}
	fmt.Fprintf(c.stdout, "%s: %d -> %d bytes in %d runs (%s), same failure: %s\nwritten to %s\n",
		crash, len(orig), len(m.Input), m.Runs, state, m.Identity, out)
	return nil
}
