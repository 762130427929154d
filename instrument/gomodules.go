package instrument

import (
	"bytes"
	"runtime/debug"
)

// A Go module's build information: the go command links the module
// paths a binary was built from into it as text between two 16-byte
// markers (the runtime's modinfo, which runtime/debug.ReadBuildInfo
// parses). Go's wasm linker writes no build information section
// (debug/buildinfo does not read wasm), but the text lies in the data
// segments as any string does, so goModulePaths finds its first marker
// there and parses the text up to the second.

var (
	goModInfoStart = []byte("0w\xaf\x0c\x92t\x08\x02A\xe1\xc1\x07\xe6\xd6\x18\xe6")
	goModInfoEnd   = []byte("\xf92C1\x86\x18 r\x00\x82B\x10A\x16\xd8\xf2")
)

// goModInfoMax bounds the bytes of module information read.
const goModInfoMax = 1 << 20

// goModulePaths returns the paths of the modules m, a Go binary, was
// built from: the main module's first (the command's package path when
// it was built outside a module, as `go build file.go` does), then its
// dependencies' in the order the build information lists them; nil when
// m has no readable build information.
func goModulePaths(m *Module) []string {
	im := memImageOf(m.Data)
	for _, s := range im.segs {
		k := bytes.Index(s.b, goModInfoStart)
		if k < 0 {
			continue
		}
		a := s.addr + uint64(k+len(goModInfoStart))
		var text []byte
		for len(text) < goModInfoMax && im.seg(a) >= 0 && !bytes.HasSuffix(text, goModInfoEnd) {
			text = append(text, im.byteAt(a))
			a++
		}
		info, ok := bytes.CutSuffix(text, goModInfoEnd)
		if !ok {
			continue
		}
		bi, err := debug.ParseBuildInfo(string(info))
		if err != nil {
			continue
		}
		main := bi.Main.Path
		if main == "" {
			main = bi.Path
		}
		if main == "" {
			continue
		}
		out := []string{main}
		for _, d := range bi.Deps {
			if d != nil && d.Path != "" {
				out = append(out, d.Path)
			}
		}
		return out
	}
	return nil
}
