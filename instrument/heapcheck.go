package instrument

// The heap check (Options.HeapCheck, with HeapGuard): the guard alone
// finds a write past a heap block when the block is freed, and nothing
// about reads. With the check, every load and store of the target's code
// looks up the bytes it touches in a shadow of target memory, as
// AddressSanitizer does, and traps at once when they lie outside a live
// block: a read or write past either end of a block (heap-buffer-overflow)
// or into a freed one (heap-use-after-free).
//
// The shadow is one byte per 8-byte granule of the first HeapCover bytes
// of target memory, in the reserved pages (Layout.ShadowOffset): 0 when
// all 8 bytes may be accessed, k in 1..7 when the first k may, and
// negative for a redzone (shadowLeft: a block's header; ShadowRedzone: the
// 16 bytes after it), a freed block (shadowFreed) or the null page
// (ShadowNull, below). Data and stack have shadow 0; memory the allocator
// got back keeps its block's last shadow until it is handed out again. The
// guard's wrappers write it: malloc and kin mark the header and redzone
// and clear the block (a last partial granule gets its length), free and
// realloc mark the block freed before handing it back, and each of them
// marks the target blocks whose shadow changed dirty (Options.DirtyPages),
// so the host restores those shadow bytes with the blocks.
//
// The check of an access of size s at address a with static offset o
// reads the shadow byte of its last byte, e = a+o+s-1 (32-bit):
//
//	v = i32.load8_s shadow[(e >> 3) & (HeapCover/8 - 1)]
//	if v != 0 {
//		br_if trap (check(e, s | write<<8, v, at, a))
//	}
//
// The mask keeps the load inside the shadow for every address. Taken only
// for a non-zero byte, check forgives every access while the allocator
// itself runs (the wrappers count their calls into it in the global
// inAlloc: dlmalloc reads and writes its chunk headers, in the
// redzones), what the mask aliased (e at or past HeapCover), an address
// that wrapped past 2^32 (the access traps by itself) and a last byte
// within a partial granule's first v bytes (never when v < 0), and
// returns 0. Otherwise it stores the error in the guard's global (kind
// << 32 | size << 40 | address) and the access's code offset in the input
// module in another (Layout.HeapAtExport: the host finds its source
// line), and returns 1: the branch goes to the function's trap block, a
// block around its whole body followed by unreachable (openTrap), so
// the access's own function traps and the report's top frame is the
// function that made it.
//
// The test is a call, not inline code, and the trap one per function,
// not one per check: inline, each check's error path was about 25
// instructions and wazero's trap exit sequence, the larger part of the
// checked build (SQLite: 7.4 MB of Wasm, 25.8 MB of machine code, 6.0
// MB and 22.4 MB with the call; docs/PERFORMANCE.md, "Heap guard and heap
// check"). A call that
// returns makes wazero reload the memory's base and length after it, on
// the rare path only; runs cost the same (SQLite 0.97-0.99 of the inline
// form's time, Zstandard 1.00-1.02).

// A bulk memory instruction (memory.copy, memory.fill, memory.init: what
// memcpy and memset are when built with bulk memory) has the ranges it
// reads and writes checked whole by a helper (span) before it runs: it
// scans their shadow bytes, eight at a time while they are zero, and
// reports the first byte outside the live blocks ("a bulk memory write").
//
// Accesses that cannot reach the heap are not checked (uncheckedAccess):
// those at a constant address (static data) and those addressed from the
// LLVM stack pointer (stack frames: locals set only from the pointer or
// from each other, plus constants).
//
// The null page: in a module whose stack lies above its static data (C
// and C++ linked by wasm-ld's default layout before LLVM 22) nothing lives
// below the data, at 1 KiB by default, and a load or store there is a
// null pointer dereferenced, which traps natively and not in Wasm. In a
// module whose stack comes first (--stack-first: Rust's default, the
// layout the README recommends for C, wasm-ld's default from LLVM 22) the
// stack's bottom is at 0: the checked build takes the stack's lowest
// 1 KiB from it (stackFirstNullBound; the stack check reports a stack
// that reaches it as exhausted), so nothing lives there either. The host
// marks that memory's shadow ShadowNull (Layout.NullEnd), and the check
// reports an access to it as one; accesses addressed from the stack
// pointer are not checked, and cannot reach it.
//
// Freed blocks wait in a quarantine (heapGuard.quarantine: the last 1,024
// blocks freed, 256 KiB at most) before the allocator gets them back, so
// a use after free is found even when the program allocated again since.
//
// What it does not find: an access whose last byte is inside a block
// while its first is not (an unaligned access straddling the block's
// start), accesses past HeapCover, reads and writes of the allocator's
// own code, atomics and SIMD lane or splat loads, and uses after free of
// a block that left the quarantine and was handed out again. The
// wrappers and the functions they moved are not checked, nor counted;
// the allocator's helpers are checked, and forgiven while inAlloc is not
// zero.

