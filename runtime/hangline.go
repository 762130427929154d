package runtime

// A fuel hang traps in the fuel check of a loop header or function entry.
// The check leaves that instruction's code-section offset in a global
// (instrument's Layout.HangAtExport) before it traps, so the innermost
// frame of a hang names the line of the loop that spent the fuel, from
// the DWARF line table (the first statement at or after the loop's first
// instruction, SiteMap.StatementAt), rather than its function's first
// line. A module
// without DWARF (Go's wasm has none) keeps the function's name alone.

// placeHang puts the hanging loop's source line on the innermost frame of
// a fuel hang's stack.
func (w *Worker) placeHang(f *Failure) {
	if f == nil || f.Kind != KindFuel || len(f.Stack) == 0 || w.hangAt == nil || w.t.meta.stmt == nil {
		return
	}
	off := uint32(w.hangAt.Get())
	if off == 0 {
		return
	}
	if file, line, ok := w.t.meta.stmt(off); ok {
		f.Stack[0].File, f.Stack[0].Line = file, int(line)
	}
}
