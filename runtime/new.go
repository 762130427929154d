package runtime

import (
	"context"
	"strconv"

	"github.com/wafer-fuzz/wafer/instrument"
)

// New compiles wasm for running, as it is: runtime rewrites no module
// (instrument.Prepare makes the build, with Preparation's steps for the
// harness). sm is the SiteMap instrument.Prepare returned with wasm: an
// instrumented build's sites and layout, or a plain build's function names
// and stack pointer. nil runs wasm knowing nothing of it (no counters, no
// fuel, no stack pointer). Errors name what failed: the module (wazero's
// compile error), an import wafer cannot provide, or the missing harness
// export.
func New(ctx context.Context, wasm []byte, sm *instrument.SiteMap, cfg Config) (*Target, error) {
	return newTarget(ctx, wasm, metaOf(sm), cfg)
}

// Preparation returns the steps instrument.Prepare takes to make wasm
// ready for a Target under cfg, for the harness wasm has (or cfg names):
// a libFuzzer-style target linked as a command gets its constructors as
// _initialize, run once per instance as a reactor's (wasm-ld wraps every
// export of a command, Rust's wasm32-wasi cdylibs included, in calls to
// the constructors and destructors, which would then run around every
// input); and its allocator (malloc, and free for Config.HeapReserve) is
// exported from the name section where the linker did not export it. Any
// other harness gets none of these. Build.Instrument is left nil (a plain
// build): the caller sets it, with DirtyPages from RestoresMemory.
func Preparation(wasm []byte, cfg Config) instrument.Build {
	var b instrument.Build
	if HarnessOf(wasm, cfg) != HarnessLibFuzzer {
		return b
	}
	if !exportsFunction(wasm, exportInitialize) {
		b.Initialize = exportInitialize
	}
	b.Export = []string{cfg.malloc()}
	if cfg.malloc() == "malloc" && cfg.heapReserve() > 0 {
		b.Export = append(b.Export, exportFree)
	}
	return b
}

// metaOf is what a Target needs of sm.
func metaOf(sm *instrument.SiteMap) meta {
	if sm == nil {
		return meta{}
	}
	m := meta{instrumented: sm.Layout.MemoryExport != "", layout: sm.Layout, funcs: map[string]Frame{}}
	if m.instrumented {
		m.line, m.stmt = sm.Lookup, sm.StatementAt
	}
	clash := map[string]bool{} // wasm names of several functions: left as they are
	for i, f := range sm.Funcs {
		fr := Frame{Func: f.Name, File: f.File, Line: int(f.Line)}
		if f.File != "" {
			m.funcs[f.Name] = fr
		}
		if w := f.WasmName; w != "" && !clash[w] {
			// wazero names the function as the name section does; Go's
			// name is the one to show (instrument.Func.WasmName)
			if prev, ok := m.funcs[w]; ok && prev.Func != f.Name {
				delete(m.funcs, w)
				clash[w] = true
			} else {
				m.funcs[w] = fr
			}
		}
		if f.Name != "" && f.Name != "func["+strconv.Itoa(i)+"]" {
			// wazero's name for a function the name section does not
			// name (the SiteMap may have one from DWARF or an export)
			m.funcs["$"+strconv.Itoa(i)] = fr
		}
	}
	return m
}
