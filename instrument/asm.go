package instrument

import "slices"

// Builders for the instruction lists of the code Instrument writes by hand
// (heapguard.go, heapcheck.go): each returns one instruction, or a list.

func localGet(l uint64) Instr      { return Instr{Op: OpLocalGet, A: l} }
func localSet(l uint64) Instr      { return Instr{Op: OpLocalSet, A: l} }
func localTee(l uint64) Instr      { return Instr{Op: OpLocalTee, A: l} }
func globalGet(g uint32) Instr     { return Instr{Op: OpGlobalGet, A: uint64(g)} }
func globalSet(g uint32) Instr     { return Instr{Op: OpGlobalSet, A: uint64(g)} }
func i32Const(v int64) Instr       { return Instr{Op: OpI32Const, A: uint64(int64(int32(v)))} }
func i64Const(v uint64) Instr      { return Instr{Op: OpI64Const, A: v} }
func bare(o Op) Instr              { return Instr{Op: o} }
func callTo(f uint32) Instr        { return Instr{Op: OpCall, A: uint64(f)} }
func memAt(o Op, off uint64) Instr { return Instr{Op: o, A: off} } // align 1: any address

// ifThen is `if (then) end`, with no result.
func ifThen(then ...Instr) []Instr {
	return append(append([]Instr{{Op: OpIf, C: 0x40}}, then...), bare(OpEnd))
}

// seq joins lists; one makes a list.
func seq(parts ...[]Instr) []Instr { return slices.Concat(parts...) }
func one(in ...Instr) []Instr      { return in }

// appendFunc appends a defined function of the given type, locals and
// body (without its final end) to the module and returns its index.
func (rw *rewriter) appendFunc(params, results []ValType, locals []LocalDecl, body []Instr) uint32 {
	m := rw.m
	idx := m.NumImported(ExternFunc) + uint32(len(m.Code))
	m.Funcs = append(m.Funcs, rw.typeIndex(params, results))
	m.Code = append(m.Code, Code{Locals: locals, Body: Expr{Instrs: append(body, bare(OpEnd))}})
	return idx
}
