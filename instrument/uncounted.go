package instrument

import (
	"encoding/binary"
	"strings"
)

// UncountedSection is the custom section in which a module's builder
// names functions that should get no counters: Skip patterns (path.Match
// on the name section's names), one a line. Summarize reads it into
// Summary.Uncounted; whether a build honours it is the host's choice
// (package gofuzz writes it for the packages a Go fuzz test's code does
// not reach, package campaign skips them).
const UncountedSection = "wafer:uncounted"

// AppendCustom returns wasm with a custom section called name holding
// data added at its end (where a custom section may stand in any module).
func AppendCustom(wasm []byte, name string, data []byte) []byte {
	content := binary.AppendUvarint(nil, uint64(len(name)))
	content = append(content, name...)
	content = append(content, data...)
	wasm = append(wasm, 0) // custom section id
	wasm = binary.AppendUvarint(wasm, uint64(len(content)))
	return append(wasm, content...)
}

// uncounted is the patterns of an UncountedSection's data: its non-empty
// lines.
func uncounted(data []byte) []string {
	var out []string
	for l := range strings.SplitSeq(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
