package campaign

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"time"

	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/runtime"
)

// Harness is the protocol that hands an input to a target: HarnessAuto
// (detected from the exports), HarnessLibFuzzer, HarnessGo, HarnessCommand.
type Harness = runtime.Harness

// The harness kinds.
const (
	HarnessAuto      = runtime.HarnessAuto
	HarnessLibFuzzer = runtime.HarnessLibFuzzer
	HarnessGo        = runtime.HarnessGo
	HarnessCommand   = runtime.HarnessCommand
)

// ParseHarness is the inverse of Harness.String ("auto", "libfuzzer", "go",
// "command"); an unknown name is an error listing them.
func ParseHarness(s string) (Harness, error) { return runtime.ParseHarness(s) }

// Reset is how a target's instance is brought back to a clean state
// between runs: ResetDefault (the zero value) restores a snapshot for
// campaigns and merges, and makes a fresh instance per input for a
// Reproducer (an input runs as if alone); ResetRestore copies the snapshot
// of memory and globals back; ResetFresh makes a new instance for every
// run; ResetPersistent reuses the instance, as libFuzzer does: fastest,
// not deterministic when the target keeps state.
type Reset = runtime.Reset

// The reset modes.
const (
	ResetDefault    = runtime.ResetDefault
	ResetRestore    = runtime.Restore
	ResetFresh      = runtime.Fresh
	ResetPersistent = runtime.Persistent
)

// ParseReset is the inverse of Reset.String ("restore", "fresh",
// "persistent"); an unknown name is an error listing them.
func ParseReset(s string) (Reset, error) { return runtime.ParseReset(s) }

// Defaults of TargetOptions' zero fields.
const (
	// DefaultMemoryLimitMB caps a target's linear memory: libFuzzer's
	// default -rss_limit_mb.
	DefaultMemoryLimitMB = 2048
	// DefaultHeapReserveMB is the free heap a libFuzzer-style target gets
	// before its snapshot.
	DefaultHeapReserveMB = runtime.DefaultHeapReserve >> 20
	// DefaultHeapCheck runs one input in 8 on the build with the heap
	// check: on 60-second campaigns it cost 12 % (czstd) and 33 %
	// (csqlite) of the executions and 1.2 % and 2.2 % of the coverage;
	// checking every input cost czstd 40 % of its executions and 10 % of
	// its coverage.
	DefaultHeapCheck = 8
	// DefaultFuel is the fuel per input: function entries and loop
	// iterations before a run is a hang.
	DefaultFuel = runtime.DefaultFuel
)

// TargetOptions say how a target is built and run. The zero value runs
// it as `wafer fuzz` does by default.
type TargetOptions struct {
	// Harness is the protocol; zero detects it from the exports.
	Harness Harness
	// Reset is the state between runs; zero: see ResetDefault.
	Reset Reset
	// Malloc is the allocator export of a libFuzzer-style target; empty
	// means "malloc".
	Malloc string
	// Args is the argv of a WASI command target ("@@" names an in-memory
	// file holding the input; without it the input is stdin).
	Args []string
	// Env is the target's environment ("KEY=value"); Files a read-only
	// file system it sees at "/" (slash-separated paths). Zero: none.
	Env   []string
	Files map[string][]byte
	// InvalidExitCodes are exit codes of a command target that mean
	// "input rejected".
	InvalidExitCodes []uint32
	// Fuel is the fuel per input; zero means DefaultFuel. A Reproducer
	// runs the module uninstrumented (so without fuel) unless Fuel is set.
	Fuel uint64
	// Timeout is the wall-clock backstop per input when a run has no fuel;
	// zero means 10 s.
	Timeout time.Duration
	// MemoryLimitMB caps the target's linear memory; zero means
	// DefaultMemoryLimitMB, negative means no cap (4 GiB, all a 32-bit
	// memory can have).
	MemoryLimitMB int
	// MallocLimitMB is the largest single allocation in MiB (libFuzzer's
	// -malloc_limit_mb): a reactor's memory.grow by more at once is a
	// malloc-limit finding at the allocating call. Zero means the memory
	// limit; negative means none.
	MallocLimitMB int
	// HeapReserveMB is the free heap a target with malloc and free gets
	// before its snapshot (free(malloc(n))), so runs that allocate less
	// never grow memory; zero means DefaultHeapReserveMB, negative none.
	// At most 2047.
	HeapReserveMB int
	// Skip are path.Match patterns of function names that get no
	// coverage counters.
	Skip []string
	// GoRuntimeCounters gives a Go module's runtime (functions matching
	// GoRuntimeSkip) coverage counters. Zero: a Go module's runtime gets
	// none, as if Skip held GoRuntimeSkip (docs/PERFORMANCE.md, "Go
	// targets: the resume-point dispatch and the runtime are not counted": the
	// runtime's branches are half a Go target's sites and run on every
	// input, whatever it is). Other modules are not affected.
	GoRuntimeCounters bool
	// WarmUp are inputs run once per instance before its snapshot, so
	// first-use caches start warm (reactors); one that fails is left out
	// (runtime.Config.WarmUp). wafer fuzz gives a Go reactor its first
	// seeds here unless told otherwise (--warm-up-seeds).
	WarmUp [][]byte
	// NoHeapGuard turns off the heap guard: a header and redzone around a
	// C target's heap blocks, so writes past a block and double frees
	// crash when the block is freed.
	NoHeapGuard bool
	// HeapCheck runs one input in HeapCheck (chosen by a hash of its
	// bytes) on a build that checks every load and store of a C target
	// against a shadow of its heap; zero means DefaultHeapCheck, 1 every
	// input, negative none. It needs the heap guard.
	HeapCheck int
	// NoStackDepth turns off the feedback for new depths of an LLVM-built
	// target's stack.
	NoStackDepth bool
	// NoCallPairs turns off the feedback for new (call site, callee) pairs
	// of indirect calls.
	NoCallPairs bool
	// ValueProfile adds value-profile features: how close the operands
	// of each comparison came (instrument.Options.ValueProfile), in a
	// region of their own after the branch sites.
	ValueProfile bool
}

