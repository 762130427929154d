package instrument

import "math/bits"

// Layout is the contract between an instrumented module and the host that
// runs it (runtime/). It is fixed by Instrument and serialised with the
// SiteMap, so a campaign and a later `wafer cov` agree.
//
// Placement (docs/PERFORMANCE.md, "Where the counters live", has the measurements): the instrumented
// module keeps its single linear memory, but the first ReservedPages pages
// belong to wafer. Every target address a is moved to a+ReservedBytes()
// through the static offset immediate of each load/store (no extra
// instruction), so accesses trap at exactly the same target addresses as
// before. memory.size and memory.grow answer in target pages, bulk memory
// ops and data segments are shifted, and the host translates pointers it
// receives (WASI) or writes (the fuzz input) by adding ReservedBytes().
//
// The reserved region holds, from real address 0:
//
//	[CountersOffset, CountersOffset+Counters)  one 8-bit saturating hit counter per site id
//	[DirtyOffset, DirtyOffset+DirtyPages)     one byte per 1 KiB block of target memory,
//	                                           set non-zero when a store, bulk op or
//	                                           memory.grow touched it (only when
//	                                           Options.DirtyPages)
//	[CompareOffset, +CompareLogBytes())        the comparison log (only when
//	                                           Options.Compares)
//	[ShadowOffset, +ShadowBytes)               the heap check's shadow, one byte per
//	                                           8 target bytes below HeapCover (only
//	                                           when Options.HeapCheck)
type Layout struct {
	// ReservedPages is the number of 64 KiB pages below the target's memory.
	ReservedPages uint32
	// CountersOffset is the real address of counter 0 (always 0 today).
	CountersOffset uint32
	// Counters is the number of branch sites, ids 0..Counters-1.
	Counters uint32
	// DirtyOffset is the real address of the dirty-page map; DirtyPages is
	// its length in bytes, one per block of 1<<DirtyShift() target bytes
	// (Instrument writes a 4 MiB map of 1 KiB blocks covering the whole
	// 32-bit target address space). Both are 0 when dirty-page marking is
	// off.
	DirtyOffset uint32
	DirtyPages  uint32
	// MemoryExport is the export name under which the instrumented module
	// always exports its memory (added if the original exported none).
	MemoryExport string
	// FuelExport is the name of the exported mutable i64 global holding the
	// remaining fuel, "" when fuel is off. The host sets it before a run; the
	// module traps with `unreachable` after storing a negative value in it,
	// so a trap with FuelExport < 0 is a hang, not a target crash.
	FuelExport string
	// CompareOffset is the real address of the comparison log
	// (Options.Compares, compare.go): Compares integer entries of
	// CompareEntryBytes, then CompareMems memory entries of
	// CompareMemEntryBytes. All three are 0 without it. Comparisons reads
	// the log; the host zeroes it before a run.
	CompareOffset, Compares, CompareMems uint32
	// GlobalExportPrefix: every mutable global the module defines is also
	// exported as GlobalExportPrefix+decimal global index ("wafer.g12"), so
	// the host can snapshot and restore instance state through api.Global.
	GlobalExportPrefix string
	// StackPointerExport is the export of the module's stack pointer (the
	// global an LLVM-built module names __stack_pointer, stackcheck.go),
	// "" when it has none; StackLow and StackHigh bound the values it may
	// take (target addresses). A trap with the pointer outside them is a
	// stack overflow: Options.StackCheck traps as the pointer leaves them,
	// and without it a stack-first module traps out of bounds once it has
	// wrapped around.
	StackPointerExport  string
	StackLow, StackHigh uint32
	// StackMinExport is the export of the mutable i32 global holding the
	// lowest value the stack pointer took (Options.StackDepth, stack.go),
	// "" without it. The host sets it to StackHigh before a run; after
	// it, a run that went DepthStep(StackHigh-min) deep covers sites
	// DepthSite to DepthSite+step, whose counters the host adds one to
	// (the module never touches the DepthSites counters from DepthSite
	// on).
	StackMinExport string
	DepthSite      uint32
	// CallSite is the id of the first of CallSites counters of indirect
	// call pairs (Options.CallPairs, callpairs.go), which the module sets
	// to 1 itself; both 0 without them.
	CallSite, CallSites uint32
	// HeapExport is the export of the heap guard's i64 error global
	// (Options.HeapGuard, heapguard.go), "" without a guard: zero, or,
	// when the guard trapped, its error kind (HeapOverflow, ...) << 32 |
	// the size of the block; after a heap check's trap (Options.HeapCheck),
	// its kind (HeapReadOverflow, ...) << 32 | the access size << 40 | its
	// target address.
	HeapExport string
	// ShadowOffset is the real address of the heap check's shadow
	// (Options.HeapCheck, heapcheck.go): byte i describes target bytes
	// 8i to 8i+7, for the first ShadowBytes*8 target bytes. Both are 0
	// without the check. The module changes the shadow of a block only
	// with that block marked dirty: a host restoring a marked block
	// restores its shadow bytes too.
	ShadowOffset, ShadowBytes uint32
	// HeapAtExport is the export of the i32 global in which a heap
	// check's trap leaves the code-section offset, in the module
	// Instrument was given, of the access it stopped (SiteMap.Lookup
	// finds its source line); "" without the check.
	HeapAtExport string
	// HangAtExport (Options.Fuel) is the export of the i32 global in
	// which a fuel check that ran out leaves the code-section offset, in
	// the module Instrument was given, of its loop header or function
	// entry (SiteMap.Lookup finds the loop's source line); "" without
	// fuel.
	HangAtExport string
	// MallocLimitExport (with the heap guard) is the export of the i32
	// global the host sets to the largest single allocation request the
	// wrapped allocator accepts (0, its initial value: no limit); a larger
	// request traps at the call with HeapMallocLimit in HeapExport.
	MallocLimitExport string
	// NullEnd (Options.HeapCheck) ends the null page: the target memory
	// from address 0 below the lowest static data of a module whose stack
	// lies above its data (wasm-ld's default layout before LLVM 22), which
	// nothing but a dereference of a null pointer (plus an offset) reads
	// or writes. The host sets the shadow bytes of [0, NullEnd) to
	// ShadowNull when it makes an instance, and the heap check then traps
	// on those accesses. 0: no null page.
	NullEnd uint32
}

