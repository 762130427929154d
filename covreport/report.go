package covreport

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/internal/enumname"
)

// Options configures Build. The zero value reads sources at their DWARF
// paths only and puts every function in the user's group.
type Options struct {
	// Target names the module in titles (e.g. its file name).
	Target string
	// SourceRoots are directories to look for source files under when
	// their DWARF paths do not exist as they are: DIR/PATH, then DIR/
	// followed by shorter and shorter tails of PATH.
	SourceRoots []string
	// PlotSVG is a campaign's plot (package plot) to embed in the summary
	// page; nil for none.
	PlotSVG []byte
	// MaxSourceBytes caps the size of a source file read (0: 16 MiB);
	// a larger file is treated as missing.
	MaxSourceBytes int64
}

// Group is the part of a program a function belongs to.
type Group int

// Groups, in the order the summary page lists them.
const (
	User     Group = iota // the program's own code (in a Go module: its main module's packages)
	GoDeps                // a Go module's dependencies: packages of the other modules it was built from
	GoStd                 // the Go runtime and standard library, and code the Go toolchain adds
	NoSource              // code without DWARF line information (libc, stripped code)
)

var groupNames = enumname.New[Group]("Group", "group", "program", "dependencies", "Go runtime and standard library", "without source positions (no DWARF)")

func (g Group) String() string { return groupNames.String(g) }

// Arm is one arm of a conditional.
type Arm struct {
	Site   int
	Kind   instrument.SiteKind
	Index  uint32 // the br_table arm (the default is the last); 0 otherwise
	Hits   uint64 // sum of the runs' counts (each saturating at 255)
	Inputs uint64 // runs that took the arm
}

// Name says which way the arm goes: "then", "else", "taken", "not taken",
// "arm N" or "default".
func (a Arm) Name(last uint32) string {
	switch a.Kind {
	case instrument.IfThen:
		return "then"
	case instrument.IfElse:
		return "else"
	case instrument.BrIfTaken:
		return "taken"
	case instrument.BrIfNotTaken:
		return "not taken"
	case instrument.BrTableArm:
		if a.Index == last {
			return "default"
		}
		return fmt.Sprintf("arm %d", a.Index)
	}
	return a.Kind.String()
}

// Branch is one conditional instruction (if, br_if, br_table) and its arms.
type Branch struct {
	Offset uint32 // code-section offset of the instruction
	File   string // its source file (DWARF path, "" without)
	Line   uint32 // its source line (0 without DWARF)
	Kind   string // "if", "br_if" or "br_table"
	Arms   []Arm
}

// Missed returns the names of the arms never taken.
func (b Branch) Missed() []string {
	var out []string
	for _, a := range b.Arms {
		if a.Inputs == 0 {
			out = append(out, a.Name(uint32(len(b.Arms)-1)))
		}
	}
	return out
}

// Hit is the number of arms taken at least once.
func (b Branch) Hit() int {
	n := 0
	for _, a := range b.Arms {
		if a.Inputs > 0 {
			n++
		}
	}
	return n
}

// Func is one function's coverage.
type Func struct {
	Index      uint32
	Name       string
	File       string // DWARF path, "" without
	Line       uint32
	Group      Group
	Entry      uint64 // runs that entered it
	EntryHits  uint64
	Branches   []Branch
	Arms, Hit  int // branch arms and arms taken
	SourceFile int // index into Report.Files, -1 when the source was not found
	bodyEnd    uint32
	offset     uint32
}

// Uncovered is the number of arms never taken.
func (f *Func) Uncovered() int { return f.Arms - f.Hit }

// LineState is how much of a source line the corpus ran.
type LineState int

// Line states.
const (
	NoCode      LineState = iota // no site on the line and none of its code in a region: not marked
	NotCovered                   // no site on it and no region of its code was hit
	PartCovered                  // some site or region hit, an arm of a conditional on it never taken
	Covered                      // reached, and every arm of its conditionals taken
)

