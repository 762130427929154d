package covreport

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// LCOV renders the report as an lcov tracefile (geninfo(1)'s format): per
// source file SF, FN/FNDA for the functions defined in it, BRDA for every
// arm of every conditional on its lines (block: the conditional's number
// in the file, branch: the arm's number in the conditional; "-" when the
// line was never reached), DA for the marked lines, and the FNF/FNH,
// BRF/BRH, LF/LH totals. Counts are numbers of inputs. SF is the path the
// source was read from when found, else the DWARF path. Functions without
// a source file have no place in the format and are left out.
func (r *Report) LCOV() []byte {
	var b bytes.Buffer
	b.WriteString("TN:\n")
	for i := range r.Files {
		f := &r.Files[i]
		sf := f.Found
		if sf == "" {
			sf = f.Path
		}
		fmt.Fprintf(&b, "SF:%s\n", sf)
		// Functions defined in the file, by line then name, names unique
		// in the file (static functions of the same name in one file do not
		// exist in C; identical names get their index appended).
		type fn struct {
			name  string
			line  uint32
			count uint64
		}
		var fns []fn
		seen := map[string]bool{}
		for _, k := range f.Funcs {
			fc := &r.Funcs[k]
			if fc.Line == 0 || (f.Source != nil && int(fc.Line) > len(f.Source)) {
				continue
			}
			name := strings.NewReplacer(",", ";", "\n", " ").Replace(fc.Name)
			if seen[name] {
				name = fmt.Sprintf("%s#%d", name, fc.Index)
			}
			seen[name] = true
			fns = append(fns, fn{name, fc.Line, fc.Entry})
		}
		slices.SortStableFunc(fns, func(a, c fn) int {
			if a.line != c.line {
				return cmpU32(a.line, c.line)
			}
			return strings.Compare(a.name, c.name)
		})
		fnh := 0
		for _, x := range fns {
			fmt.Fprintf(&b, "FN:%d,%s\n", x.line, x.name)
		}
		for _, x := range fns {
			fmt.Fprintf(&b, "FNDA:%d,%s\n", x.count, x.name)
			if x.count > 0 {
				fnh++
			}
		}
		fmt.Fprintf(&b, "FNF:%d\nFNH:%d\n", len(fns), fnh)
		var brf, brh, lf, lh int
		block := 0
		for _, l := range f.Lines {
			if f.Source != nil && int(l.Number) > len(f.Source) {
				continue
			}
			for _, br := range l.Branches {
				for k, a := range br.Arms {
					taken := "-"
					if l.Inputs > 0 {
						taken = fmt.Sprint(a.Inputs)
					}
					fmt.Fprintf(&b, "BRDA:%d,%d,%d,%s\n", l.Number, block, k, taken)
					brf++
					if a.Inputs > 0 {
						brh++
					}
				}
				block++
			}
		}
		fmt.Fprintf(&b, "BRF:%d\nBRH:%d\n", brf, brh)
		for _, l := range f.Lines {
			if f.Source != nil && int(l.Number) > len(f.Source) {
				continue
			}
			fmt.Fprintf(&b, "DA:%d,%d\n", l.Number, l.Inputs)
			lf++
			if l.Inputs > 0 {
				lh++
			}
		}
		fmt.Fprintf(&b, "LF:%d\nLH:%d\nend_of_record\n", lf, lh)
	}
	return b.Bytes()
}
