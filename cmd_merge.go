package main

import (
	"context"
	"errors"

	"github.com/spf13/pflag"
)

const mergeHelp = `usage: wafer merge [flags] -o OUT_DIR TARGET.wasm IN_DIR...

Runs every input of the IN_DIRs and copies into OUT_DIR a subset, smallest
inputs first, that keeps all the branch coverage (hit-count buckets) of
the whole set: libFuzzer's -merge=1. Inputs already in OUT_DIR count as
kept. Go testdata/fuzz files are read as well as raw files.

examples:
  wafer merge -o corpus examples/tlv/tlv.wasm tlv-out/queue examples/tlv/seeds
  wafer examples/tlv/tlv.wasm -merge=1 corpus tlv-out/queue
`

type mergeFlags struct {
	fs     *pflag.FlagSet
	out    string
	target targetFlags
}

func newMergeFlags() *mergeFlags {
	f := &mergeFlags{fs: newFlagSet("merge")}
	f.fs.StringVarP(&f.out, "output", "o", "", "write the merged corpus to `DIR` (required)")
	f.target.register(f.fs)
	return f
}

func (c *cli) merge(ctx context.Context, args []string) error {
	f := newMergeFlags()
	if err := parseFlags(f.fs, args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return c.help(ctx, []string{"merge"})
		}
		return err
	}
	if f.fs.NArg() < 2 {
		return usagef("merge: expected TARGET.wasm and at least one input directory, got %d arguments (run 'wafer help merge')", f.fs.NArg())
	}
	if f.out == "" {
		return usagef("merge: missing -o OUT_DIR (run 'wafer help merge')")
	}
	wasm, err := readModule(f.fs.Arg(0))
	if err != nil {
		return err
	}
	if err := ensureWritableDir(f.out); err != nil {
		return err
	}
	return c.mergeDirs(ctx, f.out, &f.target, f.fs.Arg(0), wasm, f.fs.Args()[1:])
}
