package main

import (
	"context"
	"errors"

	"github.com/spf13/pflag"
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
