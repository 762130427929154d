// Package cli is the wafer command: flags, output and exit codes over the
// public package campaign. The module root's main.go only calls Main.
//
// It has two front ends over the same machinery:
//
//   - subcommands: wafer fuzz|repro|minimize|merge|instrument|wrap|...,
//     with GNU-style flags (--max-total-time 60s);
//   - a libFuzzer-compatible invocation, wafer TARGET.wasm [CORPUS_DIR...]
//     -runs=N -max_total_time=S ..., with libFuzzer's exit codes, artifact
//     names and final stats lines, so tools that drive libFuzzer binaries
//     can drive wafer.
//
// Each command is a file of its own (fuzz.go, repro.go, ...); they turn
// flags into the options of package campaign, which wires the fuzzer's
// packages and holds the campaign policy, and turn its results into
// output and exit codes. Tests run commands in-process through doMain.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/wafer-fuzz/wafer/corpus"
)

// Exit codes. The finding codes are libFuzzer's defaults (FuzzerOptions.h:
// ErrorExitCode 77, TimeoutExitCode 70, OOMExitCode 71, InterruptExitCode
// 72); -error_exitcode and
// -timeout_exitcode override the first two, as in libFuzzer.
const (
	exitOK      = 0
	exitError   = 1 // wafer itself failed: unreadable file, malformed module, I/O error
	exitUsage   = 2 // bad invocation: unknown flag, missing argument
	exitCrash   = 77
	exitTimeout = 70
	exitOOM     = 71
	// exitInterrupted is libFuzzer's InterruptExitCode, used by the
	// libFuzzer invocation when SIGINT/SIGTERM stops it; 'wafer fuzz'
	// exits 0 then (the campaign is saved and resumable).
	exitInterrupted = 72
)

// cli carries the process's streams and arguments so tests can run
// commands in-process (doMain).
type cli struct {
	stdout io.Writer
	stderr io.Writer
	args   []string // the arguments after the program name
	// startMemoryLimit, when positive, is the soft limit of Go's memory
	// (debug.SetMemoryLimit) while a fuzz campaign instruments and
	// compiles its builds, lifted when the campaign starts
	// (startupMemoryLimit); zero: none. Only the process's own main sets
	// it: the limit is the process's, and tests run commands side by side.
	startMemoryLimit int64
	// searchGCPercent, when positive, is the GOGC a fuzz campaign's
	// search runs with, from the campaign's start on (searchGCPercent's
	// const); zero: the process's. Only the process's own main sets it,
	// as startMemoryLimit.
	searchGCPercent int
}

// usageError marks an error caused by the invocation itself (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitCodeError carries a finding's exit code (crash, timeout, oom) out of
// a command that already printed its report.
type exitCodeError struct{ code int }

func (e *exitCodeError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// gcPercent is the process's GOGC unless the environment sets one. The
// targets' memories and snapshots live outside Go's heap (package
// runtime's regions), so the heap holds the modules, the queue and what
// instrumenting and compiling leave behind, and the loop allocates little
// (its batches' buffers are reused): at 25 the heap's peak is live plus a
// quarter. A one-minute csqlite campaign peaks 11 MB lower than at 50
// (143 -> 131 MB) and its collector used 60 ms of CPU after the start
// instead of 27, 0.5 % of the campaign (docs/PERFORMANCE.md, "GOGC
// and the start-up memory limit").
const gcPercent = 25

// searchGCPercent is the GOGC of a campaign's search (cli.searchGCPercent)
// unless the environment sets one: the search's heap (the queue, traces,
// coverage, the SiteMap) is live, and the loop allocates little, so a
// tighter pace costs little CPU there, where the start's instrumenting and
// compiling make garbage fast (its own soft limit, startupMemoryLimit,
// bounds its peak). See docs/PERFORMANCE.md, "GOGC and the start-up
// memory limit".
const searchGCPercent = 10

// startupMemoryLimit is the soft limit of Go's memory while a fuzz
// campaign instruments and compiles its builds (cli.startMemoryLimit),
// unless the environment sets GOMEMLIMIT. The start's garbage was most of
// a large module's peak: instrumenting gojson's 3.3 MB module and
// decoding its 6 MB build hold 70-100 MB live, and the collector, pacing
// on what was live before, let the heap reach 130-170 MB. Under the
// limit the collector runs as the heap nears it instead: `--runs 0`
// peaks at 120-124 MB instead of 226-241 on gojson, 133-137 instead of
// 184-201 on csqlite, for 0.5-0.7 s more CPU once; 60-second campaigns
// (1 and 2 workers, with the corpus changes of the same round) peak at
// 150/146 MB instead of 226/227 on gojson, 182/172 instead of 205/214 on
// csqlite (docs/PERFORMANCE.md, "GOGC and the start-up memory limit"). It is lifted once
// the builds are compiled: the loop's heap then grows with the queue,
// and a limit below it would make the collector run without end.
const startupMemoryLimit = 64 << 20

// Main runs the process's invocation (os.Args) and returns its exit code:
// it sets Go's collector for a campaign (gcPercent, startupMemoryLimit,
// searchGCPercent) unless the environment does, and turns the first
// SIGINT or SIGTERM into a cancelled context.
func Main() int {
	gcSet := os.Getenv("GOGC") == ""
	if gcSet {
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first signal asks wafer to stop and save; a second one
		// ends the process, as it would without wafer's handler (a
		// read blocked outside any context check no longer needs a KILL).
		<-ctx.Done()
		stop()
	}()
	args := os.Args[1:]
	if module, ok := wrappedModule(); ok {
		// a fuzz target written by 'wafer wrap': the libFuzzer invocation
		// on the module beside it
		args = append([]string{module}, args...)
	}
	c := &cli{stdout: os.Stdout, stderr: os.Stderr, args: args}
	if os.Getenv("GOMEMLIMIT") == "" {
		c.startMemoryLimit = startupMemoryLimit
	}
	if gcSet {
		c.searchGCPercent = searchGCPercent
	}
	code := c.main(ctx, args)
	stop()
	return code
}

// doMain runs one invocation with args (the program name left out),
// writing to stdout and stderr, and returns the process exit code.
func doMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return (&cli{stdout: stdout, stderr: stderr, args: args}).main(ctx, args)
}

