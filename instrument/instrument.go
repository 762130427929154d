package instrument

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strconv"
)

// Options select what Instrument adds. The zero value adds branch counters
// only.
type Options struct {
	// Fuel adds an exported mutable i64 global (Layout.FuelExport),
	// decremented by one at every loop header and at the entry of every
	// function that loops or calls (one that does neither runs a bounded
	// number of instructions, paid for by its caller; one whose
	// straight-line start reaches a loop header pays there); when it
	// goes negative the module executes `unreachable` (after storing the
	// negative value), so the host can tell a hang from a target trap. Its
	// initial value is the largest i64, so instantiation (start functions,
	// _initialize) is never cut short; the host sets it before each run.
	Fuel bool
	// DirtyPages marks, for every store, atomic write, bulk memory
	// operation and memory.grow, the 1 KiB blocks of target memory it
	// touches in the dirty map (Layout.DirtyOffset, one byte per block).
	DirtyPages bool
	// Skip holds path.Match patterns on function names: matching functions
	// get no counters (memory addressing is still rewritten everywhere).
	Skip []string
	// Compares logs the operands of comparisons (compare.go) in a region of
	// the reserved pages (Layout.CompareOffset), for input-to-state
	// mutation: integer comparisons of counted functions, and the buffers
	// of libc's memcmp/strcmp family. A module built with it is slower;
	// it is meant for a few runs per queue entry, beside the one built
	// without it.
	Compares bool
	// HeapGuard wraps a C allocator found by name (malloc, free and kin,
	// heapguard.go) so that a write past the end of a heap block and a
	// double free trap when the block is freed, with the error in
	// Layout.HeapExport.
	HeapGuard bool
	// Malloc names the allocator's malloc for the heap guard when it is
	// not "malloc" (wafer's --malloc; zero: "malloc"). The guard never
	// wraps a Go module's functions, whatever their names (allocatorEntries).
	Malloc string
	// HeapCheck, with HeapGuard, checks every load and store of the
	// target's code against a shadow of the heap (heapcheck.go): a read
	// or write outside a live block traps where it happens, with the
	// error in Layout.HeapExport, and Layout.ShadowOffset tells the host
	// where the shadow lies.
	HeapCheck bool
	// StackCheck traps as an LLVM-built module's stack pointer leaves the
	// stack's bounds (Layout.StackLow, StackHigh; stack.go), so an
	// overflow is caught where it happens. A module without a stack
	// pointer is left alone.
	StackCheck bool
	// StackDepth keeps the lowest value of that stack pointer in
	// Layout.StackMinExport and adds DepthSites sites of kind StackDepth
	// that the host counts from it (stack.go): feedback for how deep a
	// run recursed. A module without a stack pointer gets neither.
	StackDepth bool
	// CallPairs counts, for every call_indirect and return_call_indirect
	// of a counted function, which table index it called, hashed with
	// the call site into a region of Layout.CallSites counters of kind
	// CallPair after the branch sites (callpairs.go).
	CallPairs bool
	// CountGoDispatch counts, in a Go module, every arm of each function's
	// resume-point dispatch (the br_table Go's wasm backend starts a
	// function with) and checks fuel at the header of its loop, as wafer
	// did before godispatch.go. Zero: the arms get no sites and fuel is
	// checked at the function's entry and its backward jumps instead
	// (godispatch.go has why no edge a condition decides is lost). Other
	// modules are instrumented the same either way.
	CountGoDispatch bool
	// MarkGoFrameStores gives, with DirtyPages, every store into a Go
	// function's frame the mark marks.go leaves it (for measurements).
	// Zero: goframe.go marks a frame once at the function's entry and
	// its stores need none. Other modules are instrumented the same
	// either way.
	MarkGoFrameStores bool

	// nestSites overrides maxNestSites (tests); 0 is the default.
	nestSites int
	// allCounted gives every site a counter, none derived (tests: the
	// reference for derive.go's sums).
	allCounted bool
}

// Export names fixed by the Layout contract.
const (
	MemoryExport       = "wafer.memory"
	FuelExport         = "wafer.fuel"
	GlobalExportPrefix = "wafer.g"
)

// dirtyShift is log2 of the block size the dirty map tracks (1 KiB; see
// the package doc for why), and dirtyMapBytes its size: one byte per
// possible block of a 32-bit memory, so an index derived from any 32-bit
// address stays inside the map (4 MiB, 64 of the reserved pages). Layout.DirtyShift derives the shift back from
// the map's length.
const (
	dirtyShift    = 10
	dirtyMapBytes = 1 << (32 - dirtyShift)
)

// maxLocals bounds a function's locals, parameters included: the analyses
// of a function take memory per local, and a module may declare 2^32 of
// them in a few bytes.
const maxLocals = 50000

// Instrument rewrites a module so that it counts branch sites in the
// reserved low pages of its memory (see Layout and doc.go). The output
// behaves like the input: same results, same traps, same memory.size and
// memory.grow answers, with target addresses moved up by
// Layout.ReservedBytes(). Instrument is safe for concurrent use.
func Instrument(wasm []byte, opts Options) (out []byte, sm *SiteMap, err error) {
	m, err := Decode(wasm)
	if err != nil {
		return nil, nil, err
	}
	return instrumentModule(m, wasm, opts)
}

// instrumentModule rewrites m in place; src is the binary m was decoded
// from (nil for a module built in memory): unchanged instructions are
// copied from it byte for byte instead of being re-encoded.
func instrumentModule(m *Module, src []byte, opts Options) ([]byte, *SiteMap, error) {
	if m.instrumented() {
		return nil, nil, ErrInstrumented
	}
	rw := &rewriter{m: m, opts: opts, src: src}
	if err := rw.run(); err != nil {
		return nil, nil, err
	}
	return m.Encode(), rw.sm, nil
}

