package instrument

import (
	"bytes"
	"cmp"
	"debug/dwarf"
	"encoding/binary"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wafer-fuzz/wafer/instrument/internal/leb128"
)

// funcNames returns a name for every function index (imports first): the
// name section's, else DWARF's (dwarfFuncNames: a module linked with
// wasm-opt loses its name section but may keep DWARF), else an export
// name, else "func[N]".
func funcNames(m *Module) []string {
	names := nameSectionFuncs(m)
	n := len(names)
	if slices.Contains(names, "") {
		for i, d := range dwarfFuncNames(m) {
			if names[i] == "" {
				names[i] = d
			}
		}
	}
	for _, e := range m.Exports {
		if e.Kind == ExternFunc && int64(e.Index) < int64(n) && names[e.Index] == "" {
			names[e.Index] = e.Name
		}
	}
	for i := range names {
		if names[i] == "" {
			names[i] = "func[" + strconv.Itoa(i) + "]"
		}
	}
	return names
}

// nameSectionFuncs returns the name section's name for every function index
// (imports first), "" where it has none.
func nameSectionFuncs(m *Module) []string {
	return nameSectionMap(m, 1, int(m.NumImported(ExternFunc))+len(m.Funcs))
}

// nameSectionGlobals returns the name section's name for every global index
// (imports first), "" where it has none.
func nameSectionGlobals(m *Module) []string {
	return nameSectionMap(m, 7, int(m.NumImported(ExternGlobal))+len(m.Globals))
}

// nameSectionMap returns the names of name-map subsection id (1:
// functions, 7: globals) for n indices.
func nameSectionMap(m *Module, id byte, n int) []string {
	names := make([]string, n)
	for i := range m.Customs {
		if m.Customs[i].Name == "name" {
			parseNameSection(m.Customs[i].Data(), id, names)
		}
	}
	return names
}

// parseNameSection fills names from the name-map subsection want (1:
// function names, 7: global names); malformed content is ignored.
func parseNameSection(b []byte, want byte, names []string) {
	for len(b) > 0 {
		id := b[0]
		size, n, err := leb128.Uint32(b[1:])
		if err != nil || uint64(size) > uint64(len(b)-1-n) {
			return
		}
		sub := b[1+n : 1+n+int(size)]
		b = b[1+n+int(size):]
		if id != want {
			continue
		}
		cnt, k, err := leb128.Uint32(sub)
		if err != nil {
			return
		}
		sub = sub[k:]
		for i := uint32(0); i < cnt; i++ {
			idx, k, err := leb128.Uint32(sub)
			if err != nil {
				return
			}
			sub = sub[k:]
			l, k, err := leb128.Uint32(sub)
			if err != nil || uint64(l) > uint64(len(sub)-k) {
				return
			}
			if int64(idx) < int64(len(names)) {
				names[idx] = string(sub[k : k+int(l)])
			}
			sub = sub[k+int(l):]
		}
	}
}

// debugSections returns m's .debug_* custom sections by name without the
// prefix ("info", "line", ...).
func debugSections(m *Module) map[string][]byte {
	sec := map[string][]byte{}
	for i := range m.Customs {
		if name, ok := strings.CutPrefix(m.Customs[i].Name, ".debug_"); ok {
			sec[name] = m.Customs[i].Data()
		}
	}
	return sec
}

// dwarfData opens the DWARF of sec (debugSections), nil when there is
// none or it is malformed.
func dwarfData(sec map[string][]byte) *dwarf.Data {
	if sec["info"] == nil {
		return nil
	}
	d, err := dwarf.New(sec["abbrev"], sec["aranges"], sec["frame"], sec["info"], sec["line"], sec["pubnames"], sec["ranges"], sec["str"])
	if err != nil {
		return nil
	}
	for _, name := range []string{"addr", "line_str", "str_offsets", "rnglists", "loclists"} {
		if b := sec[name]; b != nil {
			if d.AddSection(".debug_"+name, b) != nil {
				return nil
			}
		}
	}
	return d
}