// Line is one marked source line.
type Line struct {
	Number   uint32
	State    LineState
	Inputs   uint64 // runs that reached the line: the most of any site or region on it (an arm's runs for a conditional; one run may take several arms)
	Hits     uint64 // hit count of the line: the largest of its sites' and regions' (a conditional's is its arms' sum)
	Branches []Branch
}

// File is one source file with marked lines.
type File struct {
	Path      string // as DWARF names it
	Found     string // where the source was read, "" when not found
	Group     Group
	Source    []string // lines of the source (nil when not found)
	Lines     []Line   // marked lines, by number
	Funcs     []int    // indices into Report.Funcs
	Arms, Hit int
	LinesHit  int // marked lines with State Covered or PartCovered
}

// Uncovered is the number of arms never taken.
func (f *File) Uncovered() int { return f.Arms - f.Hit }

// Report is a built coverage report.
type Report struct {
	Target   string
	Totals   Totals
	Inputs   []Input
	Funcs    []Func // sorted by uncovered arms, most first, then name
	Files    []File // sorted likewise
	Arms     int
	ArmsHit  int
	FuncsHit int
	Lines    int // marked lines
	LinesHit int
	Go       bool // a Go module: the runtime and standard library form their own group
	plotSVG  []byte
}

// Build makes the report of c.
func Build(c *Coverage, opts Options) *Report {
	b := &builder{c: c, sm: c.sm, opts: opts, byIndex: map[uint32]*Func{}, fileIdx: map[string]int{}, lines: map[int]map[uint32]*Line{}}
	b.r = &Report{Target: opts.Target, Totals: c.Totals(), Inputs: slices.Clone(c.Runs), plotSVG: opts.PlotSVG}
	b.r.Go = isGo(b.sm)
	b.collectSites()
	b.sumFuncs()
	b.setBodyEnds()
	b.markFuncLines()
	markRegions(c, b.byIndex, b.fileOf, b.mark)
	b.groupFiles()
	b.sumFiles()
	b.sortFuncs()
	b.sortFiles()
	return b.r
}

// builder is Build's work in progress.
type builder struct {
	c    *Coverage
	sm   *instrument.SiteMap
	opts Options
	r    *Report
	// byIndex: the functions with sites, by index; order: their indexes
	// in the order the site map first names them.
	byIndex map[uint32]*Func
	order   []uint32
	// fileIdx: a file's index in r.Files by path; lines: its lines by
	// number.
	fileIdx map[string]int
	lines   map[int]map[uint32]*Line
}

// funcAt returns function i's entry, made on first use.
func (b *builder) funcAt(i uint32) *Func {
	if f, ok := b.byIndex[i]; ok {
		return f
	}
	f := &Func{Index: i, Name: fmt.Sprintf("func[%d]", i), SourceFile: -1}
	if int(i) < len(b.sm.Funcs) {
		mf := b.sm.Funcs[i]
		if mf.Name != "" {
			f.Name = mf.Name
		}
		f.File, f.Line, f.offset = mf.File, mf.Line, mf.Offset
	}
	b.byIndex[i] = f
	b.order = append(b.order, i)
	return f
}

// collectSites reads every site into its function: the entry's counts,
// and each conditional's arms grouped into its branch.
func (b *builder) collectSites() {
	sm, c := b.sm, b.c
	conds := sm.Conditionals()
	branchAt := map[int32]int{} // first arm's site → index in its function's Branches
	for id, s := range sm.Sites {
		switch s.Kind {
		case instrument.FuncEntry:
			f := b.funcAt(s.Func)
			f.Entry += c.Inputs[id]
			f.EntryHits += c.Hits[id]
			if f.Line == 0 {
				if _, l := siteLine(sm, id); l != 0 {
					f.Line = l
				}
			}
			continue
		case instrument.StackDepth, instrument.CallPair:
			continue
		}
		first := conds[id]
		if first < 0 {
			continue
		}
		f := b.funcAt(s.Func)
		bi, ok := branchAt[first]
		if !ok {
			file, line := siteLine(sm, int(first))
			bi = len(f.Branches)
			branchAt[first] = bi
			f.Branches = append(f.Branches, Branch{Offset: s.Offset, File: file, Line: line, Kind: familyName(s.Kind)})
		}
		br := &f.Branches[bi]
		br.Arms = append(br.Arms, Arm{Site: id, Kind: s.Kind, Index: s.Arm, Hits: c.Hits[id], Inputs: c.Inputs[id]})
	}
}

