package runtime

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/wafer-fuzz/wafer/instrument"
)

// Features are the core features wafer enables: WebAssembly 2.0 plus the
// proposals wazero v1.12 implements.
const Features = api.CoreFeaturesV2 |
	experimental.CoreFeaturesThreads |
	experimental.CoreFeaturesTailCall |
	experimental.CoreFeaturesExtendedConst |
	experimental.CoreFeaturesExceptionHandling |
	experimental.CoreFeaturesTypedFunctionReferences

// Export names of the harness protocols.
const (
	exportTest       = "LLVMFuzzerTestOneInput"
	exportInit       = "LLVMFuzzerInitialize"
	exportInitialize = "_initialize"
	exportFree       = "free"
	exportStart      = "_start"
	// exportStarted is called, when a module exports it, once its
	// start-up runs are done (the empty input, warm-up inputs), before a
	// restore-mode snapshot is taken: a Go fuzz test's module (package
	// gofuzz) gets its fuzz function waiting for an input there.
	exportStarted = "wafer_started"
)

// meta is what runtime needs from a SiteMap.
type meta struct {
	instrumented bool
	layout       instrument.Layout
	funcs        map[string]Frame // function name → file:line
	// line is the source position of a code offset of the module before
	// instrumentation (SiteMap.Lookup), nil when not instrumented.
	line func(offset uint32) (file string, line uint32, ok bool)
	// stmt is SiteMap.StatementAt (hangline.go)
	stmt func(offset uint32) (file string, line uint32, ok bool)
}

// Target is one compiled module ready to run: one wazero.Runtime and one
// CompiledModule. It is safe for concurrent use by NewWorker; each Worker
// owns its instance.
type Target struct {
	cfg      Config
	r        wazero.Runtime
	cm       wazero.CompiledModule
	host     api.Closer
	cache    wazero.CompilationCache
	harness  Harness
	meta     meta
	backstop time.Duration
	fuelName string
	globals  []string // exported mutable globals to snapshot, sorted
	// restoreGlobals: every mutable global is exported (instrumented), so a
	// new instance plus the snapshot equals the initialised instance.
	restoreGlobals bool
	hasInit        bool   // _initialize
	hasStarted     bool   // wafer_started
	hasLLVMInit    bool   // LLVMFuzzerInitialize
	reserve        uint32 // Config.HeapReserve when the target has malloc and free, else 0
	// sharedMemory: a threads-proposal shared memory cannot move, so its
	// buffer is allocated at its maximum (capped) up front.
	sharedMemory bool
	// Config values with their defaults applied, read on every run.
	maxIn  int
	budget uint64
	// dirtyShift is meta.layout.DirtyShift(): log2 of a dirty block.
	dirtyShift uint
	// recycle: restore mode may hand a discarded instance's memory to its
	// replacement (recycle.go): dirty pages, every mutable global
	// restorable, data segments at constant offsets (data), a memory
	// that can move.
	recycle bool
	data    []dataSegment
}

