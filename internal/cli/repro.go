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
	goTest goTestFlags
	output bool
}

func newReproFlags() *reproFlags {
	f := &reproFlags{fs: newFlagSet("repro")}
	f.target.register(f.fs)
	f.goTest.register(f.fs, false)
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
	target := f.fs.Arg(0)
	test, built, err := f.goTest.resolve(ctx, c, target, &f.target)
	if err != nil {
		return err
	} else if test != nil {
		target = built
	}
	wasm, err := readModule(target)
	if err != nil {
		return err
	}
	gt, err := describeGoTest(ctx, test, wasm, f.target.sys)
	if err != nil {
		return err
	}
	return c.reproInputs(ctx, f, target, wasm, gt, f.fs.Args()[1:])
}

// reproInputs runs the inputs on the module at target; gt, when the
// module is a Go fuzz test, converts its corpus files to inputs.
func (c *cli) reproInputs(ctx context.Context, f *reproFlags, target string, wasm []byte, gt *goTest, inputs []string) error {
	for _, p := range inputs {
		if _, err := os.Stat(p); err != nil {
			return fileError(p, err)
		}
	}
	read := corpus.ReadSeeds
	if gt != nil {
		read = corpus.ReadRawSeeds
	}
	seeds, err := c.readSeedsWith(ctx, read, inputs)
	if err != nil {
		return err
	}
	if len(seeds) == 0 {
		return fmt.Errorf("no inputs found in %s", strings.Join(inputs, ", "))
	}
	if gt != nil {
		for i := range seeds {
			if in, err := gt.input(seeds[i].Data); err != nil {
				return fmt.Errorf("%s: %w", seeds[i].Path, err)
			} else {
				seeds[i].Data = in
			}
		}
	}
	code, err := c.runOnce(ctx, target, wasm, &f.target, seeds, exitCrash, exitTimeout, f.output)
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
