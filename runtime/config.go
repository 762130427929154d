package runtime

import (
	"time"

	"github.com/wafer-fuzz/wafer/internal/enumname"
)

// Harness is the protocol wafer uses to hand an input to a target.
type Harness uint8

const (
	// HarnessAuto detects the protocol from the module's exports:
	// LLVMFuzzerTestOneInput → LibFuzzer (Go when the module was built by
	// Go), else _start → Command.
	HarnessAuto Harness = iota
	// HarnessLibFuzzer: LLVMFuzzerTestOneInput(ptr, len) → i32 plus an
	// allocator export; optional _initialize and LLVMFuzzerInitialize.
	HarnessLibFuzzer
	// HarnessGo: a Go wasip1 c-shared reactor using package harness. Same
	// protocol as LibFuzzer; Go panics are parsed from stderr.
	HarnessGo
	// HarnessCommand: a WASI command (_start); the input is stdin, or the
	// file named by an "@@" argument.
	HarnessCommand
)

var harnessNames = enumname.New[Harness]("Harness", "harness", "auto", "libfuzzer", "go", "command")

func (h Harness) String() string { return harnessNames.String(h) }

// ParseHarness is the inverse of Harness.String ("auto", "libfuzzer",
// "go", "command"); an unknown name is an error listing them.
func ParseHarness(s string) (Harness, error) { return harnessNames.Parse(s) }

// Reset is how a Worker brings its instance back to a clean state between
// runs. The zero value, ResetDefault, leaves the mode to whoever runs the
// target: a Target restores (Restore); campaign's Reproducer makes a fresh
// instance for every input.
type Reset uint8

const (
	// ResetDefault is the zero value: Restore, for a Target.
	ResetDefault Reset = iota
	// Restore: snapshot memory and mutable globals once after
	// initialisation and copy them back before each run: only the 4 KiB
	// blocks the previous run dirtied when the module was instrumented
	// with DirtyPages, else all of memory. Deterministic.
	Restore
	// Fresh instantiates and initialises a new instance for every run.
	// Deterministic, slowest (a Go reactor costs milliseconds).
	Fresh
	// Persistent reuses the instance as libFuzzer does; only counters are
	// cleared. Fastest, not deterministic when the target keeps state.
	Persistent
)

// resetNames: ResetDefault has no name (String gives "", ParseReset does
// not accept one).
var resetNames = enumname.New[Reset]("Reset", "reset mode", "", "restore", "fresh", "persistent")

func (r Reset) String() string { return resetNames.String(r) }

// ParseReset is the inverse of Reset.String ("restore", "fresh",
// "persistent"); an unknown name is an error listing them.
func ParseReset(s string) (Reset, error) { return resetNames.Parse(s) }

// Defaults used for zero Config fields.
const (
	DefaultFuel           = 1 << 28 // fuel units (function entries + loop iterations) per run
	DefaultTimeout        = 10 * time.Second
	DefaultMaxMemoryPages = 32768 // 2 GiB of target memory, libFuzzer's default RSS limit
	DefaultMaxInputLen    = 1 << 20
	DefaultOutputTail     = 4096
	DefaultHeapReserve    = 1 << 20
)