const (
	// HeapCover is how much target memory, from address 0, the shadow
	// describes: its 16 MiB are reserved pages of every checked module.
	HeapCover   = 1 << 27
	shadowBytes = HeapCover >> 3

	shadowLeft = 0xfa // a block's header
	// ShadowRedzone is the redzone after a block (the host writes it
	// after the input in its input buffer).
	ShadowRedzone = 0xfb
	shadowFreed   = 0xfd // a freed block
)

// Heap check error kinds (Layout.HeapExport's bits 32-39; bits 40-47 hold
// the access size and the low 32 bits its address), in pairs: each read
// kind is followed by its write kind (report adds the write bit).
const (
	HeapReadOverflow  = 5  // a read outside every live block's bounds
	HeapWriteOverflow = 6  // a write outside them
	HeapReadFreed     = 7  // a read of a freed block
	HeapWriteFreed    = 8  // a write to a freed block
	HeapReadNull      = 9  // a read of the null page (Layout.NullEnd)
	HeapWriteNull     = 10 // a write to it
)

// checkedAccess reports whether the heap check covers op, with its size
// and whether it writes.
func checkedAccess(op Op) (size uint64, write, ok bool) {
	info := opinfo(op)
	switch {
	case op >= OpI32Load && op <= 0x35:
		return uint64(info.size), false, true
	case op >= 0x36 && op <= 0x3e:
		return uint64(info.size), true, true
	case op == OpV128Load:
		return 16, false, true
	case op == OpV128Store:
		return 16, true, true
	}
	return 0, false, false
}

// heapHelpers are the indices of the helpers the heap check adds after the
// rewrite (addHeapFuncs), in that order.
type heapHelpers struct {
	report, fill, arm, free, span, check uint32
	inAlloc                              uint32 // the global (heapGuard.inAlloc)
}

// checkAccess emits the check of the access whose address is in local a
// (see above); orig is its static offset as the target has it. With
// first, it checks the access's first byte instead of its last
// (wordwise).
func (rw *rewriter) checkAccess(a uint32, orig, size uint64, write, first bool) {
	at := orig + size - 1
	if first {
		at = orig
	}
	if orig+size-1 > 0xffffffff {
		return // out of bounds for every address: it traps by itself
	}
	v, e := uint64(rw.local(TI32, 8)), uint64(rw.local(TI32, 9))
	rw.emit(OpLocalGet, uint64(a))
	rw.i32(int64(uint32(at)))
	rw.emit(OpI32Add, 0)
	rw.emit(OpLocalTee, e)
	rw.i32(3)
	rw.emit(OpI32ShrU, 0)
	rw.i32(shadowBytes - 1)
	rw.emit(OpI32And, 0)
	rw.emitMem(OpI32Load8S, uint64(rw.shadowOff), 0)
	rw.emit(OpLocalTee, v)
	rw.out = append(rw.out, Instr{Op: OpIf, C: 0x40})
	info := size
	if write {
		info |= 1 << 8
	}
	if first {
		info |= 1 << 9
	}
	rw.emit(OpLocalGet, e)
	rw.i32(int64(info))
	rw.emit(OpLocalGet, v)
	rw.i32(int64(rw.codeAt()))
	rw.emit(OpLocalGet, uint64(a))
	rw.emit(OpCall, uint64(rw.heap.check))
	rw.branchToTrap(1)
	rw.emit(OpEnd, 0)
	if rw.count {
		rw.pin()
	}
}

// checkSpan emits the check of the n bytes at a (locals) that the bulk
// memory instruction being rewritten reads (write false) or writes: span
// reports an error and returns 1, and the branch goes to the trap block.
func (rw *rewriter) checkSpan(a, n uint32, write bool) {
	info := uint64(1 << 9)
	if write {
		info |= 1 << 8
	}
	rw.emit(OpLocalGet, uint64(a))
	rw.emit(OpLocalGet, uint64(n))
	rw.i32(int64(info))
	rw.i32(int64(rw.codeAt()))
	rw.emit(OpCall, uint64(rw.heap.span))
	rw.branchToTrap(0)
}