// ErrInstrumented is Instrument's error for a module it wrote: one that
// exports MemoryExport. Its counters and reserved pages are in place
// already; run the original.
var ErrInstrumented = fmt.Errorf("module is already instrumented by wafer (it exports %q): give wafer the original module", MemoryExport)

// instrumented reports whether m exports MemoryExport, as every module
// Instrument writes does.
func (m *Module) instrumented() bool {
	return slices.ContainsFunc(m.Exports, func(e Export) bool { return e.Name == MemoryExport })
}

// IsInstrumented reports whether wasm is a module Instrument wrote (false
// for a malformed one).
func IsInstrumented(wasm []byte) bool {
	if !bytes.Contains(wasm, []byte(MemoryExport)) {
		return false // no such export name: spare the decoding
	}
	m, err := Decode(wasm)
	return err == nil && m.instrumented()
}

// frame is an open block while rewriting a body.
type frame struct {
	op      Op
	c       uint32 // block type code
	a       uint64 // block type index / heap
	hasElse bool
	// elseSite is the id reserved for the else arm of an if.
	elseSite uint32
	// dead: the rest of this block is unreachable (after br, return,
	// unreachable, throw...): its operand stack is polymorphic, so branch
	// rewrites that need label types are not applied there (the sites keep
	// their ids and can never be hit).
	dead bool
}

// localSlot keys a scratch local: its type and a slot number.
type localSlot struct {
	t    ValType
	slot int
}

type localSlotIdx struct {
	k   localSlot
	idx uint32
}

type rewriter struct {
	m    *Module
	opts Options
	sm   *SiteMap
	src  []byte // the input binary, or nil

	regions regionTracker // SiteMap.Regions of the function being rewritten

	rb         uint64 // reserved bytes
	rp         uint32 // reserved pages
	dirtyOff   uint32
	nsites     int
	fuelGlobal uint32
	// hangGlobal (with fuel) holds, once the fuel has run out, the
	// code-section offset of the loop header or function entry whose
	// check trapped (Layout.HangAtExport).
	hangGlobal uint32
	baseGlobal uint32
	markFunc   uint32
	stack      stackBounds // the stack pointer (findStack)
	hasStack   bool
	minGlobal  uint32 // the lowest stack pointer global (Options.StackDepth)
	depth      bool   // Options.StackDepth and the module has a stack pointer
	stackCheck bool   // Options.StackCheck and the module has a stack pointer
	heapCheck  bool   // Options.HeapCheck and the heap guard wrapped an allocator
	// stackFirstNull: the stack comes first and its bottom is the heap
	// check's null page (stackFirstNullBound)
	stackFirstNull bool
	heap           heapHelpers
	shadowOff      uint32       // real address of the heap check's shadow
	unchecked      []bool       // by defined function: the heap check leaves it alone
	trap           trapState    // this function's trap block (heapcheck.go)
	wordwise       []bool       // by defined function: the heap check looks at first bytes
	frame          []bool       // by local of this function: it addresses a stack frame (frameLocals)
	callSites      int          // counters of indirect call pairs (Options.CallPairs)
	callFirst      uint32       // id of the first of them
	ncall          int          // indirect call sites rewritten so far
	cmpFunc        uint32       // $cmp32; $cmp64 and $cmpmem follow (compare.go)
	cmpOff         uint32       // real address of the comparison log
	cmpInts        int          // integer log entries
	cmpMems        []memHook    // by defined function: its memory comparison hook (kind 0: none)
	ncmp, nmem     int          // entries placed so far
	skip           []bool       // by defined function
	dispatch       []goDispatch // by defined function: Go's resume-point dispatch (godispatch.go)
	funcOff        []uint32     // code-relative offset of each defined function's first instruction
	typeIdx        map[string]uint32

	// per function
	body    []Instr // the original instructions
	k       int     // index in body of the instruction being rewritten
	fn      uint32
	def     uint32 // rw.fn among the defined functions
	out     []Instr
	pool    []uint64
	ctl     []frame
	results []ValType // of the function
	next    uint32    // next free local index
	scratch []localSlotIdx
	added   []LocalDecl
	bodies  []byte         // encoded rewritten bodies
	count   bool           // counters on in this function
	cpos    []int          // indices in out of the counter loads and stores (offset = id)
	fnLo    uint32         // first site id of this function
	nests   map[int][]bool // leaf loops of this function: loop index -> sites in locals (nest.go)
	marks   markAnalysis   // which stores need no dirty mark (marks.go)
	elide   []bool         // by instruction index of this function: from marks
	frames  frameAnalysis  // which Go frame stores the entry's marks cover (goframe.go)
	goFrame goFrame        // this function's frame, when frameMark runs at its entry
	hasGoFr bool           // goFrame is set
	nest    *nest          // the leaf nest being rewritten, or nil
	disp    goDispatch     // Go's resume-point dispatch of this function
	plan    derivation     // which sites of this function are derived (derive.go)
}