// sumFuncs sorts each function's branches by offset and their arms by
// kind and index, and sums the arms hit per function and in all.
func (b *builder) sumFuncs() {
	r := b.r
	for _, i := range b.order {
		f := b.byIndex[i]
		slices.SortStableFunc(f.Branches, func(a, b Branch) int { return cmpU32(a.Offset, b.Offset) })
		for bi := range f.Branches {
			br := &f.Branches[bi]
			slices.SortStableFunc(br.Arms, func(x, y Arm) int {
				if x.Kind != y.Kind {
					return int(x.Kind) - int(y.Kind)
				}
				return cmpU32(x.Index, y.Index)
			})
			f.Arms += len(br.Arms)
			f.Hit += br.Hit()
		}
		f.Group = groupOf(f, r.Go, b.sm.GoModules)
		r.Arms += f.Arms
		r.ArmsHit += f.Hit
		if f.Entry > 0 {
			r.FuncsHit++
		}
	}
}

// setBodyEnds records where each function's body ends, for the lines of
// functions never entered.
func (b *builder) setBodyEnds() {
	ends := funcEnds(b.sm)
	for _, i := range b.order {
		b.byIndex[i].bodyEnd = ends[i]
	}
}

// fileOf returns the index of file p, added on first use; a file's group
// is the lowest of those naming it (groupFiles then prefers the groups of
// the functions declared in it). Files are a function's own, and those
// its sites' lines name (code inlined from a header lies in the header).
func (b *builder) fileOf(p string, g Group) int {
	r := b.r
	fi, ok := b.fileIdx[p]
	if !ok {
		fi = len(r.Files)
		b.fileIdx[p] = fi
		r.Files = append(r.Files, File{Path: p, Group: g})
		b.lines[fi] = map[uint32]*Line{}
	}
	r.Files[fi].Group = min(r.Files[fi].Group, g)
	return fi
}

// mark returns line n of file fi, added on first use.
func (b *builder) mark(fi int, n uint32) *Line {
	l, ok := b.lines[fi][n]
	if !ok {
		l = &Line{Number: n}
		b.lines[fi][n] = l
	}
	return l
}

// markFuncLines marks the lines of every function's entry and branches
// with their counts, and, in a site map without regions, every line of
// a function never entered.
func (b *builder) markFuncLines() {
	sm, r := b.sm, b.r
	for _, i := range b.order {
		f := b.byIndex[i]
		if f.File != "" {
			fi := b.fileOf(f.File, f.Group)
			if f.Line != 0 {
				l := b.mark(fi, f.Line)
				l.Inputs = max(l.Inputs, f.Entry)
				l.Hits = max(l.Hits, f.EntryHits)
			}
		}
		for _, br := range f.Branches {
			if br.File == "" || br.Line == 0 {
				continue
			}
			fi := b.fileOf(br.File, f.Group)
			l := b.mark(fi, br.Line)
			var in, hits uint64
			for _, a := range br.Arms {
				in = max(in, a.Inputs) // a run may take several arms
				hits += a.Hits
			}
			l.Inputs = max(l.Inputs, in)
			l.Hits = max(l.Hits, hits)
			l.Branches = append(l.Branches, br)
			r.Files[fi].Arms += len(br.Arms)
			r.Files[fi].Hit += br.Hit()
		}
		if f.Entry == 0 && len(sm.Regions) == 0 {
			// a site map without regions (before sitemap v8): every line
			// of a function never entered is uncovered
			for _, le := range sm.LineTable {
				if le.Offset >= f.offset && le.Offset < f.bodyEnd && le.Line != 0 && int(le.File) < len(sm.Files) {
					b.mark(b.fileOf(sm.Files[le.File], f.Group), le.Line)
				}
			}
		}
	}
}

