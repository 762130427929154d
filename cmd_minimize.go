package main

import (
	"context"
	"errors"

	"github.com/spf13/pflag"
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