// Config configures a Target. The zero value works: auto-detected harness,
// restore mode, default fuel, wall-clock backstop only without fuel, 2 GiB
// memory cap, compilation cache under os.UserCacheDir()/wafer.
type Config struct {
	// Harness overrides detection (zero: HarnessAuto).
	Harness Harness
	// Reset is the reset mode (zero, ResetDefault: Restore).
	Reset Reset
	// Malloc names the allocator export of libFuzzer-style targets (zero:
	// "malloc").
	Malloc string
	// Args are the arguments after argv[0] for command targets; an argument
	// "@@" is replaced by the path of a read-only in-memory file holding
	// the input (and stdin is then empty). Zero: no arguments, input on
	// stdin.
	Args []string
	// Env is the environment ("KEY=value") the target sees (zero: none).
	Env []string
	// Files is a read-only file system every run sees, mounted as the
	// preopened directory "/" (slash-separated paths, as
	// wasip1.State.Files); zero: none. A command's "@@" input file is
	// added beside them.
	Files map[string][]byte
	// InvalidExitCodes are the exit codes of a command target that mean the
	// input was rejected; 0 is valid, every other code is a crash.
	InvalidExitCodes []uint32
	// Fuel is the per-run fuel budget of an instrumented module with fuel
	// (zero: DefaultFuel). Ignored for modules without fuel.
	Fuel uint64
	// Timeout is the per-run wall-clock backstop. Zero: DefaultTimeout, but
	// only for modules without fuel (the backstop makes wazero check the
	// context in loops, 3–6× slower); negative: never. A positive value is
	// always applied.
	Timeout time.Duration
	// MaxMemoryPages caps the target's memory in 64 KiB pages, not counting
	// wafer's reserved pages (zero: DefaultMaxMemoryPages). A memory.grow
	// past it fails in the target and the run is a Crash of KindOutOfMemory.
	MaxMemoryPages uint32
	// MallocLimit, in bytes, is the largest single allocation: a
	// memory.grow by more than it at once ends the run as a Crash of
	// KindMallocLimit with the stack of the call that asked (libFuzzer's
	// -malloc_limit_mb; C's malloc and Go's runtime both grow memory by
	// what one large request needs). Reactors only: a command's allocations
	// count against MaxMemoryPages alone. Zero: no limit but MaxMemoryPages.
	MallocLimit uint64
	// MaxInputLen is the size of the input buffer allocated in reactor
	// targets once per instance (zero: DefaultMaxInputLen). Longer inputs
	// are an error.
	MaxInputLen int
	// OutputTail is how many trailing bytes of stdout and stderr a run
	// keeps (zero: DefaultOutputTail).
	OutputTail int
	// WarmUp are inputs run once per instance as the last step of its
	// initialisation (reactors only), before restore mode's snapshot: a
	// target that fills caches on first use (encoding/json's type cache,
	// regexp compilation, lazily built tables) then starts every run warm
	// instead of redoing that work each time. Runs stay deterministic; the
	// cost is that first-use paths are covered only by the warm-up. Each
	// runs with a run's fuel and backstop; one that fails (a crash, an
	// exit, a hang) is left out of every instance, as a failing empty run
	// is (Worker.WarmUpFailed). Zero: none.
	WarmUp [][]byte
	// NoEmptyRun skips the empty input reactors run once per instance
	// before the WarmUp inputs (in every mode), as libFuzzer runs it
	// before any other: what a harness sets up on its first call then
	// belongs to the snapshot instead of being redone by every run. An
	// empty input that crashes or hangs is dropped from initialisation
	// (the campaign can still find it).
	NoEmptyRun bool
	// HeapReserve is how many bytes a libFuzzer-style target that has a
	// free (exported, or named in its name section) gets as free heap
	// before the snapshot, in every mode: once per instance, after the
	// empty run and the WarmUp inputs, wafer calls free(malloc(n)). An
	// allocator that keeps freed memory (wasi-libc's dlmalloc, which
	// cannot give memory back) then serves a run's allocations up to n
	// bytes without growing memory, and restore mode needs a new instance
	// only for the runs that allocate more (memory cannot shrink). A
	// harness that returns early on the empty input (a size check before
	// it sets up its parser) otherwise grows memory, and so costs a new
	// instance, on every run. Zero: DefaultHeapReserve; negative: none.
	// When malloc or free fails or traps, instances are made without it.
	HeapReserve int
	// Seed seeds the target's random_get stream.
	Seed uint64
	// CacheDir is wazero's compilation cache directory (zero:
	// os.UserCacheDir()/wafer/wazero); NoCache disables the cache. Past
	// 2 GiB its oldest files are removed, down to 1 GiB.
	CacheDir string
	NoCache  bool
	// Interpreter forces wazero's interpreter (zero: the compiler where
	// wazero supports it).
	Interpreter bool
	// NoSourceLines keeps wazero from reading an uninstrumented module's
	// DWARF for the source lines of a trap's stack (instrumented modules
	// never do: their SiteMap gives function-level lines). wazero walks
	// the DWARF again for every frame of every trap or exit, milliseconds
	// per run on a large module; without it frames keep their names.
	NoSourceLines bool
}

// reset is the reset mode, ResetDefault read as Restore.
func (c Config) reset() Reset {
	if c.Reset == ResetDefault {
		return Restore
	}
	return c.Reset
}

func (c Config) malloc() string {
	if c.Malloc == "" {
		return "malloc"
	}
	return c.Malloc
}

func (c Config) heapReserve() int {
	if c.HeapReserve == 0 {
		return DefaultHeapReserve
	}
	return max(c.HeapReserve, 0)
}

func (c Config) fuel() uint64 {
	if c.Fuel == 0 {
		return DefaultFuel
	}
	return c.Fuel
}

func (c Config) maxPages() uint32 {
	if c.MaxMemoryPages == 0 {
		return DefaultMaxMemoryPages
	}
	return c.MaxMemoryPages
}

func (c Config) maxInput() int {
	if c.MaxInputLen <= 0 {
		return DefaultMaxInputLen
	}
	return c.MaxInputLen
}

func (c Config) outputTail() int {
	if c.OutputTail <= 0 {
		return DefaultOutputTail
	}
	return c.OutputTail
}