// dwarfFuncNames returns, by function index (imports first, "" where it
// has none), the name DWARF gives a defined function: that of the
// subprogram whose code range holds its first instruction (its linkage
// name, mangled, when it has one; DWARF's code addresses are offsets in
// the code section). nil without DWARF. debug/dwarf may panic on hostile
// input in corners; a recover keeps the caller total.
func dwarfFuncNames(m *Module) (names []string) {
	defer func() {
		if recover() != nil {
			names = nil
		}
	}()
	d := dwarfData(debugSections(m))
	if d == nil {
		return nil
	}
	type span struct {
		lo, hi uint64
		name   string
	}
	var spans []span
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag != dwarf.TagSubprogram {
			continue
		}
		name, _ := e.Val(dwarf.AttrLinkageName).(string)
		if name == "" {
			name, _ = e.Val(dwarf.AttrName).(string)
		}
		if name == "" {
			continue
		}
		ranges, err := d.Ranges(e)
		if err != nil {
			continue
		}
		for _, rg := range ranges {
			if rg[0] > 0 && rg[0] < rg[1] {
				spans = append(spans, span{rg[0], rg[1], name})
			}
		}
	}
	if len(spans) == 0 {
		return nil
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	nimp := int(m.NumImported(ExternFunc))
	names = make([]string, nimp+len(m.Code))
	for i := range m.Code {
		body := m.Code[i].Body.Instrs
		if len(body) == 0 || body[0].Off < m.CodeOffset {
			continue
		}
		off := uint64(body[0].Off - m.CodeOffset)
		j := sort.Search(len(spans), func(j int) bool { return spans[j].lo > off }) - 1
		if j >= 0 && off < spans[j].hi {
			names[nimp+i] = spans[j].name
		}
	}
	return names
}

// addDWARF fills file:line information from .debug_* custom sections.
// Malformed DWARF is ignored (the SiteMap just has no lines).
func addDWARF(m *Module, sm *SiteMap) {
	sec := debugSections(m)
	if sec["info"] == nil || sec["line"] == nil {
		return
	}
	table, files := lineTable(sec)
	addLines(sm, table, files)
}

// addLines gives sm the line table (sorted by offset) and the positions
// of its sites and functions from it; nothing for an empty table.
func addLines(sm *SiteMap, table []LineEntry, files []string) {
	if len(table) == 0 {
		return
	}
	sm.Files = files
	sm.LineTable = table
	sm.Lines = make([]Line, len(sm.Sites))
	for i, s := range sm.Sites {
		if !s.Kind.inCode() {
			continue
		}
		if f, l, ok := lookupTable(table, s.Offset); ok {
			sm.Lines[i] = Line{File: f, Line: l}
		}
	}
	for i := range sm.Funcs {
		if sm.Funcs[i].Offset == 0 {
			continue
		}
		if f, l, ok := lookupTable(table, sm.Funcs[i].Offset); ok {
			sm.Funcs[i].File = files[f]
			sm.Funcs[i].Line = l
		}
	}
}

func lookupTable(t []LineEntry, off uint32) (uint32, uint32, bool) {
	i := sort.Search(len(t), func(i int) bool { return t[i].Offset > off }) - 1
	if i < 0 || t[i].Line == 0 {
		return 0, 0, false
	}
	return t[i].File, t[i].Line, true
}

// lineTable reads every compile unit's line program. debug/dwarf may
// panic on hostile input in corners; a recover keeps Instrument total.
func lineTable(sec map[string][]byte) (table []LineEntry, files []string) {
	defer func() {
		if recover() != nil {
			table, files = nil, nil
		}
	}()
	d := dwarfData(sec)
	if d == nil {
		return nil, nil
	}
	fileIdx := map[string]uint32{}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag != dwarf.TagCompileUnit {
			r.SkipChildren()
			continue
		}
		r.SkipChildren()
		lr, err := d.LineReader(e)
		if err != nil || lr == nil {
			continue
		}
		var le dwarf.LineEntry
		for lr.Next(&le) == nil {
			if le.Address > 0xffffffff {
				continue
			}
			var f uint32
			name := ""
			if le.File != nil {
				name = le.File.Name
			}
			if idx, ok := fileIdx[name]; ok {
				f = idx
			} else {
				f = uint32(len(files))
				fileIdx[name] = f
				files = append(files, name)
			}
			line := uint32(le.Line)
			if le.EndSequence {
				line = 0
			}
			table = append(table, LineEntry{Offset: uint32(le.Address), File: f, Line: line})
		}
	}
	sort.SliceStable(table, func(i, j int) bool { return table[i].Offset < table[j].Offset })
	// keep the last entry for equal offsets
	out := table[:0]
	for i, t := range table {
		if i+1 < len(table) && table[i+1].Offset == t.Offset {
			continue
		}
		out = append(out, t)
	}
	return out, files
}

