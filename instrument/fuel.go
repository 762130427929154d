package instrument

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