// ShadowNull is the heap check's shadow byte of the null page
// (Layout.NullEnd).
const ShadowNull = 0xf9

// StackOverflow reports whether sp, a value of the stack pointer, lies
// outside the stack (StackPointerExport).
func (l Layout) StackOverflow(sp uint32) bool {
	return l.StackPointerExport != "" && sp-l.StackLow > l.StackHigh-l.StackLow
}

// Notes for the host (added with the implementation; they do not change
// the fields above):
//
//   - Dirty map semantics: a store writes the byte of the block of its
//     first byte (target address >> DirtyShift()), so a store that straddles two
//     blocks leaves up to 15 bytes of the next one unmarked, and a store
//     left unmarked because an earlier one marked its block (marks.go) up
//     to DirtySpill-1 bytes: when the host restores a marked block it must
//     also restore the DirtySpill bytes that follow it (older layouts
//     marked both ends; restoring the spill is harmless for them). A bulk
//     operation (memory.fill/copy/init) marks every block of its
//     destination range and memory.grow the blocks of the new pages. The
//     map has one byte per block of the 32-bit address space, whatever
//     the memory size, so an index from any 32-bit address stays inside
//     it; the host needs to scan only the first (target memory size >>
//     DirtyShift()) bytes. Blocks smaller than the 64 KiB Wasm page: a run
//     typically dirties a few stack and heap blocks, and the host copies
//     back whole blocks, so the block size is the cost of a restore.
//   - Older layouts had a map of at most 65536 bytes, one per 64 KiB page,
//     then a 1 MiB one of 4 KiB blocks; DirtyShift tells them apart by the
//     map's length.
//   - A data segment whose offset is `global.get` becomes the extended
//     constant expression `global.get; i32.const ReservedBytes; i32.add`:
//     compile instrumented modules with
//     experimental.CoreFeaturesExtendedConst enabled (harmless otherwise).
//   - Counters are 8-bit and saturating: min(hits, 255).

// DirtySpill is how many bytes past a marked dirty block the host restores
// with it. A store marks only the block of its first byte and writes at
// most 16 bytes (v128), so at most 15 beyond; a store whose bytes lie
// within DirtySpill bytes after the first byte of an earlier, marked store
// from the same base pointer is not marked at all (marks.go), so it may
// reach up to DirtySpill-1 bytes beyond that store's block.
const DirtySpill = 64

// DirtyShift is log2 of the target bytes one dirty-map byte covers: 10
// (1 KiB blocks) for the 4 MiB map Instrument writes, 12 for the 1 MiB map
// it wrote before, 16 (64 KiB pages) for a map of at most 65536 bytes
// (older layouts, and hand-made ones covering a few pages), in general
// 32 - log2(DirtyPages) for a larger map, which covers the 32-bit address
// space.
func (l Layout) DirtyShift() uint {
	if l.DirtyPages <= 1<<16 {
		return 16
	}
	return 32 - uint(bits.Len32(l.DirtyPages-1))
}

// ReservedBytes is the distance between a target address and the real
// address in the instrumented module's memory.
func (l Layout) ReservedBytes() uint64 { return uint64(l.ReservedPages) << 16 }

// CompareLogBytes is the size of the comparison log.
func (l Layout) CompareLogBytes() uint64 { return compareLogBytes(int(l.Compares), int(l.CompareMems)) }
