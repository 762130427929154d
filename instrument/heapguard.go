package instrument

import "slices"

// The heap guard (Options.HeapGuard): in Wasm a write past the end of a
// heap block lands in the next one, or in the allocator's bookkeeping,
// without a trap, so a C or C++ target's most common memory bug goes
// unseen. With the guard, a module whose name section names a libc
// allocator (malloc and free, both defined, and any of calloc, realloc,
// aligned_alloc, posix_memalign and malloc_usable_size it defines) has
// each of those functions' bodies moved to a new function and replaced by
// a wrapper that gives every block a 16-byte header (requested size, the
// allocator's pointer, a magic word) and 16 bytes of redzone after it:
//
//	[size u32][base u32][magic u64] user bytes ... [redzone: 16 × 0xbe]
//	                                ^ the pointer the target gets
//
// free and realloc check the redzone and trap when a byte of it changed
// (a heap-buffer-overflow write, found when its block is freed), and
// free marks the header freed, so a second free of the block (before it
// is handed out again) traps as a double free. Before trapping, the
// wrapper stores the kind of error and the block's size in an exported
// i64 global (Layout.HeapExport; kind<<32 | size), which the host reads to
// classify the trap. What it does not find: reads past a block, writes
// that skip the redzone or land in it with the byte 0xbe, overflows of a
// block never freed, uses after free.
//
// Wrapping the bodies in place keeps every function index, export and
// table entry: every caller, the host's calls to malloc included, goes
// through the wrapper. A pointer the wrapper did not make (a block from
// an allocator entry it does not wrap) has no magic and is passed to the
// original function unchanged. The wrappers are ordinary functions to the
// rest of Instrument: their memory accesses are moved and marked dirty
// like the target's. The module needs bulk memory (memory.copy) only for
// realloc of a block aligned past 16 bytes.
//
// A module that is not C's is left alone: one without both malloc and free
// (Go's harness exports a malloc and no free), and any module Go built
// (goModule), even when it defines and exports a malloc and a free of
// libc's types (a reactor with hand-written libFuzzer exports): Go's
// collector takes a block back without calling free, and reuses its
// redzone for its own objects. Options.Malloc names a C allocator whose
// malloc has another name (wafer --malloc).

// Heap error kinds (Layout.HeapExport's high word).
const (
	HeapOverflow        = 1 // a free found the redzone after the block changed
	HeapDoubleFree      = 2 // a free of a block already freed
	HeapOverflowRealloc = 3 // a realloc found the redzone changed
	HeapReallocFreed    = 4 // a realloc of a block already freed
	// HeapMallocLimit: one request for more bytes than the limit the host
	// set (Layout.MallocLimitExport), at the allocating call; the low word
	// holds the request, 0xffffffff for 4 GiB or more.
	HeapMallocLimit = 11
)

const (
	heapHeader  = 16
	heapRedzone = 16
	heapMagic   = 0x61656872_65666177 // "waferhea", little-endian
	heapFreed   = 0x65657266_72656677 // "wferfree"
	heapPattern = 0xbebebebe_bebebebe
	// heapMaxSize: larger requests go to the allocator unchanged (it
	// fails them), since the header and redzone would overflow 32 bits.
	heapMaxSize = 1<<32 - 1 - heapHeader - heapRedzone
)

// heapFuncs are the entry points the guard wraps, with their types.
var heapFuncs = []struct {
	name            string
	params, results []ValType
}{
	{"malloc", []ValType{TI32}, []ValType{TI32}},
	{"free", []ValType{TI32}, nil},
	{"calloc", []ValType{TI32, TI32}, []ValType{TI32}},
	{"realloc", []ValType{TI32, TI32}, []ValType{TI32}},
	{"aligned_alloc", []ValType{TI32, TI32}, []ValType{TI32}},
	{"posix_memalign", []ValType{TI32, TI32, TI32}, []ValType{TI32}},
	{"malloc_usable_size", []ValType{TI32}, []ValType{TI32}},
}

