// Package instrument decodes, encodes and rewrites WebAssembly modules for
// coverage-guided fuzzing.
//
// Decode and Encode cover the binary format wazero 1.12 accepts (core 2.0,
// tail calls, exception handling, extended-const, threads, typed function
// references); custom sections stay byte-exact; malformed input is a
// *FormatError naming the section, the absolute offset and what was
// expected. Prepare makes the module a host runs: one decoding, every
// rewrite of a Build as a pass, one encoding. Summarize reads what a host
// needs (imports, exports, memories, data segments, custom section names)
// without decoding function bodies, and Prepare returns the same Summary
// of the build it made: no host scans module bytes itself.
//
// Instrument gives every branch site a dense id, stable for a module and
// Options: function entries, both arms of every if, both outcomes of every
// br_if, every br_table arm. Counters are 8-bit and saturate at 255; they
// live in Layout.ReservedPages below the target, whose addresses all move
// up by Layout.ReservedBytes(), which the host adds to every pointer it
// passes. Options add fuel, dirty marks, a heap guard and check, a stack
// check and depth, indirect call pairs and a comparison log (each field
// says what). SiteMap maps ids to function, offset, kind, name and DWARF
// file:line, and holds code regions and the constant Dictionary. A Go
// module's functions are named as Go prints them, read from Go's own
// function table in the module (the name section's spelling, which Go's
// linker makes lossy, stays in Func.WasmName).
//
// It does not validate modules (wazero does, on the output); GC types,
// memory64 and multiple memories are ErrUnsupported. It never panics on
// input, no count read from it sizes an allocation beyond the bytes left,
// and its cost is linear in the input's size.
//
// Decisions (measured in docs/PERFORMANCE.md, the section in quotes):
//
//   - Counters below the target, offsets moved: traps and memory.size
//     unchanged, 0.95-1.48x a program's time ("Where the counters live").
//   - Pinned base, ids backwards, `w - (w>>8)`, leaf loops in locals
//     (nest.go): 8.4 instructions a hit ("The counter's form ...").
//   - Sites whose count is a sum of others get no counter (derive.go):
//     14-19 % of C sites ("Derived sites get no counter").
//   - Go's resume-point dispatch gets no sites (godispatch.go): half a Go
//     module's sites ("Go targets: the resume-point dispatch ...").
//   - Dirty marks per 1 KiB block, Go frames marked at entry (marks.go,
//     goframe.go): 89 % of Go stores unmarked ("Dirty marks ...").
//   - The heap check's error path is out of line: 22.4 instead of 25.8 MB
//     of SQLite's machine code ("Heap guard and heap check").
package instrument
