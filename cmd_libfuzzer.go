package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"
)

const libfuzzerHelp = `usage: wafer TARGET.wasm [CORPUS_DIR...] [-flag=value...]
       wafer TARGET.wasm FILE...                  (run each input once)
       wafer TARGET.wasm -merge=1 OUT_DIR IN_DIR...
       wafer TARGET.wasm -minimize_crash=1 -runs=N CRASH_FILE

The libFuzzer-compatible invocation, for runners that drive libFuzzer
binaries (ClusterFuzzLite, OSS-Fuzz style scripts). New inputs go into
the first CORPUS_DIR as they are found, findings to -artifact_prefix as
crash-<sha1>, timeout-<sha1> or oom-<sha1>; the final stat:: lines are
printed on exit.

flags (one dash, name=value, as libFuzzer):
  -runs=N -max_total_time=S -seed=N -workers=N -jobs=N -artifact_prefix=P
  -exact_artifact_path=F -dict=F -max_len=N -timeout=S -rss_limit_mb=N
  -minimize_crash=1 -merge=1 -close_fd_mask=N -error_exitcode=N
  -timeout_exitcode=N -print_final_stats=1
Hangs are found by fuel (deterministic, --fuel); -timeout is applied only
when running single inputs, not while fuzzing (a wall-clock deadline per
input halves wazero's speed). -seed=0 is a fixed seed, not a random one.
Other libFuzzer flags (-use_value_profile, -detect_leaks, ...) are accepted
and ignored with an INFO line; wafer's own flags (see 'wafer help fuzz')
work here too.

exit status: 0 done, 77 crash (-error_exitcode), 70 timeout
(-timeout_exitcode), 71 out of memory, 1 error, 2 bad invocation.

examples:
  wafer examples/tlv/tlv.wasm corpus/ -max_total_time=60 -artifact_prefix=out/
  wafer examples/tlv/tlv.wasm out/crash-5e3b...  (run one input)
  wafer examples/tlv/tlv.wasm -merge=1 small/ big1/ big2/
  wafer examples/tlv/tlv.wasm -minimize_crash=1 -runs=5000 examples/tlv/testdata/crash-padded
`

// looksLikeLibFuzzer reports whether args are a libFuzzer-style invocation:
// a flag first, or a first argument that is a module path.
func looksLikeLibFuzzer(args []string) bool {
	a := args[0]
	if strings.HasPrefix(a, "-") || strings.HasSuffix(a, ".wasm") {
		return true
	}
	st, err := os.Stat(a)
	return err == nil && !st.IsDir()
}

func (c *cli) libfuzzer(ctx context.Context, args []string) error {
	f := newFuzzFlags()
	f.fs.Init("libfuzzer", pflag.ContinueOnError)
	args = c.dropUnknownLibFuzzerFlags(f.fs, args)
	if err := f.parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return c.help(ctx, []string{"libfuzzer"})
		}
		return err
	}
	return c.runFuzz(ctx, f, true)
}

// dropUnknownLibFuzzerFlags removes the -name=value flags wafer does not
// know, with libFuzzer's warning for each: libFuzzer itself goes on past a
// flag it does not know, and runners pass flags of newer versions
// (ClusterFuzz's -merge_control_file, -shuffle, -stop_file...).
func (c *cli) dropUnknownLibFuzzerFlags(fs *pflag.FlagSet, args []string) []string {
	kept := args[:0:0]
	for _, a := range args {
		if !libFuzzerFlagKnown(fs, a) {
			fmt.Fprintf(c.stderr, "WARNING: unrecognized flag '%s'; use -help=1 to list all flags\n", a)
			continue
		}
		kept = append(kept, a)
	}
	return kept
}

// libFuzzerFlagKnown reports whether argument a is not a single-dash flag
// or one fs defines (by its name, its dashed name or its shorthand), help
// included.
func libFuzzerFlagKnown(fs *pflag.FlagSet, a string) bool {
	if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
		return true
	}
	name, _, _ := strings.Cut(a[1:], "=")
	switch {
	case name == "" || name == "help" || name == "h":
		return true
	case len(name) == 1:
		return fs.ShorthandLookup(name) != nil || fs.Lookup(name) != nil
	}
	return fs.Lookup(name) != nil || fs.Lookup(strings.ReplaceAll(name, "_", "-")) != nil
}

// runInputs is libFuzzer's "run these files" mode.
func (c *cli) runInputs(ctx context.Context, f *fuzzFlags, wasm []byte, paths []string) error {
	seeds, err := c.readSeeds(ctx, paths)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "INFO: Seed: %d\n", f.opts.Seed)
	fmt.Fprintf(c.stderr, "Running %d inputs 1 time(s) each.\n", len(seeds))
	code, err := c.runOnce(ctx, f.fs.Arg(0), wasm, &f.target, seeds, f.errorExitcode, f.timeoutExitcode, f.closeFDMask == 0)
	if err != nil {
		return err
	}
	if code != exitOK {
		return &exitCodeError{code: code}
	}
	return nil
}