// heapGuard is what guardHeap did to a module.
type heapGuard struct {
	global uint32 // the error global's index
	// limit is the i32 global the host sets to the largest single request
	// (0: none); a larger one traps as HeapMallocLimit.
	limit uint32
	// moved maps each new function index to the index whose body it
	// holds (for its name).
	moved map[uint32]uint32
	// helpers names the helper functions it added by index.
	helpers map[uint32]string
	// wrappers are the indices of the functions it replaced by wrappers.
	wrappers []uint32
	// inAlloc (Options.HeapCheck) is the global counting the wrappers'
	// calls into the allocator under way, errAt the one the check's error
	// names its access in (heapcheck.go); ring, head, count and bytes are
	// the quarantine's (heapGuard.quarantine).
	inAlloc, errAt           uint32
	ring, head, count, bytes uint32
}

// The quarantine (Options.HeapCheck): free keeps up to quarantineSlots
// blocks, of at most quarantineBytes together (header and redzone
// included), from the allocator, oldest out first, so a use after free
// still finds the block freed (its shadow says so) when the program has
// allocated again since, as AddressSanitizer's quarantine does. It is
// small: the memory it keeps from reuse must not grow the heap of a run
// past what the snapshot has (runtime's heap reserve is 1 MiB), which
// costs restore mode a new instance per run. The ring of (base, size)
// pairs is a block of the allocator's, made on the first free.
const (
	quarantineSlots = 1024
	quarantineBytes = 256 << 10
)

// quarantine returns free's last step with the quarantine: block p (local
// 0) joins the ring, and the oldest blocks leave it for origFree while
// the ring holds too much; a block larger than the whole quarantine is
// freed at once. Locals 1 and 2 are scratch.
func (g *heapGuard) quarantine(rw *rewriter, origMalloc, origFree uint32) []Instr {
	const size, slot = 1, 2
	get, set, gget, gset, i32, op, call := localGet, localSet, globalGet, globalSet, i32Const, bare, callTo
	load := func(off uint64) Instr { return memAt(OpI32Load, off) }
	store := func(off uint64) Instr { return memAt(OpI32Store, off) }
	base := []Instr{get(0), i32(heapHeader), op(OpI32Sub), load(4)} // the allocator's pointer
	var b []Instr
	add := func(in ...Instr) { b = append(b, in...) }
	// size: the bytes the block keeps from reuse
	add(get(0), i32(heapHeader), op(OpI32Sub), load(0), i32(heapHeader+heapRedzone), op(OpI32Add), set(size))
	add(get(size), i32(quarantineBytes), op(OpI32GtU))
	add(ifThen(append(base, call(origFree), op(OpReturn))...)...)
	add(gget(g.ring), op(OpI32Eqz))
	add(ifThen(i32(quarantineSlots*8), call(origMalloc), gset(g.ring))...)
	add(gget(g.ring), op(OpI32Eqz))
	add(ifThen(append(base, call(origFree), op(OpReturn))...)...)
	// push (base, size) at slot (head+count) mod slots
	add(gget(g.ring), gget(g.head), gget(g.count), op(OpI32Add), i32(quarantineSlots-1), op(OpI32And), i32(3), op(OpI32Shl), op(OpI32Add), set(slot))
	add(get(slot))
	add(base...)
	add(store(0), get(slot), get(size), store(4))
	add(gget(g.count), i32(1), op(OpI32Add), gset(g.count))
	add(gget(g.bytes), get(size), op(OpI32Add), gset(g.bytes))
	// evict the oldest while over either bound
	add(Instr{Op: OpLoop, C: 0x40})
	add(gget(g.bytes), i32(quarantineBytes), op(OpI32GtU), gget(g.count), i32(quarantineSlots), op(OpI32GeU), op(OpI32Or))
	add(ifThen(
		gget(g.ring), gget(g.head), i32(3), op(OpI32Shl), op(OpI32Add), set(slot),
		gget(g.head), i32(1), op(OpI32Add), i32(quarantineSlots-1), op(OpI32And), gset(g.head),
		gget(g.count), i32(1), op(OpI32Sub), gset(g.count),
		gget(g.bytes), get(slot), load(4), op(OpI32Sub), gset(g.bytes),
		get(slot), load(0), call(origFree),
		Instr{Op: OpBr, A: 1},
	)...)
	add(op(OpEnd))
	return b
}

// Calls to the heap check's helpers in the guard's code name these
// placeholder indices until Instrument knows theirs (heapGuard.patch).
const (
	callShadowArm  = 0xffffff00
	callShadowFree = 0xffffff01
)