// codeAt is the code-section offset, in the input, of the instruction
// being rewritten (0 when it has none): a heap check's report names it
// for its source line.
func (rw *rewriter) codeAt() uint32 {
	if off := rw.body[rw.k].Off; off >= rw.m.CodeOffset {
		return off - rw.m.CodeOffset
	}
	return 0
}

// trapState is where a function's trap block stands (openTrap).
type trapState uint8

const (
	noTrap   trapState = iota // the function is not checked: no trap block
	trapOpen                  // opened; no check branches to it yet
	trapUsed                  // a check branches to it
)

// openTrap opens the trap blocks around a checked function's body (see
// above): the outer one's end is followed by
// unreachable, the inner one takes the function's results, which the
// code after it returns. Branches to the function's label reach the
// inner block with the same relative depth, so the body is rewritten as
// before. When no check of the function branches to the outer block,
// closeTrap turns both into nops.
func (rw *rewriter) openTrap(results []ValType) {
	rw.trap = trapOpen
	rw.out = append(rw.out, Instr{Op: OpBlock, C: 0x40})
	body := Instr{Op: OpBlock, C: 0x40}
	if len(results) > 0 {
		body = Instr{Op: OpBlock, A: uint64(rw.typeIndex(nil, results))}
	}
	rw.out = append(rw.out, body)
}

// closeTrap closes what openTrap opened, before the function's end.
func (rw *rewriter) closeTrap() {
	if rw.trap != trapUsed {
		rw.out[0], rw.out[1] = Instr{Op: OpNop}, Instr{Op: OpNop}
		return
	}
	rw.emit(OpEnd, 0)
	rw.emit(OpReturn, 0)
	rw.emit(OpEnd, 0)
	rw.emit(OpUnreachable, 0)
}

// branchToTrap emits a br_if to the function's trap block, from inside open
// blocks the check itself opened: the blocks open in the output are the
// body's (rw.ctl, the function's own frame being the trap's inner block)
// and the outer trap block.
func (rw *rewriter) branchToTrap(open int) {
	rw.trap = trapUsed
	rw.emit(OpBrIf, uint64(len(rw.ctl)+open))
}

// wordwise are libc's string functions that read a word (or a vector) at
// a time, aligned, past the terminating zero but never past the aligned
// block holding it (musl's, wasi-libc's: its SIMD builds read 16 bytes
// at a time): the heap check looks at the first byte of their reads,
// which is within the string until the string has no end. The searching
// and comparing functions that read bytewise in musl are listed too, for
// libcs that do not; for a byte read the first byte is the last.
var wordwise = map[string]bool{
	"strlen": true, "memchr": true, "strchrnul": true, "__strchrnul": true,
	"stpcpy": true, "__stpcpy": true, "stpncpy": true, "__stpncpy": true,
	"strlcpy": true, "memccpy": true, "strnlen": true, "rawmemchr": true,
	"strchr": true, "strrchr": true, "memrchr": true, "__memrchr": true,
	"strspn": true, "strcspn": true, "strpbrk": true, "strcmp": true,
	"strncmp": true, "memcmp": true, "bcmp": true, "strstr": true,
	"memmem": true, "wcslen": true, "wmemchr": true, "wcschr": true,
}

