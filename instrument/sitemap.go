package instrument

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"github.com/wafer-fuzz/wafer/internal/enumname"
)

// SiteKind is what a branch site counts.
type SiteKind uint8

// Site kinds.
const (
	FuncEntry    SiteKind = iota // the function was entered
	IfThen                       // an if took its then arm
	IfElse                       // an if took its else arm (added when missing)
	BrIfTaken                    // a br_if branched
	BrIfNotTaken                 // a br_if fell through
	BrTableArm                   // a br_table took arm Arm (the default is the last arm)
	StackDepth                   // the run's stack reached depth step Arm (DepthStep) or deeper, counted by the host
	CallPair                     // an indirect call whose site and callee hash to counter Arm of the region (1: seen)
	ValueProfile                 // a comparison's operands came this close (valueprofile.go): counter Arm of the region (1: seen)
)

var siteKindNames = enumname.New[SiteKind]("SiteKind", "site kind", "entry", "if-then", "if-else", "br_if-taken", "br_if-not-taken", "br_table", "stack-depth", "call-pair", "value-profile")

// inCode reports whether a site of kind k is an instruction of the
// module: StackDepth, CallPair and ValueProfile sites are regions after the branch
// sites, with no function, offset or source line.
func (k SiteKind) inCode() bool { return k < StackDepth }

func (k SiteKind) String() string { return siteKindNames.String(k) }

// Site is one branch site. Func is the function index (imports counted),
// Offset the code-section-relative offset of the instrumented instruction
// (the first instruction for FuncEntry; DWARF addresses use the same
// origin), Arm the br_table arm (0 otherwise). A derived site (Sum > 0,
// derive.go) has no counter of its own: its byte stays 0 and its count is
// the saturating sum of sites From..From+Sum-1, which have lower ids
// (FillDerived).
type Site struct {
	Func   uint32
	Offset uint32
	Kind   SiteKind
	Arm    uint32
	From   uint32
	Sum    uint32
}

// Func describes a function of the original module.
type Func struct {
	// Name is the function's name: for a Go module's function, Go's own
	// ("pkg.(*T).M", from the module's Go function table), else the name
	// section's, else DWARF's, else the export's, else "func[N]".
	Name string
	// WasmName is the name section's name (which wazero's stack traces
	// show) when Name is Go's and differs from it ("pkg.__T_.M"), else "".
	WasmName string
	File     string // from DWARF, "" without
	Line     uint32
	// Offset is the code-section-relative offset of the body's first
	// instruction (0 for imports).
	Offset uint32
}

// Line is a source position, index into SiteMap.Files and line number.
type Line struct {
	File uint32
	Line uint32
}

// SiteMap describes an instrumented module: its memory layout and what
// every counter means. Index into Sites == site id == counter address.
// A SiteMap is immutable after Instrument returns it and then safe for
// concurrent reads.
type SiteMap struct {
	Layout     Layout
	Sites      []Site
	Funcs      []Func // by function index, imports included
	Dictionary [][]byte
	// Files and Lines hold DWARF positions: Lines is parallel to Sites when
	// the module had DWARF line info, else empty.
	Files []string
	Lines []Line
	// LineTable maps code-section-relative offsets to source lines (sorted by
	// Offset), for mapping stack frames; empty without DWARF.
	LineTable []LineEntry
	// Regions says which site's hit means the code from each offset on
	// ran (regions.go), sorted by Offset; empty for a map read from a
	// sitemap before v8.
	Regions []Region
	// GoModules are the paths of the modules a Go module was built from,
	// from its build information (gomodules.go): the main module's
	// first, then its dependencies'; nil for other modules, a Go module
	// without build information, and a map read from a sitemap before
	// v10.
	GoModules []string
	// Joins are the sites of the join regions (Region, JoinRegion): code
	// ran when any site of its join was hit. Empty before v10.
	Joins [][]uint32
}

// LineEntry: code from Offset up to the next entry comes from File:Line.
type LineEntry struct {
	Offset, File, Line uint32
}

// Lookup returns the source position of a code-section-relative offset.
func (m *SiteMap) Lookup(offset uint32) (file string, line uint32, ok bool) {
	i := sort.Search(len(m.LineTable), func(i int) bool { return m.LineTable[i].Offset > offset }) - 1
	if i < 0 || int(m.LineTable[i].File) >= len(m.Files) || m.LineTable[i].Line == 0 {
		return "", 0, false
	}
	return m.Files[m.LineTable[i].File], m.LineTable[i].Line, true
}