// heapCheck is the sampling rate of the heap check, 0 for none.
func (o *TargetOptions) heapCheck() int {
	switch {
	case o.HeapCheck == 0:
		return DefaultHeapCheck
	case o.HeapCheck < 0:
		return 0
	}
	return o.HeapCheck
}

// checkedBuild is the build that finds what the campaign's checks find:
// with the heap check unless the options turn it off.
func (o *TargetOptions) checkedBuild() build {
	if !o.NoHeapGuard && o.heapCheck() > 0 {
		return buildChecked
	}
	return buildCounters
}

// Target is a module loaded for fuzzing: its bytes and options. Each
// operation (Fuzz, NewReproducer, Minimize, Merge) compiles the builds it
// needs (a later compile of the same build reads wazero's compilation
// cache). A Target is safe for concurrent use; it holds no instances.
type Target struct {
	name string
	wasm []byte
	// sum is wasm's Summary, read once by Load: what the builds and the
	// runtime need to know of the module before decoding it in full.
	sum  *instrument.Summary
	opts TargetOptions
	// building admits one build at a time into instrument.Prepare,
	// whichever goroutine asks; wazero's compiler is not held back (a
	// campaign makes two builds at most). Prepare's transient memory was
	// a Go module's start-up peak with both builds instrumented at once
	// (gojson, raw mode, warm cache: 118-124 MB against 102-104 one at a
	// time), and the compiles overlap as before (csqlite with an empty
	// compilation cache: SQLite's largest function holds the compiler's
	// pools for seconds).
	building chan struct{}
}

// Load checks wasm (a core module, not already instrumented by wafer)
// and opts, and returns the target. name labels errors and progress lines
// (usually the module's path). Load reads the module once, all but its
// function bodies (instrument.Summarize); bytes that are no module give
// "NAME: not a WebAssembly module: " and the *instrument.FormatError
// (offset and expectation), a module wafer cannot run "NAME: " and the
// error wrapping instrument.ErrUnsupported or instrument.ErrInstrumented.
// A malformed function body is reported by the first build.
func Load(name string, wasm []byte, opts TargetOptions) (*Target, error) {
	if _, err := opts.runtimeConfig(0); err != nil {
		return nil, err
	}
	sum, err := instrument.Summarize(wasm)
	if err != nil {
		return nil, moduleError(name, wasm, err)
	}
	if sum.Instrumented() {
		// run as it is, it would misread every input (pointers are moved
		// by the reserved pages)
		return nil, fmt.Errorf("%s: %w", name, instrument.ErrInstrumented)
	}
	return &Target{name: name, wasm: wasm, sum: sum, opts: opts, building: make(chan struct{}, 1)}, nil
}

// moduleError is Load's error for wasm, named name, that instrument
// could not decode (err).
func moduleError(name string, wasm []byte, err error) error {
	switch {
	case errors.Is(err, instrument.ErrUnsupported):
		return fmt.Errorf("%s: %w", name, err)
	case len(wasm) >= 8 && string(wasm[:4]) == "\x00asm" && string(wasm[6:8]) == "\x01\x00":
		// a version other than 1 with layer 1: the component model's
		// preamble
		return fmt.Errorf("%s: not a WebAssembly module: %w: a WebAssembly component (component model), not a core module: wafer runs core modules; build the target for wasm32-wasip1 (or fuzz the core module the component embeds)", name, err)
	}
	return fmt.Errorf("%s: not a WebAssembly module: %w", name, err)
}

