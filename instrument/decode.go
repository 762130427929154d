package instrument

import (
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/wafer-fuzz/wafer/instrument/internal/leb128"
)

// Magic and version of a core module (spec 5.5.16).
var (
	wasmMagic   = [4]byte{0x00, 0x61, 0x73, 0x6d}
	wasmVersion = [4]byte{0x01, 0x00, 0x00, 0x00}
)

// reader is a cursor over the module with a sticky error: after the first
// error every read returns zero values and the loops below stop on r.err.
type reader struct {
	buf []byte
	pos int
	end int // limit of the current section or body
	sec string
	err *FormatError
	// arena holds decoded instructions of all bodies (see instrs).
	arena []Instr
	// usesDataIdx: a body uses memory.init or data.drop.
	usesDataIdx bool
	// skipBodies: the code section's bodies are stepped over by their
	// size, not decoded (Summarize).
	skipBodies bool
}

func (r *reader) failAt(off int, format string, args ...any) {
	if r.err == nil {
		r.err = &FormatError{Section: r.sec, Offset: off, Msg: fmt.Sprintf(format, args...)}
	}
	r.pos = r.end
}

func (r *reader) failErr(off int, err error, format string, args ...any) {
	if r.err == nil {
		r.err = &FormatError{Section: r.sec, Offset: off, Msg: fmt.Sprintf(format, args...), Err: err}
	}
	r.pos = r.end
}

func (r *reader) left() int { return r.end - r.pos }

func (r *reader) byte() byte {
	if r.pos >= r.end {
		r.failAt(r.pos, "unexpected end: expected 1 more byte")
		return 0
	}
	b := r.buf[r.pos]
	r.pos++
	return b
}

func (r *reader) peek() (byte, bool) {
	if r.pos >= r.end || r.err != nil {
		return 0, false
	}
	return r.buf[r.pos], true
}

