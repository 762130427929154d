package instrument

import (
	"fmt"
	"path"
	"slices"
	"strconv"
)

// supported rejects what the rewrite cannot handle: an imported memory,
// more than one memory, a malformed skip pattern.
func (rw *rewriter) supported() error {
	m := rw.m
	if n := m.NumImported(ExternMemory); n > 0 {
		return fmt.Errorf("instrument: module imports its memory: %w (wafer must own the memory to reserve its low pages)", ErrUnsupported)
	}
	if len(m.Memories) > 1 {
		return fmt.Errorf("instrument: module has %d memories: %w (multiple memories)", len(m.Memories), ErrUnsupported)
	}
	for _, pat := range rw.opts.Skip {
		if _, err := path.Match(pat, ""); err != nil {
			return fmt.Errorf("instrument: skip pattern %q: %w", pat, err)
		}
	}
	return nil
}

// selectFuncs names every function (the heap guard's moved bodies and
// helpers included), drops a name section wazero would choke on, and
// marks the defined functions that get no counters (rw.skip): those
// Options.Skip matches, and the heap guard's own code. It returns the
// names by function index.
func (rw *rewriter) selectFuncs(guard *heapGuard) []string {
	m := rw.m
	nimp := m.NumImported(ExternFunc)
	names := funcNames(m)
	if guard != nil {
		// the moved bodies are named for the wrappers that call them
		for n, f := range guard.moved {
			names[n] = names[f] + ".unguarded"
		}
		for n, name := range guard.helpers {
			names[n] = name
		}
	}
	customs := m.Customs[:0:0]
	for _, c := range m.Customs {
		if c.Name == "name" && !validNameSection(c.Data()) {
			continue // see validNameSection
		}
		customs = append(customs, c)
	}
	m.Customs = customs
	rw.skip = make([]bool, len(m.Code))
	for i := range m.Code {
		name := names[nimp+uint32(i)]
		for _, pat := range rw.opts.Skip {
			if ok, _ := path.Match(pat, name); ok {
				rw.skip[i] = true
				break
			}
		}
	}
	if guard != nil {
		// The guard's own code gets no counters: its branches are not the
		// target's, and a build with the heap check (whose free has more
		// of them) must have the sites of the build without it.
		for _, f := range guard.wrappers {
			rw.skip[f-nimp] = true
		}
		for f := range guard.helpers {
			rw.skip[f-nimp] = true
		}
	}
	return names
}

// counted is what Pass 1 found in the code as the target has it: the
// constants and the data addresses the dictionary is made of, and the
// sites of the functions.
type counted struct {
	consts            [][]byte
	refs, runtimeRefs []uint32
	goModule          bool
	dataLo, dataHi    uint64
	funcSites         int // sites in code (before the stack depth and call pair sites)
}

// countCode is Pass 1's count: the sites of the counted functions
// (rw.nsites, with the stack depth and call pair regions), the integer
// comparisons to log, and the constants and data addresses the code
// refers to.
func (rw *rewriter) countCode(names []string) counted {
	m := rw.m
	nimp := m.NumImported(ExternFunc)
	var c counted
	c.dataLo, c.dataHi = dataSpan(m.Data)
	rw.dispatch = make([]goDispatch, len(m.Code))
	goMod := !rw.opts.CountGoDispatch && goModule(m, names)
	for i := range m.Code {
		rw.dispatch[i] = noDispatch
		if goMod && int(m.Funcs[i]) < len(m.Types) {
			if ps := m.Types[m.Funcs[i]].Params; len(ps) > 0 && ps[0] == TI32 {
				rw.dispatch[i] = findGoDispatch(&m.Code[i].Body)
			}
		}
		if !rw.skip[i] {
			rw.nsites += countSites(&m.Code[i].Body, rw.dispatch[i].table)
		}
		if rw.opts.Compares && !rw.skip[i] {
			rw.cmpInts += countCompares(&m.Code[i].Body)
		}
		name := names[nimp+uint32(i)]
		if goRuntime(name) {
			// The Go runtime's constants and messages are not the
			// target's language: left out of the dictionary, but where
			// it refers still cuts the strings laid end to end.
			c.goModule = c.goModule || name == "runtime.main"
			c.runtimeRefs = constAddrs(&m.Code[i].Body, c.runtimeRefs, c.dataLo, c.dataHi)
			continue
		}
		c.consts = cmpConsts(&m.Code[i].Body, c.consts)
		c.consts = switchConsts(&m.Code[i].Body, c.consts)
		c.refs = constAddrs(&m.Code[i].Body, c.refs, c.dataLo, c.dataHi)
	}
	for i := range m.Globals {
		c.refs = constAddrs(&m.Globals[i].Init, c.refs, c.dataLo, c.dataHi)
	}
	c.funcSites = rw.nsites
	if rw.depth {
		rw.nsites += DepthSites
	}
	if rw.opts.CallPairs {
		calls := 0
		for i := range m.Code {
			if !rw.skip[i] {
				calls += countIndirectCalls(&m.Code[i].Body)
			}
		}
		rw.callSites = callSiteCount(calls)
		rw.callFirst = uint32(rw.nsites)
		rw.nsites += rw.callSites
	}
	if rw.opts.ValueProfile {
		n := 0
		for i := range m.Code {
			if !rw.skip[i] {
				n += countValueCompares(&m.Code[i].Body)
			}
		}
		// the hooks of memory and soft-float comparisons are found by
		// name later: room for a few
		rw.vpSites = valueSiteCount(n + 16)
		rw.vpFirst = uint32(rw.nsites)
		rw.nsites += rw.vpSites
	}
	return c
}

