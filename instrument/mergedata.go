package instrument

import (
	"sort"

	"github.com/wafer-fuzz/wafer/instrument/internal/leb128"
)

// Merging data segments.
//
// Go's linker writes one active data segment per symbol: 30,000 to 40,000
// in a Go program, where wasm-ld writes a few. wazero evaluates each
// segment's offset and copies it on every instantiation, which made
// applying data the largest part of instantiating a Go module (a command
// is instantiated for every input, and restore mode makes a new instance
// after a run that grew memory or failed). The rewrite joins runs of
// active segments that follow each other in memory, filling the gaps
// between them (at most mergeGap bytes each) with zeros, which changes
// nothing: at instantiation memory is zero there, and no earlier segment
// writes there (checked), while later segments still write after the
// merged one. Out-of-bounds behaviour is kept: a run's last segment ends
// highest, so the merged segment is out of bounds exactly when one of its
// members was. A module with memory.init or data.drop keeps its segments:
// wazero does not drop active segments at instantiation, so memory.init
// reads them by index, and indexes would change.

// mergeGap is the most zero bytes a merge adds between two segments: with
// 64, the Go examples' 31,965 to 36,608 segments become 11 to 13, and
// the modules grow by about 600 KB of zeros.
const mergeGap = 64

// maxOutOfOrder bounds the segments that start below an earlier one the
// merge keeps track of (each costs an insertion into the sorted list of
// written ranges): past it, merging stops.
const maxOutOfOrder = 64

// mergeData merges data segments (see above) after their offsets were
// moved. Segments are left as they are when code reads them by index
// (memory.init, data.drop) or the name section names them (its indexes
// would go stale).
func mergeData(m *Module) {
	if len(m.Data) < 2 || namesData(m) || readsData(m) {
		return
	}
	out := make([]Data, 0, len(m.Data))
	var written []span // disjoint, sorted: what the segments so far write
	outOfOrder := 0
	merging := true
	for _, d := range m.Data {
		s, e, ok := constRange(&d)
		if merging && ok && len(out) > 0 {
			last := &out[len(out)-1]
			if _, le, lok := constRange(last); lok && s >= le && s-le <= mergeGap && !overlaps(written, le, s) {
				last.Init = append(append(last.Init, make([]byte, s-le)...), d.Init...)
				written = insertSpan(written, s, e)
				continue
			}
		}
		if ok && merging {
			if n := len(written); n > 0 && s < written[n-1].end {
				if outOfOrder++; outOfOrder > maxOutOfOrder {
					merging = false
				}
			}
			if merging {
				written = insertSpan(written, s, e)
			}
		}
		if !ok && d.Flags != 1 {
			merging = false // an offset we cannot place: stop merging
		}
		// cap = len: a merge's append copies Init instead of writing past
		// it into the input's bytes.
		d.Init = d.Init[:len(d.Init):len(d.Init)]
		out = append(out, d)
	}
	if len(out) == len(m.Data) {
		return
	}
	m.Data = out
	if m.DataCount != nil {
		n := uint32(len(out))
		m.DataCount = &n
	}
}

// readsData reports whether a function body has memory.init or data.drop.
func readsData(m *Module) bool {
	for i := range m.Code {
		for _, in := range m.Code[i].Body.Instrs {
			if in.Op == OpMemoryInit || in.Op == OpDataDrop {
				return true
			}
		}
	}
	return false
}

// constRange is the memory range an active data segment of memory 0 with
// an i32.const offset writes.
func constRange(d *Data) (start, end uint64, ok bool) {
	if d.Flags == 1 || d.Memory != 0 {
		return 0, 0, false
	}
	in := d.Offset.Instrs
	if len(in) != 2 || in[0].Op != OpI32Const || in[1].Op != OpEnd {
		return 0, 0, false
	}
	start = uint64(uint32(in[0].A))
	return start, start + uint64(len(d.Init)), true
}

type span struct{ start, end uint64 }

// overlaps reports whether [lo, hi) meets a span of the sorted, disjoint list.
func overlaps(spans []span, lo, hi uint64) bool {
	if lo >= hi {
		return false
	}
	i := sort.Search(len(spans), func(i int) bool { return spans[i].start >= hi })
	return i > 0 && spans[i-1].end > lo
}

// insertSpan adds [lo, hi) to the sorted, disjoint list, joining the
// spans it meets or touches.
func insertSpan(spans []span, lo, hi uint64) []span {
	if lo >= hi {
		return spans
	}
	if n := len(spans); n > 0 && spans[n-1].end >= lo && spans[n-1].start <= lo {
		spans[n-1].end = max(spans[n-1].end, hi) // the common case: in order
		return spans
	}
	i := sort.Search(len(spans), func(i int) bool { return spans[i].end >= lo })
	j := i
	for j < len(spans) && spans[j].start <= hi {
		lo, hi = min(lo, spans[j].start), max(hi, spans[j].end)
		j++
	}
	return append(spans[:i], append([]span{{lo, hi}}, spans[j:]...)...)
}

// namesData reports whether the name section has a data segment names
// subsection (id 9).
func namesData(m *Module) bool {
	for i := range m.Customs {
		if m.Customs[i].Name != "name" {
			continue
		}
		b := m.Customs[i].Data()
		for len(b) > 0 {
			id := b[0]
			size, n, err := leb128.Uint32(b[1:])
			if err != nil || uint64(size) > uint64(len(b)-1-n) {
				return true // malformed: be careful
			}
			if id == 9 {
				return true
			}
			b = b[1+n+int(size):]
		}
	}
	return false
}
