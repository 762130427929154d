package instrument

import (
	"bytes"
	"math/bits"
	"strconv"
)

// The stack pointer, for telling stack overflows apart.
//
// C, C++ and Rust built by LLVM keep their stack in linear memory,
// addressed by a mutable i32 global the linker names __stack_pointer. It
// starts at the top of the stack and grows down, and nothing in Wasm
// bounds it. With wasm-ld's --stack-first (Rust's default, and C's from
// LLVM 22) the stack starts at address 0, so a run that recurses too deep
// wraps the pointer around and traps out of bounds at the first access
// through it: the trap is in the right function but reads as a memory
// error. With the older default layout the stack lies above the static
// data, and an overflow overwrites that data (the allocator's state, a
// table) and fails later somewhere else, or not at all, unless the module
// checks the pointer (Options.StackCheck, below).
//
// findStack bounds the pointer's legal values: high is its initial value,
// low the end of the highest active data segment below it (0 when there is
// none: stack first), raised past the zero-initialised data (.bss) the
// code addresses (staticEnd), which the module does not record otherwise.
// Layout.StackOverflow tells a trap with the pointer outside them from the
// target's other traps. Bounds from the module's contents cannot be
// wrong, where one derived from wasm-ld's default stack size (64 KiB)
// would call a deep but legal stack of a target linked with a larger one
// an overflow.
//
// A module without a global of that name in its name section (stripped,
// or not from LLVM: Go's stack checks are its own) or whose data segments
// have non-constant offsets (position-independent code) has no bounds.

// stackName is the name wasm-ld gives the stack pointer global.
const stackName = "__stack_pointer"

// stackBounds are a module's stack pointer global and the bounds of its
// values (target addresses).
type stackBounds struct {
	global    uint32
	low, high uint32
}

// findStack returns the stack pointer of m and its bounds, if m has one as
// described above. It reads the data segments as the target has them
// (before Instrument moves them).
func findStack(m *Module) (stackBounds, bool) {
	nimp := m.NumImported(ExternGlobal)
	var sb stackBounds
	found := false
	for i, n := range nameSectionGlobals(m) {
		if n != stackName || uint32(i) < nimp {
			continue
		}
		if found {
			return stackBounds{}, false // two globals of that name
		}
		g := &m.Globals[uint32(i)-nimp]
		init := g.Init.Instrs
		if g.Type.Type != TI32 || !g.Type.Mutable || len(init) != 2 || init[0].Op != OpI32Const || init[1].Op != OpEnd {
			return stackBounds{}, false
		}
		sb.global, sb.high, found = uint32(i), uint32(init[0].A), true
	}
	if !found || sb.high == 0 {
		return stackBounds{}, false
	}
	for i := range m.Data {
		d := &m.Data[i]
		if d.Flags == 1 || d.Memory != 0 {
			continue // passive, or another memory
		}
		off := d.Offset.Instrs
		if len(off) != 2 || off[0].Op != OpI32Const || off[1].Op != OpEnd {
			return stackBounds{}, false
		}
		start := uint64(uint32(off[0].A))
		end := start + uint64(len(d.Init))
		switch {
		case start >= uint64(sb.high):
			// above the stack (stack first)
		case end > uint64(sb.high):
			return stackBounds{}, false // data across the stack's top
		default:
			sb.low = max(sb.low, uint32(end))
		}
	}
	sb.low = staticEnd(m, sb)
	return sb, true
}

// minStack is the least stack size staticEnd assumes: it raises the lower
// bound of the stack to at most StackHigh-minStack (wasm-ld's default is
// 64 KiB, Rust's 1 MiB).
const minStack = 16 << 10

// staticEnd returns sb.low raised past the zero-initialised data (.bss)
// that lies between the initialised data and the stack in wasm-ld's
// default layout: the end of the highest access of the code at a constant
// address (`i32.const A` as the address operand of a load or store, plus
// its offset) below the stack. LLVM addresses static variables that way
// and the stack never, so the result stays at or below the stack's real
// bottom, short of it by what lies past the last such access (the rest
// of an array indexed from its start). An address within minStack of the
// top is not taken for one.
func staticEnd(m *Module, sb stackBounds) uint32 {
	low := sb.low
	if sb.high < minStack {
		return low
	}
	limit := uint64(sb.high - minStack)
	for i := range m.Code {
		body := m.Code[i].Body.Instrs
		for k := range body {
			info := opinfo(body[k].Op)
			if info.imm != immMemarg || (info.mem != memLoad && info.mem != memStore) {
				continue
			}
			addr := k - 1 // a load's address is its only operand
			if info.mem == memStore {
				addr = exprStart(body, k-1) - 1
			}
			if addr < 0 || body[addr].Op != OpI32Const {
				continue
			}
			end := uint64(uint32(body[addr].A)) + body[k].A + uint64(info.size)
			if end > uint64(low) && end <= limit {
				low = uint32(end)
			}
		}
	}
	return low
}

// ExportStackPointer returns wasm with its stack pointer (see above)
// exported as GlobalExportPrefix+index, the name Instrument's modules
// export it under, and a Layout holding only the stack fields
// (StackPointerExport, StackLow, StackHigh), for a host that runs the
// module uninstrumented. A module without a stack pointer is returned
// unchanged with a zero Layout. Only the export section changes
// (withSections). A malformed module is an error (*FormatError).
func ExportStackPointer(wasm []byte) (out []byte, l Layout, err error) {
	if !bytes.Contains(wasm, []byte(stackName)) {
		return wasm, Layout{}, nil // no such name: spare the decoding
	}
	m, err := Decode(wasm)
	if err != nil {
		return nil, Layout{}, err
	}
	l, added := exportStackPointer(m)
	if !added {
		return wasm, l, nil
	}
	return withSections(wasm, m, SectionExport), l, nil
}