// addHeapFuncs appends the heap check's helpers at rw.heap's indices.
// They address the shadow at real addresses and are not rewritten.
// errGlobal is the guard's error global, errAt the global report puts
// the access's code offset in.
func (rw *rewriter) addHeapFuncs(errGlobal, errAt uint32) {
	const cover = HeapCover
	get, set, i32, i64, op, call := localGet, localSet, i32Const, i64Const, bare, callTo

	// report(e, info, v, at): stores the error of the access of info
	// (size | write<<8 | first<<9) whose checked byte is e, with shadow
	// byte v, and the access's code offset at.
	{
		const e, info, v, at = 0, 1, 2, 3
		rw.appendFunc([]ValType{TI32, TI32, TI32, TI32}, nil, nil, seq(
			one(get(at), globalSet(errAt)),
			// kind = 5 + write + 2*freed + 4*null; the error: kind<<32 | size<<40 | address
			one(i32(HeapReadOverflow), get(info), i32(8), op(OpI32ShrU), i32(1), op(OpI32And), op(OpI32Add),
				i32(2), i32(0), get(v), i32(int64(shadowFreedSigned)), op(OpI32Eq), op(OpSelect), op(OpI32Add),
				i32(4), i32(0), get(v), i32(int64(shadowNullSigned)), op(OpI32Eq), op(OpSelect), op(OpI32Add),
				op(OpI64ExtendI32U), get(info), i32(0xff), op(OpI32And), i32(8), op(OpI32Shl), op(OpI64ExtendI32U), op(OpI64Or),
				i64(32), op(OpI64Shl),
				// the access's first byte: e, or e-(size-1)
				get(e),
				i32(0), get(info), i32(0xff), op(OpI32And), i32(1), op(OpI32Sub), get(info), i32(1<<9), op(OpI32And), op(OpSelect),
				op(OpI32Sub), op(OpI64ExtendI32U), op(OpI64Or),
				globalSet(errGlobal)),
		))
	}
	// fill(t, n, v): the shadow bytes of the granules of [t, t+n) below
	// HeapCover become v.
	{
		const t, n, v, end = 0, 1, 2, 3
		rw.appendFunc([]ValType{TI32, TI32, TI32}, nil, []LocalDecl{{Count: 1, Type: TI64}}, seq(
			one(get(n), op(OpI32Eqz), get(t), i32(cover), op(OpI32GeU), op(OpI32Or)), ifThen(op(OpReturn)),
			// end: min(t+n+7, cover+7) >> 3, in 64 bits
			one(get(t), op(OpI64ExtendI32U), get(n), op(OpI64ExtendI32U), op(OpI64Add), i64(7), op(OpI64Add), set(end),
				get(end), i64(cover+7), get(end), i64(cover+7), op(OpI64LtU), op(OpSelect), i64(3), op(OpI64ShrU), set(end)),
			one(get(t), i32(3), op(OpI32ShrU), i32(int64(rw.shadowOff)), op(OpI32Add),
				get(v),
				get(end), op(OpI32WrapI64), get(t), i32(3), op(OpI32ShrU), op(OpI32Sub),
				Instr{Op: OpMemoryFill}),
		))
	}
	mark := func(t, n []Instr) []Instr {
		if !rw.opts.DirtyPages {
			return nil
		}
		return seq(t, n, one(call(rw.markFunc)))
	}
	// arm(u, n): a new block of n bytes at u.
	{
		const u, n, e = 0, 1, 2
		rw.appendFunc([]ValType{TI32, TI32}, nil, []LocalDecl{{Count: 1, Type: TI32}}, seq(
			// an address the shadow cannot describe (not 8-aligned): its
			// bytes are all accessible
			one(get(u), i32(7), op(OpI32And)), ifThen(seq(
				one(get(u), i32(heapHeader+8), op(OpI32Sub), get(n), i32(heapHeader+heapRedzone+16), op(OpI32Add), i32(0), call(rw.heap.fill)),
				mark(one(get(u), i32(heapHeader+8), op(OpI32Sub)), one(get(n), i32(heapHeader+heapRedzone+16), op(OpI32Add))),
				one(op(OpReturn)))...),
			one(get(u), i32(heapHeader), op(OpI32Sub), i32(heapHeader), i32(shadowLeft), call(rw.heap.fill)),
			one(get(u), get(n), i32(0), call(rw.heap.fill)),
			// e: the end of the block rounded up to a granule
			one(get(u), get(n), op(OpI32Add), i32(7), op(OpI32Add), i32(-8), op(OpI32And), set(e)),
			one(get(n), i32(7), op(OpI32And), i32(0), op(OpI32Ne), get(u), get(n), op(OpI32Add), i32(cover), op(OpI32LtU), op(OpI32And)), ifThen(
				get(u), get(n), op(OpI32Add), i32(3), op(OpI32ShrU),
				get(n), i32(7), op(OpI32And),
				Instr{Op: OpI32Store8, A: uint64(rw.shadowOff)}),
			one(get(e), get(u), get(n), op(OpI32Add), i32(heapRedzone), op(OpI32Add), get(e), op(OpI32Sub), i32(ShadowRedzone), call(rw.heap.fill)),
			mark(one(get(u), i32(heapHeader), op(OpI32Sub)), one(get(n), i32(heapHeader+heapRedzone), op(OpI32Add))),
		))
	}
	// free(u, n): the block of n bytes at u is freed.
	{
		const u, n = 0, 1
		rw.appendFunc([]ValType{TI32, TI32}, nil, nil, seq(
			one(get(u), i32(7), op(OpI32And)), ifThen(op(OpReturn)),
			one(get(u), get(n), i32(shadowFreed), call(rw.heap.fill)),
			mark(one(get(u)), one(get(n))),
		))
	}
	// span(a, n, info, at) -> i32: whether the n bytes at a that a bulk
	// memory instruction at code offset at reads or writes (info: write<<8
	// | first<<9) leave the live blocks; it then reports the first byte
	// that does. It scans the shadow 8 granules at a time while they are
	// all zero, then granule by granule: any non-zero byte is an error but
	// in the last granule, whose first v bytes may be accessed.
	{
		const a, n, info, at, hi, g, last, v = 0, 1, 2, 3, 4, 5, 6, 7
		sh := uint64(rw.shadowOff)
		rw.appendFunc([]ValType{TI32, TI32, TI32, TI32}, []ValType{TI32}, []LocalDecl{{Count: 1, Type: TI64}, {Count: 3, Type: TI32}}, seq(
			one(get(n), op(OpI32Eqz), globalGet(rw.heap.inAlloc), op(OpI32Or)), ifThen(i32(0), op(OpReturn)),
			// past 2^32 the instruction traps by itself; the shadow ends at cover
			one(get(a), op(OpI64ExtendI32U), get(n), op(OpI64ExtendI32U), op(OpI64Add), localTee(hi),
				i64(1<<32), op(OpI64GtU)), ifThen(i32(0), op(OpReturn)),
			one(get(hi), i64(cover), get(hi), i64(cover), op(OpI64LtU), op(OpSelect), set(hi)),
			one(get(a), op(OpI64ExtendI32U), get(hi), op(OpI64GeU)), ifThen(i32(0), op(OpReturn)),
			one(get(a), i32(3), op(OpI32ShrU), set(g)),
			one(get(hi), op(OpI32WrapI64), i32(1), op(OpI32Sub), i32(3), op(OpI32ShrU), set(last)),
			one(Instr{Op: OpBlock, C: 0x40}, Instr{Op: OpLoop, C: 0x40}),
			// eight granules, none of them the last, all zero
			one(get(g), i32(8), op(OpI32Add), get(last), op(OpI32LeU)), ifThen(seq(
				one(get(g), Instr{Op: OpI64Load, A: sh}, op(OpI64Eqz)), ifThen(
					get(g), i32(8), op(OpI32Add), set(g), Instr{Op: OpBr, A: 2}))...),
			one(get(g), memAt(OpI32Load8S, sh), localTee(v)), ifThen(seq(
				one(get(g), get(last), op(OpI32Eq),
					get(hi), op(OpI32WrapI64), i32(1), op(OpI32Sub), i32(7), op(OpI32And), get(v), op(OpI32LtS),
					op(OpI32And), op(OpI32Eqz)), ifThen(
					// the first byte at fault: max(a, g<<3 + max(v, 0))
					get(g), i32(3), op(OpI32Shl), get(v), i32(0), get(v), i32(0), op(OpI32GtS), op(OpSelect), op(OpI32Add), set(last),
					get(last), get(a), get(last), get(a), op(OpI32GtU), op(OpSelect),
					get(info), get(v), get(at), call(rw.heap.report),
					i32(1), op(OpReturn)))...),
			one(get(g), get(last), op(OpI32Eq), Instr{Op: OpBrIf, A: 1}),
			one(get(g), i32(1), op(OpI32Add), set(g), Instr{Op: OpBr, A: 0}),
			one(op(OpEnd), op(OpEnd)),
			one(i32(0)),
		))
	}
	// check(e, info, v, at, a) -> i32: whether the access of info at a
	// whose checked byte e has the non-zero shadow byte v is an error
	// (see above); it then reports it.
	{
		const e, info, v, at, a = 0, 1, 2, 3, 4
		rw.appendFunc([]ValType{TI32, TI32, TI32, TI32, TI32}, []ValType{TI32}, nil, seq(
			// forgiven: inside the allocator, past the shadow (aliased by
			// the mask), wrapped past 2^32 (the access traps by itself),
			// or within a partial granule's first v bytes ((e&7) <s v:
			// never for v < 0)
			one(globalGet(rw.heap.inAlloc), get(e), i32(cover), op(OpI32GeU), op(OpI32Or),
				get(e), get(a), op(OpI32LtU), op(OpI32Or),
				get(e), i32(7), op(OpI32And), get(v), op(OpI32LtS), op(OpI32Or)), ifThen(i32(0), op(OpReturn)),
			one(get(e), get(info), get(v), get(at), call(rw.heap.report), i32(1)),
		))
	}
}

