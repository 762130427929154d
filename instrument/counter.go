package instrument

// counter emits a hit of site id: nothing for a derived site (derive.go),
// in a leaf loop an add to its local (nest.go), otherwise a saturating
// 8-bit increment of its counter (docs/PERFORMANCE.md, "The counter's form and its increment"): with
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
// (docs/PERFORMANCE.md, "The counter's form and its increment").
func (rw *rewriter) check() {
	rw.emit(OpLocalGet, uint64(rw.local(TI32, -1)))
	rw.cpos = append(rw.cpos, len(rw.out))
	rw.emitMem(OpI32Load8U, uint64(rw.fnLo), 0)
	rw.emit(OpDrop, 0)
}

// pin redefines $base from itself after a join (docs/PERFORMANCE.md, "The counter's form and its increment").
func (rw *rewriter) pin() {
	b := uint64(rw.local(TI32, -1))
	rw.emit(OpLocalGet, b)
	rw.emit(OpLocalSet, b)
}