// patch gives the guard's calls to the heap check's helpers their real
// indices and, in the wrappers, makes every call into the allocator
// count in g.inAlloc while it runs.
func (g *heapGuard) patch(m *Module, nimp uint32, hf heapHelpers) {
	moved := map[uint64]bool{}
	for n := range g.moved {
		moved[uint64(n)] = true
	}
	fix := func(idx uint32, counted bool) {
		c := &m.Code[idx-nimp]
		var out []Instr
		for _, in := range c.Body.Instrs {
			if in.Op != OpCall {
				out = append(out, in)
				continue
			}
			switch in.A {
			case callShadowArm:
				in.A = uint64(hf.arm)
			case callShadowFree:
				in.A = uint64(hf.free)
			}
			if !counted || !moved[in.A] {
				out = append(out, in)
				continue
			}
			step := func(o Op) []Instr {
				return []Instr{{Op: OpGlobalGet, A: uint64(g.inAlloc)}, {Op: OpI32Const, A: 1}, {Op: o}, {Op: OpGlobalSet, A: uint64(g.inAlloc)}}
			}
			out = append(out, step(OpI32Add)...)
			out = append(out, in)
			out = append(out, step(OpI32Sub)...)
		}
		c.Body.Instrs = out
	}
	for _, w := range g.wrappers {
		fix(w, true)
	}
	for h := range g.helpers {
		fix(h, false)
	}
}

// guardHeap wraps m's allocator (see above), or does nothing and returns
// nil when m has no malloc and free of libc's types. names are the
// function names by index (funcNames).
func (rw *rewriter) guardHeap(names []string) *heapGuard {
	found := allocatorEntries(rw.m, names, rw.opts.Malloc)
	if found == nil {
		return nil
	}
	return rw.wrapAllocator(found)
}

// allocatorEntries finds the allocator the guard may wrap: the defined
// function of each heapFuncs name, when unique and of libc's type, with
// malloc named mallocName when that is set (Options.Malloc). It returns
// nil when there is no malloc and free pair, or when the module is Go's
// (goModule): Go's memory belongs to its collector, whatever functions a
// reactor exports by those names, and a redzone the wrapper put after a
// block it handed out is Go heap memory once the collector took the
// block back.
func allocatorEntries(m *Module, names []string, mallocName string) map[string]uint32 {
	if goModule(m, names) {
		return nil
	}
	nimp := m.NumImported(ExternFunc)
	found := map[string]uint32{}
	seen := map[string]int{}
	for i := range m.Code {
		idx := nimp + uint32(i)
		name := names[idx]
		if mallocName != "" && mallocName != "malloc" {
			switch name {
			case mallocName:
				name = "malloc"
			case "malloc":
				continue // not the allocator the user named
			}
		}
		for _, hf := range heapFuncs {
			if hf.name != name || int(m.Funcs[i]) >= len(m.Types) {
				continue
			}
			seen[name]++
			ft := &m.Types[m.Funcs[i]]
			if slices.Equal(ft.Params, hf.params) && slices.Equal(ft.Results, hf.results) {
				found[name] = idx
			}
		}
	}
	for name, n := range seen {
		if n > 1 {
			delete(found, name) // ambiguous: not knowing which is libc's, wrap none
			if name == "malloc" || name == "free" {
				return nil
			}
		}
	}
	if _, ok := found["malloc"]; !ok {
		return nil
	}
	if _, ok := found["free"]; !ok {
		return nil
	}
	return found
}

// goModule reports whether m was built by Go's toolchain: its "go:buildid"
// custom section, or, for a module stripped of it, the Go runtime's
// allocator in its name section.
func goModule(m *Module, names []string) bool {
	for _, c := range m.Customs {
		if c.Name == "go:buildid" {
			return true
		}
	}
	for _, n := range names {
		if n == "runtime.mallocgc" {
			return true
		}
	}
	return false
}

// wrapAllocator moves the bodies of the allocator entries found (name →
// function index) to new functions and puts the guard's wrappers in
// their places: the helpers every wrapper uses (arm, overrun), then one
// wrapper per entry.
func (rw *rewriter) wrapAllocator(found map[string]uint32) *heapGuard {
	w := &allocWrap{rw: rw, m: rw.m, found: found, nimp: rw.m.NumImported(ExternFunc), checked: rw.opts.HeapCheck}
	w.g = &heapGuard{moved: map[uint32]uint32{}, helpers: map[uint32]string{}}
	w.addGlobals()
	w.moveBodies()
	w.addHelpers()
	w.wrapMalloc()
	w.wrapFree()
	w.wrapCalloc()
	w.wrapRealloc()
	w.wrapAlignedAlloc()
	w.wrapPosixMemalign()
	w.wrapUsableSize()
	return w.g
}

