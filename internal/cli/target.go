package cli

import (
	"context"
	"fmt"
	"github.com/wafer-fuzz/wafer/gofuzz"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/wafer-fuzz/wafer/campaign"
	"github.com/wafer-fuzz/wafer/corpus"
)

// defaultRSSLimitMB is --rss-limit-mb's default, libFuzzer's.
const defaultRSSLimitMB = 2048

// targetFlags are the flags that say how to load and run a target; every
// command that runs one takes the same set, with the same names and units.
type targetFlags struct {
	harness     string
	malloc      string
	args        []string
	invalidExit []uint
	fuel        uint64
	timeout     seconds
	rssLimitMB  int
	mallocMB    int
	reset       string
	skip        []string
	goRuntime   bool
	warmUp      []string
	heapMB      int
	heapGuard   bool
	heapCheck   int
	stackDepth  bool
	callPairs   bool
	valueProf   bool
	// sys is what a Go fuzz test sees of the host (goTestFlags.resolve).
	sys gofuzz.System
	// warmUpInputs are warm-up inputs besides --warm-up's files: a Go
	// fuzz test's seeds (fuzzFlags.goSeedWarmUp)
	warmUpInputs [][]byte
}

// defaultHeapCheck is --heap-check's default (campaign.DefaultHeapCheck).
const defaultHeapCheck = campaign.DefaultHeapCheck

func (t *targetFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&t.harness, "harness", "", "harness kind: libfuzzer, go, command (default: detected from the exports)")
	fs.StringVar(&t.malloc, "malloc", "", "allocator export of a libFuzzer-style target (default: malloc)")
	fs.StringArrayVar(&t.args, "arg", nil, "argv entry for a WASI command target; @@ is replaced by an in-memory file holding the input (repeatable)")
	fs.UintSliceVar(&t.invalidExit, "invalid-exit-code", nil, "exit codes of a command target that mean \"input rejected\" (comma-separated)")
	fs.Uint64Var(&t.fuel, "fuel", 0, "fuel per input: function entries + loop iterations before a hang (0: 2^28)")
	fs.Var(&t.timeout, "timeout", "wall-clock backstop per input, seconds or duration (0: 10s, only without fuel)")
	fs.IntVar(&t.rssLimitMB, "rss-limit-mb", defaultRSSLimitMB, "cap on the target's linear memory in MiB (libFuzzer's name; 0: none, 4 GiB)")
	fs.IntVar(&t.mallocMB, "malloc-limit-mb", 0, "a single allocation larger than this many MiB is a finding (malloc-limit) at the allocating call, for reactors (libFuzzer's name; 0: the --rss-limit-mb)")
	fs.StringVar(&t.reset, "reset", "", "state between runs: restore (default), fresh, persistent")
	fs.StringArrayVar(&t.skip, "skip", nil, "no coverage in functions matching `PATTERN` (path.Match on names; repeatable)")
	fs.BoolVar(&t.goRuntime, "instrument-go-runtime", false, "count the branches of a Go target's runtime (runtime.*), which get no counters by default")
	fs.IntVar(&t.heapMB, "heap-reserve-mb", campaign.DefaultHeapReserveMB, "free heap in MiB a libFuzzer-style target with malloc and free gets before its snapshot (free(malloc(n))), so runs that allocate less never grow memory, which costs restore mode a new instance (0: none)")
	fs.BoolVar(&t.heapGuard, "heap-guard", true, "give a C target's heap blocks (malloc, free and kin, found by name) a header and redzone, so writes past a block and double frees crash when the block is freed (--heap-guard=false: off)")
	fs.IntVar(&t.heapCheck, "heap-check", defaultHeapCheck, "with the heap guard, run one input in `N` (chosen by a hash of its bytes) on a build that checks every load and store of a C target against a shadow of its heap, as AddressSanitizer does: reads and writes past a block or into a freed one crash where they happen (that build runs 1.5-3.5x slower; 1: every input, 0: none)")
	fs.BoolVar(&t.stackDepth, "stack-depth", true, "keep inputs that take an LLVM-built target's stack (C, C++, Rust) to a new depth, as libFuzzer does: feedback towards deep recursion (--stack-depth=false: off)")
	fs.BoolVar(&t.valueProf, "value-profile", false, "keep inputs whose comparisons come closer to equal than before (equal bits, log2 distance of the operands; prefix of memcmp/strcmp), as libFuzzer's -use_value_profile: for checks on values computed from the input; costs speed (docs/EVALUATION.md)")
	fs.BoolVar(&t.callPairs, "call-pairs", true, "keep inputs whose indirect calls reach a callee from a call site that never reached it before, as libFuzzer does (--call-pairs=false: off)")
	fs.StringArrayVar(&t.warmUp, "warm-up", nil, "run the inputs in `PATH` (file or directory) once per instance before its snapshot, so first-use caches start warm (reactors; repeatable)")
}