// groupFiles gives a Go module's file the group its path says (goFileGroup),
// and any other file in which some function is declared (its File) the
// lowest group of those functions: code inlined into the program from a
// library's file (strings.Builder's methods in a Go program, x/net's
// Parse in the function that calls it) leaves the file with the library.
// A file neither decides keeps the lowest group of the functions whose
// code names it.
func (b *builder) groupFiles() {
	r := b.r
	defer func() {
		if !r.Go {
			return
		}
		for fi := range r.Files {
			if g, ok := goFileGroup(r.Files[fi].Path, b.sm.GoModules); ok {
				r.Files[fi].Group = g
			}
		}
	}()
	declared := map[int]Group{}
	for _, i := range b.order {
		f := b.byIndex[i]
		if fi, ok := b.fileIdx[f.File]; ok && f.File != "" {
			if g, seen := declared[fi]; !seen || f.Group < g {
				declared[fi] = f.Group
			}
		}
	}
	for fi, g := range declared {
		r.Files[fi].Group = g
	}
}

// sumFiles gives each file its lines in order with their states, sums
// the lines hit, and reads the file's source when it is found.
func (b *builder) sumFiles() {
	r := b.r
	for fi := range r.Files {
		fl := &r.Files[fi]
		for _, l := range b.lines[fi] {
			l.State = lineState(l)
			fl.Lines = append(fl.Lines, *l)
			if l.State >= PartCovered {
				fl.LinesHit++
			}
		}
		slices.SortFunc(fl.Lines, func(a, b Line) int { return cmpU32(a.Number, b.Number) })
		r.Lines += len(fl.Lines)
		r.LinesHit += fl.LinesHit
		if p := findSource(fl.Path, b.opts); p != "" {
			if src, ok := readSource(p, b.opts); ok {
				fl.Found, fl.Source = p, src
			}
		}
	}
}

// sortFuncs lists the functions by group, most uncovered arms first,
// then by name and index.
func (b *builder) sortFuncs() {
	r := b.r
	for _, i := range b.order {
		r.Funcs = append(r.Funcs, *b.byIndex[i])
	}
	slices.SortStableFunc(r.Funcs, func(a, b Func) int {
		if a.Group != b.Group {
			return int(a.Group) - int(b.Group)
		}
		if d := b.Uncovered() - a.Uncovered(); d != 0 {
			return d
		}
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return cmpU32(a.Index, b.Index)
	})
}

// sortFiles orders the files by group, most uncovered arms first, then
// by path, and gives each the functions (by index in r.Funcs) whose own
// file it is.
func (b *builder) sortFiles() {
	r := b.r
	oldFile := make([]int, len(r.Files))
	for i := range oldFile {
		oldFile[i] = i
	}
	slices.SortStableFunc(oldFile, func(a, b int) int {
		fa, fb := &r.Files[a], &r.Files[b]
		if fa.Group != fb.Group {
			return int(fa.Group) - int(fb.Group)
		}
		if d := fb.Uncovered() - fa.Uncovered(); d != 0 {
			return d
		}
		return strings.Compare(fa.Path, fb.Path)
	})
	files := make([]File, len(r.Files))
	newFile := map[string]int{}
	for n, o := range oldFile {
		files[n] = r.Files[o]
		files[n].Funcs = nil
		newFile[files[n].Path] = n
	}
	r.Files = files
	for fi := range r.Funcs {
		f := &r.Funcs[fi]
		if n, ok := newFile[f.File]; ok && f.File != "" {
			r.Files[n].Funcs = append(r.Files[n].Funcs, fi)
			if r.Files[n].Source != nil {
				f.SourceFile = n
			}
		}
	}
}

