package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/wafer-fuzz/wafer/campaign"
)

const libfuzzerHelp = `usage: wafer TARGET.wasm [CORPUS_DIR...] [-flag=value...]
       wafer TARGET.wasm FILE...                  (run each input once)
       wafer TARGET.wasm -merge=1 OUT_DIR IN_DIR...
       wafer TARGET.wasm -minimize_crash=1 -runs=N CRASH_FILE
       NAME [args...]          (a fuzz target written by 'wafer wrap')

The libFuzzer-compatible invocation, for runners that drive libFuzzer
binaries (OSS-Fuzz, ClusterFuzz, ClusterFuzzLite: 'wafer help wrap'
writes a target for them). New inputs go into the first CORPUS_DIR as
they are found, findings to -artifact_prefix as crash-<sha1>,
timeout-<sha1> or oom-<sha1>; the final stat:: lines are printed on exit.

flags (one dash, name=value, as libFuzzer):
  -runs=N -max_total_time=S -seed=N -workers=N -jobs=N -fork=N
  -artifact_prefix=P -exact_artifact_path=F -dict=F -max_len=N -timeout=S
  -rss_limit_mb=N -minimize_crash=1 -merge=1 -close_fd_mask=N
  -error_exitcode=N -timeout_exitcode=N -print_final_stats=1
  -ignore_crashes=1 -use_value_profile=1 -help=1
-jobs=N and -fork=N run N workers of one campaign in this process (jobs:
at most half the cores), not N processes; -ignore_crashes=1 keeps going
after a crash (--keep-going); -use_value_profile=1 is --value-profile.
Hangs are found by fuel (deterministic, --fuel); -timeout is applied only
when running single inputs, not while fuzzing (a wall-clock deadline per
input halves wazero's speed). -seed=0 is a fixed seed, not a random one.
Running FILEs runs each once whatever -runs says (an input's runs are all
the same), stops at the first that fails and writes its artifact, as
libFuzzer does. Other libFuzzer flags (-detect_leaks, -ignore_timeouts,
-merge_control_file, ...) are accepted and ignored with an INFO line,
unknown ones dropped with libFuzzer's WARNING, and a '--' argument is
skipped (OSS-Fuzz runs '$FUZZER -- $FUZZER_ARGS ...'); wafer's own flags
(see 'wafer help fuzz') work here too.

A finding is reported as libFuzzer reports it, for the runners' stack
analysis: "==PID== ERROR: libFuzzer: deadly signal" (a Wasm trap), "fuzz
target exited" (an exit code), "timeout" (a hang) or "out-of-memory (...)",
then the Wasm stack as frames "#0 0x0 in FUNC FILE:LINE" (no native
address), then "SUMMARY: libFuzzer: ...". Progress lines are libFuzzer's
"#N INITED|pulse|DONE cov: ... corp: ... exec/s: ... rss: ...Mb".

exit status: 0 done, 77 crash (-error_exitcode), 70 timeout
(-timeout_exitcode), 71 out of memory, 72 interrupted, 1 error, 2 bad
invocation.

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
	args = c.dropDoubleDash(args)
	args = c.dropUnknownLibFuzzerFlags(f.fs, args)
	if err := f.parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return c.help(ctx, []string{"libfuzzer"})
		}
		return err
	}
	return c.runFuzz(ctx, f, true)
}

// dropDoubleDash removes the "--" arguments: OSS-Fuzz's run_fuzzer and
// bad_build_check run "$FUZZER -- -runs=4 ..." (infra/base-images/
// base-runner/run_fuzzer, CMD_LINE="$OUT/$FUZZER -- $FUZZER_ARGS $*";
// bad_build_check's check_engine), and libFuzzer skips an argument
// starting with "--" (FuzzerDriver.cpp, ParseOneFlag) and reads the flags
// after it, where pflag would take them for file names.
func (c *cli) dropDoubleDash(args []string) []string {
	kept := args[:0:0]
	for _, a := range args {
		if a != "--" {
			kept = append(kept, a)
		}
	}
	if len(kept) < len(args) {
		fmt.Fprintln(c.stderr, "INFO: '--' ignored, as libFuzzer does: the flags after it are read")
	}
	return kept
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

// runInputs is libFuzzer's "run these files" mode (ClusterFuzz's
// reproduce: "-runs=100 FILE"), with libFuzzer's lines: "Running: FILE",
// then "Executed FILE in N ms", or for a failing input its report, the
// artifact (as libFuzzer's crash handler writes it, under -artifact_prefix
// or to -exact_artifact_path) and the finding's exit status; like
// libFuzzer, the first failing input ends the run.
func (c *cli) runInputs(ctx context.Context, f *fuzzFlags, wasm []byte, paths []string) error {
	seeds, err := c.readSeeds(ctx, paths)
	if err != nil {
		return err
	}
	tg, err := f.target.loadTarget(ctx, f.wasmPath, wasm)
	if err != nil {
		return err
	}
	rp, err := tg.NewReproducer(ctx, campaign.ReproOptions{Output: f.closeFDMask&1 == 0, MaxInputLen: maxSeedLen(seeds)})
	if err != nil {
		return err
	}
	defer rp.Close()
	fmt.Fprintf(c.stderr, "INFO: Seed: %d\n", f.opts.Seed)
	fmt.Fprint(c.stderr, tg.NoNamesInfo())
	if f.runs > 1 {
		fmt.Fprintf(c.stderr, "INFO: -runs=%d: an input's runs are all the same in wafer (each starts from the same state): each input runs once\n", f.runs)
	}
	fmt.Fprintf(c.stderr, "Running %d inputs 1 time(s) each.\n", len(seeds))
	for _, s := range seeds {
		fmt.Fprintf(c.stderr, "Running: %s\n", s.Path)
		r, err := rp.Run(ctx, s.Data)
		if err != nil {
			return fmt.Errorf("%s: %w", s.Path, err)
		}
		if r.Outcome == campaign.Crash || r.Outcome == campaign.Hang {
			kind := campaign.KindNone
			if r.Failure != nil {
				kind = r.Failure.Kind
			}
			art, status := f.findingKind(r.Outcome, kind)
			printLibFuzzerFailure(c.stderr, art, r.Failure, r.Identity, r.Report)
			if _, err := writeArtifact(c.stderr, f.artifactPrefix, f.exactArtifactPath, art, s.Data); err != nil {
				return err
			}
			return &exitCodeError{code: status}
		}
		fmt.Fprintf(c.stderr, "Executed %s in %d ms\n", s.Path, r.Took.Milliseconds())
	}
	return nil
}

// libFuzzerWhat is libFuzzer's name for a finding of artifact kind art
// ("crash", "timeout", "oom"): the words after "ERROR: libFuzzer: " and
// "SUMMARY: libFuzzer: " that ClusterFuzz's stack analyzer classifies a
// report by (src/clusterfuzz/stacktraces/constants.py:
// LIBFUZZER_DEADLY_SIGNAL_REGEX -> Fatal-signal,
// LIBFUZZER_FUZZ_TARGET_EXITED_REGEX -> Unexpected-exit,
// LIBFUZZER_TIMEOUT_REGEX -> Timeout, OUT_OF_MEMORY_REGEX's
// "libFuzzer: out-of-memory \(" -> Out-of-memory). A Wasm trap is the
// fatal signal of a native build (no sanitizer is claimed); an exit code
// is libFuzzer's "fuzz target exited".
func libFuzzerWhat(art string, fl *campaign.Failure) string {
	switch {
	case art == "timeout":
		return "timeout"
	case art == "oom":
		return "out-of-memory"
	case fl != nil && fl.Kind.String() == "exit":
		return "fuzz target exited"
	}
	return "deadly signal"
}

// printLibFuzzerFailure prints a finding as libFuzzer reports one, for
// the runners' parsers: the ERROR line, the Wasm stack as sanitizer-style
// frames "#N 0x0 in FUNC FILE:LINE" (ClusterFuzz's SAN_STACK_FRAME_REGEX;
// a Wasm frame has no native address, so it is 0: the crash state is made
// of the function names), the SUMMARY line, then wafer's own report.
func printLibFuzzerFailure(w io.Writer, art string, fl *campaign.Failure, identity, report string) {
	what := libFuzzerWhat(art, fl)
	detail := identity
	if fl != nil {
		detail = fl.Kind.String() + ": " + fl.Text()
	}
	fmt.Fprintf(w, "==%d== ERROR: libFuzzer: %s (wafer: %s)\n", os.Getpid(), what, detail)
	if fl != nil {
		for i, fr := range fl.Stack {
			loc := ""
			if fr.File != "" {
				loc = fmt.Sprintf(" %s:%d", fr.File, fr.Line)
			}
			fmt.Fprintf(w, "    #%d 0x0 in %s%s\n", i, fr.Func, loc)
		}
	}
	fmt.Fprintf(w, "SUMMARY: libFuzzer: %s\n", what)
	if identity != "" {
		fmt.Fprintf(w, "wafer: identity %s\n", identity)
	}
	if report != "" {
		fmt.Fprint(w, indent(report))
	}
}

// libFuzzerStatus turns the campaign's JSON status lines into libFuzzer's
// progress lines, "#N\tINITED cov: ..." for the first, "pulse" for the
// next, "DONE" for the last (ClusterFuzz's LIBFUZZER_LOG_LINE_REGEX in
// bot/fuzzers/libFuzzer/stats.py counts them). Other lines pass as they
// are.
type libFuzzerStatus struct {
	w      io.Writer
	buf    []byte
	inited bool
}

func (s *libFuzzerStatus) Write(p []byte) (int, error) {
	s.buf = append(s.buf, p...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := s.buf[:i+1]
		var st struct {
			Execs       int64   `json:"execs"`
			Coverage    int     `json:"coverage"`
			Queue       int     `json:"queue"`
			ExecsPerSec float64 `json:"execs_per_sec"`
			Final       bool    `json:"final"`
		}
		if json.Unmarshal(line, &st) != nil {
			if _, err := s.w.Write(line); err != nil {
				return 0, err
			}
		} else {
			word := "pulse "
			switch {
			case st.Final:
				word = "DONE  "
			case !s.inited:
				word = "INITED"
			}
			s.inited = true
			fmt.Fprintf(s.w, "#%d\t%s cov: %d corp: %d exec/s: %d rss: %dMb\n", st.Execs, word, st.Coverage, st.Queue, int64(st.ExecsPerSec), peakRSSMB())
		}
		s.buf = s.buf[i+1:]
	}
}