// options maps the target flags onto campaign.TargetOptions: the flags'
// defaults are the options' zero values, and a flag's 0 meaning "none" is
// the option's negative value.
func (t *targetFlags) options(ctx context.Context) (campaign.TargetOptions, error) {
	var o campaign.TargetOptions
	if t.harness != "" {
		h, err := campaign.ParseHarness(t.harness)
		if err != nil {
			return o, usagef("--harness: expected libfuzzer, go or command, got %q", t.harness)
		}
		o.Harness = h
	}
	if t.reset != "" {
		r, err := campaign.ParseReset(t.reset)
		if err != nil {
			return o, usagef("--reset: expected restore, fresh or persistent, got %q", t.reset)
		}
		o.Reset = r
	}
	for _, p := range t.skip {
		if _, err := path.Match(p, ""); err != nil {
			return o, usagef("--skip: bad pattern %q: %v", p, err)
		}
	}
	o.Skip = t.skip
	o.GoRuntimeCounters = t.goRuntime
	o.Malloc = t.malloc
	o.Args = t.args
	o.Env, o.Files = t.sys.Env, t.sys.Files
	for _, c := range t.invalidExit {
		o.InvalidExitCodes = append(o.InvalidExitCodes, uint32(c))
	}
	o.Fuel = t.fuel
	o.Timeout = time.Duration(t.timeout)
	switch {
	case t.rssLimitMB < 0:
		return o, usagef("--rss-limit-mb: expected a size >= 0, got %d", t.rssLimitMB)
	case t.rssLimitMB == 0:
		o.MemoryLimitMB = -1 // libFuzzer's 0, no limit
	default:
		o.MemoryLimitMB = t.rssLimitMB
	}
	if t.mallocMB < 0 {
		return o, usagef("--malloc-limit-mb: expected a size >= 0, got %d", t.mallocMB)
	}
	o.MallocLimitMB = t.mallocMB
	switch {
	case t.heapMB < 0 || t.heapMB > 2047:
		return o, usagef("--heap-reserve-mb: expected 0 to 2047, got %d", t.heapMB)
	case t.heapMB == 0:
		o.HeapReserveMB = -1
	default:
		o.HeapReserveMB = t.heapMB
	}
	o.NoHeapGuard = !t.heapGuard
	o.HeapCheck = t.heapCheck
	if t.heapCheck <= 0 {
		o.HeapCheck = -1
	}
	o.NoStackDepth = !t.stackDepth
	o.NoCallPairs = !t.callPairs
	o.ValueProfile = t.valueProf
	if len(t.warmUp) > 0 {
		for _, p := range t.warmUp {
			if _, err := os.Stat(p); err != nil {
				return o, fmt.Errorf("--warm-up: %w", fileError(p, err))
			}
		}
		seeds, _, err := corpus.ReadSeeds(ctx, nil, t.warmUp...)
		if err != nil {
			return o, err
		}
		for _, s := range seeds {
			o.WarmUp = append(o.WarmUp, s.Data)
		}
	}
	o.WarmUp = append(o.WarmUp, t.warmUpInputs...)
	return o, nil
}

// loadTarget loads the module at path, read as wasm, with the target
// flags.
func (t *targetFlags) loadTarget(ctx context.Context, path string, wasm []byte) (*campaign.Target, error) {
	opts, err := t.options(ctx)
	if err != nil {
		return nil, err
	}
	return campaign.Load(path, wasm, opts)
}

// reproCommand is the command stored with each finding.
func reproCommand(target string, t *targetFlags, hang bool) string {
	args := []string{"wafer", "repro"}
	if t.harness != "" {
		args = append(args, "--harness", t.harness)
	}
	if t.malloc != "" {
		args = append(args, "--malloc", t.malloc)
	}
	if t.heapMB != campaign.DefaultHeapReserveMB {
		args = append(args, "--heap-reserve-mb", strconv.Itoa(t.heapMB))
	}
	switch {
	case t.fuel != 0:
		args = append(args, "--fuel", strconv.FormatUint(t.fuel, 10))
	case hang:
		// repro runs the plain module unless given fuel: a fuel hang
		// needs the campaign's budget to end as one, with its stack.
		args = append(args, "--fuel", strconv.FormatUint(campaign.DefaultFuel, 10))
	}
	if t.rssLimitMB != defaultRSSLimitMB {
		args = append(args, "--rss-limit-mb", strconv.Itoa(t.rssLimitMB))
	}
	if t.mallocMB != 0 {
		args = append(args, "--malloc-limit-mb", strconv.Itoa(t.mallocMB))
	}
	if !t.heapGuard {
		args = append(args, "--heap-guard=false")
	}
	if t.heapCheck != defaultHeapCheck {
		args = append(args, "--heap-check", strconv.Itoa(t.heapCheck))
	}
	for _, p := range t.warmUp {
		args = append(args, "--warm-up", p)
	}
	for _, a := range t.args {
		args = append(args, "--arg", a)
	}
	for _, c := range t.invalidExit {
		args = append(args, "--invalid-exit-code", strconv.FormatUint(uint64(c), 10))
	}
	args = append(args, target, "{input}")
	for i, a := range args {
		if strings.ContainsAny(a, " \t'\"$\\*?") {
			args[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(args, " ")
}