// markRegions marks every line with code in a region (SiteMap.Regions):
// the line ran in a run that hit the site of a region of its code (for a
// join region, any of its sites: the line's runs are then the most of
// any one site's, a lower bound).
func markRegions(c *Coverage, byIndex map[uint32]*Func, fileOf func(string, Group) int, mark func(int, uint32) *Line) {
	sm := c.sm
	regions := sm.Regions
	for i, le := range sm.LineTable {
		end := ^uint32(0)
		if i+1 < len(sm.LineTable) {
			end = sm.LineTable[i+1].Offset
		}
		if le.Line == 0 || int(le.File) >= len(sm.Files) || end <= le.Offset {
			continue
		}
		// the regions overlapping [le.Offset, end)
		j := max(sort.Search(len(regions), func(k int) bool { return regions[k].Offset > le.Offset })-1, 0)
		for ; j < len(regions) && regions[j].Offset < end; j++ {
			r := regions[j]
			if j+1 < len(regions) && regions[j+1].Offset <= le.Offset {
				continue
			}
			// the region's sites: one, or a join's (any of them)
			sites := []uint32{r.Site}
			if k, ok := sm.JoinRegion(r.Site); ok {
				sites = sm.Joins[k]
			}
			if len(sites) == 0 || int64(sites[0]) >= int64(len(sm.Sites)) {
				continue
			}
			f := byIndex[sm.Sites[sites[0]].Func]
			if f == nil {
				continue
			}
			l := mark(fileOf(sm.Files[le.File], f.Group), le.Line)
			for _, s := range sites {
				if int64(s) < int64(len(sm.Sites)) {
					l.Inputs = max(l.Inputs, c.Inputs[s])
					l.Hits = max(l.Hits, c.Hits[s])
				}
			}
		}
	}
}

func lineState(l *Line) LineState {
	if l.Inputs == 0 {
		return NotCovered
	}
	for _, b := range l.Branches {
		if b.Hit() < len(b.Arms) {
			return PartCovered
		}
	}
	return Covered
}

func familyName(k instrument.SiteKind) string {
	switch k {
	case instrument.IfThen, instrument.IfElse:
		return "if"
	case instrument.BrIfTaken, instrument.BrIfNotTaken:
		return "br_if"
	}
	return "br_table"
}

func siteLine(sm *instrument.SiteMap, id int) (string, uint32) {
	if id < len(sm.Lines) && int(sm.Lines[id].File) < len(sm.Files) {
		return sm.Files[sm.Lines[id].File], sm.Lines[id].Line
	}
	return "", 0
}

// funcEnds returns, by function index, the offset where the next defined
// function's body starts (the end of the code for the last one).
func funcEnds(sm *instrument.SiteMap) []uint32 {
	type fo struct{ idx, off uint32 }
	var fs []fo
	for i, f := range sm.Funcs {
		if f.Offset != 0 {
			fs = append(fs, fo{uint32(i), f.Offset})
		}
	}
	slices.SortFunc(fs, func(a, b fo) int { return cmpU32(a.off, b.off) })
	ends := make([]uint32, len(sm.Funcs))
	for k, f := range fs {
		if k+1 < len(fs) {
			ends[f.idx] = fs[k+1].off
		} else {
			ends[f.idx] = ^uint32(0)
		}
	}
	return ends
}

func cmpU32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// isGo reports whether sm describes a module built by the Go toolchain.
func isGo(sm *instrument.SiteMap) bool {
	for _, f := range sm.Funcs {
		if f.Name == "runtime.goexit" || f.Name == "runtime.main" || f.Name == "runtime.schedinit" {
			return true
		}
	}
	return false
}