func (r *reader) bytes(n uint32, what string) []byte {
	if uint64(n) > uint64(r.left()) {
		r.failAt(r.pos, "unexpected end: expected %d bytes of %s, got %d", n, what, r.left())
		return nil
	}
	b := r.buf[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b
}

func (r *reader) lebErr(start int, err error, what string) {
	if errors.Is(err, leb128.ErrTruncated) {
		r.failErr(start, err, "unexpected end of %s", what)
		return
	}
	r.failErr(start, err, "bad LEB128 %s: %v", what, err)
}

func (r *reader) u32(what string) uint32 {
	if r.err != nil {
		return 0
	}
	v, n, err := leb128.Uint32(r.buf[r.pos:r.end])
	if err != nil {
		r.lebErr(r.pos, err, what)
		return 0
	}
	r.pos += n
	return v
}

func (r *reader) u64(what string) uint64 {
	if r.err != nil {
		return 0
	}
	v, n, err := leb128.Uint64(r.buf[r.pos:r.end])
	if err != nil {
		r.lebErr(r.pos, err, what)
		return 0
	}
	r.pos += n
	return v
}

func (r *reader) s32(what string) int32 {
	if r.err != nil {
		return 0
	}
	v, n, err := leb128.Int32(r.buf[r.pos:r.end])
	if err != nil {
		r.lebErr(r.pos, err, what)
		return 0
	}
	r.pos += n
	return v
}

func (r *reader) s33(what string) int64 {
	if r.err != nil {
		return 0
	}
	v, n, err := leb128.Int33(r.buf[r.pos:r.end])
	if err != nil {
		r.lebErr(r.pos, err, what)
		return 0
	}
	r.pos += n
	return v
}

func (r *reader) s64(what string) int64 {
	if r.err != nil {
		return 0
	}
	v, n, err := leb128.Int64(r.buf[r.pos:r.end])
	if err != nil {
		r.lebErr(r.pos, err, what)
		return 0
	}
	r.pos += n
	return v
}

func (r *reader) name(what string) string {
	start := r.pos
	n := r.u32(what + " length")
	b := r.bytes(n, what)
	if r.err != nil {
		return ""
	}
	if !utf8.Valid(b) {
		r.failAt(start, "%s is not valid UTF-8", what)
		return ""
	}
	return string(b)
}

// count reads a vector length and checks that at least min bytes per
// element remain, so the caller may size an allocation by it.
func (r *reader) count(what string, min int) uint32 {
	start := r.pos
	n := r.u32(what + " count")
	if r.err != nil {
		return 0
	}
	if uint64(n)*uint64(min) > uint64(r.left()) {
		r.failAt(start, "%s count %d exceeds the %d bytes left", what, n, r.left())
		return 0
	}
	return n
}

func (r *reader) valType(what string) ValType {
	start := r.pos
	b := r.byte()
	switch b {
	case I32, I64, F32, F64, V128, FuncRef, ExtRef, ExnRef:
		return ValType{Code: b}
	case RefNull, Ref:
		return ValType{Code: b, Heap: r.heapType()}
	}
	if r.err == nil {
		r.failAt(start, "expected %s, got 0x%02x", what, b)
	}
	return ValType{}
}

func (r *reader) heapType() int64 {
	start := r.pos
	h := r.s33("heap type")
	if h < 0 && h != HeapFunc && h != HeapExtern && h != HeapExn && r.err == nil {
		r.failAt(start, "expected heap type, got %d", h)
	}
	return h
}

func (r *reader) limits(memory bool) Limits {
	start := r.pos
	flags := r.byte()
	if flags > 3 {
		if memory && flags <= 7 {
			r.failErr(start, ErrUnsupported, "memory64 limits (flags 0x%02x) are not supported", flags)
		} else if r.err == nil {
			r.failAt(start, "expected limits flags 0x00-0x03, got 0x%02x", flags)
		}
		return Limits{}
	}
	l := Limits{Flags: flags}
	l.Min = uint64(r.u32("limits minimum"))
	if flags&1 != 0 {
		l.Max = uint64(r.u32("limits maximum"))
	}
	return l
}

func (r *reader) refType() ValType {
	off := r.pos
	t := r.valType("reference type")
	switch t.Code {
	case FuncRef, ExtRef, ExnRef, RefNull, Ref:
	default:
		if r.err == nil {
			r.failAt(off, "malformed reference type: got 0x%02x", t.Code)
		}
	}
	return t
}

func (r *reader) tableType() TableType {
	var t TableType
	t.Elem = r.refType()
	t.Limits = r.limits(false)
	return t
}

func (r *reader) globalType() GlobalType {
	var g GlobalType
	g.Type = r.valType("value type")
	start := r.pos
	m := r.byte()
	if m > 1 && r.err == nil {
		r.failAt(start, "expected mutability 0x00 or 0x01, got 0x%02x", m)
	}
	g.Mutable = m == 1
	return g
}

// Decode parses a binary module (spec chapter 5). Custom sections are kept
// byte-exact with their position; function bodies and constant expressions
// are decoded instruction by instruction. Decode does not validate types:
// wazero does that on the output. It never panics; malformed input yields a
// *FormatError.
//
// Decode reads the header, then each section's id and size, and hands the
// section's bytes to the function for its id (typeSection, importSection,
// ...); checkCounts compares the sections' counts at the end.
func Decode(wasm []byte) (*Module, error) {
	return decode(&reader{buf: wasm, end: len(wasm)})
}

// decode is Decode with the reader's mode (skipBodies).
func decode(r *reader) (*Module, error) {
	countScan()
	wasm := r.buf
	if err := header(wasm); err != nil {
		return nil, err
	}
	r.pos = 8
	m := &Module{}
	var last byte // last non-custom section id
	lastRank := 0
	funcCount := -1
	for r.pos < len(wasm) && r.err == nil {
		r.end = len(wasm)
		r.sec = ""
		idStart := r.pos
		id := r.byte()
		r.sec = sectionName(id)
		if id > SectionTag {
			r.sec = ""
			r.failAt(idStart, "expected section id 0-13, got %d", id)
			break
		}
		size := r.u32("section size")
		if r.err != nil {
			break
		}
		if uint64(size) > uint64(len(wasm)-r.pos) {
			r.failAt(idStart+1, "section size %d exceeds the %d bytes left", size, len(wasm)-r.pos)
			break
		}
		start := r.pos
		r.end = start + int(size)
		if id != SectionCustom {
			rank := sectionRank(id)
			if rank <= lastRank {
				r.failAt(idStart, "section out of order: %s after %s", sectionName(id), sectionName(last))
				break
			}
			lastRank = rank
			last = id
			m.Present |= 1 << id
		}
		switch id {
		case SectionCustom:
			r.customSection(m, start, last)
		case SectionType:
			r.typeSection(m)
		case SectionImport:
			r.importSection(m)
		case SectionFunction:
			funcCount = r.functionSection(m)
		case SectionTable:
			r.tableSection(m)
		case SectionMemory:
			r.memorySection(m)
		case SectionTag:
			r.tagSection(m)
		case SectionGlobal:
			r.globalSection(m)
		case SectionExport:
			r.exportSection(m)
		case SectionStart:
			r.startSection(m)
		case SectionElement:
			r.elementSection(m)
		case SectionDataCount:
			r.dataCountSection(m)
		case SectionCode:
			r.codeSection(m, start, funcCount)
		case SectionData:
			r.dataSection(m)
		}
		if r.err == nil && r.pos != r.end {
			r.failAt(r.pos, "section size mismatch: expected end at %#x, got %#x", r.end, r.pos)
		}
	}
	r.checkCounts(m, funcCount)
	if r.err != nil {
		return nil, r.err
	}
	return m, nil
}

// header checks the magic number and the version.
func header(wasm []byte) error {
	if len(wasm) < 8 {
		if len(wasm) >= 4 && [4]byte(wasm[:4]) != wasmMagic {
			return &FormatError{Offset: 0, Msg: fmt.Sprintf("bad magic: expected 00 61 73 6d, got % x", wasm[:4])}
		}
		return &FormatError{Offset: len(wasm), Msg: fmt.Sprintf("unexpected end: expected 8-byte header, got %d bytes", len(wasm))}
	}
	if [4]byte(wasm[:4]) != wasmMagic {
		return &FormatError{Offset: 0, Msg: fmt.Sprintf("bad magic: expected 00 61 73 6d, got % x", wasm[:4])}
	}
	if [4]byte(wasm[4:8]) != wasmVersion {
		return &FormatError{Offset: 4, Msg: fmt.Sprintf("bad version: expected 01 00 00 00, got % x", wasm[4:8])}
	}
	return nil
}

// customSection keeps a custom section byte-exact: its payload starts at
// start, after the last non-custom section, last.
func (r *reader) customSection(m *Module, start int, last byte) {
	name := r.name("custom section name")
	if r.err != nil {
		return
	}
	m.Customs = append(m.Customs, Custom{Name: name, Payload: r.buf[start:r.end], After: last, Offset: uint32(start)})
	r.pos = r.end
}

// typeSection reads function types; GC types are ErrUnsupported.
func (r *reader) typeSection(m *Module) {
	n := r.count("type", 3)
	m.Types = make([]FuncType, 0, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		off := r.pos
		if b := r.byte(); b != 0x60 && r.err == nil {
			switch b {
			case 0x4e, 0x4f, 0x50, 0x5e, 0x5f: // rec, sub, sub final, array, struct
				r.failErr(off, ErrUnsupported, "GC type 0x%02x is not supported", b)
			default:
				r.failAt(off, "expected func type (0x60), got 0x%02x", b)
			}
		}
		var ft FuncType
		ft.Params = r.valTypes()
		ft.Results = r.valTypes()
		m.Types = append(m.Types, ft)
	}
}

func (r *reader) importSection(m *Module) {
	n := r.count("import", 4)
	m.Imports = make([]Import, 0, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		var im Import
		im.Module = r.name("import module name")
		im.Name = r.name("import name")
		off := r.pos
		im.Kind = r.byte()
		switch im.Kind {
		case ExternFunc:
			im.Index = r.u32("type index")
		case ExternTable:
			im.Table = r.tableType()
		case ExternMemory:
			im.Memory = r.limits(true)
		case ExternGlobal:
			im.Global = r.globalType()
		case ExternTag:
			if a := r.byte(); a != 0 && r.err == nil {
				r.failAt(off+1, "expected tag attribute 0x00, got 0x%02x", a)
			}
			im.Index = r.u32("type index")
		default:
			if r.err == nil {
				r.failAt(off, "expected import kind 0x00-0x04, got 0x%02x", im.Kind)
			}
		}
		m.Imports = append(m.Imports, im)
	}
}

// functionSection reads the defined functions' type indices and returns
// their count, which the code section must match.
func (r *reader) functionSection(m *Module) int {
	n := r.count("function", 1)
	m.Funcs = make([]uint32, 0, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		m.Funcs = append(m.Funcs, r.u32("type index"))
	}
	return int(n)
}

// tableSection reads tables, with the typed function references form
// `0x40 0x00 tabletype expr` of a table with an initialiser.
func (r *reader) tableSection(m *Module) {
	n := r.count("table", 3)
	m.Tables = make([]Table, 0, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		var t Table
		if b, _ := r.peek(); b == 0x40 {
			r.pos++
			off := r.pos
			if z := r.byte(); z != 0 && r.err == nil {
				r.failAt(off, "expected 0x00 after table initialiser marker 0x40, got 0x%02x", z)
			}
			t.HasInit = true
			t.Type = r.tableType()
			r.expr(&t.Init)
		} else {
			t.Type = r.tableType()
		}
		m.Tables = append(m.Tables, t)
	}
}

func (r *reader) memorySection(m *Module) {
	n := r.count("memory", 2)
	m.Memories = make([]Limits, 0, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		m.Memories = append(m.Memories, r.limits(true))
	}
}

func (r *reader) tagSection(m *Module) {
	n := r.count("tag", 2)
	m.Tags = make([]Tag, 0, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		off := r.pos
		a := r.byte()
		if a != 0 && r.err == nil {
			r.failAt(off, "expected tag attribute 0x00, got 0x%02x", a)
		}
		m.Tags = append(m.Tags, Tag{Attr: a, Type: r.u32("type index")})
	}
}

func (r *reader) globalSection(m *Module) {
	n := r.count("global", 3)
	m.Globals = make([]Global, 0, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		var g Global
		g.Type = r.globalType()
		r.expr(&g.Init)
		m.Globals = append(m.Globals, g)
	}
}

func (r *reader) exportSection(m *Module) {
	n := r.count("export", 3)
	m.Exports = make([]Export, 0, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		var e Export
		e.Name = r.name("export name")
		off := r.pos
		e.Kind = r.byte()
		if e.Kind > ExternTag && r.err == nil {
			r.failAt(off, "expected export kind 0x00-0x04, got 0x%02x", e.Kind)
		}
		e.Index = r.u32("export index")
		m.Exports = append(m.Exports, e)
	}
}

func (r *reader) startSection(m *Module) {
	s := r.u32("start function index")
	m.Start = &s
}

func (r *reader) elementSection(m *Module) {
	n := r.count("element segment", 2)
	m.Elems = make([]Elem, 0, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		m.Elems = append(m.Elems, r.elem())
	}
}

func (r *reader) dataCountSection(m *Module) {
	c := r.u32("data count")
	m.DataCount = &c
}

// codeSection reads the function bodies, as many as the function section
// declared (funcCount; -1 when there was none). start is the section's
// content offset, to which DWARF addresses are relative.
func (r *reader) codeSection(m *Module, start, funcCount int) {
	m.CodeOffset = uint32(start)
	n := r.count("function body", 2)
	if funcCount < 0 && n > 0 || funcCount >= 0 && int(n) != funcCount {
		if funcCount < 0 {
			funcCount = 0
		}
		r.failAt(start, "function and code section have inconsistent lengths: expected %d bodies, got %d", funcCount, n)
		return
	}
	if r.skipBodies {
		for i := uint32(0); i < n && r.err == nil; i++ {
			off := r.pos
			size := r.u32("function body size")
			switch {
			case r.err != nil:
			case uint64(size) > uint64(r.left()):
				r.failAt(off, "function body size %d exceeds the %d bytes left", size, r.left())
			default:
				r.pos += int(size)
			}
		}
		return
	}
	m.Code = make([]Code, n)
	for i := range m.Code {
		if r.err != nil {
			break
		}
		r.code(&m.Code[i])
	}
}

func (r *reader) dataSection(m *Module) {
	n := r.count("data segment", 2)
	m.Data = make([]Data, 0, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		m.Data = append(m.Data, r.data())
	}
}

// checkCounts checks, after the last section, what sections must agree
// on: the data count with the data segments (and its presence where code
// uses data indices), and the function section with the code section.
func (r *reader) checkCounts(m *Module, funcCount int) {
	if r.err == nil && m.DataCount != nil && uint64(*m.DataCount) != uint64(len(m.Data)) {
		r.sec = "data"
		r.failAt(len(r.buf), "data count and data section have inconsistent lengths: expected %d segments, got %d", *m.DataCount, len(m.Data))
	}
	if r.err == nil && m.DataCount == nil && r.usesDataIdx {
		r.sec = "code"
		r.failAt(int(m.CodeOffset), "data count section required by memory.init/data.drop")
	}
	if r.err == nil && funcCount > 0 && m.Present&(1<<SectionCode) == 0 {
		r.sec = "code"
		r.failAt(len(r.buf), "function and code section have inconsistent lengths: expected %d bodies, got 0", funcCount)
	}
}

func (r *reader) valTypes() []ValType {
	n := r.count("value type", 1)
	if n == 0 {
		return nil
	}
	ts := make([]ValType, 0, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		ts = append(ts, r.valType("value type"))
	}
	return ts
}

func (r *reader) elem() Elem {
	var e Elem
	off := r.pos
	e.Flags = r.u32("element segment flags")
	if e.Flags > 7 {
		if r.err == nil {
			r.failAt(off, "expected element segment flags 0-7, got %d", e.Flags)
		}
		return e
	}
	if e.Flags&2 != 0 && e.Flags&1 == 0 { // 2, 6: explicit table
		e.Table = r.u32("table index")
	}
	if e.Flags&1 == 0 { // active
		r.expr(&e.Offset)
	}
	if e.Flags&4 == 0 {
		if e.Flags&3 != 0 {
			koff := r.pos
			e.Kind = r.byte()
			if e.Kind != 0 && r.err == nil {
				r.failAt(koff, "expected element kind 0x00, got 0x%02x", e.Kind)
			}
		}
		n := r.count("element", 1)
		e.Funcs = make([]uint32, 0, n)
		for i := uint32(0); i < n && r.err == nil; i++ {
			e.Funcs = append(e.Funcs, r.u32("function index"))
		}
	} else {
		if e.Flags&3 != 0 {
			e.Type = r.refType()
		}
		n := r.count("element", 2)
		e.Exprs = make([]Expr, n)
		for i := range e.Exprs {
			if r.err != nil {
				break
			}
			r.expr(&e.Exprs[i])
		}
	}
	return e
}

func (r *reader) data() Data {
	var d Data
	off := r.pos
	d.Flags = r.u32("data segment flags")
	switch d.Flags {
	case 0:
		r.expr(&d.Offset)
	case 1:
	case 2:
		d.Memory = r.u32("memory index")
		r.expr(&d.Offset)
	default:
		if r.err == nil {
			r.failAt(off, "expected data segment flags 0-2, got %d", d.Flags)
		}
		return d
	}
	n := r.u32("data length")
	d.Init = r.bytes(n, "data")
	return d
}

func (r *reader) code(c *Code) {
	c.Offset = uint32(r.pos)
	size := r.u32("function body size")
	if r.err != nil {
		return
	}
	if uint64(size) > uint64(r.left()) {
		r.failAt(int(c.Offset), "function body size %d exceeds the %d bytes left", size, r.left())
		return
	}
	c.Size = size
	secEnd := r.end
	r.end = r.pos + int(size)
	n := r.count("local declaration", 2)
	if n > 0 {
		c.Locals = make([]LocalDecl, 0, n)
	}
	var total uint64
	for i := uint32(0); i < n && r.err == nil; i++ {
		off := r.pos
		cnt := r.u32("local count")
		total += uint64(cnt)
		if total > math.MaxUint32 && r.err == nil {
			r.failAt(off, "too many locals: %d", total)
		}
		c.Locals = append(c.Locals, LocalDecl{Count: cnt, Type: r.valType("value type")})
	}
	r.body(&c.Body)
	if r.err == nil && r.pos != r.end {
		r.failAt(r.pos, "function body size mismatch: expected end at %#x, got %#x", r.end, r.pos)
	}
	r.end = secEnd
}

// expr decodes a constant expression up to and including its `end`.
func (r *reader) expr(e *Expr) { r.instrs(e) }

// body decodes a function body's instructions.
func (r *reader) body(e *Expr) { r.instrs(e) }

// arenaChunk is the number of instructions allocated at a time: bodies
// share chunks, so decoding does one allocation per ~arenaChunk
// instructions rather than one per function.
const arenaChunk = 1 << 15

// constChunk is arenaChunk when the bodies are skipped: the constant
// expressions left are a few instructions each.
const constChunk = 1 << 8

// instrs decodes instructions until the `end` that closes depth 0, into the
// reader's arena; e.Instrs gets a full-capacity slice of it.
func (r *reader) instrs(e *Expr) {
	start := len(r.arena)
	depth := 0
	for r.err == nil {
		if r.pos >= r.end {
			r.failAt(r.pos, "unexpected end: expected end (0x0b)")
			return
		}
		in := r.instr(e)
		if r.err != nil {
			return
		}
		if len(r.arena) == cap(r.arena) {
			n := len(r.arena) - start
			// never more than one instruction per byte left in the file
			chunkLen := arenaChunk
			if r.skipBodies {
				chunkLen = constChunk
			}
			c := max(2*n+16, min(chunkLen, len(r.buf)-r.pos+n+1))
			chunk := make([]Instr, n, c)
			copy(chunk, r.arena[start:])
			r.arena = chunk
			start = 0
		}
		r.arena = append(r.arena, in)
		switch in.Op {
		case OpBlock, OpLoop, OpIf, OpTry, OpTryTable:
			depth++
		case OpEnd:
			if depth == 0 {
				e.Instrs = r.arena[start:len(r.arena):len(r.arena)]
				return
			}
			depth--
		case OpDelegate:
			if depth == 0 {
				r.failAt(int(in.Off), "delegate outside a try block")
				return
			}
			depth--
		}
	}
}

func (r *reader) instr(e *Expr) Instr {
	off := r.pos
	in := Instr{Off: uint32(off)}
	b := r.byte()
	op := Op(b)
	if b >= 0xfc && b <= 0xfe {
		sub := r.u32("opcode")
		if sub > 0xff {
			r.failAt(off, "unknown opcode 0x%02x 0x%x", b, sub)
			return in
		}
		op = Op(b)<<8 | Op(sub)
	}
	in.Op = op
	info := opinfo(op)
	switch info.imm {
	case immInvalid:
		if r.err == nil {
			if op > 0xff {
				r.failAt(off, "unknown opcode 0x%02x 0x%02x", op>>8, op&0xff)
			} else {
				r.failAt(off, "unknown opcode 0x%02x", b)
			}
		}
	case immNone:
	case immBlock:
		r.blockType(&in)
	case immLabel, immIndex:
		if op == OpDataDrop {
			r.usesDataIdx = true
		}
		if op == OpMemorySize || op == OpMemoryGrow || op == OpMemoryFill {
			in.A = uint64(r.zeroByte())
			break
		}
		in.A = uint64(r.u32("index"))
	case immTwoIndex:
		switch op {
		case OpMemoryCopy:
			in.A = uint64(r.zeroByte())
			in.B = uint64(r.zeroByte())
		case OpMemoryInit:
			r.usesDataIdx = true
			in.A = uint64(r.u32("index"))
			in.B = uint64(r.zeroByte())
		default:
			in.A = uint64(r.u32("index"))
			in.B = uint64(r.u32("index"))
		}
	case immBrTable:
		n := r.count("br_table label", 1)
		in.A = uint64(len(e.Pool))
		for i := uint32(0); i < n && r.err == nil; i++ {
			e.Pool = append(e.Pool, uint64(r.u32("label")))
		}
		e.Pool = append(e.Pool, uint64(r.u32("default label")))
		in.B = uint64(n) + 1
	case immSelectT:
		n := r.count("select type", 1)
		in.A = uint64(len(e.Pool))
		for i := uint32(0); i < n && r.err == nil; i++ {
			t := r.valType("value type")
			e.Pool = append(e.Pool, uint64(t.Code), uint64(t.Heap))
		}
		in.B = uint64(n)
	case immTryTable:
		r.blockType(&in)
		n := r.count("catch clause", 2)
		start := uint64(len(e.Pool))
		for i := uint32(0); i < n && r.err == nil; i++ {
			koff := r.pos
			k := r.byte()
			var tag uint32
			switch k {
			case 0, 1:
				tag = r.u32("tag index")
			case 2, 3:
			default:
				if r.err == nil {
					r.failAt(koff, "expected catch kind 0x00-0x03, got 0x%02x", k)
				}
			}
			e.Pool = append(e.Pool, uint64(k), uint64(tag), uint64(r.u32("label")))
		}
		in.B = start | uint64(n)<<32
	case immMemarg, immMemargLane:
		aoff := r.pos
		align := r.u32("alignment")
		in.B = uint64(align)
		if align >= 32 && r.err == nil {
			r.failErr(aoff, ErrUnsupported, "malformed memop flags: expected alignment exponent < 32 (no multi-memory), got %d", align)
		}
		in.A = uint64(r.u32("offset")) // memory64 is not supported
		if info.imm == immMemargLane {
			in.B |= uint64(r.byte()) << 32
		}
	case immI32:
		in.A = uint64(int64(r.s32("i32 constant")))
	case immI64:
		in.A = uint64(r.s64("i64 constant"))
	case immF32:
		if v := r.bytes(4, "f32 constant"); v != nil {
			in.A = uint64(v[0]) | uint64(v[1])<<8 | uint64(v[2])<<16 | uint64(v[3])<<24
		}
	case immF64:
		if v := r.bytes(8, "f64 constant"); v != nil {
			in.A = le64(v)
		}
	case immHeap:
		in.A = uint64(r.heapType())
	case immV128:
		if v := r.bytes(16, "v128 immediate"); v != nil {
			in.A = le64(v)
			in.B = le64(v[8:])
		}
	case immLane:
		in.A = uint64(r.byte())
	case immByte:
		in.A = uint64(r.zeroByte())
	}
	return in
}

// zeroByte reads the reserved memory index byte, which must be 0x00 (no
// multi-memory in wazero).
func (r *reader) zeroByte() byte {
	off := r.pos
	b := r.byte()
	if b != 0 && r.err == nil {
		r.failAt(off, "expected zero byte (0x00), got 0x%02x", b)
	}
	return b
}

func (r *reader) blockType(in *Instr) {
	b, ok := r.peek()
	if !ok {
		r.failAt(r.pos, "unexpected end: expected block type")
		return
	}
	switch b {
	case 0x40, I32, I64, F32, F64, V128, FuncRef, ExtRef, ExnRef:
		r.pos++
		in.C = uint32(b)
	case RefNull, Ref:
		r.pos++
		in.C = uint32(b)
		in.A = uint64(r.heapType())
	default:
		off := r.pos
		v := r.s33("block type")
		if v < 0 && r.err == nil {
			r.failAt(off, "expected block type, got 0x%02x", b)
		}
		in.A = uint64(v)
	}
}

func le64(v []byte) uint64 {
	return uint64(v[0]) | uint64(v[1])<<8 | uint64(v[2])<<16 | uint64(v[3])<<24 |
		uint64(v[4])<<32 | uint64(v[5])<<40 | uint64(v[6])<<48 | uint64(v[7])<<56
}