// reservePages is Pass 1's layout of the reserved pages: the counters,
// then the dirty map, the comparison log and the heap check's shadow, as
// the options ask. It returns how many functions get a memory comparison
// hook.
func (rw *rewriter) reservePages(names []string, guard *heapGuard) (cmpMems int) {
	m := rw.m
	nimp := m.NumImported(ExternFunc)
	rw.funcOff = make([]uint32, len(m.Code))
	var codeSize int
	for i := range m.Code {
		codeSize += int(m.Code[i].Size)
	}
	rw.bodies = make([]byte, 0, 2*codeSize+64)
	// a byte after the counters where goframe.go's entry marks follow Go
	// frames: frameMark's store may reach one byte before the dirty map
	pad := uint64(0)
	if rw.opts.DirtyPages && slices.ContainsFunc(rw.dispatch, func(d goDispatch) bool { return d.table >= 0 }) {
		pad = 1
	}
	counterPages := (uint64(rw.nsites) + pad + 0xffff) >> 16
	rw.rp = uint32(counterPages)
	if rw.opts.DirtyPages {
		rw.dirtyOff = uint32(counterPages << 16)
		rw.rp += dirtyMapBytes >> 16
	}
	if rw.opts.Compares || rw.opts.ValueProfile {
		rw.cmpMems = make([]memHook, len(m.Code))
		for i := range m.Code {
			if int(m.Funcs[i]) >= len(m.Types) {
				continue // reported by pass 2
			}
			if h, ok := memCompareHook(names[nimp+uint32(i)], &m.Types[m.Funcs[i]]); ok {
				rw.cmpMems[i] = h
				cmpMems++
				rw.has128 = rw.has128 || h.kind == cmpWide128
			}
		}
	}
	if rw.opts.Compares {
		rw.cmpInts = min(rw.cmpInts, maxCompares)
		rw.cmpOff = rw.rp << 16
		rw.rp += uint32((compareLogBytes(rw.cmpInts, cmpMems) + 0xffff) >> 16)
	}
	rw.heapCheck = guard != nil && rw.opts.HeapCheck
	if rw.heapCheck {
		rw.shadowOff = rw.rp << 16
		rw.rp += shadowBytes >> 16
	}
	if rw.rp == 0 {
		rw.rp = 1
	}
	rw.rb = uint64(rw.rp) << 16
	return cmpMems
}

// growMemory is the Memory pass: grow the limits by the reserved pages,
// or add a memory of them.
func (rw *rewriter) growMemory() error {
	m := rw.m
	if len(m.Memories) == 0 {
		m.Memories = append(m.Memories, Limits{Min: uint64(rw.rp)})
		return nil
	}
	l := &m.Memories[0]
	if l.Min+uint64(rw.rp) > 65536 {
		return fmt.Errorf("instrument: memory minimum of %d pages leaves no room for %d reserved pages: %w", l.Min, rw.rp, ErrUnsupported)
	}
	l.Min += uint64(rw.rp)
	if l.HasMax() {
		l.Max = min(l.Max+uint64(rw.rp), 65536)
	}
	return nil
}

