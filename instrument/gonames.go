package instrument

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
)

// Go's wasm linker writes a function's name into the name section with
// every character that is not an ASCII letter, digit, '_' or '.'
// replaced by '_' ("example.com/m/pkg.(*T).Read" becomes
// "example.com_m_pkg.__T_.Read"): the mapping loses the import path's
// slashes and the receiver's parentheses. The module keeps the real names
// in the Go runtime's function table (the pclntab, in a data segment,
// which the runtime reads to print panic traces). goFuncNames reads that
// table and pairs its entries with the name section's functions, so that
// wafer shows a Go function as Go's own traces do.

// goTableMagic starts the function table header of Go 1.20 and later
// (0xfffffff1) and of Go 1.18 and 1.19 (0xfffffff0, the same layout for
// what is read here), little-endian, followed by two zero pad bytes, the
// instruction size quantum (1 on wasm) and the pointer size (8 on wasm).
var (
	goTableMagic    = []byte{0xf1, 0xff, 0xff, 0xff, 0, 0, 1, 8}
	goTableMagic118 = []byte{0xf0, 0xff, 0xff, 0xff, 0, 0, 1, 8}
)

// Bounds of what goFuncTable reads.
const (
	goTableCandidates = 4       // header candidates tried per module
	goNameMax         = 4096    // bytes of one function name
	goNamesMax        = 1 << 24 // bytes of all names of one table
)

// The header's pointer-size words after the first 8 bytes (Go's
// runtime.pcHeader): the function count, the file count, an unused
// word, then offsets from the header of the function name table, the
// compilation unit table, the file table, the pc-value table and the
// function table.
const (
	goHdrNFunc    = 0
	goHdrNameOff  = 3
	goHdrCUOff    = 4
	goHdrFuncOff  = 7
	goHdrWords    = 8
	goHdrWordSize = 8
)

// goFunc is one entry of a Go function table: its slot, the entry's
// offset from the text's start (on wasm, where a function's PC is its
// PC_F<<16 and PC_F its index plus a constant, the table holds the
// offset of PC_F), and its symbol name as the table holds it
// ("pkg.F[go.shape.int]" for a generic one).
type goFunc struct {
	slot uint32
	name string
	fn   uint64 // address of its _func record (golines.go reads its tables)
}

// memImage is linear memory as a module's active data segments with a
// constant offset lay it out; what no segment covers reads as zero.
// Segments are sorted by address; where they overlap, the reads are
// defined (never a panic) but need not be what an instantiation writes.
type memImage struct {
	segs []memSeg
}

type memSeg struct {
	addr uint64
	b    []byte
}

func memImageOf(data []Data) memImage {
	var im memImage
	for i := range data {
		if s, e, ok := constRange(&data[i]); ok && e > s {
			im.segs = append(im.segs, memSeg{s, data[i].Init})
		}
	}
	slices.SortStableFunc(im.segs, func(a, b memSeg) int {
		switch {
		case a.addr < b.addr:
			return -1
		case a.addr > b.addr:
			return 1
		}
		return 0
	})
	return im
}

// seg returns the index of the segment that holds address a, -1 for none.
func (im memImage) seg(a uint64) int {
	i, _ := slices.BinarySearchFunc(im.segs, a, func(s memSeg, a uint64) int {
		if s.addr <= a {
			return -1
		}
		return 1
	})
	i-- // the last segment that starts at or before a
	if i < 0 || a-im.segs[i].addr >= uint64(len(im.segs[i].b)) {
		return -1
	}
	return i
}

func (im memImage) byteAt(a uint64) byte {
	if i := im.seg(a); i >= 0 {
		return im.segs[i].b[a-im.segs[i].addr]
	}
	return 0
}

// read returns the n (at most 8) little-endian bytes at a as a number.
func (im memImage) read(a uint64, n int) uint64 {
	var b [8]byte
	for k := range n {
		b[k] = im.byteAt(a + uint64(k))
	}
	return binary.LittleEndian.Uint64(b[:])
}

// cstring returns the NUL-terminated string at a, at most max bytes long
// (false when it is longer), continuing across adjacent segments.
func (im memImage) cstring(a uint64, max int) (string, bool) {
	var b []byte
	i := im.seg(a)
	for i >= 0 {
		s := im.segs[i].b[a-im.segs[i].addr:]
		n := bytes.IndexByte(s, 0)
		if n < 0 {
			n = len(s)
		}
		if len(b)+n > max {
			return "", false
		}
		b = append(b, s[:n]...)
		if n < len(s) {
			break
		}
		a += uint64(n)
		i = im.seg(a)
	}
	return string(b), true
}