// Describe returns a one-line description of site id:
// "name+0xOFF file:line kind [arm N]".
func (m *SiteMap) Describe(id int) string {
	if id < 0 || id >= len(m.Sites) {
		return fmt.Sprintf("site %d (out of range)", id)
	}
	s := m.Sites[id]
	switch s.Kind {
	case StackDepth:
		return fmt.Sprintf("stack depth step %d (%d bytes or more)", s.Arm, DepthOfStep(int(s.Arm)))
	case CallPair:
		return fmt.Sprintf("indirect call pairs, counter %d", s.Arm)
	case ValueProfile:
		return fmt.Sprintf("value profile, counter %d", s.Arm)
	}
	name := fmt.Sprintf("func[%d]", s.Func)
	if int(s.Func) < len(m.Funcs) && m.Funcs[s.Func].Name != "" {
		name = m.Funcs[s.Func].Name
	}
	out := fmt.Sprintf("%s+%#x", name, s.Offset)
	if id < len(m.Lines) && int(m.Lines[id].File) < len(m.Files) && m.Lines[id].Line != 0 {
		out += fmt.Sprintf(" %s:%d", m.Files[m.Lines[id].File], m.Lines[id].Line)
	}
	out += " " + s.Kind.String()
	if s.Kind == BrTableArm {
		out += fmt.Sprintf(" arm %d", s.Arm)
	}
	return out
}

// siteMapMagic heads what MarshalBinary writes; v3 added the comparison
// log's layout, v4 the stack pointer's, v5 the heap guard's global, v6
// the stack depth's and the call pairs', v7 the heap check's shadow, v8
// the fuel check's hang offset, the allocator's limit and the code
// regions, v9 the name section's names of functions named as Go names
// them (Func.WasmName), v10 a Go module's module paths (GoModules) and
// the join regions (Joins).
// UnmarshalBinary also reads v2 (no comparison log), v3 (no stack
// pointer), v4 (no heap guard), v5 (neither stack depth nor call
// pairs), v6 (no shadow), v7 (none of v8's), v8 (no WasmName) and v9 (no
// GoModules).
const (
	siteMapMagic   = "wafer sitemap v10\n"
	siteMapMagicV9 = "wafer sitemap v9\n"
	siteMapMagicV8 = "wafer sitemap v8\n"
	siteMapMagicV7 = "wafer sitemap v7\n"
	siteMapMagicV6 = "wafer sitemap v6\n"
	siteMapMagicV5 = "wafer sitemap v5\n"
	siteMapMagicV4 = "wafer sitemap v4\n"
	siteMapMagicV3 = "wafer sitemap v3\n"
	siteMapMagicV2 = "wafer sitemap v2\n"
)

// MarshalBinary encodes the SiteMap: a version line, then uvarints and
// length-prefixed strings.
func (m *SiteMap) MarshalBinary() ([]byte, error) {
	b := []byte(siteMapMagic)
	u := func(v uint64) { b = binary.AppendUvarint(b, v) }
	s := func(x string) { u(uint64(len(x))); b = append(b, x...) }
	l := m.Layout
	for _, v := range []uint32{l.ReservedPages, l.CountersOffset, l.Counters, l.DirtyOffset, l.DirtyPages, l.CompareOffset, l.Compares, l.CompareMems} {
		u(uint64(v))
	}
	s(l.MemoryExport)
	s(l.FuelExport)
	s(l.GlobalExportPrefix)
	s(l.StackPointerExport)
	u(uint64(l.StackLow))
	u(uint64(l.StackHigh))
	s(l.HeapExport)
	s(l.StackMinExport)
	u(uint64(l.DepthSite))
	u(uint64(l.CallSite))
	u(uint64(l.CallSites))
	u(uint64(l.ShadowOffset))
	u(uint64(l.ShadowBytes))
	s(l.HeapAtExport)
	u(uint64(l.NullEnd))
	s(l.HangAtExport)
	s(l.MallocLimitExport)
	u(uint64(len(m.Sites)))
	for _, x := range m.Sites {
		u(uint64(x.Func))
		u(uint64(x.Offset))
		u(uint64(x.Kind))
		u(uint64(x.Arm))
		u(uint64(x.From))
		u(uint64(x.Sum))
	}
	u(uint64(len(m.Funcs)))
	for _, f := range m.Funcs {
		s(f.Name)
		s(f.File)
		u(uint64(f.Line))
		u(uint64(f.Offset))
	}
	u(uint64(len(m.Dictionary)))
	for _, d := range m.Dictionary {
		s(string(d))
	}
	u(uint64(len(m.Files)))
	for _, f := range m.Files {
		s(f)
	}
	u(uint64(len(m.Lines)))
	for _, x := range m.Lines {
		u(uint64(x.File))
		u(uint64(x.Line))
	}
	u(uint64(len(m.LineTable)))
	for _, x := range m.LineTable {
		u(uint64(x.Offset))
		u(uint64(x.File))
		u(uint64(x.Line))
	}
	// regions: offset deltas, and the site plus one (0 for NoRegion)
	u(uint64(len(m.Regions)))
	prev := uint32(0)
	for _, x := range m.Regions {
		u(uint64(x.Offset - prev))
		u(uint64(x.Site + 1))
		prev = x.Offset
	}
	// wasm names: how many, then each one's function index and name
	named := 0
	for _, f := range m.Funcs {
		if f.WasmName != "" {
			named++
		}
	}
	u(uint64(named))
	for i, f := range m.Funcs {
		if f.WasmName != "" {
			u(uint64(i))
			s(f.WasmName)
		}
	}
	u(uint64(len(m.GoModules)))
	for _, p := range m.GoModules {
		s(p)
	}
	u(uint64(len(m.Joins)))
	for _, j := range m.Joins {
		u(uint64(len(j)))
		for _, x := range j {
			u(uint64(x))
		}
	}
	return b, nil
}

