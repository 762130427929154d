package instrument

// ExportFunction returns wasm with one more export, name, for the function
// the name section calls name, when no export has that name and exactly
// one function has it; added reports whether it did. Otherwise it returns
// wasm unchanged. The module behaves as before: wafer uses this to reach a
// target's allocator (malloc, free) that its linker did not export. Only
// the export section changes (withSections). A malformed module is an
// error (*FormatError).
func ExportFunction(wasm []byte, name string) (out []byte, added bool, err error) {
	m, err := Decode(wasm)
	if err != nil {
		return nil, false, err
	}
	for _, e := range m.Exports {
		if e.Name == name {
			return wasm, false, nil
		}
	}
	names := nameSectionFuncs(m)
	idx := -1
	for i, n := range names {
		if n != name {
			continue
		}
		if idx >= 0 {
			return wasm, false, nil // ambiguous
		}
		idx = i
	}
	if idx < 0 {
		return wasm, false, nil
	}
	m.Exports = append(m.Exports, Export{Name: name, Kind: ExternFunc, Index: uint32(idx)})
	return withSections(wasm, m, SectionExport), true, nil
}