// shadowFreedSigned and shadowNullSigned are shadowFreed and ShadowNull
// as the i32.load8_s in the check reads them.
const (
	shadowFreedSigned = int8(-3)
	shadowNullSigned  = int8(-7)
)

// frameLocals reports, by local index, the locals of a function with
// nparams parameters and nlocals locals in all whose every assignment is
// the stack pointer global sp, or another such local, plus or minus a
// constant: they address stack frames, never the heap. Parameters are
// never such locals (their callers set them).
func frameLocals(body []Instr, nparams, nlocals uint32, sp uint32, out []bool) []bool {
	out = append(out[:0], make([]bool, nlocals)...)
	for l := nparams; l < nlocals; l++ {
		out[l] = true
	}
	for changed := true; changed; {
		changed = false
		for k := range body {
			in := &body[k]
			if (in.Op != OpLocalSet && in.Op != OpLocalTee) || in.A >= uint64(nlocals) || !out[in.A] {
				continue
			}
			if !frameValue(body, k, sp, out) {
				out[in.A] = false
				changed = true
			}
		}
	}
	return out
}

// frameValue reports whether the value body[k] consumes is the stack
// pointer or a frame local, plus or minus a constant.
func frameValue(body []Instr, k int, sp uint32, frame []bool) bool {
	i := k - 1
	if i >= 1 && body[i-1].Op == OpI32Const && (body[i].Op == OpI32Add || body[i].Op == OpI32Sub) {
		i -= 2
	}
	if i < 0 {
		return false
	}
	switch in := &body[i]; in.Op {
	case OpGlobalGet:
		return in.A == uint64(sp)
	case OpLocalGet:
		return in.A < uint64(len(frame)) && frame[in.A]
	}
	return false
}

