package instrument

// Op is an opcode. Single-byte opcodes are their byte; prefixed opcodes
// (0xFC misc, 0xFD SIMD, 0xFE atomics) are prefix<<8 | sub-opcode.
type Op uint16

// Instr is one decoded instruction. Its immediates live in A, B and C, with
// a meaning fixed by the opcode's immediate kind:
//
//	block, loop, if, try:       C block type code (0x40 empty, a value type code, or 0 for a type index), A type index / heap type
//	br, br_if, br_on_*, rethrow, delegate: A label depth
//	br_table:                   A start in Expr.Pool, B number of labels (default last)
//	call, return_call, ref.func: A function index
//	call_indirect, return_call_indirect: A type index, B table index
//	call_ref, return_call_ref:  A type index
//	throw, catch:               A tag index
//	select t*:                  A start in Expr.Pool, B number of types (two pool words each: code, heap)
//	try_table:                  C, A block type; B = pool start | count<<32 (three pool words per catch: kind, tag, label)
//	local.*, global.*, table.get/set/size/grow/fill: A index
//	loads, stores, atomics:     A offset, B alignment flags (bit 6: memory index present), C memory index
//	v128 lane loads/stores:     as memarg, lane in B>>32
//	memory.size, memory.grow, memory.fill: A memory index
//	i32.const, i64.const:       A the value sign-extended to 64 bits; f32/f64.const: A the bits
//	ref.null:                   A heap type (s33 as int64)
//	memory.init: A data index, B memory; data.drop: A data; memory.copy: A dst, B src memory
//	table.init: A elem, B table; elem.drop: A elem; table.copy: A dst, B src table
//	v128.const, i8x16.shuffle:  A the low 8 bytes, B the high 8 bytes (little endian)
//	lane extract/replace:       A lane
//	atomic.fence:               A the reserved byte
//
// Off is the absolute file offset of the opcode (0 for inserted code).
type Instr struct {
	A, B uint64
	Op   Op
	C    uint32
	Off  uint32
}

// Opcodes the rewriter refers to by name.
const (
	OpUnreachable        Op = 0x00
	OpNop                Op = 0x01
	OpBlock              Op = 0x02
	OpLoop               Op = 0x03
	OpIf                 Op = 0x04
	OpElse               Op = 0x05
	OpTry                Op = 0x06 // legacy exception handling
	OpCatch              Op = 0x07
	OpThrow              Op = 0x08
	OpRethrow            Op = 0x09
	OpThrowRef           Op = 0x0a
	OpEnd                Op = 0x0b
	OpBr                 Op = 0x0c
	OpBrIf               Op = 0x0d
	OpBrTable            Op = 0x0e
	OpReturn             Op = 0x0f
	OpCall               Op = 0x10
	OpCallIndirect       Op = 0x11
	OpReturnCall         Op = 0x12
	OpReturnCallIndirect Op = 0x13
	OpCallRef            Op = 0x14
	OpReturnCallRef      Op = 0x15
	OpDelegate           Op = 0x18
	OpCatchAll           Op = 0x19
	OpDrop               Op = 0x1a
	OpSelect             Op = 0x1b
	OpSelectT            Op = 0x1c
	OpTryTable           Op = 0x1f
	OpLocalGet           Op = 0x20
	OpLocalSet           Op = 0x21
	OpLocalTee           Op = 0x22
	OpGlobalGet          Op = 0x23
	OpGlobalSet          Op = 0x24
	OpI32Load            Op = 0x28
	OpI64Load            Op = 0x29
	OpI32Load8S          Op = 0x2c
	OpI32Load8U          Op = 0x2d
	OpI32Store           Op = 0x36
	OpI64Store           Op = 0x37
	OpF32Store           Op = 0x38
	OpF64Store           Op = 0x39
	OpI32Store8          Op = 0x3a
	OpI32Store16         Op = 0x3b
	OpI64Store8          Op = 0x3c
	OpI64Store16         Op = 0x3d
	OpI64Store32         Op = 0x3e
	OpMemorySize         Op = 0x3f
	OpMemoryGrow         Op = 0x40
	OpI32Const           Op = 0x41
	OpI64Const           Op = 0x42
	OpF32Const           Op = 0x43
	OpF64Const           Op = 0x44
	OpI32Eqz             Op = 0x45
	OpI32Eq              Op = 0x46
	OpI32Ne              Op = 0x47
	OpI32LtS             Op = 0x48
	OpI32GeU             Op = 0x4f
	OpI64Eqz             Op = 0x50
	OpI64Eq              Op = 0x51
	OpI64Ne              Op = 0x52
	OpI64Or              Op = 0x84
	OpI64Xor             Op = 0x85
	OpI64And             Op = 0x83
	OpI64Clz             Op = 0x79
	OpI64Popcnt          Op = 0x7b
	OpI32Popcnt          Op = 0x69
	OpI64GeU             Op = 0x5a
	OpF32Eq              Op = 0x5b
	OpF32Ge              Op = 0x60
	OpF64Eq              Op = 0x61
	OpF64Ge              Op = 0x66
	OpI32GtS             Op = 0x4a
	OpI32GtU             Op = 0x4b
	OpI32LeU             Op = 0x4d
	OpI64LtU             Op = 0x54
	OpI32Shl             Op = 0x74
	OpI64LtS             Op = 0x53
	OpI32Add             Op = 0x6a
	OpI32Sub             Op = 0x6b
	OpI32Mul             Op = 0x6c
	OpI32And             Op = 0x71
	OpI32Or              Op = 0x72
	OpI32Xor             Op = 0x73
	OpI32ShrU            Op = 0x76
	OpI64Add             Op = 0x7c
	OpI64Sub             Op = 0x7d
	OpI64Mul             Op = 0x7e
	OpI64ShrU            Op = 0x88
	OpI64Shl             Op = 0x86
	OpI64GtU             Op = 0x56
	OpI32LtU             Op = 0x49
	OpI32WrapI64         Op = 0xa7
	OpI64ExtendI32U      Op = 0xad
	OpI32ReinterpretF32  Op = 0xbc
	OpI64ReinterpretF64  Op = 0xbd
	OpRefNull            Op = 0xd0
	OpRefFunc            Op = 0xd2
	OpBrOnNull           Op = 0xd5
	OpBrOnNonNull        Op = 0xd6

	OpMemoryInit Op = 0xfc08
	OpDataDrop   Op = 0xfc09
	OpMemoryCopy Op = 0xfc0a
	OpMemoryFill Op = 0xfc0b

	OpV128Load     Op = 0xfd00
	OpV128Store    Op = 0xfd0b
	OpV128Const    Op = 0xfd0c
	OpAtomicNotify Op = 0xfe00
	OpAtomicFence  Op = 0xfe03
)