// headers returns the addresses where a function table header may start,
// at most goTableCandidates.
func (im memImage) headers() []uint64 {
	var out []uint64
	for _, s := range im.segs {
		for _, magic := range [][]byte{goTableMagic, goTableMagic118} {
			for off := 0; len(out) < goTableCandidates; {
				k := bytes.Index(s.b[off:], magic)
				if k < 0 {
					break
				}
				out = append(out, s.addr+uint64(off+k))
				off += k + 1
			}
		}
	}
	return out
}

// goFuncTable reads the Go function table whose header is at hdr: every
// function's slot and name, in the table's order (increasing code
// offsets). It returns nil when what is there is not a well-formed table
// of at most maxFuncs functions (a Go module's table has at most one
// entry per wasm function), so that the reads and the names it keeps are
// bounded by maxFuncs, goNameMax and goNamesMax whatever the bytes.
func goFuncTable(im memImage, hdr uint64, maxFuncs int) []goFunc {
	if hdr > 1<<32 {
		return nil
	}
	word := func(i int) uint64 { return im.read(hdr+8+uint64(i)*goHdrWordSize, goHdrWordSize) }
	nfunc := word(goHdrNFunc)
	nameTab, cuTab, funcTab := word(goHdrNameOff), word(goHdrCUOff), word(goHdrFuncOff)
	if nfunc == 0 || nfunc > uint64(maxFuncs) || nameTab > 1<<32 || cuTab > 1<<32 || funcTab > 1<<32 ||
		nameTab < 8+goHdrWords*goHdrWordSize || cuTab < nameTab {
		return nil
	}
	nameTab += hdr
	cuTab += hdr
	funcTab += hdr
	fs := make([]goFunc, 0, nfunc)
	names := map[uint64]string{} // a name the table shares between functions is read once
	total := 0
	prev := uint64(0)
	for i := range nfunc {
		// functab: pairs of (entry offset, _func offset from functab), 32-bit
		entry := im.read(funcTab+8*i, 4)
		fn := im.read(funcTab+8*i+4, 4)
		if i > 0 && entry <= prev || fn == 0 {
			return nil
		}
		prev = entry
		// _func: entry offset (again), then the name's offset in the name table
		if im.read(funcTab+fn, 4) != entry {
			return nil
		}
		at := nameTab + im.read(funcTab+fn+4, 4)
		if at >= cuTab {
			return nil
		}
		name, ok := names[at]
		if !ok {
			if name, ok = im.cstring(at, goNameMax); !ok || name == "" {
				return nil
			}
			if total += len(name); total > goNamesMax {
				return nil
			}
			names[at] = name
		}
		fs = append(fs, goFunc{slot: uint32(entry), name: name, fn: funcTab + fn})
	}
	return fs
}

// goFuncNames returns, by function index, Go's name of each function
// section names (section: by function index, the names the module's name
// section gives, "" for none): as Go prints it in a trace (goPrintName),
// "" where the module has no Go function table or no entry of it fits.
// nil when m has no Go function table (goFuncsOf).
func goFuncNames(m *Module, section []string) []string {
	_, fs, at := goFuncsOf(m, section)
	if at == nil {
		return nil
	}
	names := make([]string, len(at))
	for i, j := range at {
		if j >= 0 {
			names[i] = goPrintName(fs[j].name)
		}
	}
	return names
}

// goFuncsOf returns m's Go function table (the one, of the headers m's
// data holds, whose entries fit the most functions) with the memory it
// lies in, and, by function index, the entry that fits (-1 for none).
// An entry fits index i when Go's linker writes its name as section[i]
// (goWasmName) and either its slot lies where the table's slots and the
// indices agree (the offset most entries with a unique name vote for),
// or no other entry and no other index have that name. at is nil when m
// has no Go function table.
func goFuncsOf(m *Module, section []string) (im memImage, fs []goFunc, at []int) {
	im = memImageOf(m.Data)
	bestN := 0
	for _, hdr := range im.headers() {
		cand := goFuncTable(im, hdr, len(m.Code))
		if idx, n := matchGoFuncs(cand, section); n > bestN {
			fs, at, bestN = cand, idx, n
		}
	}
	return im, fs, at
}