// uncheckedAccess reports whether the load or store body[k] addresses
// static data (a constant address) or a stack frame (the stack pointer or
// a frame local, plus a constant): memory outside the heap.
func uncheckedAccess(body []Instr, k int, sp uint32, hasSP bool, frame []bool) bool {
	end := k - 1 // a load's address is its only operand
	if _, write, _ := checkedAccess(body[k].Op); write {
		end = exprStart(body, k-1) - 1
	}
	if end < 0 {
		return false
	}
	if body[end].Op == OpI32Const {
		return true
	}
	return hasSP && frameValue(body, end+1, sp, frame)
}

// maxNullPage bounds the null page (Layout.NullEnd).
const maxNullPage = 64 << 10

// stackFirstNullPage is the null page of a module whose stack comes
// first in memory (wasm-ld --stack-first, Rust's default and LLVM 22's):
// the stack's bottom 1 KiB, which the stack check then counts out of the
// stack (stackFirstNullBound), so no frame lies there and a load or store
// there that is not addressed from the stack pointer is a null pointer
// plus a field offset. Native code traps on the whole 4 KiB page; a
// smaller bound costs the checked build less of the stack (1 KiB of
// wasm-ld's default 64 KiB) and still covers the field offsets of all
// but the largest structs.
const stackFirstNullPage = 1 << 10

// stackFirstNullBound is the null page a heap-checked module gets at the
// bottom of its stack when the stack comes first (sb.low 0) and is large
// enough to spare it (4 times the page), 0 otherwise. Instrument raises
// the stack's low bound to it, so the stack check reports a stack that
// reaches it as exhausted before any frame is put there.
func stackFirstNullBound(sb stackBounds, hasStack bool) uint32 {
	if !hasStack || sb.low != 0 || sb.high < 4*stackFirstNullPage {
		return 0
	}
	return stackFirstNullPage
}

// nullEnd returns Layout.NullEnd for a module whose static data starts at
// dataLo (target address; MaxUint64 for none) and whose stack is sb:
// the start of the data, in whole granules, when the stack lies above the
// data (sb.low past the data), at most maxNullPage; when the stack comes
// first, its bottom up to sb.low, raised by stackFirstNullBound.
func nullEnd(sb stackBounds, hasStack bool, dataLo uint64, stackFirst bool) uint32 {
	if stackFirst {
		return sb.low &^ 7
	}
	if !hasStack || sb.low == 0 || dataLo >= uint64(sb.high) {
		return 0
	}
	return uint32(min(dataLo, maxNullPage)) &^ 7
}