// Name is the name given to Load.
func (t *Target) Name() string { return t.name }

// Harness is the harness the options name, or the one the module's
// exports call for (HarnessAuto when there is none).
func (t *Target) Harness() Harness {
	return runtime.HarnessOf(t.sum, runtime.Config{Harness: t.opts.Harness})
}

// NoNames reports whether the module has neither a name section nor
// DWARF: its stacks name functions by index, and what is told apart by a
// function's name (C's abort, the stack pointer of a stack overflow)
// reads as a plain trap.
func (t *Target) NoNames() bool {
	return !t.sum.HasCustom("name") && !t.sum.HasCustom(".debug_info")
}

// NoNamesInfo is the INFO line that says so for a module without names,
// "" for others. Fuzz writes it to Options.Log.
func (t *Target) NoNamesInfo() string {
	if !t.NoNames() {
		return ""
	}
	return fmt.Sprintf("INFO: %s has no name section and no DWARF: stacks show function indices, and aborts and stack overflows read as plain traps (an optimising link runs wasm-opt, which drops the name section: link without -O, or compile with -g)\n", t.name)
}

// runtimeConfig maps the options onto runtime.Config for inputs of up to
// maxInput bytes.
func (o *TargetOptions) runtimeConfig(maxInput int) (runtime.Config, error) {
	var cfg runtime.Config
	cfg.Harness = o.Harness
	if o.Reset > ResetPersistent {
		return cfg, fmt.Errorf("reset: unknown mode %d", o.Reset)
	}
	cfg.Reset = o.Reset // ResetDefault: the runtime restores
	for _, p := range o.Skip {
		if _, err := path.Match(p, ""); err != nil {
			return cfg, fmt.Errorf("skip: bad pattern %q: %v", p, err)
		}
	}
	cfg.Malloc = o.Malloc
	cfg.Args = o.Args
	cfg.Env, cfg.Files = o.Env, o.Files
	cfg.InvalidExitCodes = o.InvalidExitCodes
	cfg.Fuel = o.Fuel
	cfg.Timeout = o.Timeout
	switch mb := o.MemoryLimitMB; {
	case mb == 0:
		cfg.MaxMemoryPages = DefaultMemoryLimitMB * 16 // 16 pages of 64 KiB per MiB
	case mb < 0:
		cfg.MaxMemoryPages = 65536 // all a 32-bit memory can have
	default:
		cfg.MaxMemoryPages = uint32(min(mb*16, 65536))
	}
	switch mb := o.MallocLimitMB; {
	case mb == 0:
		cfg.MallocLimit = uint64(cfg.MaxMemoryPages) << 16 // libFuzzer's default: the RSS limit
	case mb > 0:
		cfg.MallocLimit = uint64(mb) << 20
	}
	switch mb := o.HeapReserveMB; {
	case mb > 2047:
		return cfg, fmt.Errorf("heap reserve: expected at most 2047 MiB, got %d", mb)
	case mb < 0:
		cfg.HeapReserve = -1
	default:
		cfg.HeapReserve = mb << 20 // 0: runtime's default
	}
	cfg.MaxInputLen = max(maxInput, runtime.DefaultMaxInputLen)
	for _, in := range o.WarmUp {
		cfg.WarmUp = append(cfg.WarmUp, in)
		cfg.MaxInputLen = max(cfg.MaxInputLen, len(in))
	}
	return cfg, nil
}

// build says how compile builds a module.
type build int

const (
	buildPlain    build = iota // as it is
	buildCounters              // counters, fuel, and dirty pages when runs restore memory
	buildCompares              // buildCounters plus comparison logging (input-to-state), and the heap check when the options ask for it: it runs every queue entry once
	buildChecked               // buildCounters plus the heap check
)