// Immediate kinds.
const (
	immInvalid = iota
	immNone
	immBlock
	immLabel
	immBrTable
	immIndex    // one u32 index
	immTwoIndex // two u32 indices
	immSelectT
	immTryTable
	immMemarg
	immMemargLane
	immI32
	immI64
	immF32
	immF64
	immHeap
	immV128 // 16 raw bytes
	immLane
	immByte // one reserved 0x00 byte (atomic.fence)
)

// Memory access classes for the rewriter.
const (
	memNone    = iota
	memLoad    // reads memory
	memStore   // writes memory: value on top of the address
	memRMW     // atomic read-modify-write: [addr, v] -> v
	memCmpxchg // [addr, expected, replacement]
	memWait    // atomic wait/notify: reads
)

type opInfo struct {
	imm  uint8
	mem  uint8
	size uint8 // access width in bytes for memory ops
	val  byte  // stored value type for stores / RMW
}

// opTable is indexed by opcode byte for single-byte ops and by 256 +
// (prefix-0xfc)*256 + sub for prefixed ones. It is built once and never
// written after package initialisation.
var opTable = buildOpTable()

func opinfo(op Op) opInfo {
	if op < 0x100 {
		return opTable[op]
	}
	p := op >> 8
	if p < 0xfc || p > 0xfe {
		return opInfo{}
	}
	return opTable[256+int(p-0xfc)*256+int(op&0xff)]
}

