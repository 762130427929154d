package instrument

import (
	"iter"
	"slices"

	"github.com/wafer-fuzz/wafer/instrument/internal/leb128"
)

// Encode serialises the module. Sections come in the canonical order,
// custom sections byte-exact after the section they followed in the input.
// Integers are written in their shortest LEB128 form, so Encode(Decode(x))
// may differ from x in bytes but decodes to the same module.
func (m *Module) Encode() []byte {
	e := encoder{buf: make([]byte, 0, m.sizeHint())}
	e.buf = append(e.buf, wasmMagic[:]...)
	e.buf = append(e.buf, wasmVersion[:]...)
	e.customs(m, 0)
	for _, id := range sectionOrder {
		if m.hasSection(id) {
			e.section(m, id)
		}
		e.customs(m, id)
	}
	return e.buf
}

// rawSection is one section of a binary: its id, and the offsets of its
// header, its payload (after the size) and its end.
type rawSection struct {
	id                  byte
	start, payload, end int
}

// name is a custom section's name ("" for others, or a malformed one).
func (r rawSection) name(wasm []byte) string {
	if r.id != SectionCustom {
		return ""
	}
	p := wasm[r.payload:r.end]
	l, k, err := leb128.Uint32(p)
	if err != nil || uint64(l) > uint64(len(p)-k) {
		return ""
	}
	return string(p[k : k+int(l)])
}

// rawSections yields the sections of wasm in order from their headers
// alone, stopping at the first malformed one.
func rawSections(wasm []byte) iter.Seq[rawSection] {
	return func(yield func(rawSection) bool) {
		countScan()
		for p := len(wasmMagic) + len(wasmVersion); p < len(wasm); {
			size, n, err := leb128.Uint32(wasm[p+1:])
			if err != nil || uint64(size) > uint64(len(wasm)-p-1-n) {
				return
			}
			r := rawSection{id: wasm[p], start: p, payload: p + 1 + n, end: p + 1 + n + int(size)}
			if !yield(r) {
				return
			}
			p = r.end
		}
	}
}

// withSections returns wasm, the module m was decoded from, with the
// sections ids encoded from m (inserted in their place when wasm has
// none) and every other section byte-exact. Re-encoding a whole module
// drops the padding of LEB128 numbers linkers leave in function bodies,
// which moves the code under its DWARF, whose offsets are relative to the
// code section: a change to a module wafer runs uninstrumented (wafer
// repro: stack lines from DWARF) or instruments (the SiteMap's lines)
// keeps the code section's bytes this way.
func withSections(wasm []byte, m *Module, ids ...byte) []byte {
	pending := slices.Clone(ids)
	slices.SortFunc(pending, func(a, b byte) int { return sectionRank(a) - sectionRank(b) })
	out := make([]byte, 0, len(wasm)+64)
	encode := func(id byte) {
		if m.hasSection(id) {
			e := encoder{buf: out}
			e.section(m, id)
			out = e.buf
		}
	}
	// flush encodes the pending sections ranked before rank (all of them
	// for rank < 0).
	flush := func(rank int) {
		for len(pending) > 0 && (rank < 0 || sectionRank(pending[0]) < rank) {
			encode(pending[0])
			pending = pending[1:]
		}
	}
	out = append(out, wasm[:len(wasmMagic)+len(wasmVersion)]...)
	for r := range rawSections(wasm) {
		if r.id != SectionCustom {
			flush(sectionRank(r.id))
			if len(pending) > 0 && pending[0] == r.id {
				encode(r.id)
				pending = pending[1:]
				continue
			}
		}
		out = append(out, wasm[r.start:r.end]...)
	}
	flush(-1)
	return out
}

func (m *Module) sizeHint() int {
	n := 64
	for i := range m.Code {
		n += int(m.Code[i].Size) + len(m.Code[i].raw) + 8
	}
	for i := range m.Data {
		n += len(m.Data[i].Init) + 8
	}
	for i := range m.Customs {
		n += len(m.Customs[i].Payload) + 6
	}
	return n + n/8
}

func (m *Module) hasSection(id byte) bool {
	if m.Present&(1<<id) != 0 {
		return true
	}
	switch id {
	case SectionType:
		return len(m.Types) > 0
	case SectionImport:
		return len(m.Imports) > 0
	case SectionFunction:
		return len(m.Funcs) > 0
	case SectionTable:
		return len(m.Tables) > 0
	case SectionMemory:
		return len(m.Memories) > 0
	case SectionTag:
		return len(m.Tags) > 0
	case SectionGlobal:
		return len(m.Globals) > 0
	case SectionExport:
		return len(m.Exports) > 0
	case SectionStart:
		return m.Start != nil
	case SectionElement:
		return len(m.Elems) > 0
	case SectionDataCount:
		return m.DataCount != nil
	case SectionCode:
		return len(m.Code) > 0
	case SectionData:
		return len(m.Data) > 0
	}
	return false
}