// Dictionary limits.
const (
	dictMaxEntries = 4096
	dictMaxLen     = 64
	dictMinString  = 3 // a string nothing refers to
	dictMinRef     = 2 // a string code refers to ("if", "or")
	switchMaxCases = 256
)

// cmpConsts appends the i32/i64.const immediates of e that feed a
// comparison directly (`x; const; cmp` or `const; local.get|global.get; cmp`),
// as little-endian bytes without the high zero bytes: Go and Rust compare
// a byte, or a short string loaded as one integer ("true"), against a
// 64-bit constant, and the input holds the bytes, not the zeros. A
// negative value keeps its operand's width. 0, 1 and -1 are skipped.
func cmpConsts(e *Expr, out [][]byte) [][]byte {
	ins := e.Instrs
	for i := range ins {
		if ins[i].Op != OpI32Const && ins[i].Op != OpI64Const {
			continue
		}
		j := i + 1
		if j < len(ins) && (ins[j].Op == OpLocalGet || ins[j].Op == OpGlobalGet) {
			j++
		}
		if j >= len(ins) || !isCompare(ins[j].Op) {
			continue
		}
		v := int64(ins[i].A)
		if v >= -1 && v <= 1 {
			continue
		}
		var b []byte
		if ins[i].Op == OpI32Const {
			b = binary.LittleEndian.AppendUint32(nil, uint32(v))
		} else {
			b = binary.LittleEndian.AppendUint64(nil, uint64(v))
		}
		if v > 0 {
			b = trimHighZeros(b)
		}
		out = append(out, b)
	}
	return out
}

// switchConsts appends the case values of e's switches: a br_table whose
// index is a value minus a constant (`i32.const -K; i32.add` or `i32.const
// K; i32.sub` right before it, as clang compiles `switch (c)`) compares
// that value with K+j for every arm j that does not go where the default
// does. Values are little-endian without their high zero bytes, like
// cmpConsts'; at most switchMaxCases per table.
func switchConsts(e *Expr, out [][]byte) [][]byte {
	for i := range e.Instrs {
		_, cases := switchCases(e, i, switchMaxCases)
		for _, v := range cases {
			out = append(out, trimHighZeros(binary.LittleEndian.AppendUint32(nil, v)))
		}
	}
	return out
}

// switchCases returns the values, at most max, that take the br_table at
// e.Instrs[i] to an arm other than its default, when its index is a value
// minus a constant (`i32.const -K; i32.add` or `i32.const K; i32.sub`
// right before it): arm j is taken for the value K+j. It returns K too.
// No cases for any other instruction.
func switchCases(e *Expr, i, max int) (base int64, cases []uint32) {
	ins := e.Instrs
	if i < 2 || ins[i].Op != OpBrTable || ins[i-2].Op != OpI32Const {
		return 0, nil
	}
	switch c := int64(int32(uint32(ins[i-2].A))); ins[i-1].Op {
	case OpI32Add:
		base = -c
	case OpI32Sub:
		base = c
	default:
		return 0, nil
	}
	start, n := ins[i].A, ins[i].B
	if n == 0 || start+n > uint64(len(e.Pool)) {
		return 0, nil
	}
	labels := e.Pool[start : start+n]
	def := labels[n-1]
	for j, l := range labels[:n-1] {
		if l == def {
			continue
		}
		if len(cases) == max {
			break
		}
		cases = append(cases, uint32(base+int64(j)))
	}
	return base, cases
}

// trimHighZeros drops the high zero bytes of a little-endian value,
// keeping at least one byte.
func trimHighZeros(b []byte) []byte {
	for len(b) > 1 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return b
}

func isCompare(op Op) bool {
	return op >= OpI32Eq && op <= OpI32GeU || op >= OpI64Eq && op <= OpI64GeU
}