// matchGoFuncs pairs the entries of a Go function table with the indices
// of section (goFuncsOf) and returns, by index, the entry paired with it
// (-1 for none) and how many indices got one.
func matchGoFuncs(fs []goFunc, section []string) ([]int, int) {
	if len(fs) == 0 {
		return nil, 0
	}
	at := map[string]int{} // a section name's index, -1 when several have it
	for i, s := range section {
		if s == "" {
			continue
		}
		if _, ok := at[s]; ok {
			at[s] = -1
		} else {
			at[s] = i
		}
	}
	wasm := make([]string, len(fs))
	count := map[string]int{} // entries by their name-section spelling
	for j, f := range fs {
		wasm[j] = goWasmName(f.name)
		count[wasm[j]]++
	}
	base, top := goSlotBase(fs, wasm, at)
	idx := make([]int, len(section))
	for i := range idx {
		idx[i] = -1
	}
	clash := make([]bool, len(section))
	set := func(i, j int) {
		switch {
		case clash[i]:
		case idx[i] < 0 || fs[idx[i]].name == fs[j].name:
			if idx[i] < 0 {
				idx[i] = j
			}
		default:
			idx[i], clash[i] = -1, true
		}
	}
	if top > 0 {
		for j, f := range fs {
			if i := base + int64(f.slot); i >= 0 && i < int64(len(section)) && section[i] == wasm[j] {
				set(int(i), j)
			}
		}
	}
	for j := range fs {
		if i, ok := at[wasm[j]]; ok && i >= 0 && count[wasm[j]] == 1 && idx[i] < 0 {
			set(i, j)
		}
	}
	n := 0
	for i := range idx {
		if idx[i] >= 0 {
			n++
		}
	}
	return idx, n
}

// goSlotBase returns the function index less the slot that most entries
// of fs vote for, and how many do: an entry votes when the name section
// names one index alone (at: the index by name, -1 for a name several
// have) as Go's linker writes its name (wasm, by entry). Ties go to the
// lowest; no votes, no base.
func goSlotBase(fs []goFunc, wasm []string, at map[string]int) (base int64, votes int) {
	count := map[int64]int{}
	for j, f := range fs {
		if i, ok := at[wasm[j]]; ok && i >= 0 {
			count[int64(i)-int64(f.slot)]++
		}
	}
	for b, n := range count {
		if n > votes || n == votes && b < base {
			base, votes = b, n
		}
	}
	return base, votes
}

// goWasmName is the name Go's wasm linker writes for a function named
// name: each character that is not an ASCII letter, digit, '_' or '.'
// becomes one '_' (an invalid UTF-8 byte counts as a character).
func goWasmName(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	for _, r := range name {
		if r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// goPrintName is a function's name as Go's runtime prints it in a trace:
// a generic function's type arguments, from the first '[' to the last
// ']', are "[...]" ("pkg.Map[go.shape.int]" is "pkg.Map[...]").
func goPrintName(name string) string {
	i := strings.IndexByte(name, '[')
	j := strings.LastIndexByte(name, ']')
	if i < 0 || j <= i {
		return name
	}
	return name[:i] + "[...]" + name[j+1:]
}

// setGoNames gives the functions of funcs (by function index, named as
// m's name section names them) Go's names where m is a Go module
// (goFuncNames), keeping the name section's in WasmName.
func setGoNames(m *Module, funcs []Func) {
	section := make([]string, len(funcs))
	for i := range funcs {
		section[i] = funcs[i].Name
	}
	for i, n := range goFuncNames(m, section) {
		if n != "" && n != funcs[i].Name {
			funcs[i].WasmName, funcs[i].Name = funcs[i].Name, n
		}
	}
}

// goOnlyNames is Funcs of a plain build's SiteMap for a Go module: every
// function's name (funcNames) with Go's where it differs from the name
// section's (setGoNames); nil when no name differs, and without naming
// anything when m's data holds no Go function table header.
func goOnlyNames(m *Module) []Func {
	if len(memImageOf(m.Data).headers()) == 0 {
		return nil
	}
	names := funcNames(m)
	funcs := make([]Func, len(names))
	for i, n := range names {
		funcs[i].Name = n
	}
	setGoNames(m, funcs)
	if !slices.ContainsFunc(funcs, func(f Func) bool { return f.WasmName != "" }) {
		return nil
	}
	return funcs
}