// main runs one invocation and returns the process exit code. Every error
// is printed as one line "wafer: ..." on stderr.
func (c *cli) main(ctx context.Context, args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			// A broken invariant inside wafer: one line for the user, the
			// stack only when asked for.
			fmt.Fprintf(c.stderr, "wafer: internal error: %v (set WAFER_DEBUG=1 for the stack)\n", r)
			if os.Getenv("WAFER_DEBUG") != "" {
				c.stderr.Write(debug.Stack())
			}
			code = exitError
		}
	}()
	err := c.dispatch(ctx, args)
	if err == nil {
		return exitOK
	}
	var ec *exitCodeError
	if errors.As(err, &ec) {
		return ec.code
	}
	msg := strings.ReplaceAll(err.Error(), "\n", "; ")
	fmt.Fprintf(c.stderr, "wafer: %s\n", msg)
	var ue *usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitError
}

// command is one subcommand: its name, one-line summary, help text with
// examples, and the function that runs it.
type command struct {
	name    string
	summary string
	usage   string
	run     func(c *cli, ctx context.Context, args []string) error
}

func commands() []command {
	return []command{
		{"fuzz", "run a fuzzing campaign on a target", fuzzHelp, (*cli).fuzz},
		{"repro", "run one input (or a directory of inputs) and report the outcome", reproHelp, (*cli).repro},
		{"minimize", "shrink a crashing input, keeping its failure identity", minimizeHelp, (*cli).minimize},
		{"merge", "minimise corpora into one directory keeping their coverage", mergeHelp, (*cli).merge},
		{"instrument", "write the instrumented module and its site map", instrumentHelp, (*cli).instrument},
		{"cov", "replay a corpus and write its coverage report (HTML, lcov)", covHelp, (*cli).cov},
		{"plot", "draw campaigns' plot_data (coverage, execs/s, ...) as SVG or PNG", plotHelp, (*cli).plot},
		{"wrap", "write a libFuzzer-style fuzz target (OSS-Fuzz, ClusterFuzzLite) for a module", wrapHelp, (*cli).wrap},
		{"build", "build a Go fuzz test (PKG:FuzzXxx) as a wafer target module", buildHelp, (*cli).build},
		{"compare", "run strategies on seeds 1..N with equal budgets and compare them", compareHelp, (*cli).compare},
		{"version", "print wafer's version", "usage: wafer version\n", (*cli).version},
		{"help", "show help for a command", "usage: wafer help [COMMAND]\n", (*cli).help},
	}
}

func lookupCommand(name string) (command, bool) {
	for _, cmd := range commands() {
		if cmd.name == name {
			return cmd, true
		}
	}
	return command{}, false
}