// addGlobals is the Globals pass: counter base and fuel, appended (no
// index shifts), and the stack minimum; it also numbers the helper
// functions Pass 2 calls (heap check, dirty mark, comparison log), which
// follow the defined functions, and patches the heap guard's calls to
// them. It returns the number of imported globals.
func (rw *rewriter) addGlobals(names []string, guard *heapGuard) (nglobImp uint32) {
	m := rw.m
	nimp := m.NumImported(ExternFunc)
	nglobImp = m.NumImported(ExternGlobal)
	rw.baseGlobal = nglobImp + uint32(len(m.Globals))
	m.Globals = append(m.Globals, Global{Type: GlobalType{Type: TI32}, Init: Expr{Instrs: []Instr{{Op: OpI32Const}, {Op: OpEnd}}}})
	if rw.opts.Fuel {
		rw.fuelGlobal = nglobImp + uint32(len(m.Globals))
		m.Globals = append(m.Globals, Global{Type: GlobalType{Type: TI64, Mutable: true},
			Init: Expr{Instrs: []Instr{{Op: OpI64Const, A: 1<<63 - 1}, {Op: OpEnd}}}})
		rw.hangGlobal = nglobImp + uint32(len(m.Globals))
		m.Globals = append(m.Globals, Global{Type: GlobalType{Type: TI32, Mutable: true},
			Init: Expr{Instrs: []Instr{{Op: OpI32Const}, {Op: OpEnd}}}})
	}
	if rw.depth {
		rw.minGlobal = nglobImp + uint32(len(m.Globals))
		m.Globals = append(m.Globals, Global{Type: GlobalType{Type: TI32, Mutable: true},
			Init: Expr{Instrs: []Instr{{Op: OpI32Const, A: uint64(int64(int32(rw.stack.high)))}, {Op: OpEnd}}}})
	}
	helpers := nimp + uint32(len(m.Code))
	if rw.heapCheck {
		rw.heap = heapHelpers{report: helpers, fill: helpers + 1, arm: helpers + 2, free: helpers + 3, span: helpers + 4, check: helpers + 5, inAlloc: guard.inAlloc}
		helpers += 6
		guard.patch(m, nimp, rw.heap)
		rw.unchecked = make([]bool, len(m.Code))
		rw.wordwise = make([]bool, len(m.Code))
		for i := range m.Code {
			rw.wordwise[i] = wordwise[names[nimp+uint32(i)]]
		}
		for _, f := range guard.wrappers {
			rw.unchecked[f-nimp] = true
		}
		for f := range guard.moved {
			rw.unchecked[f-nimp] = true
		}
		for f := range guard.helpers {
			rw.unchecked[f-nimp] = true
		}
	}
	if rw.opts.DirtyPages {
		rw.markFunc = helpers
		helpers++
	}
	rw.cmpFunc = helpers
	if rw.opts.Compares {
		helpers += 3
		if rw.has128 {
			helpers++
		}
	}
	rw.vpFunc = helpers
	return nglobImp
}

// moveData makes the dictionary from the data segments as the target has
// them, then moves the active segments up by the reserved bytes and
// merges them (mergeData).
func (rw *rewriter) moveData(c counted) ([][]byte, error) {
	m := rw.m
	dict := dictionary(m.Data, c.consts, c.refs, c.runtimeRefs, c.goModule)
	for i := range m.Data {
		d := &m.Data[i]
		if d.Flags == 1 {
			continue
		}
		if err := rw.shiftOffset(&d.Offset); err != nil {
			return nil, fmt.Errorf("instrument: data segment %d: %w", i, err)
		}
	}
	mergeData(m)
	return dict, nil
}

