package instrument

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