// newTarget compiles wasm, whose Summary is sum; m describes the
// instrumentation (zero: none).
func newTarget(ctx context.Context, wasm []byte, sum *instrument.Summary, m meta, cfg Config) (_ *Target, err error) {
	cfg.Reset = cfg.reset()
	t := &Target{cfg: cfg, meta: m, maxIn: cfg.maxInput(), budget: cfg.fuel(), dirtyShift: m.layout.DirtyShift()}
	rc := wazero.NewRuntimeConfig()
	if cfg.Interpreter {
		rc = wazero.NewRuntimeConfigInterpreter()
	}
	rc = rc.WithCoreFeatures(Features)
	// wazero parses DWARF on every trap to print source lines: costly on a
	// crash-heavy campaign, and an instrumented module's code offsets no
	// longer match its DWARF. The SiteMap carries the positions instead.
	lines := !m.instrumented && !cfg.NoSourceLines
	rc = rc.WithDebugInfoEnabled(lines)
	if !cfg.NoCache {
		dir := cfg.CacheDir
		if dir == "" {
			if d, err := os.UserCacheDir(); err == nil {
				dir = filepath.Join(d, "wafer", "wazero")
			}
		}
		if dir != "" {
			pruneCache(dir, cacheBudget)
			if lines {
				// wazero keeps the map from machine code to Wasm offsets
				// (source lines) only in code compiled with debug info,
				// and its cache key does not say which: such code has a
				// cache of its own.
				dir = filepath.Join(dir, "lines")
			}
			if c, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
				t.cache = c
				rc = rc.WithCompilationCache(c)
			}
			// A cache we cannot create only costs time: run without it.
		}
	}
	if m.instrumented && m.layout.FuelExport != "" {
		t.fuelName = m.layout.FuelExport
	}
	switch {
	case cfg.Timeout > 0:
		t.backstop = cfg.Timeout
	case cfg.Timeout == 0 && t.fuelName == "":
		t.backstop = DefaultTimeout
	}
	rc = rc.WithCloseOnContextDone(t.backstop > 0)
	t.r = wazero.NewRuntimeWithConfig(ctx, rc)
	defer func() {
		if err != nil {
			t.Close(ctx)
		}
	}()
	// The heap reserve needs free, the one that goes with malloc
	// (Preparation exports both when the name section has them).
	wantFree := HarnessOf(sum, cfg) == HarnessLibFuzzer && cfg.malloc() == "malloc" && cfg.heapReserve() > 0
	t.cm, err = t.r.CompileModule(ctx, wasm)
	if err != nil {
		return nil, fmt.Errorf("compile module: %w", err)
	}
	if err := checkImports(t.cm, sum); err != nil {
		return nil, err
	}
	if t.harness, err = detect(t.cm, sum, cfg); err != nil {
		return nil, err
	}
	exports := t.cm.ExportedFunctions()
	_, t.hasInit = exports[exportInitialize]
	_, t.hasStarted = exports[exportStarted]
	_, t.hasLLVMInit = exports[exportInit]
	if f, ok := exports[exportFree]; ok && wantFree &&
		checkSig(f, []api.ValueType{api.ValueTypeI32}, nil) == nil {
		t.reserve = uint32(min(cfg.heapReserve(), math.MaxInt32))
	}
	for _, name := range exportedGlobals(sum) {
		if m.instrumented && m.layout.GlobalExportPrefix != "" {
			if strings.HasPrefix(name, m.layout.GlobalExportPrefix) {
				t.globals = append(t.globals, name)
			}
			continue
		}
		// Uninstrumented: snapshot what is exported (the worker keeps the
		// mutable ones); unexported globals (C's __stack_pointer, Go's SP)
		// are back at their value at rest whenever a call returns.
		t.globals = append(t.globals, name)
	}
	t.restoreGlobals = m.instrumented && m.layout.GlobalExportPrefix != ""
	sort.Strings(t.globals)
	t.sharedMemory = hasSharedMemory(sum)
	if cfg.Reset == Restore && t.restoreGlobals && m.layout.DirtyPages > 0 && !t.sharedMemory {
		t.data, t.recycle = activeData(sum)
	}
	if t.host, err = instantiateHost(ctx, t.r); err != nil {
		return nil, fmt.Errorf("instantiate wasi host: %w", err)
	}
	return t, nil
}

// cacheBudget bounds the compilation cache: wazero never evicts, and a Go
// target adds about 90 MB per build (wafer compiles two or three: the
// instrumented one, the comparison-logging one, the plain one for repro).
const cacheBudget = 2 << 30

// pruneCache removes the oldest files (by modification time: when wazero
// wrote them) under dir until they take at most budget/2 bytes, when they
// take more than budget. Errors are ignored: a cache that cannot be
// pruned only costs disk, and one whose file vanished only costs a
// compilation.
func pruneCache(dir string, budget int64) {
	type file struct {
		path string
		size int64
		mod  time.Time
	}
	var files []file
	var total int64
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			files = append(files, file{path, info.Size(), info.ModTime()})
			total += info.Size()
		}
		return nil
	})
	if total <= budget {
		return
	}
	slices.SortFunc(files, func(a, b file) int { return a.mod.Compare(b.mod) })
	for _, f := range files {
		if total <= budget/2 {
			break
		}
		if os.Remove(f.path) == nil {
			total -= f.size
		}
	}
}

// Harness is the harness kind in use (detected or configured).
func (t *Target) Harness() Harness { return t.harness }

// Fuel is the fuel budget of a run (Config.Fuel with its default), or 0
// when the module counts no fuel (not instrumented with it).
func (t *Target) Fuel() uint64 {
	if t.fuelName == "" {
		return 0
	}
	return t.budget
}

// Close releases the runtime, all instances and the cache handle.
func (t *Target) Close(ctx context.Context) error {
	var err error
	if t.r != nil {
		err = t.r.Close(ctx)
	}
	if t.cache != nil {
		err = errors.Join(err, t.cache.Close(ctx))
	}
	return err
}

// checkImports rejects what wafer cannot provide, naming it.
func checkImports(cm wazero.CompiledModule, sum *instrument.Summary) error {
	if kind, mod, name, ok := firstNonFuncImport(sum); ok {
		return fmt.Errorf("unsupported import: %s %s.%s (wafer provides only functions of %s)", kind, mod, name, wasiModule)
	}
	for _, d := range cm.ImportedFunctions() {
		mod, name, _ := d.Import()
		if mod != wasiModule || !wasiProvides(name) {
			return fmt.Errorf("unsupported import: function %s.%s (wafer provides only %s)", mod, name, wasiModule)
		}
	}
	for _, d := range cm.ImportedMemories() {
		mod, name, _ := d.Import()
		return fmt.Errorf("unsupported import: memory %s.%s (the target must define its memory)", mod, name)
	}
	return nil
}