// rewriteBodies is Pass 2: it rewrites every body, places the sites of
// the stack depth and call pair regions after the code's, and appends
// the helper functions the bodies call.
func (rw *rewriter) rewriteBodies(funcSites int, guard *heapGuard) error {
	m := rw.m
	nimp := m.NumImported(ExternFunc)
	rw.sm = &SiteMap{Sites: make([]Site, 0, rw.nsites)}
	for i := range m.Code {
		if err := rw.function(uint32(i), nimp); err != nil {
			return err
		}
	}
	if len(rw.sm.Sites) != funcSites {
		panic(fmt.Sprintf("instrument: counted %d sites, placed %d", funcSites, len(rw.sm.Sites)))
	}
	if rw.depth {
		for step := range uint32(DepthSites) {
			rw.sm.Sites = append(rw.sm.Sites, Site{Kind: StackDepth, Arm: step})
		}
	}
	for k := range uint32(rw.callSites) {
		rw.sm.Sites = append(rw.sm.Sites, Site{Kind: CallPair, Arm: k})
	}
	for k := range uint32(rw.vpSites) {
		rw.sm.Sites = append(rw.sm.Sites, Site{Kind: ValueProfile, Arm: k})
	}
	if rw.heapCheck {
		rw.addHeapFuncs(guard.global, guard.errAt)
	}
	if rw.opts.DirtyPages {
		rw.addMarkFunc()
	}
	if rw.opts.Compares {
		rw.addCompareFuncs()
	}
	if rw.vpSites > 0 {
		rw.addValueFuncs()
	}
	return nil
}

// addExports is the Exports pass: the memory, fuel, the stack minimum,
// and every other mutable global (the host snapshots them).
func (rw *rewriter) addExports(nglobImp uint32) error {
	m := rw.m
	if err := rw.export(MemoryExport, ExternMemory, 0); err != nil {
		return err
	}
	if rw.opts.Fuel {
		if err := rw.export(FuelExport, ExternGlobal, rw.fuelGlobal); err != nil {
			return err
		}
	}
	if rw.depth {
		if err := rw.export(StackMinExport, ExternGlobal, rw.minGlobal); err != nil {
			return err
		}
	}
	for i := range m.Globals {
		idx := nglobImp + uint32(i)
		if !m.Globals[i].Type.Mutable || (rw.opts.Fuel && idx == rw.fuelGlobal) || (rw.depth && idx == rw.minGlobal) {
			continue
		}
		if err := rw.export(GlobalExportPrefix+strconv.Itoa(int(idx)), ExternGlobal, idx); err != nil {
			return err
		}
	}
	return nil
}

// siteMap completes rw.sm: the Layout, the functions with their names and
// offsets, DWARF positions and the dictionary.
func (rw *rewriter) siteMap(names []string, guard *heapGuard, c counted, cmpMems int, dict [][]byte) {
	m := rw.m
	nimp := m.NumImported(ExternFunc)
	l := Layout{
		ReservedPages:      rw.rp,
		Counters:           uint32(rw.nsites),
		MemoryExport:       MemoryExport,
		GlobalExportPrefix: GlobalExportPrefix,
	}
	if rw.opts.DirtyPages {
		l.DirtyOffset = rw.dirtyOff
		l.DirtyPages = dirtyMapBytes
	}
	if rw.opts.Fuel {
		l.FuelExport = FuelExport
		l.HangAtExport = GlobalExportPrefix + strconv.Itoa(int(rw.hangGlobal))
	}
	if rw.opts.Compares {
		l.CompareOffset, l.Compares, l.CompareMems = rw.cmpOff, uint32(rw.cmpInts), uint32(cmpMems)
	}
	if guard != nil {
		l.HeapExport = GlobalExportPrefix + strconv.Itoa(int(guard.global))
		l.MallocLimitExport = GlobalExportPrefix + strconv.Itoa(int(guard.limit))
	}
	if rw.heapCheck {
		l.ShadowOffset, l.ShadowBytes = rw.shadowOff, shadowBytes
		l.HeapAtExport = GlobalExportPrefix + strconv.Itoa(int(guard.errAt))
		l.NullEnd = nullEnd(rw.stack, rw.hasStack, c.dataLo, rw.stackFirstNull)
	}
	if rw.hasStack {
		sl := rw.stack.layout()
		l.StackPointerExport, l.StackLow, l.StackHigh = sl.StackPointerExport, sl.StackLow, sl.StackHigh
	}
	if rw.depth {
		l.StackMinExport, l.DepthSite = StackMinExport, uint32(c.funcSites)
	}
	if rw.callSites > 0 {
		l.CallSite, l.CallSites = rw.callFirst, uint32(rw.callSites)
	}
	rw.sm.Layout = l
	rw.sm.Funcs = make([]Func, 0, len(names))
	for i, n := range names {
		f := Func{Name: n}
		if i >= int(nimp) && i-int(nimp) < len(rw.funcOff) {
			f.Offset = rw.funcOff[i-int(nimp)]
		}
		rw.sm.Funcs = append(rw.sm.Funcs, f)
	}
	addDWARF(m, rw.sm)
	if len(rw.sm.LineTable) == 0 {
		addLines(rw.sm, rw.goLines, rw.goFiles)
	}
	rw.sm.GoModules = rw.goModules
	rw.sm.Joins = rw.regions.joins
	setGoNames(m, rw.sm.Funcs)
	rw.sm.Dictionary = dict
}