// constAddrs appends the i32/i64.const immediates of e that lie in
// [lo, hi), the addresses active data segments span: where code refers to
// data.
func constAddrs(e *Expr, out []uint32, lo, hi uint64) []uint32 {
	for _, in := range e.Instrs {
		if in.Op != OpI32Const && in.Op != OpI64Const {
			continue
		}
		v := in.A
		if in.Op == OpI32Const {
			v = uint64(uint32(v))
		}
		if v >= lo && v < hi {
			out = append(out, uint32(v))
		}
	}
	return out
}

// dataSpan is the smallest address range that holds every active data
// segment with a constant offset (lo > hi when there is none).
func dataSpan(data []Data) (lo, hi uint64) {
	lo, hi = math.MaxUint64, 0
	for i := range data {
		if s, e, ok := constRange(&data[i]); ok && e > s {
			lo, hi = min(lo, s), max(hi, e)
		}
	}
	return lo, hi
}

// dictionary dedupes consts and the printable strings (at least
// dictMinString bytes, or dictMinRef where code refers to them, cut to
// dictMaxLen) of data segments into at most
// dictMaxEntries entries: the consts, the strings that start where code
// refers (refs), the strings nothing refers to, in that order, except that
// consts fill at most half of the entries before the strings have theirs:
// a Go program has thousands of comparison constants and would otherwise
// leave no room for its literals.
//
// Code refers to a string literal by its address, and languages whose
// strings carry a length instead of a NUL (Rust, Go, Zig) lay literals
// end to end: a printable run such as "no keydiv" is two tokens, cut where
// refs point into it. A run that ends in a NUL is also a C string, kept
// whole and from each reference to its end (C++ copies a literal's tail
// through a pointer into it; a literal may share another's tail, "bar" in
// "foobar"). A segment whose offset is not a constant is read whole.
// runtimeRefs (the Go runtime's) cut runs but start no token; in a Go
// module (goModule) strings nothing refers to are left out.
func dictionary(data []Data, consts [][]byte, refs, runtimeRefs []uint32, goModule bool) [][]byte {
	referenced, rest := dataStrings(data, refs, runtimeRefs)
	if goModule {
		// Go code refers to its string literals: the rest of a Go
		// module's data is the runtime's tables (type and function
		// names, file paths).
		rest = nil
	}
	seen := map[string]bool{}
	var out [][]byte
	add := func(list [][]byte, limit int) [][]byte {
		for len(list) > 0 && len(out) < limit {
			b := list[0]
			list = list[1:]
			if len(b) > dictMaxLen {
				b = b[:dictMaxLen]
			}
			if !seen[string(b)] {
				seen[string(b)] = true
				out = append(out, bytes.Clone(b))
			}
		}
		return list
	}
	consts = add(consts, dictMaxEntries/2)
	referenced = add(referenced, dictMaxEntries)
	rest = add(rest, dictMaxEntries)
	add(consts, dictMaxEntries)
	return out
}

