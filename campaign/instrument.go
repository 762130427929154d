package campaign

import (
	"fmt"

	"github.com/wafer-fuzz/wafer/instrument"
)

// InstrumentOptions say what Instrument adds to a module. The zero value
// adds the coverage counters alone.
type InstrumentOptions struct {
	// Fuel adds fuel checks at function entries and loop headers.
	Fuel bool
	// DirtyPages marks the memory blocks stores and memory.grow touch (for
	// restoring memory between runs).
	DirtyPages bool
	// Skip are path.Match patterns of function names that get no counters.
	Skip []string
}

// Instrumented is a module as Instrument rewrote it.
type Instrumented struct {
	// Module is the instrumented module; SiteMap its binary site map,
	// which names every counter (function, offset, kind, arm, file:line).
	Module, SiteMap []byte
	// Sites is the number of branch sites, Counted those with a counter of
	// their own (the others are derived).
	Sites, Counted int
}

// Instrument rewrites wasm as `wafer instrument` does, for inspection or
// for another host: it is not the build a campaign runs (which also owns
// its memory, adapts commands and adds the checks the options ask for).
func Instrument(wasm []byte, opts InstrumentOptions) (Instrumented, error) {
	out, sm, err := instrument.Instrument(wasm, instrument.Options{Fuel: opts.Fuel, DirtyPages: opts.DirtyPages, Skip: opts.Skip})
	if err != nil {
		return Instrumented{}, err
	}
	sitemap, err := sm.MarshalBinary()
	if err != nil {
		return Instrumented{}, fmt.Errorf("site map: %w", err)
	}
	return Instrumented{Module: out, SiteMap: sitemap, Sites: len(sm.Sites), Counted: sm.Counted()}, nil
}