// exportStackPointer is ExportStackPointer's pass over a decoded module:
// added reports whether it changed m (its export section).
func exportStackPointer(m *Module) (l Layout, added bool) {
	sb, ok := findStack(m)
	if !ok {
		return Layout{}, false
	}
	l = sb.layout()
	for _, e := range m.Exports {
		if e.Name == l.StackPointerExport {
			if e.Kind != ExternGlobal || e.Index != sb.global {
				return Layout{}, false // the name is taken
			}
			return l, false
		}
	}
	m.Exports = append(m.Exports, Export{Name: l.StackPointerExport, Kind: ExternGlobal, Index: sb.global})
	return l, true
}

// layout is a Layout holding only the stack fields for sb.
func (sb stackBounds) layout() Layout {
	return Layout{StackPointerExport: GlobalExportPrefix + strconv.Itoa(int(sb.global)), StackLow: sb.low, StackHigh: sb.high}
}

// Stack depth feedback (Options.StackDepth).
//
// How deep a run's LLVM stack went is coverage of its own: a parser that
// recurses once per nesting level reaches new depths long before its
// recursion has no end, and every level is a step towards the overflow.
// libFuzzer keeps an input that reaches a new depth (clang's
// -fsanitize=fuzzer adds -fsanitize-coverage=stack-depth on Linux); so
// does wafer, for modules with a stack pointer (findStack).
//
// After each global.set of the stack pointer the module keeps the lowest
// value it has held in an exported mutable i32 global
// (Layout.StackMinExport): `if sp <u min { min = sp }`. A set of the
// pointer plus a positive constant (an epilogue) cannot lower it and gets
// nothing. The host sets the global to StackHigh before a run
// and turns StackHigh-min after it into a step among DepthSites sites of
// kind StackDepth (DepthStep: eight steps per doubling of the depth, as
// libFuzzer's) and adds one to the counters of that step and every step
// below it: an input that takes the stack deeper than any before covers a
// new site.
//
// The same place checks the stack (Options.StackCheck), as binaryen's
// --stack-check does for Emscripten: a pointer set outside [StackLow,
// StackHigh] traps there (`unreachable`), and the host, finding the
// pointer out of its bounds, reports a stack overflow in the function
// whose frame did not fit.
// Without it, an overflow of a stack above the static data (wasm-ld's
// default layout) writes over that data and fails later elsewhere: in the
// allocator, whose state it overwrote, as an out-of-bounds access, one
// bug under as many identities as the places it surfaced. The check
// bounds the stack from below by the end of the static data the code
// addresses (findStack), so an overflow is caught as it reaches that
// data: in testdata and the C programs tried, 0 to 12 bytes below the
// stack's real bottom.
//
// What it does not see: recursion whose frames live only in Wasm locals
// (a function that takes no local's address has no frame in linear
// memory and never moves the pointer). That recursion ends in the
// engine's call stack limit, far deeper; the stack in linear memory, 64
// KiB by default for C, is what overflows first and silently.

// StackMinExport is the export name of the lowest stack pointer global.
const StackMinExport = "wafer.stack_min"

// DepthSites is the number of StackDepth sites: DepthStep of the largest
// 32-bit depth is DepthSites-1.
const DepthSites = 208

// DepthStep maps a stack depth in bytes to its step, 0..DepthSites-1:
// the depth in 16-byte units (LLVM aligns frames to 16) below 8, then
// eight steps per doubling.
func DepthStep(depth uint32) int {
	u := depth >> 4
	if u < 8 {
		return int(u)
	}
	l := bits.Len32(u) - 1 // >= 3
	return (l-2)*8 + int(u>>(l-3)&7)
}

// stackSet emits, after the global.set of body[k] unless that set is an
// epilogue's, the update of the lowest stack pointer (see above) and the
// stack check (below), as the options ask. With both, the check runs only
// when the pointer reached a new lowest value, which every overflow below
// the stack does (one that wraps past 0 traps at its first access), and
// costs the common case a compare and a branch:
//
//	if sp <u min { min = sp; if sp-low >u high-low { unreachable } }
func (rw *rewriter) stackSet(body []Instr, k int) {
	if k >= 2 && body[k-1].Op == OpI32Add && body[k-2].Op == OpI32Const && int32(body[k-2].A) > 0 {
		return
	}
	sp := uint64(rw.stack.global)
	if rw.depth {
		lo := uint64(rw.minGlobal)
		rw.emit(OpGlobalGet, sp)
		rw.emit(OpGlobalGet, lo)
		rw.emit(OpI32LtU, 0)
		rw.out = append(rw.out, Instr{Op: OpIf, C: 0x40})
		rw.emit(OpGlobalGet, sp)
		rw.emit(OpGlobalSet, lo)
	}
	if rw.stackCheck {
		rw.emit(OpGlobalGet, sp)
		rw.i32(int64(int32(rw.stack.low)))
		rw.emit(OpI32Sub, 0)
		rw.i32(int64(int32(rw.stack.high - rw.stack.low)))
		rw.emit(OpI32GtU, 0)
		rw.out = append(rw.out, Instr{Op: OpIf, C: 0x40})
		rw.emit(OpUnreachable, 0)
		rw.emit(OpEnd, 0)
	}
	if rw.depth {
		rw.emit(OpEnd, 0)
	}
}

// DepthOfStep is the least depth in bytes that DepthStep maps to step.
func DepthOfStep(step int) uint32 {
	if step < 8 {
		return uint32(step) << 4
	}
	l := step/8 + 2
	return uint32(8+step%8) << (l - 3) << 4
}