func (c *cli) dispatch(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usagef("no command given: run 'wafer help'")
	}
	switch args[0] {
	case "-h", "--help", "-help", "-help=1":
		c.printUsage(c.stdout)
		return nil
	}
	if cmd, ok := lookupCommand(args[0]); ok {
		return cmd.run(c, ctx, args[1:])
	}
	// Not a subcommand: the libFuzzer-compatible invocation, whose first
	// non-flag argument is the target module.
	if looksLikeLibFuzzer(args) {
		return c.libfuzzer(ctx, args)
	}
	return usagef("unknown command %q: run 'wafer help'", args[0])
}

func (c *cli) printUsage(w io.Writer) {
	fmt.Fprint(w, `wafer: a coverage-guided fuzzer for WebAssembly targets

usage:
  wafer COMMAND [flags] [args]
  wafer TARGET.wasm [CORPUS_DIR...] [-flag=value...]   (libFuzzer-compatible)

commands:
`)
	for _, cmd := range commands() {
		fmt.Fprintf(w, "  %-11s %s\n", cmd.name, cmd.summary)
	}
	fmt.Fprint(w, "\nrun 'wafer help COMMAND' for a command's flags and examples,\n'wafer help libfuzzer' for the libFuzzer-compatible invocation.\n")
}

func (c *cli) help(_ context.Context, args []string) error {
	if len(args) == 0 {
		c.printUsage(c.stdout)
		return nil
	}
	if len(args) > 1 {
		return usagef("help takes one command, got %d arguments", len(args))
	}
	name := strings.TrimLeft(args[0], "-")
	if name == "libfuzzer" {
		fmt.Fprint(c.stdout, libfuzzerHelp)
		return nil
	}
	cmd, ok := lookupCommand(name)
	if !ok {
		return usagef("unknown command %q: run 'wafer help'", args[0])
	}
	fmt.Fprint(c.stdout, cmd.usage)
	if fs := cmd.flags(); fs != "" {
		fmt.Fprintf(c.stdout, "\nflags:\n%s", fs)
	}
	return nil
}

// flags renders a command's flag table for help.
func (cmd command) flags() string {
	var fs interface{ FlagUsages() string }
	switch cmd.name {
	case "fuzz":
		fs = newFuzzFlags().fs
	case "repro":
		fs = newReproFlags().fs
	case "minimize":
		fs = newMinimizeFlags().fs
	case "merge":
		fs = newMergeFlags().fs
	case "instrument":
		fs = newInstrumentFlags().fs
	case "cov":
		fs = newCovFlags().fs
	case "plot":
		fs = newPlotFlags().fs
	case "compare":
		fs = newCompareFlags().fs
	case "wrap":
		fs = newWrapFlags().fs
	case "build":
		fs = newBuildFlags().fs
	default:
		return ""
	}
	return fs.FlagUsages()
}

// version is set by -ldflags "-X github.com/wafer-fuzz/wafer/internal/cli.version=..."
// in releases.
var version = "devel"

func (c *cli) version(_ context.Context, args []string) error {
	if len(args) != 0 {
		return usagef("version takes no arguments, got %q", args[0])
	}
	v := version
	wazeroVersion := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "devel" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, d := range bi.Deps {
			if d.Path == "github.com/tetratelabs/wazero" {
				wazeroVersion = d.Version
			}
		}
	}
	fmt.Fprintf(c.stdout, "wafer %s (%s, wazero %s, %s/%s)\n", v, goruntime.Version(), wazeroVersion, goruntime.GOOS, goruntime.GOARCH)
	return nil
}

// readSeeds reads seed inputs (raw files, corpus directories, AFL/wafer
// output directories, Go testdata/fuzz files) and reports unreadable ones
// as INFO lines.
func (c *cli) readSeeds(ctx context.Context, paths []string) ([]corpus.Seed, error) {
	return c.readSeedsWith(ctx, corpus.ReadSeeds, paths)
}

// readSeedsWith is readSeeds with another reader (corpus.ReadRawSeeds for
// a Go fuzz test, whose corpus files it converts itself).
func (c *cli) readSeedsWith(ctx context.Context, read func(context.Context, corpus.FS, ...string) ([]corpus.Seed, error, error), paths []string) ([]corpus.Seed, error) {
	seeds, skipped, err := read(ctx, nil, paths...)
	if err != nil {
		return nil, err
	}
	var se *corpus.SkipError
	if errors.As(skipped, &se) {
		for _, f := range se.Files {
			fmt.Fprintf(c.stderr, "INFO: skipped seed %s: %v\n", f.Path, f.Err)
		}
	}
	return seeds, nil
}

func maxSeedLen(seeds []corpus.Seed) int {
	n := 0
	for _, s := range seeds {
		n = max(n, len(s.Data))
	}
	return n
}

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