// allocWrap is wrapAllocator's work in progress: the guard it fills in,
// the entries found, where their bodies moved (orig) and the helpers
// the wrappers call.
type allocWrap struct {
	rw      *rewriter
	m       *Module
	g       *heapGuard
	found   map[string]uint32 // the entries wrapped, by name
	orig    map[string]uint32 // the function each entry's body moved to
	nimp    uint32            // imported functions
	checked bool              // Options.HeapCheck
	// arm(p, base, n) → p and overrun(p) → i32 (addHelpers)
	arm, overrun uint32
}

// addGlobals adds the guard's globals: its error, the malloc limit and,
// with the heap check, the allocator depth, the error's access and the
// quarantine's ring, head, count and bytes.
func (w *allocWrap) addGlobals() {
	m, g := w.m, w.g
	g.global = m.NumImported(ExternGlobal) + uint32(len(m.Globals))
	m.Globals = append(m.Globals, Global{Type: GlobalType{Type: TI64, Mutable: true}, Init: Expr{Instrs: []Instr{{Op: OpI64Const}, {Op: OpEnd}}}})
	g.limit = g.global + 1
	m.Globals = append(m.Globals, Global{Type: GlobalType{Type: TI32, Mutable: true}, Init: Expr{Instrs: []Instr{{Op: OpI32Const}, {Op: OpEnd}}}})
	if w.checked {
		g.inAlloc, g.errAt = g.global+2, g.global+3
		g.ring, g.head, g.count, g.bytes = g.global+4, g.global+5, g.global+6, g.global+7
		for range 6 {
			m.Globals = append(m.Globals, Global{Type: GlobalType{Type: TI32, Mutable: true}, Init: Expr{Instrs: []Instr{{Op: OpI32Const}, {Op: OpEnd}}}})
		}
	}
}

// moveBodies copies each entry's body to a new function; orig[name] is
// its index.
func (w *allocWrap) moveBodies() {
	m, nimp := w.m, w.nimp
	w.orig = map[string]uint32{}
	for _, hf := range heapFuncs {
		idx, ok := w.found[hf.name]
		if !ok {
			continue
		}
		n := nimp + uint32(len(m.Code))
		m.Funcs = append(m.Funcs, m.Funcs[idx-nimp])
		m.Code = append(m.Code, m.Code[idx-nimp])
		w.orig[hf.name] = n
		w.g.moved[n] = idx
	}
}

// addHelper appends a helper function the wrappers call, named name.
func (w *allocWrap) addHelper(name string, params, results []ValType, locals []LocalDecl, body []Instr) uint32 {
	n := w.rw.appendFunc(params, results, locals, body)
	w.g.helpers[n] = name
	return n
}

// addHelpers adds arm(p, base, n) → p, which writes the header before p
// and the redzone after its n bytes, and overrun(p) → i32, whether the
// redzone of live block p changed.
func (w *allocWrap) addHelpers() {
	get, set, i64, op, call, mem := localGet, localSet, i64Const, bare, callTo, memAt
	var armShadow []Instr // the heap check's shadow of the new block
	if w.checked {
		armShadow = []Instr{get(0), get(2), call(callShadowArm)}
	}
	w.arm = w.addHelper("wafer.heap.arm", []ValType{TI32, TI32, TI32}, []ValType{TI32}, nil, seq(
		guardHdr(0), one(get(2), mem(OpI32Store, 0)),
		guardHdr(0), one(get(1), mem(OpI32Store, 4)),
		guardHdr(0), one(i64(heapMagic), mem(OpI64Store, 8)),
		one(get(0), get(2), op(OpI32Add), i64(heapPattern), mem(OpI64Store, 0)),
		one(get(0), get(2), op(OpI32Add), i64(heapPattern), mem(OpI64Store, 8)),
		armShadow,
		one(get(0)),
	))
	w.overrun = w.addHelper("wafer.heap.overrun", []ValType{TI32}, []ValType{TI32}, declLocals(TI32), seq(
		guardHdr(0), one(mem(OpI32Load, 0), set(1)),
		one(get(0), get(1), op(OpI32Add), mem(OpI64Load, 0), i64(heapPattern), op(OpI64Ne)),
		one(get(0), get(1), op(OpI32Add), mem(OpI64Load, 8), i64(heapPattern), op(OpI64Ne)),
		one(op(OpI32Or)),
	))
}