func buildOpTable() *[4 * 256]opInfo {
	t := new([4 * 256]opInfo)
	set := func(lo, hi int, imm uint8) {
		for i := lo; i <= hi; i++ {
			t[i].imm = imm
		}
	}
	set(0x00, 0x01, immNone)
	set(0x02, 0x04, immBlock)
	t[0x05].imm = immNone
	t[0x06].imm = immBlock
	t[0x07].imm = immIndex
	t[0x08].imm = immIndex
	t[0x09].imm = immLabel
	t[0x0a].imm = immNone
	t[0x0b].imm = immNone
	t[0x0c].imm = immLabel
	t[0x0d].imm = immLabel
	t[0x0e].imm = immBrTable
	t[0x0f].imm = immNone
	t[0x10].imm = immIndex
	t[0x11].imm = immTwoIndex
	t[0x12].imm = immIndex
	t[0x13].imm = immTwoIndex
	t[0x14].imm = immIndex
	t[0x15].imm = immIndex
	t[0x18].imm = immLabel
	t[0x19].imm = immNone
	t[0x1a].imm = immNone
	t[0x1b].imm = immNone
	t[0x1c].imm = immSelectT
	t[0x1f].imm = immTryTable
	set(0x20, 0x26, immIndex)
	set(0x28, 0x3e, immMemarg)
	t[0x3f].imm = immIndex
	t[0x40].imm = immIndex
	t[0x41].imm = immI32
	t[0x42].imm = immI64
	t[0x43].imm = immF32
	t[0x44].imm = immF64
	set(0x45, 0xc4, immNone)
	t[0xd0].imm = immHeap
	t[0xd1].imm = immNone
	t[0xd2].imm = immIndex
	t[0xd4].imm = immNone
	t[0xd5].imm = immLabel
	t[0xd6].imm = immLabel
	// widths of plain loads and stores
	sizes := map[int]uint8{
		0x28: 4, 0x29: 8, 0x2a: 4, 0x2b: 8, 0x2c: 1, 0x2d: 1, 0x2e: 2, 0x2f: 2,
		0x30: 1, 0x31: 1, 0x32: 2, 0x33: 2, 0x34: 4, 0x35: 4,
		0x36: 4, 0x37: 8, 0x38: 4, 0x39: 8, 0x3a: 1, 0x3b: 2, 0x3c: 1, 0x3d: 2, 0x3e: 4,
	}
	for op, sz := range sizes {
		t[op].size = sz
		t[op].mem = memLoad
		if op >= 0x36 {
			t[op].mem = memStore
		}
	}
	for _, op := range []int{0x36, 0x3a, 0x3b} {
		t[op].val = I32
	}
	for _, op := range []int{0x37, 0x3c, 0x3d, 0x3e} {
		t[op].val = I64
	}
	t[0x38].val = F32
	t[0x39].val = F64

	// 0xFC misc
	fc := 256
	set(fc+0x00, fc+0x07, immNone)
	t[fc+0x08].imm = immTwoIndex
	t[fc+0x09].imm = immIndex
	t[fc+0x0a].imm = immTwoIndex
	t[fc+0x0b].imm = immIndex
	t[fc+0x0c].imm = immTwoIndex
	t[fc+0x0d].imm = immIndex
	t[fc+0x0e].imm = immTwoIndex
	set(fc+0x0f, fc+0x11, immIndex)

	// 0xFD SIMD
	fd := 512
	set(fd, fd+0xff, immNone)
	for _, missing := range []int{0x9a, 0xa2, 0xa5, 0xa6, 0xaf, 0xb0, 0xb2, 0xb3, 0xb4, 0xbb, 0xc2, 0xc5, 0xc6, 0xcf, 0xd0, 0xd2, 0xd3, 0xd4, 0xe2, 0xee} {
		t[fd+missing].imm = immInvalid
	}
	vsizes := map[int]uint8{0x00: 16, 0x01: 8, 0x02: 8, 0x03: 8, 0x04: 8, 0x05: 8, 0x06: 8, 0x07: 1, 0x08: 2, 0x09: 4, 0x0a: 8, 0x0b: 16, 0x5c: 4, 0x5d: 8}
	for op, sz := range vsizes {
		t[fd+op].imm = immMemarg
		t[fd+op].mem = memLoad
		t[fd+op].size = sz
	}
	t[fd+0x0b].mem = memStore
	t[fd+0x0b].val = V128
	t[fd+0x0c].imm = immV128
	t[fd+0x0d].imm = immV128
	set(fd+0x15, fd+0x22, immLane)
	for i, sz := range []uint8{1, 2, 4, 8, 1, 2, 4, 8} {
		op := fd + 0x54 + i
		t[op].imm = immMemargLane
		t[op].size = sz
		t[op].mem = memLoad
		if i >= 4 {
			t[op].mem = memStore
			t[op].val = V128
		}
	}

	// 0xFE atomics
	fe := 768
	t[fe+0x00] = opInfo{imm: immMemarg, mem: memWait, size: 4}
	t[fe+0x01] = opInfo{imm: immMemarg, mem: memWait, size: 4}
	t[fe+0x02] = opInfo{imm: immMemarg, mem: memWait, size: 8}
	t[fe+0x03].imm = immByte
	// loads 0x10-0x16, stores 0x17-0x1d
	atomicSizes := []uint8{4, 8, 1, 2, 1, 2, 4}
	atomicVals := []byte{I32, I64, I32, I32, I64, I64, I64}
	for i := 0; i < 7; i++ {
		t[fe+0x10+i] = opInfo{imm: immMemarg, mem: memLoad, size: atomicSizes[i]}
		t[fe+0x17+i] = opInfo{imm: immMemarg, mem: memStore, size: atomicSizes[i], val: atomicVals[i]}
	}
	// RMW groups of 7 from 0x1e to 0x48 (add, sub, and, or, xor, xchg, cmpxchg)
	for g := 0; g < 7; g++ {
		for i := 0; i < 7; i++ {
			op := fe + 0x1e + g*7 + i
			mem := uint8(memRMW)
			if g == 6 {
				mem = memCmpxchg
			}
			t[op] = opInfo{imm: immMemarg, mem: mem, size: atomicSizes[i], val: atomicVals[i]}
		}
	}
	return t
}

// isMemOp reports whether the opcode takes a memarg.
func (i opInfo) isMemarg() bool { return i.imm == immMemarg || i.imm == immMemargLane }
