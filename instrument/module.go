package instrument

import "iter"

// Section ids of the binary format (spec 5.5.2).
const (
	SectionCustom    = 0
	SectionType      = 1
	SectionImport    = 2
	SectionFunction  = 3
	SectionTable     = 4
	SectionMemory    = 5
	SectionGlobal    = 6
	SectionExport    = 7
	SectionStart     = 8
	SectionElement   = 9
	SectionCode      = 10
	SectionData      = 11
	SectionDataCount = 12
	SectionTag       = 13 // exception handling
)

// sectionOrder is the order in which non-custom sections must appear; the
// tag section sits between memory and global.
var sectionOrder = [...]byte{
	SectionType, SectionImport, SectionFunction, SectionTable, SectionMemory,
	SectionTag, SectionGlobal, SectionExport, SectionStart, SectionElement,
	SectionDataCount, SectionCode, SectionData,
}

func sectionRank(id byte) int {
	for i, s := range sectionOrder {
		if s == id {
			return i + 1
		}
	}
	return 0
}

var sectionNames = [...]string{
	"custom", "type", "import", "function", "table", "memory", "global",
	"export", "start", "element", "code", "data", "data count", "tag",
}

func sectionName(id byte) string {
	if int(id) < len(sectionNames) {
		return sectionNames[id]
	}
	return "unknown"
}

// Value type codes (spec 5.3). RefNull and Ref are the typed function
// references forms `(ref null ht)` and `(ref ht)`, followed by a heap type.
const (
	I32     byte = 0x7f
	I64     byte = 0x7e
	F32     byte = 0x7d
	F64     byte = 0x7c
	V128    byte = 0x7b
	FuncRef byte = 0x70
	ExtRef  byte = 0x6f
	ExnRef  byte = 0x69
	RefNull byte = 0x63
	Ref     byte = 0x64
)

// Abstract heap types as s33 values.
const (
	HeapFunc   int64 = -0x10 // 0x70
	HeapExtern int64 = -0x11 // 0x6f
	HeapExn    int64 = -0x17 // 0x69
)

// ValType is a value type. Heap is the heap type (s33: a type index >= 0 or
// an abstract heap type < 0) and is only meaningful when Code is RefNull or
// Ref. The zero value is not a valid type.
type ValType struct {
	Code byte
	Heap int64
}

// Convenience value types.
var (
	TI32  = ValType{Code: I32}
	TI64  = ValType{Code: I64}
	TF32  = ValType{Code: F32}
	TF64  = ValType{Code: F64}
	TV128 = ValType{Code: V128}
)

// FuncType is a function signature.
type FuncType struct {
	Params, Results []ValType
}

// Limits of a table or memory. Flags is the encoded flag byte: bit 0 "has
// maximum", bit 1 "shared" (threads). Min and Max are in elements or pages.
type Limits struct {
	Flags byte
	Min   uint64
	Max   uint64
}

// HasMax reports whether the limits carry a maximum.
func (l Limits) HasMax() bool { return l.Flags&1 != 0 }

// TableType is a table's element type and limits.
type TableType struct {
	Elem   ValType
	Limits Limits
}

// Table is an entry of the table section. HasInit marks the typed function
// references form `0x40 0x00 tabletype expr`.
type Table struct {
	Type    TableType
	HasInit bool
	Init    Expr
}

// GlobalType is a global's value type and mutability.
type GlobalType struct {
	Type    ValType
	Mutable bool
}

// Global is an entry of the global section.
type Global struct {
	Type GlobalType
	Init Expr
}

// External kinds of imports and exports.
const (
	ExternFunc   byte = 0
	ExternTable  byte = 1
	ExternMemory byte = 2
	ExternGlobal byte = 3
	ExternTag    byte = 4
)

// Import is an entry of the import section. Which of the typed fields is
// meaningful depends on Kind: Index is the type index of a function or tag.
type Import struct {
	Module, Name string
	Kind         byte
	Index        uint32
	Table        TableType
	Memory       Limits
	Global       GlobalType
}

// Export is an entry of the export section.
type Export struct {
	Name  string
	Kind  byte
	Index uint32
}

// Elem is an element segment (spec 5.5.12). Flags is the segment's encoded
// form (0..7); Funcs holds function indices for forms 0-3, Exprs the
// initialiser expressions for forms 4-7.
type Elem struct {
	Flags  uint32
	Table  uint32
	Offset Expr
	Kind   byte    // elemkind (forms 1-3)
	Type   ValType // reftype (forms 5-7)
	Funcs  []uint32
	Exprs  []Expr
}