// guardHdr pushes the address of block p's header: p-16.
func guardHdr(p uint64) []Instr { return []Instr{localGet(p), i32Const(heapHeader), bare(OpI32Sub)} }

// guardArg pushes i32 parameter i as an i64.
func guardArg(i uint64) []Instr { return []Instr{localGet(i), bare(OpI64ExtendI32U)} }

// declLocals declares one local of each of ts.
func declLocals(ts ...ValType) []LocalDecl {
	var ds []LocalDecl
	for _, t := range ts {
		ds = append(ds, LocalDecl{Count: 1, Type: t})
	}
	return ds
}

// guardAligned sets local a2 to the alignment in local a rounded up to
// the header's 16 bytes.
func guardAligned(a, a2 uint64) []Instr {
	get, set, i32, op := localGet, localSet, i32Const, bare
	return []Instr{get(a), i32(heapHeader), get(a), i32(heapHeader), op(OpI32GtU), op(OpSelect), set(a2)}
}

// report stores kind<<32 | the size in local size (none: -1) in the
// error global and traps.
func (w *allocWrap) report(kind uint64, size int64) []Instr {
	in := []Instr{i64Const(kind << 32)}
	if size >= 0 {
		in = append(in, localGet(uint64(size)), bare(OpI64ExtendI32U), bare(OpI64Or))
	}
	return append(in, globalSet(w.g.global), bare(OpUnreachable))
}

// limited traps with HeapMallocLimit when the request that size (i64
// instructions) computes is over a non-zero limit; size runs twice.
func (w *allocWrap) limited(size ...Instr) []Instr {
	i64, op := i64Const, bare
	return seq(
		one(globalGet(w.g.limit), op(OpI32Eqz)), one(op(OpI32Eqz)),
		size, one(globalGet(w.g.limit), op(OpI64ExtendI32U), op(OpI64GtU), op(OpI32And)),
		// kind<<32 | min(size, 0xffffffff)
		ifThen(seq(one(i64(HeapMallocLimit<<32), i64(0xffffffff)), size, size,
			one(i64(0xffffffff), op(OpI64GtU), op(OpSelect), op(OpI64Or), globalSet(w.g.global), op(OpUnreachable)))...),
	)
}

// check traps with kind, in the wrapper (the top frame of the report),
// when the redzone of live block p changed; size is a scratch local.
func (w *allocWrap) check(p, size uint64, kind uint64) []Instr {
	return seq(
		one(localGet(p), callTo(w.overrun)),
		ifThen(seq(guardHdr(p), one(memAt(OpI32Load, 0), localSet(size)), w.report(kind, int64(size)))...),
	)
}

// guardMagic pushes the magic word of the block at p.
func guardMagic(p uint64) []Instr { return seq(guardHdr(p), one(memAt(OpI64Load, 8))) }

// ours runs passThrough (which returns) when p is not a live block the
// guard made: too low for a header, or without its magic; a block freed
// already traps with freedKind first (0: passed through too).
func (w *allocWrap) ours(p uint64, passThrough []Instr, freedKind uint64) []Instr {
	get, i32, i64, op := localGet, i32Const, i64Const, bare
	in := seq(one(get(p), i32(heapHeader), op(OpI32LtU)), ifThen(passThrough...))
	if freedKind != 0 {
		in = seq(in, guardMagic(p), one(i64(heapFreed), op(OpI64Eq)), ifThen(w.report(freedKind, -1)...))
	}
	return seq(in, guardMagic(p), one(i64(heapMagic), op(OpI64Ne)), ifThen(passThrough...))
}

// wrapper replaces entry name's body (moved by moveBodies) with body.
func (w *allocWrap) wrapper(name string, locals []LocalDecl, body []Instr) {
	idx := w.found[name]
	w.m.Code[idx-w.nimp] = Code{Locals: locals, Body: Expr{Instrs: append(body, Instr{Op: OpEnd})}}
	w.g.wrappers = append(w.g.wrappers, idx)
}