type smReader struct {
	b   []byte
	err error
}

func (r *smReader) u() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errors.New("sitemap: truncated or bad varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *smReader) u32() uint32 {
	v := r.u()
	if v > 1<<32-1 && r.err == nil {
		r.err = fmt.Errorf("sitemap: expected a 32-bit value, got %d", v)
	}
	return uint32(v)
}

func (r *smReader) s() string {
	n := r.u()
	if r.err != nil {
		return ""
	}
	if n > uint64(len(r.b)) {
		r.err = fmt.Errorf("sitemap: string of %d bytes exceeds the %d left", n, len(r.b))
		return ""
	}
	x := string(r.b[:n])
	r.b = r.b[n:]
	return x
}

// count reads a length and checks each element needs at least min bytes.
func (r *smReader) count(min int) int {
	n := r.u()
	if r.err == nil && n > uint64(len(r.b)/min) {
		r.err = fmt.Errorf("sitemap: count %d exceeds the %d bytes left", n, len(r.b))
		return 0
	}
	return int(n)
}

// UnmarshalBinary decodes what MarshalBinary wrote. Any other input is an
// error, never a panic.
func (m *SiteMap) UnmarshalBinary(data []byte) error {
	v2 := bytes.HasPrefix(data, []byte(siteMapMagicV2))
	v3 := bytes.HasPrefix(data, []byte(siteMapMagicV3))
	v4 := bytes.HasPrefix(data, []byte(siteMapMagicV4))
	v5 := bytes.HasPrefix(data, []byte(siteMapMagicV5))
	v6 := bytes.HasPrefix(data, []byte(siteMapMagicV6))
	v7 := bytes.HasPrefix(data, []byte(siteMapMagicV7))
	v8 := bytes.HasPrefix(data, []byte(siteMapMagicV8))
	v9 := bytes.HasPrefix(data, []byte(siteMapMagicV9))
	if !v2 && !v3 && !v4 && !v5 && !v6 && !v7 && !v8 && !v9 && !bytes.HasPrefix(data, []byte(siteMapMagic)) {
		return fmt.Errorf("sitemap: expected header %q", siteMapMagic)
	}
	r := &smReader{b: data[bytes.IndexByte(data, '\n')+1:]} // every header ends in its first newline
	var out SiteMap
	l := &out.Layout
	l.ReservedPages, l.CountersOffset, l.Counters, l.DirtyOffset, l.DirtyPages = r.u32(), r.u32(), r.u32(), r.u32(), r.u32()
	if !v2 {
		l.CompareOffset, l.Compares, l.CompareMems = r.u32(), r.u32(), r.u32()
	}
	l.MemoryExport, l.FuelExport, l.GlobalExportPrefix = r.s(), r.s(), r.s()
	if !v2 && !v3 {
		l.StackPointerExport, l.StackLow, l.StackHigh = r.s(), r.u32(), r.u32()
	}
	if !v2 && !v3 && !v4 {
		l.HeapExport = r.s()
	}
	if !v2 && !v3 && !v4 && !v5 {
		l.StackMinExport, l.DepthSite = r.s(), r.u32()
		l.CallSite, l.CallSites = r.u32(), r.u32()
	}
	if !v2 && !v3 && !v4 && !v5 && !v6 {
		l.ShadowOffset, l.ShadowBytes, l.HeapAtExport, l.NullEnd = r.u32(), r.u32(), r.s(), r.u32()
	}
	if !v2 && !v3 && !v4 && !v5 && !v6 && !v7 {
		l.HangAtExport, l.MallocLimitExport = r.s(), r.s()
	}
	if n := r.count(6); n > 0 {
		out.Sites = make([]Site, n)
		for i := range out.Sites {
			s := Site{Func: r.u32(), Offset: r.u32(), Kind: SiteKind(r.u32()), Arm: r.u32(), From: r.u32(), Sum: r.u32()}
			if s.Sum > 0 && uint64(s.From)+uint64(s.Sum) > uint64(i) && r.err == nil {
				r.err = fmt.Errorf("sitemap: site %d derived from sites %d..%d, expected lower ids", i, s.From, uint64(s.From)+uint64(s.Sum)-1)
			}
			out.Sites[i] = s
		}
	}
	if n := r.count(4); n > 0 {
		out.Funcs = make([]Func, n)
		for i := range out.Funcs {
			out.Funcs[i] = Func{Name: r.s(), File: r.s(), Line: r.u32(), Offset: r.u32()}
		}
	}
	if n := r.count(1); n > 0 {
		out.Dictionary = make([][]byte, n)
		for i := range out.Dictionary {
			out.Dictionary[i] = []byte(r.s())
		}
	}
	if n := r.count(1); n > 0 {
		out.Files = make([]string, n)
		for i := range out.Files {
			out.Files[i] = r.s()
		}
	}
	if n := r.count(2); n > 0 {
		out.Lines = make([]Line, n)
		for i := range out.Lines {
			out.Lines[i] = Line{File: r.u32(), Line: r.u32()}
		}
	}
	if n := r.count(3); n > 0 {
		out.LineTable = make([]LineEntry, n)
		for i := range out.LineTable {
			out.LineTable[i] = LineEntry{Offset: r.u32(), File: r.u32(), Line: r.u32()}
		}
	}
	if !v2 && !v3 && !v4 && !v5 && !v6 && !v7 {
		if n := r.count(2); n > 0 {
			out.Regions = make([]Region, n)
			off := uint64(0)
			for i := range out.Regions {
				d, site := r.u(), r.u()
				off += d
				switch {
				case r.err != nil:
				case off > 1<<32-1:
					r.err = fmt.Errorf("sitemap: region %d at offset %d, expected a 32-bit offset", i, off)
				case i > 0 && d == 0:
					r.err = fmt.Errorf("sitemap: region %d at offset %d, expected offsets to increase", i, off)
				case site > uint64(NoRegion):
					r.err = fmt.Errorf("sitemap: region %d names site %d, expected a 32-bit site", i, site-1)
				}
				out.Regions[i] = Region{Offset: uint32(off), Site: uint32(site - 1)}
			}
		}
	}
	if !v2 && !v3 && !v4 && !v5 && !v6 && !v7 && !v8 {
		n := r.count(2)
		for k := 0; k < n && r.err == nil; k++ {
			i, name := r.u(), r.s()
			switch {
			case r.err != nil:
			case i >= uint64(len(out.Funcs)):
				r.err = fmt.Errorf("sitemap: wasm name of function %d, the map has %d", i, len(out.Funcs))
			case name == "":
				r.err = fmt.Errorf("sitemap: empty wasm name of function %d", i)
			default:
				out.Funcs[i].WasmName = name
			}
		}
	}
	if !v2 && !v3 && !v4 && !v5 && !v6 && !v7 && !v8 && !v9 {
		if n := r.count(1); n > 0 {
			out.GoModules = make([]string, n)
			for i := range out.GoModules {
				out.GoModules[i] = r.s()
			}
		}
		if n := r.count(1); n > 0 {
			out.Joins = make([][]uint32, n)
			for i := range out.Joins {
				out.Joins[i] = make([]uint32, r.count(1))
				for k := range out.Joins[i] {
					if out.Joins[i][k] = r.u32(); r.err == nil && uint64(out.Joins[i][k]) >= uint64(len(out.Sites)) {
						r.err = fmt.Errorf("sitemap: join %d names site %d, the map has %d", i, out.Joins[i][k], len(out.Sites))
					}
				}
			}
		}
	}
	for i, x := range out.Regions {
		_, join := out.JoinRegion(x.Site)
		switch {
		case r.err != nil || x.Site == NoRegion || x.Site < uint32(len(out.Sites)) || join:
		case x.Site >= NoRegion-1<<30:
			r.err = fmt.Errorf("sitemap: region %d names join %d, the map has %d", i, NoRegion-1-x.Site, len(out.Joins))
		default:
			r.err = fmt.Errorf("sitemap: region %d names site %d, the map has %d", i, x.Site, len(out.Sites))
		}
	}
	if r.err != nil {
		return r.err
	}
	if len(r.b) != 0 {
		return fmt.Errorf("sitemap: %d trailing bytes", len(r.b))
	}
	if uint64(l.Counters) != uint64(len(out.Sites)) {
		return fmt.Errorf("sitemap: expected %d sites, got %d", l.Counters, len(out.Sites))
	}
	if l.StackMinExport != "" && uint64(l.DepthSite)+DepthSites > uint64(l.Counters) {
		return fmt.Errorf("sitemap: expected %d stack depth sites from site %d, the map has %d", DepthSites, l.DepthSite, l.Counters)
	}
	if uint64(l.NullEnd) > uint64(l.ShadowBytes)<<3 {
		return fmt.Errorf("sitemap: expected the null page's end 0x%x within the shadow's %d bytes", l.NullEnd, l.ShadowBytes)
	}
	if uint64(l.ShadowOffset)+uint64(l.ShadowBytes) > uint64(l.ReservedPages)<<16 {
		return fmt.Errorf("sitemap: expected the %d-byte shadow at 0x%x within the %d reserved pages", l.ShadowBytes, l.ShadowOffset, l.ReservedPages)
	}
	if uint64(l.CallSite)+uint64(l.CallSites) > uint64(l.Counters) {
		return fmt.Errorf("sitemap: expected %d indirect call pair sites from site %d, the map has %d", l.CallSites, l.CallSite, l.Counters)
	}
	*m = out
	return nil
}

