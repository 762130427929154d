package instrument

// ExportFunction returns wasm with one more export, name, for the function
// the name section calls name, when no export has that name and exactly
// one function has it; added reports whether it did. Otherwise it returns
// wasm unchanged. The module behaves as before: wafer uses this to reach a
// target's allocator (malloc, free) that its linker did not export. Only
// the export section changes (withSections). A malformed module is an
// error (*FormatError). Prepare runs the same pass (Build.Export).
func ExportFunction(wasm []byte, name string) (out []byte, added bool, err error) {
	m, err := Decode(wasm)
	if err != nil {
		return nil, false, err
	}
	if !exportFunction(m, name) {
		return wasm, false, nil
	}
	return withSections(wasm, m, SectionExport), true, nil
}

// exportFunction is ExportFunction's pass over a decoded module: it
// reports whether it added the export.
func exportFunction(m *Module, name string) bool {
	for _, e := range m.Exports {
		if e.Name == name {
			return false
		}
	}
	idx := -1
	for i, n := range nameSectionFuncs(m) {
		if n != name {
			continue
		}
		if idx >= 0 {
			return false // ambiguous
		}
		idx = i
	}
	if idx < 0 {
		return false
	}
	m.Exports = append(m.Exports, Export{Name: name, Kind: ExternFunc, Index: uint32(idx)})
	return true
}