// Data is a data segment (spec 5.5.14). Flags 0: active in memory 0,
// 1: passive, 2: active in memory Memory.
type Data struct {
	Flags  uint32
	Memory uint32
	Offset Expr
	Init   []byte
}

// Tag is an exception tag (exception handling): attribute 0 and the type.
type Tag struct {
	Attr byte
	Type uint32
}

// LocalDecl is a run of Count locals of one type.
type LocalDecl struct {
	Count uint32
	Type  ValType
}

// Expr is a decoded instruction sequence: a constant expression or a
// function body, including its final `end`. Pool holds the variable-length
// immediates (br_table labels, typed select types, try_table catches) that
// instructions reference by position; see Instr.
type Expr struct {
	Instrs []Instr
	Pool   []uint64
}

// All iterates over the instructions with their index.
func (e *Expr) All() iter.Seq2[int, *Instr] {
	return func(yield func(int, *Instr) bool) {
		for i := range e.Instrs {
			if !yield(i, &e.Instrs[i]) {
				return
			}
		}
	}
}

// Labels returns the label list of a br_table instruction (the default
// label last). The slice aliases e.Pool.
func (e *Expr) Labels(in *Instr) []uint64 { return e.Pool[in.A : in.A+in.B] }

// Code is a function body from the code section.
type Code struct {
	Locals []LocalDecl
	Body   Expr
	// Offset is the absolute file offset of the body's size field, Size the
	// body's length in bytes (0 for a body built in memory).
	Offset, Size uint32

	// raw, when set (by Instrument), is the already encoded body
	// (locals and instructions) that Encode writes instead of Locals/Body.
	raw []byte
}

// Custom is a custom section, kept byte-exact. After is the id of the
// last non-custom section before it (0: before every other section), which
// is where Encode puts it back.
type Custom struct {
	Name    string
	Payload []byte // the whole section content, name included
	After   byte
	Offset  uint32 // absolute file offset of the content
}

// Data returns the custom section's bytes after its name.
func (c *Custom) Data() []byte {
	return c.Payload[len(c.Payload)-c.dataLen():]
}

func (c *Custom) dataLen() int {
	n := len(c.Name)
	// the name is preceded by its LEB128 length
	l := 1
	for v := n >> 7; v > 0; v >>= 7 {
		l++
	}
	if len(c.Payload) < l+n {
		return 0
	}
	return len(c.Payload) - l - n
}

// Module is a decoded WebAssembly module. Each field is one section; the
// zero value encodes to an empty module. Present records sections that were
// in the input even when empty, so they round-trip.
type Module struct {
	Types     []FuncType
	Imports   []Import
	Funcs     []uint32 // type index of each defined function
	Tables    []Table
	Memories  []Limits
	Tags      []Tag
	Globals   []Global
	Exports   []Export
	Start     *uint32
	Elems     []Elem
	DataCount *uint32
	Code      []Code
	Data      []Data
	Customs   []Custom

	// Present is a bit set of section ids (1<<id) found in the input.
	Present uint16
	// CodeOffset is the absolute file offset of the code section's content
	// (DWARF addresses are relative to it); 0 when there is none.
	CodeOffset uint32
}

// NumImported returns how many imports of the given kind the module has.
func (m *Module) NumImported(kind byte) uint32 {
	var n uint32
	for i := range m.Imports {
		if m.Imports[i].Kind == kind {
			n++
		}
	}
	return n
}

// FuncTypeOf returns the type index of function idx (imports first), and
// false when idx is out of range.
func (m *Module) FuncTypeOf(idx uint32) (uint32, bool) {
	for i := range m.Imports {
		if m.Imports[i].Kind == ExternFunc {
			if idx == 0 {
				return m.Imports[i].Index, true
			}
			idx--
		}
	}
	if int64(idx) < int64(len(m.Funcs)) {
		return m.Funcs[idx], true
	}
	return 0, false
}

// Functions iterates over the defined functions: their function index
// (imports counted) and body.
func (m *Module) Functions() iter.Seq2[uint32, *Code] {
	return func(yield func(uint32, *Code) bool) {
		base := m.NumImported(ExternFunc)
		for i := range m.Code {
			if !yield(base+uint32(i), &m.Code[i]) {
				return
			}
		}
	}
}