// compile builds the module as b and compiles it for running inputs of
// up to maxInput bytes; reset overrides the options' (ResetDefault:
// theirs), noLines leaves out wazero's DWARF source lines. This is the one
// path from the module's bytes to a runnable target.
func (t *Target) compile(ctx context.Context, b build, maxInput int, reset Reset, noLines bool) (*runtime.Target, *instrument.SiteMap, error) {
	o := t.opts
	if reset != ResetDefault {
		o.Reset = reset
	}
	cfg, err := o.runtimeConfig(maxInput)
	if err != nil {
		return nil, nil, err
	}
	cfg.NoSourceLines = noLines
	steps := runtime.Preparation(t.sum, cfg)
	if b != buildPlain {
		steps.Instrument = &instrument.Options{Fuel: true, DirtyPages: runtime.RestoresMemory(t.sum, cfg), Skip: o.skip(t.sum),
			Compares: b == buildCompares, HeapGuard: !o.NoHeapGuard, Malloc: o.Malloc, HeapCheck: b == buildChecked || (b == buildCompares && o.checkedBuild() == buildChecked),
			StackCheck: true, StackDepth: !o.NoStackDepth, CallPairs: !o.NoCallPairs, ValueProfile: o.ValueProfile}
	}
	p, err := t.prepare(ctx, steps)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", t.name, err)
	}
	tgt, err := runtime.New(ctx, p, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", t.name, err)
	}
	return tgt, p.SiteMap, nil
}

// prepare makes the build steps asks for, in its turn (building).
func (t *Target) prepare(ctx context.Context, steps instrument.Build) (*instrument.Prepared, error) {
	if t.building != nil {
		select {
		case t.building <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		defer func() { <-t.building }()
	}
	return instrument.Prepare(t.wasm, steps)
}

// compileAside starts compile of build b on another goroutine, with its
// own copy of the module (compiling is one core's work), and returns a
// function that waits for it (the SiteMap is returned to the first call
// only) and one that cancels it if unfinished and closes the target: the
// caller defers the latter.
func (t *Target) compileAside(ctx context.Context, b build, maxInput int) (wait func() (*runtime.Target, *instrument.SiteMap, error), done func()) {
	cctx, cancel := context.WithCancel(ctx)
	own := &Target{name: t.name, wasm: bytes.Clone(t.wasm), sum: t.sum, opts: t.opts, building: t.building} // nothing but the turn and the read-only Summary is shared with the main build
	var tgt *runtime.Target
	var sm *instrument.SiteMap
	var err error
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tgt, sm, err = own.compile(cctx, b, maxInput, ResetDefault, false)
	}()
	wait = func() (*runtime.Target, *instrument.SiteMap, error) {
		<-finished
		m := sm
		sm = nil // handed over: done keeps the target alone (a large module's SiteMap is MBs)
		return tgt, m, err
	}
	done = func() {
		cancel() // an early return need not wait for the whole compile
		if t, _, _ := wait(); t != nil {
			t.Close(context.WithoutCancel(ctx))
		}
	}
	return wait, done
}

// fileError shortens *fs.PathError into "PATH: reason".
func fileError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", path, pe.Err)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// GoRuntimeSkip is the Skip pattern of the Go runtime's functions, which
// a Go module's campaign leaves uncounted unless
// TargetOptions.GoRuntimeCounters is set.
const GoRuntimeSkip = "runtime.*"

// skip is the Skip patterns a build of the module summarised by s uses:
// o.Skip, and for a module Go's toolchain built (its "go:buildid"
// section) GoRuntimeSkip unless o.GoRuntimeCounters, and for a Go fuzz
// test's build also GoTestSkip's and the module's own
// (Summary.Uncounted: the packages the test's code does not reach, which
// package gofuzz names at build time).
func (o *TargetOptions) skip(s *instrument.Summary) []string {
	if o.GoRuntimeCounters || !s.IsGo() {
		return o.Skip
	}
	out := append(slices.Clip(o.Skip), GoRuntimeSkip)
	if s.Exported(instrument.ExternFunc, goTestExport) {
		out = append(out, GoTestSkip()...)
		out = append(out, s.Uncounted...)
	}
	return out
}

// goTestExport is the export of package gofuzz's generated file that
// marks a Go fuzz test's build (gofuzz.IsGoFuzzTest).
const goTestExport = "wafer_go_describe"

// GoTestSkip returns the Skip patterns of what a Go fuzz test's build
// (package gofuzz) links to run the test rather than to be tested: package
// testing and the fuzzing machinery go test links beside it, and the
// generated file's functions (waferFuzz…, in the test's package). The
// patterns match the name section's spelling, which Skip is matched
// against: Go's wasm linker writes "/" as "_" and "(*T)" as "__T_"
// ("example.com_p.__waferFuzzState_.RunFuzzWorker"). The T's methods
// run on every input, the same way whatever the input: counted, they
// add hits to every run's trace for the engine to read
// (docs/PERFORMANCE.md, "Go fuzz tests"). Packages the user's code may
// import (flag, regexp) are not named here: the build names those its
// code does not reach (Summary.Uncounted).
func GoTestSkip() []string {
	return []string{"testing.*", "testing_internal_testdeps.*", "internal_fuzz.*", "*.waferFuzz*", "*.__waferFuzz*"}
}