type encoder struct {
	buf []byte
	src []byte // input bytes for opRaw spans (instrument only)
}

func (e *encoder) u32(v uint32)  { e.buf = leb128.AppendUint32(e.buf, v) }
func (e *encoder) u64(v uint64)  { e.buf = leb128.AppendUint64(e.buf, v) }
func (e *encoder) s64(v int64)   { e.buf = leb128.AppendInt64(e.buf, v) }
func (e *encoder) byte(b byte)   { e.buf = append(e.buf, b) }
func (e *encoder) len(n int)     { e.u32(uint32(n)) }
func (e *encoder) name(s string) { e.len(len(s)); e.buf = append(e.buf, s...) }

// open reserves room for a size and returns the position of the content.
func (e *encoder) open() int {
	e.buf = append(e.buf, 0, 0, 0, 0, 0)
	return len(e.buf)
}

// close writes the minimal LEB128 size of the content started at start,
// moving the content down over the unused reserved bytes.
func (e *encoder) close(start int) {
	size := len(e.buf) - start
	var tmp [5]byte
	enc := leb128.AppendUint32(tmp[:0], uint32(size))
	at := start - 5
	copy(e.buf[at:], enc)
	if len(enc) < 5 {
		copy(e.buf[at+len(enc):], e.buf[start:])
		e.buf = e.buf[:len(e.buf)-(5-len(enc))]
	}
}

func (e *encoder) customs(m *Module, after byte) {
	for i := range m.Customs {
		c := &m.Customs[i]
		if c.After != after {
			continue
		}
		e.byte(SectionCustom)
		e.len(len(c.Payload))
		e.buf = append(e.buf, c.Payload...)
	}
}

func (e *encoder) valType(t ValType) {
	e.byte(t.Code)
	if t.Code == RefNull || t.Code == Ref {
		e.s64(t.Heap)
	}
}

func (e *encoder) valTypes(ts []ValType) {
	e.len(len(ts))
	for _, t := range ts {
		e.valType(t)
	}
}

func (e *encoder) limits(l Limits) {
	e.byte(l.Flags)
	e.u64(l.Min)
	if l.HasMax() {
		e.u64(l.Max)
	}
}

func (e *encoder) globalType(g GlobalType) {
	e.valType(g.Type)
	if g.Mutable {
		e.byte(1)
	} else {
		e.byte(0)
	}
}

func (e *encoder) section(m *Module, id byte) {
	e.byte(id)
	start := e.open()
	switch id {
	case SectionType:
		e.len(len(m.Types))
		for _, t := range m.Types {
			e.byte(0x60)
			e.valTypes(t.Params)
			e.valTypes(t.Results)
		}
	case SectionImport:
		e.len(len(m.Imports))
		for i := range m.Imports {
			im := &m.Imports[i]
			e.name(im.Module)
			e.name(im.Name)
			e.byte(im.Kind)
			switch im.Kind {
			case ExternFunc:
				e.u32(im.Index)
			case ExternTable:
				e.valType(im.Table.Elem)
				e.limits(im.Table.Limits)
			case ExternMemory:
				e.limits(im.Memory)
			case ExternGlobal:
				e.globalType(im.Global)
			case ExternTag:
				e.byte(0)
				e.u32(im.Index)
			}
		}
	case SectionFunction:
		e.len(len(m.Funcs))
		for _, f := range m.Funcs {
			e.u32(f)
		}
	case SectionTable:
		e.len(len(m.Tables))
		for i := range m.Tables {
			t := &m.Tables[i]
			if t.HasInit {
				e.byte(0x40)
				e.byte(0)
			}
			e.valType(t.Type.Elem)
			e.limits(t.Type.Limits)
			if t.HasInit {
				e.expr(&t.Init)
			}
		}
	case SectionMemory:
		e.len(len(m.Memories))
		for _, l := range m.Memories {
			e.limits(l)
		}
	case SectionTag:
		e.len(len(m.Tags))
		for _, t := range m.Tags {
			e.byte(t.Attr)
			e.u32(t.Type)
		}
	case SectionGlobal:
		e.len(len(m.Globals))
		for i := range m.Globals {
			e.globalType(m.Globals[i].Type)
			e.expr(&m.Globals[i].Init)
		}
	case SectionExport:
		e.len(len(m.Exports))
		for _, x := range m.Exports {
			e.name(x.Name)
			e.byte(x.Kind)
			e.u32(x.Index)
		}
	case SectionStart:
		if m.Start != nil {
			e.u32(*m.Start)
		}
	case SectionElement:
		e.len(len(m.Elems))
		for i := range m.Elems {
			e.elem(&m.Elems[i])
		}
	case SectionDataCount:
		if m.DataCount != nil {
			e.u32(*m.DataCount)
		}
	case SectionCode:
		e.len(len(m.Code))
		for i := range m.Code {
			e.code(&m.Code[i])
		}
	case SectionData:
		e.len(len(m.Data))
		for i := range m.Data {
			d := &m.Data[i]
			e.u32(d.Flags)
			switch d.Flags {
			case 0:
				e.expr(&d.Offset)
			case 2:
				e.u32(d.Memory)
				e.expr(&d.Offset)
			}
			e.len(len(d.Init))
			e.buf = append(e.buf, d.Init...)
		}
	}
	e.close(start)
}

