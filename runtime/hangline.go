package runtime

import "github.com/wafer-fuzz/wafer/instrument"

// A fuel hang traps wherever the fuel ran out: the innermost frame names
// the function but, from the SiteMap, only the function's own line. The
// loop is where the run spent its fuel: among the function's branch sites
// that have a source line, the one hit most in the hanging run (counters
// saturate at 255, so ties go to the site last in the function, a loop's
// back edge coming after its body). placeHang puts that line on the
// innermost frame. A loop that counts in locals
// (instrument's leaf loops) leaves its counters unflushed when the fuel
// runs out: then no site of the function was hit and the frame keeps the
// function's line.

// loopSite is a branch site with a source line.
type loopSite struct {
	id   int
	file string
	line int
}

// loopSitesOf indexes sm's branch sites that have a source line by their
// function's name.
func loopSitesOf(sm *instrument.SiteMap) map[string][]loopSite {
	out := map[string][]loopSite{}
	for id, s := range sm.Sites {
		if s.Sum > 0 || id >= len(sm.Lines) || int(s.Func) >= len(sm.Funcs) {
			continue
		}
		l := sm.Lines[id]
		if l.Line == 0 || int(l.File) >= len(sm.Files) {
			continue
		}
		name := sm.Funcs[s.Func].Name
		out[name] = append(out[name], loopSite{id: id, file: sm.Files[l.File], line: int(l.Line)})
	}
	return out
}

// placeHang sets the innermost frame of a fuel hang's stack to the line
// of its function's most-hit site in counters (the run's).
func placeHang(f *Failure, counters []byte, sites map[string][]loopSite) {
	if f == nil || f.Kind != KindFuel || len(f.Stack) == 0 {
		return
	}
	best, hits := loopSite{}, byte(0)
	for _, s := range sites[f.Stack[0].Func] {
		if s.id < len(counters) && counters[s.id] >= hits && counters[s.id] > 0 {
			best, hits = s, counters[s.id]
		}
	}
	if hits == 0 {
		return
	}
	f.Stack[0].File, f.Stack[0].Line = best.file, best.line
}
