package runtime

import (
	"context"
	"strconv"

	"github.com/wafer-fuzz/wafer/instrument"
)

// New compiles wasm for running. sm is the SiteMap instrument.Instrument
// returned with wasm; nil runs wasm as it is (uninstrumented: no counters,
// no fuel). Errors name what failed: the module (wazero's compile error),
// an import wafer cannot provide, or the missing harness export.
func New(ctx context.Context, wasm []byte, sm *instrument.SiteMap, cfg Config) (*Target, error) {
	return newTarget(ctx, wasm, metaOf(sm), cfg)
}

func metaOf(sm *instrument.SiteMap) meta {
	if sm == nil {
		return meta{}
	}
	m := meta{instrumented: true, layout: sm.Layout, funcs: map[string]Frame{}, line: sm.Lookup, loops: loopSitesOf(sm)}
	for i, f := range sm.Funcs {
		fr := Frame{Func: f.Name, File: f.File, Line: int(f.Line)}
		if f.File != "" {
			m.funcs[f.Name] = fr
		}
		if f.Name != "func["+strconv.Itoa(i)+"]" {
			// wazero's name for a function the name section does not
			// name (the SiteMap may have one from DWARF or an export)
			m.funcs["$"+strconv.Itoa(i)] = fr
		}
	}
	return m
}