// shadowFree(p, n): the heap check marks block p of n bytes freed.
func (w *allocWrap) shadowFree(p uint64, n []Instr) []Instr {
	if !w.checked {
		return nil
	}
	return seq(one(localGet(p)), n, one(callTo(callShadowFree)))
}

// wrapMalloc wraps malloc(n).
func (w *allocWrap) wrapMalloc() {
	get, tee, i32, op, call := localGet, localTee, i32Const, bare, callTo
	ret := op(OpReturn)
	orig := w.orig
	w.wrapper("malloc", declLocals(TI32), seq(
		w.limited(guardArg(0)...),
		one(get(0), i32(heapMaxSize), op(OpI32GtU)), ifThen(get(0), call(orig["malloc"]), ret),
		one(get(0), i32(heapHeader+heapRedzone), op(OpI32Add), call(orig["malloc"]), tee(1), op(OpI32Eqz)), ifThen(i32(0), ret),
		one(get(1), i32(heapHeader), op(OpI32Add), get(1), get(0), call(w.arm)),
	))
}

// wrapFree wraps free(p); with the heap check the block goes to the
// quarantine.
func (w *allocWrap) wrapFree() {
	get, i64, op, call, mem := localGet, i64Const, bare, callTo, memAt
	ret := op(OpReturn)
	orig := w.orig
	release := seq(guardHdr(0), one(mem(OpI32Load, 4), call(orig["free"])))
	if w.checked {
		release = w.g.quarantine(w.rw, orig["malloc"], orig["free"])
	}
	freeLocals := declLocals(TI32)
	if w.checked {
		freeLocals = declLocals(TI32, TI32, TI32)
	}
	w.wrapper("free", freeLocals, seq(
		one(get(0), op(OpI32Eqz)), ifThen(ret),
		w.ours(0, []Instr{get(0), call(orig["free"]), ret}, HeapDoubleFree),
		w.check(0, 1, HeapOverflow),
		guardHdr(0), one(i64(heapFreed), mem(OpI64Store, 8)),
		w.shadowFree(0, seq(guardHdr(0), one(mem(OpI32Load, 0)))),
		release,
	))
}

// wrapCalloc wraps calloc(count, size), if the module has it.
func (w *allocWrap) wrapCalloc() {
	o, ok := w.orig["calloc"]
	if !ok {
		return
	}
	get, tee, i32, i64, op, call := localGet, localTee, i32Const, i64Const, bare, callTo
	ret := op(OpReturn)
	const total, b = 2, 3
	w.wrapper("calloc", declLocals(TI64, TI32), seq(
		w.limited(seq(guardArg(0), guardArg(1), one(op(OpI64Mul)))...),
		one(get(0), op(OpI64ExtendI32U), get(1), op(OpI64ExtendI32U), op(OpI64Mul), tee(total), i64(heapMaxSize), op(OpI64GtU)),
		ifThen(get(0), get(1), call(o), ret),
		one(i32(1), get(total), op(OpI32WrapI64), i32(heapHeader+heapRedzone), op(OpI32Add), call(o), tee(b), op(OpI32Eqz)), ifThen(i32(0), ret),
		one(get(b), i32(heapHeader), op(OpI32Add), get(b), get(total), op(OpI32WrapI64), call(w.arm)),
	))
}

// wrapRealloc wraps realloc(q, n), if the module has it.
func (w *allocWrap) wrapRealloc() {
	o, ok := w.orig["realloc"]
	if !ok {
		return
	}
	get, set, tee, i32, op, call, mem := localGet, localSet, localTee, i32Const, bare, callTo, memAt
	ret := op(OpReturn)
	mallocW, freeW := w.found["malloc"], w.found["free"]
	const b, p, oldn = 2, 3, 4
	var rearm []Instr
	if w.checked {
		rearm = seq(one(get(0)), guardHdr(0), one(mem(OpI32Load, 0), call(callShadowArm)))
	}
	w.wrapper("realloc", declLocals(TI32, TI32, TI32), seq(
		w.limited(guardArg(1)...),
		one(get(0), op(OpI32Eqz)), ifThen(get(1), call(mallocW), ret),
		w.ours(0, []Instr{get(0), get(1), call(o), ret}, HeapReallocFreed),
		w.check(0, oldn, HeapOverflowRealloc),
		one(get(1), i32(heapMaxSize), op(OpI32GtU)), ifThen(i32(0), ret),
		// a block aligned past 16 bytes: a new block, a copy, a free
		guardHdr(0), one(mem(OpI32Load, 4)), guardHdr(0), one(op(OpI32Ne)),
		ifThen(seq(
			one(get(1), call(mallocW), tee(p), op(OpI32Eqz)), ifThen(i32(0), ret),
			one(get(p), get(0)),
			guardHdr(0), one(mem(OpI32Load, 0), set(oldn)),
			one(get(1), get(oldn), get(1), get(oldn), op(OpI32LtU), op(OpSelect)),
			one(Instr{Op: OpMemoryCopy}),
			one(get(0), call(freeW), get(p), ret),
		)...),
		// the heap check: the old block is freed unless realloc fails
		w.shadowFree(0, seq(guardHdr(0), one(mem(OpI32Load, 0)))),
		guardHdr(0), one(get(1), i32(heapHeader+heapRedzone), op(OpI32Add), call(o), tee(b), op(OpI32Eqz)), ifThen(seq(rearm, one(i32(0), ret))...),
		one(get(b), i32(heapHeader), op(OpI32Add), get(b), get(1), call(w.arm)),
	))
}

