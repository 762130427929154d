package instrument

import "slices"

// Build says which build of a module Prepare makes. The zero value makes
// a plain build that changes only what the host needs: the module owns
// its memory (OwnMemory) and exports its stack pointer
// (ExportStackPointer); its exports are otherwise left as they are.
type Build struct {
	// Instrument, when not nil, instruments the module with these options
	// (Instrument) instead of making a plain build.
	Instrument *Options
	// Initialize, when not "", undoes wasm-ld's command export wrappers
	// and exports the constructors under this name
	// (UnwrapCommandExports): for a libFuzzer-style target linked as a
	// command. "": the wrappers stay.
	Initialize string
	// Export names functions to export, from the name section, where no
	// export has the name (ExportFunction), in order, after
	// instrumentation: a target's allocator its linker did not export.
	// nil: none.
	Export []string
}

// Prepared is a module ready for the host: its bytes and what the host
// needs to know of them.
type Prepared struct {
	// Wasm is the module to compile.
	Wasm []byte
	// SiteMap describes Wasm. For an instrumented build it is
	// Instrument's. For a plain build it has no sites, a Layout holding
	// only the stack pointer's fields (zero without a stack pointer), and
	// Funcs only when the module's functions have names from its DWARF
	// alone (no name section), "" where DWARF has none, or Go names a
	// Go module's functions otherwise than its name section (Func.WasmName).
	SiteMap *SiteMap
	// Unwrapped names the exports Build.Initialize re-pointed.
	Unwrapped []string
	// Summary is Wasm's, from the module Prepare encoded (nothing reads
	// Wasm again for it).
	Summary *Summary
}

// Instrumented reports whether p is an instrumented build.
func (p *Prepared) Instrumented() bool { return p.SiteMap.Layout.MemoryExport != "" }

// Prepare makes build b of wasm: it decodes the module once, runs every
// rewrite b asks for as a pass over the decoded module (own memory,
// command export unwrapping, instrumentation, exports), and encodes the
// result once. The output is byte for byte what the same rewrites made
// one after the other on each other's bytes. A module Instrument wrote is
// ErrInstrumented, a malformed one a *FormatError. Prepare is safe for
// concurrent use.
func Prepare(wasm []byte, b Build) (*Prepared, error) {
	m, err := Decode(wasm)
	if err != nil {
		return nil, err
	}
	if m.instrumented() {
		return nil, ErrInstrumented
	}
	var changed []byte // the sections a plain build re-encodes
	if ownMemory(m) {
		changed = append(changed, SectionImport, SectionMemory)
	}
	p := &Prepared{}
	if b.Initialize != "" {
		if p.Unwrapped = unwrapCommandExports(m, b.Initialize); p.Unwrapped != nil {
			changed = append(changed, SectionExport)
		}
	}
	if b.Instrument != nil {
		rw := &rewriter{m: m, opts: *b.Instrument, src: wasm}
		if err := rw.run(); err != nil {
			return nil, err
		}
		p.SiteMap = rw.sm
	}
	for _, name := range b.Export {
		if exportFunction(m, name) {
			changed = append(changed, SectionExport)
		}
	}
	if b.Instrument != nil {
		p.Wasm = m.Encode()
		p.Summary = m.summary()
		return p, nil
	}
	p.SiteMap = &SiteMap{Funcs: dwarfOnlyNames(m)}
	if p.SiteMap.Funcs == nil {
		p.SiteMap.Funcs = goOnlyNames(m)
	}
	l, added := exportStackPointer(m)
	p.SiteMap.Layout = l
	if added {
		changed = append(changed, SectionExport)
	}
	p.Wasm = wasm
	if len(changed) > 0 {
		slices.Sort(changed)
		p.Wasm = withSections(wasm, m, slices.Compact(changed)...)
	}
	p.Summary = m.summary()
	return p, nil
}

// dwarfOnlyNames is Funcs of a plain build's SiteMap: the names of m's
// functions from its DWARF when it has no name section (DWARFFuncNames).
func dwarfOnlyNames(m *Module) []Func {
	if slices.ContainsFunc(m.Customs, func(c Custom) bool { return c.Name == "name" }) ||
		!slices.ContainsFunc(m.Customs, func(c Custom) bool { return c.Name == ".debug_info" }) {
		return nil
	}
	names := dwarfFuncNames(m)
	if names == nil {
		return nil
	}
	funcs := make([]Func, len(names))
	for i, n := range names {
		funcs[i].Name = n
	}
	return funcs
}