// groupOf sorts a function into its group. In a Go module, by the
// package its name starts with (goPackage): the main module's packages
// (package main among them) are the program, the other modules' its
// dependencies, and a package whose path's first element has no dot (as
// the go command tells standard packages apart) the runtime and standard
// library, as are names with no package (the runtime's assembly: memcmp,
// gcWriteBarrier, wasm_pc_f_loop; the exports' wrappers). modules are the
// module paths (instrument.SiteMap.GoModules, main module first); without
// them every package outside the standard library is the program.
// Elsewhere a function without a DWARF file has no source.
func groupOf(f *Func, isGo bool, modules []string) Group {
	if !isGo {
		if f.File == "" {
			return NoSource
		}
		return User
	}
	pkg, ok := goPackage(f.Name)
	switch {
	case !ok:
		if strings.HasPrefix(f.Name, "func[") {
			return User // no name: nothing says whose it is
		}
		return GoStd
	case pkg == "main":
		return User
	}
	best, at := -1, 0
	for i, m := range modules {
		if (pkg == m || strings.HasPrefix(pkg, m+"/")) && len(m) > best {
			best, at = len(m), i
		}
	}
	switch {
	case best >= 0 && at == 0:
		return User
	case best >= 0:
		return GoDeps
	case goStdPackage(pkg):
		return GoStd
	}
	return User
}

// goFileGroup returns the group of a Go source file by its path as a
// build with -trimpath writes it: a module's file is "path@version/...",
// the program's own "mainpath/..." (the main module has no version), the
// standard library's "pkg/..." with no dot in its first element. modules
// as in groupOf. False when the path says nothing (an absolute path of a
// build without -trimpath, or no module paths).
func goFileGroup(p string, modules []string) (Group, bool) {
	if len(modules) == 0 || strings.HasPrefix(p, "/") || filepath.IsAbs(p) {
		return 0, false
	}
	if at := strings.IndexByte(p, '@'); at > 0 {
		mod := p[:at]
		if slices.Contains(modules[1:], mod) {
			return GoDeps, true
		}
		return 0, false
	}
	if main := modules[0]; strings.HasPrefix(p, main+"/") {
		return User, true
	}
	first, _, _ := strings.Cut(p, "/")
	if !strings.Contains(first, ".") && strings.Contains(p, "/") {
		return GoStd, true
	}
	return 0, false
}

// goPackage returns the package path a Go function name starts with
// ("example.com/m/pkg" for "example.com/m/pkg.(*T).M"; the type's
// package for the equality function "type:.eq.pkg.T" the compiler
// makes), false for a name without one.
func goPackage(name string) (string, bool) {
	name = strings.TrimPrefix(name, "type:.eq.")
	name = strings.TrimLeft(name, "*[]0123456789.") // an array or pointer type's element type
	// The package path ends before the first '.' after the last '/'.
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	if dot <= 0 || strings.ContainsAny(name[:slash+1+dot], ":[]() ") {
		return "", false
	}
	return name[:slash+1+dot], true
}

// goStdPackage reports whether a package path is the standard library's:
// its first element has no dot (and it is not main).
func goStdPackage(pkg string) bool {
	first, _, _ := strings.Cut(pkg, "/")
	return !strings.Contains(first, ".") && first != "main"
}

// findSource returns the path a DWARF file name is readable at, "" for
// none.
func findSource(p string, opts Options) string {
	exists := func(q string) bool {
		st, err := os.Stat(q)
		return err == nil && st.Mode().IsRegular()
	}
	if exists(p) {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
		return p
	}
	slashed := strings.TrimLeft(filepath.ToSlash(p), "/")
	for _, root := range opts.SourceRoots {
		parts := strings.Split(slashed, "/")
		for k := range parts {
			q := filepath.Join(root, filepath.FromSlash(path.Join(parts[k:]...)))
			if exists(q) {
				if abs, err := filepath.Abs(q); err == nil {
					return abs
				}
				return q
			}
		}
	}
	return ""
}

func readSource(p string, opts Options) ([]string, bool) {
	limit := opts.MaxSourceBytes
	if limit <= 0 {
		limit = 16 << 20
	}
	st, err := os.Stat(p)
	if err != nil || st.Size() > limit {
		return nil, false
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	s := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	return s, true
}