func (e *encoder) elem(s *Elem) {
	e.u32(s.Flags)
	if s.Flags&2 != 0 && s.Flags&1 == 0 {
		e.u32(s.Table)
	}
	if s.Flags&1 == 0 {
		e.expr(&s.Offset)
	}
	if s.Flags&4 == 0 {
		if s.Flags&3 != 0 {
			e.byte(s.Kind)
		}
		e.len(len(s.Funcs))
		for _, f := range s.Funcs {
			e.u32(f)
		}
		return
	}
	if s.Flags&3 != 0 {
		e.valType(s.Type)
	}
	e.len(len(s.Exprs))
	for i := range s.Exprs {
		e.expr(&s.Exprs[i])
	}
}

func (e *encoder) code(c *Code) {
	if c.raw != nil {
		e.len(len(c.raw))
		e.buf = append(e.buf, c.raw...)
		return
	}
	start := e.open()
	e.len(len(c.Locals))
	for _, l := range c.Locals {
		e.u32(l.Count)
		e.valType(l.Type)
	}
	e.expr(&c.Body)
	e.close(start)
}

func (e *encoder) expr(x *Expr) {
	for i := range x.Instrs {
		in := &x.Instrs[i]
		if in.Op == opRaw {
			e.buf = append(e.buf, e.src[in.A:in.B]...)
			continue
		}
		e.instr(x, in)
	}
}

func (e *encoder) blockType(in *Instr) {
	switch {
	case in.C == 0:
		e.s64(int64(in.A))
	case byte(in.C) == RefNull || byte(in.C) == Ref:
		e.byte(byte(in.C))
		e.s64(int64(in.A))
	default:
		e.byte(byte(in.C))
	}
}

func (e *encoder) instr(x *Expr, in *Instr) {
	op := in.Op
	if op < 0x100 {
		e.buf = append(e.buf, byte(op))
	} else {
		e.buf = append(e.buf, byte(op>>8))
		e.u32(uint32(op & 0xff))
	}
	switch opinfo(op).imm {
	case immBlock:
		e.blockType(in)
	case immLabel, immIndex:
		e.u32(uint32(in.A))
	case immTwoIndex:
		e.u32(uint32(in.A))
		e.u32(uint32(in.B))
	case immBrTable:
		labels := x.Pool[in.A : in.A+in.B]
		e.len(len(labels) - 1)
		for _, l := range labels {
			e.u32(uint32(l))
		}
	case immSelectT:
		e.len(int(in.B))
		p := x.Pool[in.A : in.A+2*in.B]
		for i := 0; i < len(p); i += 2 {
			e.valType(ValType{Code: byte(p[i]), Heap: int64(p[i+1])})
		}
	case immTryTable:
		e.blockType(in)
		start, n := in.B&0xffffffff, in.B>>32
		e.u32(uint32(n))
		p := x.Pool[start : start+3*n]
		for i := 0; i < len(p); i += 3 {
			e.byte(byte(p[i]))
			if p[i] < 2 {
				e.u32(uint32(p[i+1]))
			}
			e.u32(uint32(p[i+2]))
		}
	case immMemarg, immMemargLane:
		e.u32(uint32(in.B))
		if in.B&0x40 != 0 {
			e.u32(in.C)
		}
		e.u64(in.A)
		if opinfo(op).imm == immMemargLane {
			e.byte(byte(in.B >> 32))
		}
	case immI32:
		e.s64(int64(int32(in.A)))
	case immI64:
		e.s64(int64(in.A))
	case immF32:
		v := uint32(in.A)
		e.buf = append(e.buf, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	case immF64:
		e.buf = appendLE64(e.buf, in.A)
	case immHeap:
		e.s64(int64(in.A))
	case immV128:
		e.buf = appendLE64(e.buf, in.A)
		e.buf = appendLE64(e.buf, in.B)
	case immLane, immByte:
		e.byte(byte(in.A))
	}
}

func appendLE64(b []byte, v uint64) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24), byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
}