// ValueFrom returns the id of the first ValueProfile site
// (Options.ValueProfile), 0 when there is none.
func (m *SiteMap) ValueFrom() int {
	for i := len(m.Sites) - 1; i >= 0 && m.Sites[i].Kind == ValueProfile; i-- {
		if i == 0 || m.Sites[i-1].Kind != ValueProfile {
			return i
		}
	}
	return 0
}

// Conditionals returns, for every site, the id of the lowest-numbered arm
// of the conditional it is an arm of (the then and else arms of one if,
// the taken and not-taken outcomes of one br_if, the arms of one
// br_table), or -1 for a site that is no arm: function entries, stack
// depth steps and call pairs. Arms of one conditional share the
// instruction's function and offset; their ids need not be adjacent.
func (m *SiteMap) Conditionals() []int32 {
	type key struct {
		fn, off uint32
		family  SiteKind
	}
	first := map[key]int32{}
	out := make([]int32, len(m.Sites))
	for i, s := range m.Sites {
		var family SiteKind
		switch s.Kind {
		case IfThen, IfElse:
			family = IfThen
		case BrIfTaken, BrIfNotTaken:
			family = BrIfTaken
		case BrTableArm:
			family = BrTableArm
		default:
			out[i] = -1
			continue
		}
		k := key{s.Func, s.Offset, family}
		if f, ok := first[k]; ok {
			out[i] = f
			continue
		}
		first[k] = int32(i)
		out[i] = int32(i)
	}
	return out
}

// StatementAt returns the source position of the first line-table row that
// starts at or after offset with a line (rows of line 0 are the
// compiler's own code), as long as no other function starts before
// it: the first statement of the loop body or function whose code begins
// at offset, where Lookup would give the line of the instructions a
// compiler hoisted there (a loop's counter update often carries its
// function's first line).
func (m *SiteMap) StatementAt(offset uint32) (file string, line uint32, ok bool) {
	i := sort.Search(len(m.LineTable), func(i int) bool { return m.LineTable[i].Offset >= offset })
	for ; i < len(m.LineTable); i++ {
		e := m.LineTable[i]
		for _, f := range m.Funcs {
			if f.Offset > offset && f.Offset <= e.Offset {
				return "", 0, false
			}
		}
		if int(e.File) < len(m.Files) && e.Line != 0 {
			return m.Files[e.File], e.Line, true
		}
	}
	return "", 0, false
}