func (rw *rewriter) export(name string, kind byte, idx uint32) error {
	for _, e := range rw.m.Exports {
		if e.Name == name {
			if e.Kind == kind && e.Index == idx {
				return nil
			}
			return fmt.Errorf("instrument: module already exports %q: %w", name, ErrUnsupported)
		}
	}
	rw.m.Exports = append(rw.m.Exports, Export{Name: name, Kind: kind, Index: idx})
	return nil
}

// shiftOffset adds the reserved bytes to an active data segment offset.
// A constant offset (i32.const, or extended-const arithmetic on
// constants) becomes one constant, saturating: a segment out of bounds
// before stays out of bounds, where a wrapped sum would write into the
// reserved pages.
func (rw *rewriter) shiftOffset(e *Expr) error {
	in := e.Instrs
	if c, ok := constI32(in); ok {
		v := uint64(c) + rw.rb
		if v > 0xffffffff {
			v = 0xffffffff // out of bounds before, out of bounds after
		}
		e.Instrs = []Instr{{Op: OpI32Const, A: uint64(int64(int32(uint32(v))))}, {Op: OpEnd}}
		return nil
	}
	if len(in) == 0 || in[len(in)-1].Op != OpEnd {
		return fmt.Errorf("offset expression without end")
	}
	// A global's value: append `i32.const rb; i32.add` (needs the
	// extended-const feature in the runtime). This wraps only for a value
	// within rb of 2^32, out of bounds of any memory the shift leaves the
	// target.
	body := append([]Instr{}, in[:len(in)-1]...)
	body = append(body, Instr{Op: OpI32Const, A: uint64(int64(int32(uint32(rw.rb))))}, Instr{Op: OpI32Add}, Instr{Op: OpEnd})
	e.Instrs = body
	return nil
}

// constI32 evaluates an i32 constant expression (ending in end) of
// i32.const and extended-const's i32.add, i32.sub and i32.mul, wrapping
// as Wasm does. A global.get is left alone, even of the module's own
// global: which globals a constant expression may read is the validator's
// question (core 2.0 allows imported ones only), and evaluating one would
// make an invalid module valid.
func constI32(in []Instr) (uint32, bool) {
	var st []uint32
	for i, x := range in {
		switch x.Op {
		case OpI32Const:
			st = append(st, uint32(x.A))
		case OpI32Add, OpI32Sub, OpI32Mul:
			n := len(st)
			if n < 2 {
				return 0, false
			}
			a, b := st[n-2], st[n-1]
			st = st[:n-1]
			switch x.Op {
			case OpI32Add:
				st[n-2] = a + b
			case OpI32Sub:
				st[n-2] = a - b
			default:
				st[n-2] = a * b
			}
		case OpEnd:
			if i != len(in)-1 || len(st) != 1 {
				return 0, false
			}
			return st[0], true
		default:
			return 0, false
		}
	}
	return 0, false
}

// countSites counts the sites function body e will get; the br_table at
// body index dispatch (a Go function's resume-point dispatch, -1: none)
// gets none.
func countSites(e *Expr, dispatch int) int {
	n := 1
	for i := range e.Instrs {
		switch e.Instrs[i].Op {
		case OpIf, OpBrIf:
			n += 2
		case OpBrTable:
			if i != dispatch {
				n += int(e.Instrs[i].B)
			}
		}
	}
	return n
}