// run rewrites rw.m in passes, each a function of its own: the checks
// (supported), which functions get counters (selectFuncs), Pass 1 (count
// the sites, then lay out the reserved pages), Memory, Globals, the data
// segments (moveData), Pass 2 (rewrite the bodies), Exports, and the
// SiteMap.
func (rw *rewriter) run() error {
	m := rw.m
	if err := rw.supported(); err != nil {
		return err
	}
	var guard *heapGuard
	if rw.opts.HeapGuard {
		guard = rw.guardHeap(funcNames(m))
	}
	names := rw.selectFuncs(guard)
	// The stack's bounds read the segments as the target has them: before
	// they move up by the reserved bytes and merge.
	rw.stack, rw.hasStack = findStack(m)
	if guard != nil && rw.opts.HeapCheck {
		// a stack-first module's null page (heapcheck.go)
		if b := stackFirstNullBound(rw.stack, rw.hasStack); b > 0 {
			rw.stack.low, rw.stackFirstNull = b, true
		}
	}
	rw.depth = rw.opts.StackDepth && rw.hasStack
	rw.stackCheck = rw.opts.StackCheck && rw.hasStack
	// Pass 1: count sites to size the reserved region; collect the
	// constants that feed comparisons before code is inserted.
	c := rw.countCode(names)
	cmpMems := rw.reservePages(names, guard)
	if err := rw.growMemory(); err != nil {
		return err
	}
	nglobImp := rw.addGlobals(names, guard)
	dict, err := rw.moveData(c)
	if err != nil {
		return err
	}
	if err := rw.rewriteBodies(c.funcSites, guard); err != nil {
		return err
	}
	if err := rw.addExports(nglobImp); err != nil {
		return err
	}
	rw.siteMap(names, guard, c, cmpMems, dict)
	return nil
}

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
	if rw.opts.Compares {
		rw.cmpInts = min(rw.cmpInts, maxCompares)
		rw.cmpMems = make([]memHook, len(m.Code))
		for i := range m.Code {
			if int(m.Funcs[i]) >= len(m.Types) {
				continue // reported by pass 2
			}
			if h, ok := memCompareHook(names[nimp+uint32(i)], &m.Types[m.Funcs[i]]); ok {
				rw.cmpMems[i] = h
				cmpMems++
			}
		}
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
	if rw.heapCheck {
		rw.addHeapFuncs(guard.global, guard.errAt)
	}
	if rw.opts.DirtyPages {
		rw.addMarkFunc()
	}
	if rw.opts.Compares {
		rw.addCompareFuncs()
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

func (rw *rewriter) site(in *Instr, kind SiteKind, arm uint32) uint32 {
	id := uint32(len(rw.sm.Sites))
	var off uint32
	if in.Off >= rw.m.CodeOffset {
		off = in.Off - rw.m.CodeOffset
	}
	rw.sm.Sites = append(rw.sm.Sites, Site{Func: rw.fn, Offset: off, Kind: kind, Arm: arm})
	return id
}

// opRaw is a pseudo-instruction in rw.out: copy src[A:B] verbatim.
const opRaw Op = 0xffff

// keep emits the original instruction body[rw.k] unchanged: as a span of
// the input bytes when the input is known, merged with the previous span.
func (rw *rewriter) keep(in *Instr) {
	if in.Off == 0 || rw.src == nil {
		rw.out = append(rw.out, *in)
		return
	}
	end := uint64(in.Off) + 1 // the final end is one byte
	if rw.k+1 < len(rw.body) {
		end = uint64(rw.body[rw.k+1].Off)
	}
	if n := len(rw.out); n > 0 && rw.out[n-1].Op == opRaw && rw.out[n-1].B == uint64(in.Off) {
		rw.out[n-1].B = end
		return
	}
	rw.out = append(rw.out, Instr{Op: opRaw, A: uint64(in.Off), B: end})
}

func (rw *rewriter) emit(op Op, a uint64) { rw.out = append(rw.out, Instr{Op: op, A: a}) }

func (rw *rewriter) emitMem(op Op, offset uint64, align uint64) {
	rw.out = append(rw.out, Instr{Op: op, A: offset, B: align})
}

func (rw *rewriter) i32(v int64) { rw.emit(OpI32Const, uint64(int64(int32(v)))) }

// local returns the index of scratch local (t, slot), adding it on first use.
func (rw *rewriter) local(t ValType, slot int) uint32 {
	k := localSlot{t, slot}
	for _, s := range rw.scratch {
		if s.k == k {
			return s.idx
		}
	}
	idx := rw.next
	rw.next++
	rw.scratch = append(rw.scratch, localSlotIdx{k, idx})
	if n := len(rw.added); n > 0 && rw.added[n-1].Type == t {
		rw.added[n-1].Count++
	} else {
		rw.added = append(rw.added, LocalDecl{Count: 1, Type: t})
	}
	return idx
}

// counter emits a hit of site id: nothing for a derived site (derive.go),
// in a leaf loop an add to its local (nest.go), otherwise a saturating
// 8-bit increment of its counter (doc.go, "The increment"): with
// w = v+1, w - (w>>8) is v+1 for v < 255 and 255 for 255.
func (rw *rewriter) counter(id uint32) {
	switch {
	case rw.plan.derived(id - rw.fnLo):
	case rw.nest != nil && rw.nest.inLocal(id):
		acc := rw.accLocal(int(id - rw.nest.first))
		rw.emit(OpLocalGet, acc)
		rw.emit(OpI64Const, 1)
		rw.emit(OpI64Add, 0)
		rw.emit(OpLocalSet, acc)
	default:
		b := uint64(rw.local(TI32, -1))
		t := uint64(rw.local(TI32, 7))
		rw.emit(OpLocalGet, b)
		rw.emit(OpLocalGet, b)
		rw.cpos = append(rw.cpos, len(rw.out))
		rw.emitMem(OpI32Load8U, uint64(id), 0)
		rw.i32(1)
		rw.emit(OpI32Add, 0)
		rw.emit(OpLocalTee, t)
		rw.emit(OpLocalGet, t)
		rw.i32(8)
		rw.emit(OpI32ShrU, 0)
		rw.emit(OpI32Sub, 0)
		rw.cpos = append(rw.cpos, len(rw.out))
		rw.emitMem(OpI32Store8, uint64(id), 0)
	}
}

// check emits a load of the function's highest counter address, dropped:
// the one bounds check that covers every counter access it dominates
// (doc.go, "The increment").
func (rw *rewriter) check() {
	rw.emit(OpLocalGet, uint64(rw.local(TI32, -1)))
	rw.cpos = append(rw.cpos, len(rw.out))
	rw.emitMem(OpI32Load8U, uint64(rw.fnLo), 0)
	rw.emit(OpDrop, 0)
}

// fuel emits the fuel decrement and check of a loop header or function
// entry; at is the first instruction of the loop body or function (an
// instruction of the input): on exhaustion the check leaves at's
// code-section offset in hangGlobal, so the host names the hanging
// loop's source line, then traps.
func (rw *rewriter) fuel(at *Instr) {
	var off uint32
	if at.Off >= rw.m.CodeOffset {
		off = at.Off - rw.m.CodeOffset
	}
	if rw.nest != nil {
		// In a leaf loop: decrement the local copy; on exhaustion store it
		// and flush the loop's counts (a hang keeps them), then trap.
		fl := rw.nest.fuel
		rw.emit(OpLocalGet, fl)
		rw.emit(OpI64Const, 1)
		rw.emit(OpI64Sub, 0)
		rw.emit(OpLocalTee, fl)
		rw.emit(OpI64Const, 0)
		rw.emit(OpI64LtS, 0)
		rw.out = append(rw.out, Instr{Op: OpIf, C: 0x40})
		rw.flush()
		rw.emit(OpI32Const, uint64(off))
		rw.emit(OpGlobalSet, uint64(rw.hangGlobal))
		rw.emit(OpUnreachable, 0)
		rw.emit(OpEnd, 0)
		return
	}
	t := rw.local(TI64, 0)
	rw.emit(OpGlobalGet, uint64(rw.fuelGlobal))
	rw.emit(OpI64Const, 1)
	rw.emit(OpI64Sub, 0)
	rw.emit(OpLocalTee, uint64(t))
	rw.emit(OpGlobalSet, uint64(rw.fuelGlobal))
	rw.emit(OpLocalGet, uint64(t))
	rw.emit(OpI64Const, 0)
	rw.emit(OpI64LtS, 0)
	rw.out = append(rw.out, Instr{Op: OpIf, C: 0x40})
	rw.emit(OpI32Const, uint64(off))
	rw.emit(OpGlobalSet, uint64(rw.hangGlobal))
	rw.emit(OpUnreachable, 0)
	rw.emit(OpEnd, 0)
}

func (rw *rewriter) blockTypes(c uint32, a uint64) (params, results []ValType) {
	switch {
	case c == 0x40:
		return nil, nil
	case c == 0:
		if a < uint64(len(rw.m.Types)) {
			t := &rw.m.Types[a]
			return t.Params, t.Results
		}
		return nil, nil
	case byte(c) == RefNull || byte(c) == Ref:
		return nil, []ValType{{Code: byte(c), Heap: int64(a)}}
	default:
		return nil, []ValType{{Code: byte(c)}}
	}
}

// labelTypes returns the types a branch to depth carries.
func (rw *rewriter) labelTypes(depth uint64) []ValType {
	if depth >= uint64(len(rw.ctl)) {
		return nil
	}
	f := &rw.ctl[len(rw.ctl)-1-int(depth)]
	if len(rw.ctl)-1-int(depth) == 0 {
		return rw.results
	}
	p, r := rw.blockTypes(f.c, f.a)
	if f.op == OpLoop {
		return p
	}
	return r
}

func defaultable(ts []ValType) bool {
	for _, t := range ts {
		if t.Code == Ref {
			return false
		}
	}
	return true
}

// typeIndex returns the index of a function type, adding it if needed.
func (rw *rewriter) typeIndex(params, results []ValType) uint32 {
	if rw.typeIdx == nil {
		rw.typeIdx = map[string]uint32{}
		for i := len(rw.m.Types) - 1; i >= 0; i-- {
			rw.typeIdx[typeKey(rw.m.Types[i].Params, rw.m.Types[i].Results)] = uint32(i)
		}
	}
	k := typeKey(params, results)
	if i, ok := rw.typeIdx[k]; ok {
		return i
	}
	i := uint32(len(rw.m.Types))
	rw.m.Types = append(rw.m.Types, FuncType{Params: append([]ValType(nil), params...), Results: append([]ValType(nil), results...)})
	rw.typeIdx[k] = i
	return i
}

func typeKey(p, r []ValType) string {
	var e encoder
	e.valTypes(p)
	e.valTypes(r)
	return string(e.buf)
}

// function rewrites defined function i.
func (rw *rewriter) function(i uint32, nimp uint32) error {
	m := rw.m
	c := &m.Code[i]
	rw.fn = nimp + i
	rw.def = i
	rw.count = !rw.skip[i]
	rw.out = rw.out[:0]
	rw.pool = c.Body.Pool
	rw.ctl = rw.ctl[:0]
	rw.added = rw.added[:0]
	rw.scratch = rw.scratch[:0]
	rw.cpos = rw.cpos[:0]
	lo := len(rw.sm.Sites)
	rw.fnLo = uint32(lo)
	rw.nest = nil
	rw.nests = nil
	rw.plan.sum = rw.plan.sum[:0]
	disp := rw.dispatch[i]
	rw.disp = disp
	rw.plan.dispatch = disp.table + 1
	if rw.count {
		rw.plan.plan(c.Body.Instrs, !rw.opts.allCounted)
		limit := maxNestSites
		if rw.opts.nestSites != 0 {
			limit = rw.opts.nestSites
		}
		rw.nests = leafNests(&c.Body, limit, &rw.plan)
	}
	if int(m.Funcs[i]) >= len(m.Types) {
		return fmt.Errorf("instrument: function %d: type index %d out of range", rw.fn, m.Funcs[i])
	}
	ft := &m.Types[m.Funcs[i]]
	rw.results = ft.Results
	nlocals := uint64(len(ft.Params))
	for _, l := range c.Locals {
		nlocals += uint64(l.Count)
	}
	if nlocals > maxLocals {
		return fmt.Errorf("instrument: function %d: %d locals, parameters included: %w: wafer instruments functions of at most %d (the limit of V8, which compilers targeting the web keep to)", rw.fn, nlocals, ErrUnsupported, maxLocals)
	}
	rw.next = uint32(nlocals)
	body := c.Body.Instrs
	if len(body) == 0 {
		return fmt.Errorf("instrument: function %d: empty body", rw.fn)
	}
	rw.hasGoFr = false
	if rw.opts.DirtyPages {
		rw.elide = rw.marks.elidedMarks(body, rw.next)
		if disp.table >= 0 && !rw.opts.MarkGoFrameStores {
			rw.goFrame, rw.hasGoFr = rw.frames.goFrameMarks(body, c.Body.Pool, disp, uint32(len(ft.Params)), uint32(nimp), rw.elide)
		}
	}
	if rw.heapCheck && rw.hasStack {
		rw.frame = frameLocals(body, uint32(len(ft.Params)), rw.next, rw.stack.global, rw.frame)
	}
	first := &body[0]
	rw.ctl = append(rw.ctl, frame{op: OpBlock})
	rw.trap = noTrap
	if rw.heapCheck && !rw.unchecked[i] {
		rw.openTrap(ft.Results)
	}
	// entry
	if rw.count {
		rw.emit(OpGlobalGet, uint64(rw.baseGlobal))
		rw.emit(OpLocalSet, uint64(rw.local(TI32, -1)))
	}
	if rw.cmpMems != nil && rw.cmpMems[i].kind != 0 {
		rw.memCompare(rw.cmpMems[i])
	}
	if rw.opts.Fuel && mayRunLong(body) && (!loopsFirst(body) || disp.loop >= 0) {
		rw.fuel(&body[0])
	}
	if rw.count {
		if rw.plan.derived(0) {
			// no entry counter: the first access still checks the bounds
			// of the function's highest counter address (doc.go)
			rw.check()
		}
		entry := rw.site(first, FuncEntry, 0)
		rw.counter(entry)
		if first.Off >= m.CodeOffset {
			rw.regions.start(first.Off-m.CodeOffset, entry)
		}
	}
	rw.body = body
	for k := range body {
		rw.k = k
		in := body[k]
		if err := rw.instr(&in, k, body); err != nil {
			return fmt.Errorf("instrument: function %d: %w", rw.fn, err)
		}
		if k == 1 && rw.hasGoFr {
			rw.frameMark(rw.goFrame) // after `global.get SP; local.set L`
		}
		rw.trackRegion(k)
	}
	if len(rw.ctl) != 0 {
		return fmt.Errorf("instrument: function %d: unbalanced blocks", rw.fn)
	}
	if rw.count && len(rw.sm.Sites)-lo != len(rw.plan.sum) {
		// derive.go's plan and the rewriter disagree on the sites
		return fmt.Errorf("instrument: function %d: %d sites placed, %d planned (a bug of wafer's)", rw.fn, len(rw.sm.Sites)-lo, len(rw.plan.sum))
	}
	if first.Off >= m.CodeOffset {
		rw.funcOff[i] = first.Off - m.CodeOffset
	}
	// ids run backwards within the function (doc.go)
	hi := uint64(len(rw.sm.Sites) - 1)
	for _, p := range rw.cpos {
		rw.out[p].A = uint64(lo) + hi - rw.out[p].A
	}
	// derived sites name their sources by reversed ids too: the range
	// from..from+sum-1 reverses to start at the last one's new id
	for s, n := range rw.plan.sum {
		if n > 0 {
			last := uint64(lo) + uint64(rw.plan.from[s]) + uint64(n) - 1
			rw.sm.Sites[lo+s].From = uint32(uint64(lo) + hi - last)
			rw.sm.Sites[lo+s].Sum = n
		}
	}
	slices.Reverse(rw.sm.Sites[lo:])
	rw.sm.Regions = rw.regions.finish(rw.sm.Regions, uint32(lo), uint32(hi))
	// Encode the new body right away into the shared output arena: the
	// rewritten instructions never need their own allocation.
	c.Locals = append(c.Locals, rw.added...)
	e := encoder{buf: rw.bodies, src: rw.src}
	start := len(e.buf)
	e.len(len(c.Locals))
	for _, l := range c.Locals {
		e.u32(l.Count)
		e.valType(l.Type)
	}
	x := Expr{Instrs: rw.out, Pool: rw.pool}
	e.expr(&x)
	rw.bodies = e.buf
	c.raw = e.buf[start:len(e.buf):len(e.buf)]
	c.Body = Expr{}
	return nil
}

// loopsFirst reports whether straight-line code from the start of body
// reaches a loop header, whose fuel check then runs on every call: the
// entry needs none of its own (Go's code generator starts every function
// that way, with the loop of its jump table).
func loopsFirst(body []Instr) bool {
	i := controlAhead(body, 0)
	return i >= 0 && body[i].Op == OpLoop
}

// mayRunLong reports whether a function body can run for unbounded time by
// itself: whether it loops or calls. One without either runs a bounded
// number of instructions per call, and its callers pay fuel for the calls
// (at their own entry or loop headers), so it needs no fuel at entry.
func mayRunLong(body []Instr) bool {
	for i := range body {
		switch body[i].Op {
		case OpLoop, OpCall, OpCallIndirect, OpCallRef, OpReturnCall, OpReturnCallIndirect, OpReturnCallRef:
			return true
		}
	}
	return false
}

func (rw *rewriter) instr(in *Instr, k int, body []Instr) error {
	if rw.cmpInts > 0 && rw.count && loggedCompare(in.Op) && !rw.ctl[len(rw.ctl)-1].dead {
		off, _ := offsetOperand(body, k)
		rw.compare(in, off)
		return nil
	}
	info := opinfo(in.Op)
	switch in.Op {
	case OpBlock, OpTry, OpTryTable:
		rw.ctl = append(rw.ctl, frame{op: in.Op, c: in.C, a: in.A})
		rw.keep(in)
		return nil
	case OpLoop:
		rw.ctl = append(rw.ctl, frame{op: in.Op, c: in.C, a: in.A})
		if acc, ok := rw.nests[k]; ok && rw.nest == nil {
			rw.nest = &nest{frame: len(rw.ctl) - 1, first: uint32(len(rw.sm.Sites)), acc: acc}
			if rw.opts.Fuel {
				// the loop burns fuel in a local (nest.go)
				rw.nest.fuel = uint64(rw.local(TI64, 4))
				rw.emit(OpGlobalGet, uint64(rw.fuelGlobal))
				rw.emit(OpLocalSet, rw.nest.fuel)
			}
		}
		rw.keep(in)
		if rw.opts.Fuel && k != rw.disp.loop {
			// the loop's first instruction has the loop body's source
			// line; the loop instruction itself has none of its own
			// (Go's dispatch loop pays at its backward jumps instead)
			rw.fuel(&rw.body[min(rw.k+1, len(rw.body)-1)])
		}
		if rw.count && rw.nest == nil {
			// The base in a loop is a new SSA value (a phi): check it once
			// against the function's highest counter address, so no counter
			// in the loop needs a bounds check of its own.
			rw.check()
		}
		return nil
	case OpIf:
		rw.ctl = append(rw.ctl, frame{op: in.Op, c: in.C, a: in.A})
		rw.keep(in)
		if rw.count {
			rw.counter(rw.site(in, IfThen, 0))
			// reserve the else id now so ids follow instruction order
			rw.ctl[len(rw.ctl)-1].elseSite = rw.site(in, IfElse, 0)
		}
		return nil
	case OpElse:
		rw.keep(in)
		if n := len(rw.ctl); n > 0 && rw.ctl[n-1].op == OpIf {
			f := &rw.ctl[n-1]
			f.dead = false
			f.hasElse = true
			if rw.count {
				rw.counter(f.elseSite)
			}
		}
		return nil
	case OpEnd, OpDelegate:
		n := len(rw.ctl)
		if n == 0 {
			return fmt.Errorf("end without block")
		}
		f := rw.ctl[n-1]
		if f.op == OpIf && !f.hasElse && rw.count {
			rw.emit(OpElse, 0)
			rw.counter(f.elseSite)
		}
		rw.ctl = rw.ctl[:n-1]
		if n == 1 && rw.trap != noTrap {
			rw.closeTrap()
		}
		rw.keep(in)
		if rw.nest != nil && n-1 == rw.nest.frame {
			rw.flush()
			rw.nest = nil
		}
		if n > 1 && f.op != OpLoop && rw.count {
			// After a join, wazero's SSA builder answers the first lookup
			// of $base with the value the predecessors agree on (whose
			// bounds check they share) and later ones with a fresh alias
			// that is unchecked; redefining $base pins the checked one.
			rw.pin()
		}
		return nil
	case OpBrIf:
		if !rw.count {
			break
		}
		if rw.ctl[len(rw.ctl)-1].dead {
			rw.site(in, BrIfTaken, 0)
			rw.site(in, BrIfNotTaken, 0)
			break
		}
		rw.brIf(in)
		return nil
	case OpBrTable:
		if k == rw.disp.table {
			rw.keep(in) // Go's dispatch: no sites (godispatch.go)
			rw.ctl[len(rw.ctl)-1].dead = true
			return nil
		}
		if rw.cmpInts > 0 && rw.count && !rw.ctl[len(rw.ctl)-1].dead {
			e := Expr{Instrs: body, Pool: rw.pool}
			if base, cases := switchCases(&e, k, CompareSlots); cases != nil {
				rw.switchCompare(cases, uint32(base))
			}
		}
		if rw.count {
			rw.brTable(in, rw.ctl[len(rw.ctl)-1].dead)
		} else {
			rw.keep(in)
		}
		rw.ctl[len(rw.ctl)-1].dead = true
		return nil
	case OpCallIndirect:
		if rw.callSites > 0 && rw.count && !rw.ctl[len(rw.ctl)-1].dead {
			rw.callPair()
		}
		rw.keep(in)
		return nil
	case OpUnreachable, OpBr, OpReturn, OpReturnCall, OpReturnCallIndirect, OpReturnCallRef, OpThrow, OpThrowRef, OpRethrow:
		if in.Op == OpReturnCallIndirect && rw.callSites > 0 && rw.count && !rw.ctl[len(rw.ctl)-1].dead {
			rw.callPair()
		}
		if to, ok := rw.disp.back[k]; ok && in.Op == OpBr && rw.opts.Fuel && !rw.ctl[len(rw.ctl)-1].dead {
			rw.fuel(&body[to]) // a backward jump of Go's dispatch (godispatch.go)
		}
		if (in.Op == OpBr && rw.exits(in.A)) || (in.Op == OpReturn && rw.nest != nil) {
			rw.flush()
		}
		rw.keep(in)
		rw.ctl[len(rw.ctl)-1].dead = true
		return nil
	case OpGlobalSet:
		rw.keep(in)
		if (rw.depth || rw.stackCheck) && uint32(in.A) == rw.stack.global && !rw.ctl[len(rw.ctl)-1].dead {
			rw.stackSet(body, k)
		}
		return nil
	case OpMemorySize:
		rw.keep(in)
		rw.i32(int64(rw.rp))
		rw.emit(OpI32Sub, 0)
		return nil
	case OpMemoryGrow:
		rw.memoryGrow(in)
		return nil
	case OpMemoryFill, OpMemoryCopy, OpMemoryInit:
		rw.bulk(in)
		return nil
	case OpCatch, OpCatchAll:
		// frames of legacy try stay open until end/delegate
		if n := len(rw.ctl); n > 0 {
			rw.ctl[n-1].dead = false
		}
	}
	if info.isMemarg() {
		if in.B&0x40 != 0 && in.C != 0 {
			return fmt.Errorf("memory index %d: %w", in.C, ErrUnsupported)
		}
		orig := in.A
		in.Off = 0 // modified: re-encode
		in.A += rw.rb
		if in.A > 0xffffffff {
			in.A = 0xffffffff // the original access was out of bounds for every address
		}
		mark := rw.opts.DirtyPages && (info.mem == memStore || info.mem == memRMW || info.mem == memCmpxchg) && !rw.elide[k]
		var check bool
		var size uint64
		var write bool
		if rw.heapCheck && !rw.unchecked[rw.def] && !rw.ctl[len(rw.ctl)-1].dead {
			size, write, check = checkedAccess(in.Op)
			check = check && !uncheckedAccess(body, k, rw.stack.global, rw.hasStack, rw.frame)
		}
		if mark || check {
			rw.guardAccess(in, info, orig, mark, check, size, write)
			return nil
		}
	}
	rw.keep(in)
	return nil
}

// brIf: arity 0: `if; count taken; br L+1; else; count not taken; end`.
// With label values: keep the br_if and count on a copy of the condition.
func (rw *rewriter) brIf(in *Instr) {
	taken := rw.site(in, BrIfTaken, 0)
	notTaken := rw.site(in, BrIfNotTaken, 0)
	if len(rw.labelTypes(in.A)) == 0 {
		rw.out = append(rw.out, Instr{Op: OpIf, C: 0x40})
		rw.armCounter(taken, in.A)
		rw.emit(OpBr, in.A+1)
		rw.emit(OpElse, 0)
		rw.counter(notTaken)
		rw.emit(OpEnd, 0)
		return
	}
	c := rw.local(TI32, 1)
	rw.emit(OpLocalTee, uint64(c))
	rw.out = append(rw.out, Instr{Op: OpIf, C: 0x40})
	rw.armCounter(taken, in.A)
	rw.emit(OpElse, 0)
	rw.counter(notTaken)
	rw.emit(OpEnd, 0)
	rw.pin()
	rw.emit(OpLocalGet, uint64(c))
	rw.keep(in)
}

// brTable turns `br_table l0..ln-1 ld` into n+1 nested blocks, one per arm,
// each arm counting then branching to its original label.
func (rw *rewriter) brTable(in *Instr, dead bool) {
	labels := append([]uint64(nil), rw.pool[in.A:in.A+in.B]...)
	n := len(labels) - 1 // arms 0..n, n = default
	ids := make([]uint32, len(labels))
	for i := range labels {
		ids[i] = rw.site(in, BrTableArm, uint32(i))
	}
	types := rw.labelTypes(labels[n])
	if !dead {
		// With typed references, labels may have different (super)types;
		// then the values cannot be stashed in locals of one type.
		for _, l := range labels[:n] {
			if !slices.Equal(rw.labelTypes(l), types) {
				dead = true
				break
			}
		}
	}
	if dead {
		// unreachable (or untypable here): keep the instruction, the arm
		// sites are never hit
		if rw.nest != nil {
			rw.flush() // an untypable br_table may leave the nest uncounted
		}
		rw.keep(in)
		return
	}
	var stash []uint32
	bt := Instr{Op: OpBlock, C: 0x40}
	if len(types) > 0 && !defaultable(types) {
		// non-defaultable values ride through block parameters (multi-value)
		ps := append(append([]ValType(nil), types...), TI32)
		bt = Instr{Op: OpBlock, C: 0, A: uint64(rw.typeIndex(ps, types))}
	} else {
		sel := rw.local(TI32, 1)
		rw.emit(OpLocalSet, uint64(sel))
		stash = make([]uint32, len(types))
		for i := len(types) - 1; i >= 0; i-- {
			stash[i] = rw.local(types[i], 100+i)
			rw.emit(OpLocalSet, uint64(stash[i]))
		}
	}
	for i := 0; i <= n; i++ {
		rw.out = append(rw.out, bt)
	}
	if bt.C == 0x40 {
		rw.emit(OpLocalGet, uint64(rw.local(TI32, 1)))
	}
	start := uint64(len(rw.pool))
	for i := 0; i <= n; i++ {
		rw.pool = append(rw.pool, uint64(i))
	}
	rw.out = append(rw.out, Instr{Op: OpBrTable, A: start, B: uint64(n + 1)})
	for i := 0; i <= n; i++ {
		rw.emit(OpEnd, 0)
		rw.armCounter(ids[i], labels[i])
		for _, s := range stash {
			rw.emit(OpLocalGet, uint64(s))
		}
		rw.emit(OpBr, labels[i]+uint64(n-i))
	}
}

// pin redefines $base from itself after a join (doc.go, "The increment").
func (rw *rewriter) pin() {
	b := uint64(rw.local(TI32, -1))
	rw.emit(OpLocalGet, b)
	rw.emit(OpLocalSet, b)
}

// sat emits local x + rb, saturated at 0xffffffff so it never wraps.
func (rw *rewriter) sat(x uint32) {
	rw.emit(OpLocalGet, uint64(x))
	rw.i32(int64(uint32(rw.rb)))
	rw.emit(OpI32Add, 0)
	rw.i32(-1)
	rw.emit(OpLocalGet, uint64(x))
	rw.i32(int64(uint32(0xffffffff - rw.rb)))
	rw.emit(OpI32LeU, 0)
	rw.emit(OpSelect, 0)
}

// bulk shifts the target address operands of memory.fill/copy/init.
func (rw *rewriter) bulk(in *Instr) {
	d, s, n := rw.local(TI32, 2), rw.local(TI32, 3), rw.local(TI32, 4)
	rw.emit(OpLocalSet, uint64(n))
	rw.emit(OpLocalSet, uint64(s))
	rw.emit(OpLocalSet, uint64(d))
	if rw.heapCheck && !rw.unchecked[rw.def] && !rw.ctl[len(rw.ctl)-1].dead {
		if in.Op == OpMemoryCopy {
			rw.checkSpan(s, n, false)
		}
		rw.checkSpan(d, n, true)
	}
	if rw.opts.DirtyPages {
		rw.emit(OpLocalGet, uint64(d))
		rw.emit(OpLocalGet, uint64(n))
		rw.emit(OpCall, uint64(rw.markFunc))
	}
	rw.sat(d)
	switch in.Op {
	case OpMemoryCopy:
		rw.sat(s)
	default: // fill value, init source offset
		rw.emit(OpLocalGet, uint64(s))
	}
	rw.emit(OpLocalGet, uint64(n))
	rw.keep(in)
}

// memoryGrow answers in target pages: old-rp, or -1 on failure.
func (rw *rewriter) memoryGrow(in *Instr) {
	t := rw.local(TI32, 2)
	var delta uint32
	if rw.opts.DirtyPages {
		delta = rw.local(TI32, 3)
		rw.emit(OpLocalTee, uint64(delta))
	}
	rw.keep(in)
	rw.emit(OpLocalTee, uint64(t))
	rw.i32(int64(rw.rp))
	rw.emit(OpI32Sub, 0)
	rw.emit(OpLocalGet, uint64(t))
	rw.emit(OpLocalGet, uint64(t))
	rw.i32(-1)
	rw.emit(OpI32Ne, 0)
	rw.emit(OpSelect, 0)
	if rw.opts.DirtyPages {
		// mark the blocks of the new pages: [old<<16, delta<<16)
		rw.emit(OpLocalSet, uint64(t))
		rw.emit(OpLocalGet, uint64(t))
		rw.i32(-1)
		rw.emit(OpI32Ne, 0)
		rw.out = append(rw.out, Instr{Op: OpIf, C: 0x40})
		rw.emit(OpLocalGet, uint64(t))
		rw.i32(16)
		rw.emit(OpI32Shl, 0)
		rw.emit(OpLocalGet, uint64(delta))
		rw.i32(16)
		rw.emit(OpI32Shl, 0)
		rw.emit(OpCall, uint64(rw.markFunc))
		rw.emit(OpEnd, 0)
		rw.emit(OpLocalGet, uint64(t))
	}
}

// guardAccess performs a memory access with what it needs first: with
// mark (a store, Options.DirtyPages), the mark of the block of its first
// byte; with check, the heap check of its size bytes (heapcheck.go). orig
// is the access's original (target) offset. A store that straddles into
// the next block writes at most DirtySpill-1 bytes there, which the host
// restores with the marked block (Layout).
func (rw *rewriter) guardAccess(in *Instr, info opInfo, orig uint64, mark, check bool, size uint64, write bool) {
	var vals []uint32
	vt := ValType{Code: info.val}
	switch {
	case info.mem == memLoad:
	case info.mem == memCmpxchg:
		vals = []uint32{rw.local(vt, 5), rw.local(vt, 6)}
	default:
		vals = []uint32{rw.local(vt, 5)}
	}
	for i := len(vals) - 1; i >= 0; i-- {
		rw.emit(OpLocalSet, uint64(vals[i]))
	}
	a := rw.local(TI32, 2)
	rw.emit(OpLocalSet, uint64(a))
	if check {
		rw.checkAccess(a, orig, size, write, rw.wordwise[rw.def])
	}
	if mark {
		rw.emit(OpLocalGet, uint64(a))
		rw.markAt(orig)
	}
	rw.emit(OpLocalGet, uint64(a))
	for _, v := range vals {
		rw.emit(OpLocalGet, uint64(v))
	}
	rw.keep(in)
}

// markAt: [addr] -> []; dirty[(addr+off)>>dirtyShift] = 1 (32-bit wrap:
// the access traps anyway when addr+off does not fit).
func (rw *rewriter) markAt(off uint64) {
	if off != 0 {
		rw.i32(int64(uint32(off)))
		rw.emit(OpI32Add, 0)
	}
	rw.i32(dirtyShift)
	rw.emit(OpI32ShrU, 0)
	rw.i32(1)
	rw.emitMem(OpI32Store8, uint64(rw.dirtyOff), 0)
}

// addMarkFunc appends $mark(addr, len i32): sets the dirty byte of every
// block in [addr, addr+len), len 0 marks nothing; the last block is
// computed in 64 bits and capped at the map's last byte.
func (rw *rewriter) addMarkFunc() {
	m := rw.m
	ti := rw.typeIndex([]ValType{TI32, TI32}, nil)
	const a, n, p, e, v = 0, 1, 2, 3, 4
	b := []Instr{
		{Op: OpLocalGet, A: n}, {Op: OpI32Eqz}, {Op: OpIf, C: 0x40}, {Op: OpReturn}, {Op: OpEnd},
		{Op: OpLocalGet, A: a}, {Op: OpI64ExtendI32U}, {Op: OpLocalGet, A: n}, {Op: OpI64ExtendI32U}, {Op: OpI64Add},
		{Op: OpI64Const, A: 1}, {Op: OpI64Sub}, {Op: OpI64Const, A: dirtyShift}, {Op: OpI64ShrU}, {Op: OpLocalTee, A: v},
		{Op: OpI64Const, A: dirtyMapBytes - 1}, {Op: OpLocalGet, A: v}, {Op: OpI64Const, A: dirtyMapBytes - 1}, {Op: OpI64LtU}, {Op: OpSelect},
		{Op: OpI32WrapI64}, {Op: OpLocalSet, A: e},
		{Op: OpLocalGet, A: a}, {Op: OpI32Const, A: dirtyShift}, {Op: OpI32ShrU}, {Op: OpLocalSet, A: p},
		{Op: OpLoop, C: 0x40},
		{Op: OpLocalGet, A: p}, {Op: OpI32Const, A: 1}, {Op: OpI32Store8, A: uint64(rw.dirtyOff)},
		{Op: OpLocalGet, A: p}, {Op: OpI32Const, A: 1}, {Op: OpI32Add}, {Op: OpLocalTee, A: p},
		{Op: OpLocalGet, A: e}, {Op: OpI32LeU}, {Op: OpBrIf, A: 0},
		{Op: OpEnd},
		{Op: OpEnd},
	}
	m.Funcs = append(m.Funcs, ti)
	m.Code = append(m.Code, Code{
		Locals: []LocalDecl{{Count: 2, Type: TI32}, {Count: 1, Type: TI64}},
		Body:   Expr{Instrs: b},
	})
}
