package instrument

import (
	"bytes"
	"fmt"
	"slices"
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
	// ValueProfile records, for every comparison the log of Compares
	// would take (and the same memcmp/strcmp and soft-float calls), how
	// close its operands came, as features in a region of ValueSites
	// counters of kind ValueProfile after every other site
	// (valueprofile.go). Every build of one campaign must agree on it:
	// it numbers sites.
	ValueProfile bool
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
// reserved low pages of its memory (see Layout). The output
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

// rewriter is one Instrument call's state: the module-wide layout (reserved
// pages, added globals and functions) and, below "per function", the
// function being rewritten.
type rewriter struct {
	m    *Module
	opts Options
	sm   *SiteMap
	src  []byte // the input binary, or nil

	regions regionTracker // SiteMap.Regions of the function being rewritten
	// goLines and goFiles are a Go module's line table from its own
	// (golines.go), read before the code is rewritten.
	goLines   []LineEntry
	goFiles   []string
	goModules []string // SiteMap.GoModules

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
	has128         bool         // a binary128 comparison hook: $cmp128 follows $cmpmem
	vpSites        int          // counters of the value profile (Options.ValueProfile)
	vpFirst        uint32       // id of the first of them
	vpFunc         uint32       // $vp; $vpmem follows (valueprofile.go)
	nvp            int          // value profile ordinals given so far
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
	if c.goModule {
		rw.goLines, rw.goFiles, _ = goLineTable(m, names)
		rw.goModules = goModulePaths(m)
	}
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
