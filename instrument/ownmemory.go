package instrument

// OwnMemory returns wasm with its imported memory turned into a memory it
// defines, with the same limits (and sharing), when the module imports its
// only memory: a target linked with --import-memory expects its host to
// supply the memory, and wafer, the host, has nothing else to put in it.
// The memory keeps index 0 and every export and data segment that names
// it; only the import and memory sections change (withSections).
// changed reports whether it did; any other module is returned as it is. A malformed module is an error (*FormatError).
// Prepare runs the same pass (ownMemory) with the others.
func OwnMemory(wasm []byte) (out []byte, changed bool, err error) {
	m, err := Decode(wasm)
	if err != nil {
		return nil, false, err
	}
	if !ownMemory(m) {
		return wasm, false, nil
	}
	return withSections(wasm, m, SectionImport, SectionMemory), true, nil
}

// ownMemory is OwnMemory's pass over a decoded module: it reports whether
// it changed m (its import and memory sections).
func ownMemory(m *Module) bool {
	if len(m.Memories) != 0 || m.NumImported(ExternMemory) != 1 {
		return false
	}
	for i, im := range m.Imports {
		if im.Kind == ExternMemory {
			m.Memories = append(m.Memories, im.Memory)
			m.Imports = append(m.Imports[:i], m.Imports[i+1:]...)
			break
		}
	}
	return true
}
