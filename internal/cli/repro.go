package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/wafer-fuzz/wafer/campaign"
	"github.com/wafer-fuzz/wafer/corpus"
)

const reproHelp = `usage: wafer repro [flags] TARGET.wasm INPUT|DIR...

Runs each input once, deterministically, exactly as the campaign ran it,
and prints its outcome (valid, invalid, crash, hang), the failure text and
the Wasm stack (function, file:line when the module has DWARF).

exit status: 0 every input valid or invalid, 77 a crash, 71 out of memory,
70 a hang, 1 wafer error, 2 bad invocation (a campaign's statuses).

examples:
  wafer repro examples/tlv/tlv.wasm tlv-out/crashes/id:000000,kind:divide-by-zero,op:havoc
  wafer repro examples/tlv/tlv.wasm examples/tlv/testdata
  wafer repro --harness command --invalid-exit-code 1 examples/gostdin/gostdin.wasm examples/gostdin/seeds/doc.xml
`

type reproFlags struct {
	fs     *pflag.FlagSet
	target targetFlags
	output bool
}

func newReproFlags() *reproFlags {
	f := &reproFlags{fs: newFlagSet("repro")}
	f.target.register(f.fs)
	f.fs.BoolVar(&f.output, "output", false, "also print the target's captured stdout and stderr")
	return f
}

func (c *cli) repro(ctx context.Context, args []string) error {
	f := newReproFlags()
	if err := parseFlags(f.fs, args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return c.help(ctx, []string{"repro"})
		}
		return err
	}
	if f.fs.NArg() < 2 {
		return usagef("repro: expected TARGET.wasm and at least one input, got %d arguments (run 'wafer help repro')", f.fs.NArg())
	}
	wasm, err := readModule(f.fs.Arg(0))
	if err != nil {
		return err
	}
	return c.reproInputs(ctx, f, wasm, f.fs.Args()[1:])
}

func (c *cli) reproInputs(ctx context.Context, f *reproFlags, wasm []byte, inputs []string) error {
	for _, p := range inputs {
		if _, err := os.Stat(p); err != nil {
			return fileError(p, err)
		}
	}
	seeds, err := c.readSeeds(ctx, inputs)
	if err != nil {
		return err
	}
	if len(seeds) == 0 {
		return fmt.Errorf("no inputs found in %s", strings.Join(inputs, ", "))
	}
	code, err := c.runOnce(ctx, f.fs.Arg(0), wasm, &f.target, seeds, exitCrash, exitTimeout, f.output)
	if err != nil {
		return err
	}
	if code != exitOK {
		return &exitCodeError{code: code}
	}
	return nil
}

// runOnce runs seeds one by one (campaign.Reproducer) and prints each
// outcome; failures get the full report. It returns the exit status: crash
// beats out of memory beats hang beats 0 (the statuses a campaign exits
// with for them).
func (c *cli) runOnce(ctx context.Context, target string, wasm []byte, t *targetFlags, seeds []corpus.Seed, errorCode, timeoutCode int, showOutput bool) (int, error) {
	tg, err := t.loadTarget(ctx, target, wasm)
	if err != nil {
		return 0, err
	}
	rp, err := tg.NewReproducer(ctx, campaign.ReproOptions{Output: showOutput, MaxInputLen: maxSeedLen(seeds)})
	if err != nil {
		return 0, err
	}
	defer rp.Close()
	fmt.Fprint(c.stderr, tg.NoNamesInfo())
	code := exitOK
	for _, s := range seeds {
		r, err := rp.Run(ctx, s.Data)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", s.Path, err)
		}
		fmt.Fprintf(c.stdout, "%s: %s (%d bytes, %s)\n", s.Path, r.Outcome, len(s.Data), r.Took.Round(time.Microsecond))
		if r.Report != "" {
			fmt.Fprint(c.stdout, indent(r.Report))
		}
		if r.Identity != "" {
			fmt.Fprintf(c.stdout, "  identity: %s\n  crash site: %s\n", r.Identity, r.Site)
		}
		switch {
		case r.Outcome == campaign.Crash && (r.Failure.Kind == campaign.KindOutOfMemory || r.Failure.Kind == campaign.KindMallocLimit):
			if code != errorCode {
				code = exitOOM
			}
		case r.Outcome == campaign.Crash:
			code = errorCode
		case r.Outcome == campaign.Hang && code == exitOK:
			code = timeoutCode
		}
	}
	return code, nil
}
