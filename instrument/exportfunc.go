package instrument

import "github.com/wafer-fuzz/wafer/instrument/internal/leb128"

// ExportFunction returns wasm with one more export, name, for the function
// the name section calls name, when no export has that name and exactly
// one function has it; added reports whether it did. Otherwise it returns
// wasm unchanged. The module behaves as before: wafer uses this to reach a
// target's allocator (malloc, free) that its linker did not export. Only
// the export section changes (it is added when there is none): every other
// section keeps its bytes, so DWARF's code offsets, relative to the code
// section, still match the code (re-encoding would drop the padding of
// LEB128 numbers linkers leave in bodies). A malformed module is an error
// (*FormatError).
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
	return addExport(wasm, name, ExternFunc, uint32(idx)), true, nil
}

// addExport returns wasm, a module Decode accepts, with the export name
// of kind and index added to its export section (or a new export section
// in its place): every other section keeps its bytes.
func addExport(wasm []byte, name string, kind byte, index uint32) []byte {
	entry := leb128.AppendUint32(nil, uint32(len(name)))
	entry = append(entry, name...)
	entry = append(entry, kind)
	entry = leb128.AppendUint32(entry, index)
	section := func(count uint32, entries ...[]byte) []byte {
		body := leb128.AppendUint32(nil, count)
		for _, e := range entries {
			body = append(body, e...)
		}
		sec := leb128.AppendUint32([]byte{SectionExport}, uint32(len(body)))
		return append(sec, body...)
	}
	replace := func(start, end int, sec []byte) []byte {
		out := make([]byte, 0, len(wasm)-(end-start)+len(sec))
		out = append(append(out, wasm[:start]...), sec...)
		return append(out, wasm[end:]...)
	}
	p := len(wasmMagic) + len(wasmVersion)
	for p < len(wasm) {
		id := wasm[p]
		size, n, _ := leb128.Uint32(wasm[p+1:])
		next := p + 1 + n + int(size)
		switch {
		case id == SectionExport:
			payload := wasm[p+1+n : next]
			count, k, _ := leb128.Uint32(payload)
			return replace(p, next, section(count+1, payload[k:], entry))
		case id != SectionCustom && sectionRank(id) > sectionRank(SectionExport):
			return replace(p, p, section(1, entry))
		}
		p = next
	}
	return replace(p, p, section(1, entry))
}
