package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/wafer-fuzz/wafer/corpus"
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

func (c *cli) runMerge(ctx context.Context, f *fuzzFlags, wasm []byte, dirs []string) error {
	if len(dirs) < 2 {
		return usagef("-merge=1: expected OUT_DIR and at least one IN_DIR, got %d directories", len(dirs))
	}
	if err := ensureWritableDir(dirs[0]); err != nil {
		return err
	}
	return c.mergeDirs(ctx, dirs[0], &f.target, f.fs.Arg(0), wasm, dirs[1:])
}

// mergeDirs merges the inputs of the directories in into out
// (campaign.Target.Merge), the inputs already in out counting as kept.
func (c *cli) mergeDirs(ctx context.Context, out string, t *targetFlags, target string, wasm []byte, in []string) error {
	for _, p := range in {
		if _, err := os.Stat(p); err != nil {
			return fileError(p, err)
		}
	}
	base, err := c.readSeeds(ctx, []string{out})
	if err != nil {
		return err
	}
	cands, err := c.readSeeds(ctx, in)
	if err != nil {
		return err
	}
	tg, err := t.loadTarget(ctx, target, wasm)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "MERGE-OUTER: %d files, %d in the initial corpus\n", len(base)+len(cands), len(base))
	res, err := tg.Merge(ctx, base, cands)
	if res.Failed > 0 {
		fmt.Fprintf(c.stderr, "INFO: %d inputs crashed or hung and were left out (wafer repro shows them)\n", res.Failed)
	}
	if err != nil {
		return err
	}
	flat := corpus.Flat{Path: out}
	if err := flat.RemoveTemps(0); err != nil { // a killed merge's
		return fmt.Errorf("merge: %w", err)
	}
	for _, s := range res.Keep {
		if _, err := flat.Write(ctx, "", s.Data); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
	}
	// libFuzzer's last merge line, which ClusterFuzz parses
	// (bot/fuzzers/libFuzzer/stats.py, LIBFUZZER_MERGE_LOG_STATS_REGEX)
	fmt.Fprintf(c.stderr, "MERGE-OUTER: %d new files with %d new features added; %d new coverage edges (%d features in the initial corpus)\n",
		len(res.Keep), res.NewFeatures, res.NewEdges, res.BaseFeatures)
	return nil
}
