package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/runtime"
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
	warmUp      []string
	heapMB      int
	heapGuard   bool
	heapCheck   int
	stackDepth  bool
	callPairs   bool
	// noSourceLines is not a flag: runOnce sets it (runtime.Config.NoSourceLines).
	noSourceLines bool
}

// defaultHeapCheck is --heap-check's default: one input in 8 runs on the
// checked build, which cost 60-second campaigns 12 % (czstd) and 33 %
// (csqlite) of their executions and 1.2 % and 2.2 % of their coverage;
// checking every input cost czstd 40 % of its executions and 10 % of its
// coverage.
const defaultHeapCheck = 8

// checkedBuild is the build that finds what the campaign's checks find:
// with the heap check when --heap-check asks for it.
func (t *targetFlags) checkedBuild() build {
	if t.heapGuard && t.heapCheck > 0 {
		return buildChecked
	}
	return buildCounters
}

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
	fs.IntVar(&t.heapMB, "heap-reserve-mb", runtime.DefaultHeapReserve>>20, "free heap in MiB a libFuzzer-style target with malloc and free gets before its snapshot (free(malloc(n))), so runs that allocate less never grow memory, which costs restore mode a new instance (0: none)")
	fs.BoolVar(&t.heapGuard, "heap-guard", true, "give a C target's heap blocks (malloc, free and kin, found by name) a header and redzone, so writes past a block and double frees crash when the block is freed (--heap-guard=false: off)")
	fs.IntVar(&t.heapCheck, "heap-check", defaultHeapCheck, "with the heap guard, run one input in `N` (chosen by a hash of its bytes) on a build that checks every load and store of a C target against a shadow of its heap, as AddressSanitizer does: reads and writes past a block or into a freed one crash where they happen (that build runs 1.5-3.5x slower; 1: every input, 0: none)")
	fs.BoolVar(&t.stackDepth, "stack-depth", true, "keep inputs that take an LLVM-built target's stack (C, C++, Rust) to a new depth, as libFuzzer does: feedback towards deep recursion (--stack-depth=false: off)")
	fs.BoolVar(&t.callPairs, "call-pairs", true, "keep inputs whose indirect calls reach a callee from a call site that never reached it before, as libFuzzer does (--call-pairs=false: off)")
	fs.StringArrayVar(&t.warmUp, "warm-up", nil, "run the inputs in `PATH` (file or directory) once per instance before its snapshot, so first-use caches start warm (reactors; repeatable)")
}

// noNamesInfo is the INFO line for a module with neither a name section
// nor DWARF (whose subprograms name functions too), "" for others: its
// stacks name functions by index, and what is told apart by a function's
// name (C's abort, the stack pointer of a stack overflow) reads as a
// plain trap.
func noNamesInfo(path string, wasm []byte) string {
	if instrument.HasCustomSection(wasm, "name") || instrument.HasCustomSection(wasm, ".debug_info") {
		return ""
	}
	return fmt.Sprintf("INFO: %s has no name section and no DWARF: stacks show function indices, and aborts and stack overflows read as plain traps (an optimising link runs wasm-opt, which drops the name section: link without -O, or compile with -g)\n", path)
}
