package runtime

import (
	"context"
	"fmt"
	"strconv"

	"github.com/wafer-fuzz/wafer/instrument"
)

// New compiles p.Wasm for running, as it is: runtime rewrites no module
// (instrument.Prepare makes the build, with Preparation's steps for the
// harness). What New knows of the module is p's: p.SiteMap, an
// instrumented build's sites and layout or a plain build's function names
// and stack pointer (nil: no counters, no fuel, no stack pointer), and
// p.Summary, its exports, imports, memories and data (nil: New reads it
// from p.Wasm with instrument.Summarize). A module that is not Prepare's
// runs as &instrument.Prepared{Wasm: wasm}. Errors name what failed: the
// module (its decoding or wazero's compile error), an import wafer cannot
// provide, or the missing harness export.
func New(ctx context.Context, p *instrument.Prepared, cfg Config) (*Target, error) {
	sum := p.Summary
	if sum == nil {
		var err error
		if sum, err = instrument.Summarize(p.Wasm); err != nil {
			return nil, fmt.Errorf("decode module: %w", err)
		}
	}
	return newTarget(ctx, p.Wasm, sum, metaOf(p.SiteMap), cfg)
}

// Preparation returns the steps instrument.Prepare takes to make the
// module summarised by s ready for a Target under cfg, for the harness it
// has (or cfg names): a libFuzzer-style target linked as a command gets
// its constructors as _initialize, run once per instance as a reactor's
// (wasm-ld wraps every export of a command, Rust's wasm32-wasi cdylibs
// included, in calls to the constructors and destructors, which would
// then run around every input); and its allocator (malloc, and free for Config.HeapReserve) is
// exported from the name section where the linker did not export it. Any
// other harness gets none of these. Build.Instrument is left nil (a plain
// build): the caller sets it, with DirtyPages from RestoresMemory.
func Preparation(s *instrument.Summary, cfg Config) instrument.Build {
	var b instrument.Build
	if HarnessOf(s, cfg) != HarnessLibFuzzer {
		return b
	}
	if !s.Exported(instrument.ExternFunc, exportInitialize) {
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