// wrapAlignedAlloc wraps aligned_alloc(align, n), if the module has it.
func (w *allocWrap) wrapAlignedAlloc() {
	o, ok := w.orig["aligned_alloc"]
	if !ok {
		return
	}
	get, tee, i32, op, call := localGet, localTee, i32Const, bare, callTo
	ret := op(OpReturn)
	const b, a2 = 2, 3
	pass := []Instr{get(0), get(1), call(o), ret}
	w.wrapper("aligned_alloc", declLocals(TI32, TI32), seq(
		w.limited(guardArg(1)...),
		// not a power of two: the allocator's answer
		one(get(0), op(OpI32Eqz), get(0), get(0), i32(1), op(OpI32Sub), op(OpI32And), op(OpI32Or)), ifThen(pass...),
		guardAligned(0, a2),
		one(get(1), i32(-1-heapRedzone), get(a2), op(OpI32Sub), op(OpI32GtU)), ifThen(pass...),
		one(get(a2), get(1), get(a2), op(OpI32Add), i32(heapRedzone), op(OpI32Add), call(o), tee(b), op(OpI32Eqz)), ifThen(i32(0), ret),
		one(get(b), get(a2), op(OpI32Add), get(b), get(1), call(w.arm)),
	))
}

// wrapPosixMemalign wraps posix_memalign(pp, align, n), if the module has
// it.
func (w *allocWrap) wrapPosixMemalign() {
	o, ok := w.orig["posix_memalign"]
	if !ok {
		return
	}
	get, set, tee, i32, op, call, mem := localGet, localSet, localTee, i32Const, bare, callTo, memAt
	ret := op(OpReturn)
	const r, a2, b = 3, 4, 5
	pass := []Instr{get(0), get(1), get(2), call(o), ret}
	w.wrapper("posix_memalign", declLocals(TI32, TI32, TI32), seq(
		w.limited(guardArg(2)...),
		// not a power of two of at least 4: the allocator's EINVAL
		one(get(1), i32(4), op(OpI32LtU), get(1), get(1), i32(1), op(OpI32Sub), op(OpI32And), op(OpI32Or)), ifThen(pass...),
		guardAligned(1, a2),
		one(get(2), i32(-1-heapRedzone), get(a2), op(OpI32Sub), op(OpI32GtU)), ifThen(pass...),
		one(get(0), get(a2), get(2), get(a2), op(OpI32Add), i32(heapRedzone), op(OpI32Add), call(o), tee(r)), ifThen(get(r), ret),
		one(get(0), mem(OpI32Load, 0), set(b)),
		one(get(0), get(b), get(a2), op(OpI32Add), get(b), get(2), call(w.arm), mem(OpI32Store, 0)),
		one(i32(0)),
	))
}

// wrapUsableSize wraps malloc_usable_size(p), if the module has it: the
// size asked for, so writes past it are overflows as the guard sees them.
func (w *allocWrap) wrapUsableSize() {
	o, ok := w.orig["malloc_usable_size"]
	if !ok {
		return
	}
	w.wrapper("malloc_usable_size", nil, seq(
		w.ours(0, []Instr{localGet(0), callTo(o), bare(OpReturn)}, 0),
		guardHdr(0), one(memAt(OpI32Load, 0)),
	))
}