// goRuntime reports whether a function is the Go runtime's (packages
// runtime, runtime/... and internal/..., whose "/" Go's name section
// writes as "_").
func goRuntime(name string) bool {
	for _, p := range []string{"runtime.", "runtime/", "runtime_", "internal/", "internal_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// dataStrings returns the printable strings of data segments, split as
// dictionary describes: those that start at a reference, and the rest.
func dataStrings(data []Data, refs, runtimeRefs []uint32) (referenced, rest [][]byte) {
	own := slices.Clone(refs)
	slices.Sort(own)
	own = slices.Compact(own)
	kept := func(addr uint64) bool {
		_, ok := slices.BinarySearch(own, uint32(addr))
		return ok
	}
	// Every reference cuts; only the target's own start a token.
	refs = append(own[:len(own):len(own)], runtimeRefs...) // a copy: own stays as it is
	slices.Sort(refs)
	refs = slices.Compact(refs)
	for i := range data {
		d := data[i].Init
		base, _, isConst := constRange(&data[i])
		for s := 0; s < len(d); {
			if !printable(d[s]) {
				s++
				continue
			}
			e := s + 1
			for e < len(d) && printable(d[e]) {
				e++
			}
			if e-s < dictMinRef {
				s = e
				continue
			}
			// The cuts: refs inside [s, e), in segment coordinates.
			var cuts []int
			if isConst && base+uint64(s) <= math.MaxUint32 {
				lo, _ := slices.BinarySearch(refs, uint32(base+uint64(s)))
				for _, r := range refs[lo:] {
					if uint64(r) >= base+uint64(e) {
						break
					}
					cuts = append(cuts, int(uint64(r)-base))
				}
			}
			if len(cuts) == 0 {
				if e-s >= dictMinString {
					rest = append(rest, d[s:e])
				}
				s = e
				continue
			}
			// A run that ends in a NUL (or the segment's end: linkers
			// drop trailing zeros) is a C string: code also refers into
			// it to copy its tail, or to a literal that shares the tail
			// ("bar" in "foobar"), so each reference's suffix is a token
			// and the whole run is one.
			nulEnded := e == len(d) || d[e] == 0
			if cuts[0] != s && (nulEnded || cuts[0]-s >= dictMinString) {
				end := cuts[0] // an unreferenced start
				if nulEnded {
					end = e
				}
				if end-s >= dictMinString {
					rest = append(rest, d[s:end])
				}
			}
			for k, c := range cuts {
				next := e
				if k+1 < len(cuts) {
					next = cuts[k+1]
				}
				if !kept(base + uint64(c)) {
					continue
				}
				if next-c >= dictMinRef {
					referenced = append(referenced, d[c:next])
				}
				if nulEnded && next != e && e-c >= dictMinRef {
					referenced = append(referenced, d[c:e])
				}
			}
			s = e
		}
	}
	return referenced, rest
}

func printable(b byte) bool { return b >= 0x20 && b < 0x7f }

// validNameSection reports whether a name section's content is well formed:
// subsections with exact sizes, and module/function/local names that fill
// their subsection. wazero parses the name section with a reader that can
// run past the section's end, so a malformed one that happened to be
// tolerated at the end of the input may break the instrumented output;
// Instrument drops such a section.
func validNameSection(b []byte) bool {
	u := func(p *[]byte) (uint32, bool) {
		v, n, err := leb128.Uint32(*p)
		if err != nil {
			return 0, false
		}
		*p = (*p)[n:]
		return v, true
	}
	name := func(p *[]byte) bool {
		l, ok := u(p)
		if !ok || uint64(l) > uint64(len(*p)) || !utf8.Valid((*p)[:l]) {
			return false
		}
		*p = (*p)[l:]
		return true
	}
	nameMap := func(p *[]byte) bool {
		n, ok := u(p)
		if !ok {
			return false
		}
		for i := uint32(0); i < n; i++ {
			if _, ok := u(p); !ok || !name(p) {
				return false
			}
		}
		return true
	}
	for len(b) > 0 {
		id := b[0]
		b = b[1:]
		size, ok := u(&b)
		if !ok || uint64(size) > uint64(len(b)) {
			return false
		}
		sub := b[:size]
		b = b[size:]
		switch id {
		case 0:
			ok = name(&sub)
		case 1:
			ok = nameMap(&sub)
		case 2:
			var n uint32
			n, ok = u(&sub)
			for i := uint32(0); ok && i < n; i++ {
				_, ok = u(&sub)
				ok = ok && nameMap(&sub)
			}
		default:
			sub = nil
		}
		if !ok || len(sub) != 0 {
			return false
		}
	}
	return true
}

// HasCustomSection reports whether wasm has a custom section called name,
// walking the sections' headers only (false for a malformed module).
func HasCustomSection(wasm []byte, name string) bool {
	for r := range rawSections(wasm) {
		if r.name(wasm) == name {
			return true
		}
	}
	return false
}

// DWARFFuncNames returns, by function index, the names a module without a
// name section has in its DWARF (dwarfFuncNames; "" where there is none),
// for a host that runs it uninstrumented and would otherwise see only
// function indices. nil when the module has a name section or no DWARF,
// or is malformed.
func DWARFFuncNames(wasm []byte) []string {
	if HasCustomSection(wasm, "name") || !HasCustomSection(wasm, ".debug_info") {
		return nil
	}
	m, err := Decode(wasm)
	if err != nil {
		return nil
	}
	return dwarfFuncNames(m)
}