// HarnessOf is the harness cfg.Harness names, or the one the exports of
// the module summarised by s call for; HarnessAuto when there is none.
func HarnessOf(s *instrument.Summary, cfg Config) Harness {
	switch {
	case cfg.Harness != HarnessAuto:
		return cfg.Harness
	case s.Exported(instrument.ExternFunc, exportTest) && s.IsGo():
		return HarnessGo
	case s.Exported(instrument.ExternFunc, exportTest):
		return HarnessLibFuzzer
	case s.Exported(instrument.ExternFunc, exportStart):
		return HarnessCommand
	}
	return HarnessAuto
}

// RestoresMemory reports whether Workers of the module summarised by s
// under cfg bring one instance back to its snapshot between runs (Restore
// on a reactor; a command gets a new instance per run): only then does
// instrumenting with instrument.Options.DirtyPages pay for the stores it
// marks.
func RestoresMemory(s *instrument.Summary, cfg Config) bool {
	return cfg.reset() == Restore && HarnessOf(s, cfg) != HarnessCommand
}

// detect picks the harness (HarnessOf) and checks its exports.
func detect(cm wazero.CompiledModule, sum *instrument.Summary, cfg Config) (Harness, error) {
	exports := cm.ExportedFunctions()
	_, hasTest := exports[exportTest]
	_, hasMalloc := exports[cfg.malloc()]
	_, hasStart := exports[exportStart]
	h := HarnessOf(sum, cfg)
	if h == HarnessAuto {
		return 0, fmt.Errorf("no harness export: expected %s (with %s) or %s", exportTest, cfg.malloc(), exportStart)
	}
	switch h {
	case HarnessLibFuzzer, HarnessGo:
		if !hasTest {
			return 0, fmt.Errorf("no harness export: expected %s", exportTest)
		}
		if !hasMalloc {
			return 0, fmt.Errorf("no allocator export: expected %s beside %s, or a function of that name in the name section, which wafer exports (link with -Wl,--export=%[1]s, or name the target's allocator export with --malloc)", cfg.malloc(), exportTest)
		}
		if err := checkSig(exports[exportTest], []api.ValueType{api.ValueTypeI32, api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}); err != nil {
			return 0, err
		}
		if err := checkSig(exports[cfg.malloc()], []api.ValueType{api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}); err != nil {
			return 0, err
		}
	case HarnessCommand:
		if !hasStart {
			return 0, fmt.Errorf("no harness export: expected %s", exportStart)
		}
	default:
		return 0, fmt.Errorf("unknown harness %v", h)
	}
	return h, nil
}

func checkSig(d api.FunctionDefinition, params, results []api.ValueType) error {
	if string(d.ParamTypes()) != string(params) || string(d.ResultTypes()) != string(results) {
		return fmt.Errorf("export %s: expected signature %s, got %s", d.ExportNames()[0], sig(params, results), sig(d.ParamTypes(), d.ResultTypes()))
	}
	return nil
}

func sig(params, results []api.ValueType) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, p := range params {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(api.ValueTypeName(p))
	}
	b.WriteString(") -> (")
	for i, p := range results {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(api.ValueTypeName(p))
	}
	b.WriteByte(')')
	return b.String()
}

// exportedGlobals lists the names of the global exports.
func exportedGlobals(s *instrument.Summary) []string {
	var names []string
	for _, e := range s.Exports {
		if e.Kind == instrument.ExternGlobal {
			names = append(names, e.Name)
		}
	}
	return names
}

// firstNonFuncImport finds the first import that is not a function (a
// table, memory, global or tag), which no host module of wafer provides.
func firstNonFuncImport(s *instrument.Summary) (kind, mod, name string, ok bool) {
	for _, im := range s.Imports {
		switch im.Kind {
		case instrument.ExternFunc:
			continue
		case instrument.ExternTable:
			kind = "table"
		case instrument.ExternMemory:
			kind = "memory"
		case instrument.ExternGlobal:
			kind = "global"
		case instrument.ExternTag:
			kind = "tag"
		default:
			kind = "import kind " + strconv.Itoa(int(im.Kind))
		}
		return kind, im.Module, im.Name, true
	}
	return "", "", "", false
}

// hasSharedMemory reports whether the module's first defined memory is
// shared.
func hasSharedMemory(s *instrument.Summary) bool {
	return len(s.Memories) > 0 && s.Memories[0].Shared()
}
