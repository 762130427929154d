package instrument

import "slices"

// Summary is what a host needs to know of a module besides its code: its
// imports, exports, memories, data segments and custom sections' names.
// Summarize reads it from a module's bytes; Prepare returns the one of
// the module it made (Prepared.Summary). A Summary is read-only once
// made and safe for concurrent use; Data's Init bytes alias the module's.
type Summary struct {
	Imports []Import
	Exports []Export
	// Memories are the memories the module defines (an imported one is
	// in Imports). A memory64 memory never gets here: decoding rejects it
	// as ErrUnsupported.
	Memories []Limits
	// Data are the data segments, in order.
	Data []Data
	// Customs are the names of the custom sections, in file order.
	Customs []string
	// Uncounted are the Skip patterns of the module's UncountedSection
	// (of the first, if several); nil without one.
	Uncounted []string
}

// Summarize decodes wasm as Decode does, except that function bodies are
// stepped over by their size instead of decoded (so an error inside a
// body is left to Decode), and returns its Summary. Errors are a
// *FormatError naming the section, the offset and what was expected.
func Summarize(wasm []byte) (*Summary, error) {
	m, err := decode(&reader{buf: wasm, end: len(wasm), skipBodies: true})
	if err != nil {
		return nil, err
	}
	return m.summary(), nil
}

// summary is m's Summary. The data segments' offset expressions are
// copied out of the decoder's instruction arena, which they would keep
// alive.
func (m *Module) summary() *Summary {
	s := &Summary{Imports: m.Imports, Exports: m.Exports, Memories: m.Memories, Data: slices.Clone(m.Data)}
	for i := range s.Data {
		s.Data[i].Offset = Expr{Instrs: slices.Clone(s.Data[i].Offset.Instrs), Pool: slices.Clone(s.Data[i].Offset.Pool)}
	}
	s.Customs = make([]string, len(m.Customs))
	seen := false
	for i, c := range m.Customs {
		s.Customs[i] = c.Name
		if c.Name == UncountedSection && !seen {
			s.Uncounted, seen = uncounted(c.Data()), true
		}
	}
	return s
}

// HasCustom reports whether the module has a custom section called name.
func (s *Summary) HasCustom(name string) bool { return slices.Contains(s.Customs, name) }

// IsGo reports whether Go's toolchain built the module (its "go:buildid"
// custom section).
func (s *Summary) IsGo() bool { return s.HasCustom("go:buildid") }

// Exported reports whether the module exports an entity of kind (ExternFunc,
// ExternGlobal, ...) called name.
func (s *Summary) Exported(kind byte, name string) bool {
	return slices.ContainsFunc(s.Exports, func(e Export) bool { return e.Kind == kind && e.Name == name })
}

// Instrumented reports whether Instrument wrote the module (IsInstrumented).
func (s *Summary) Instrumented() bool {
	return slices.ContainsFunc(s.Exports, func(e Export) bool { return e.Name == MemoryExport })
}

// Shared reports whether the limits are a shared memory's (threads
// proposal: flag bit 1).
func (l Limits) Shared() bool { return l.Flags&2 != 0 }

// ConstOffset is where an active data segment of memory 0 with an
// i32.const offset writes its bytes; false for a passive segment, one of
// another memory or one whose offset is another expression.
func (d *Data) ConstOffset() (uint64, bool) {
	start, _, ok := constRange(d)
	return start, ok
}
