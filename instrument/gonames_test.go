package instrument

import (
	"bytes"
	"encoding/binary"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// goTable lays out a Go 1.20 function table holding funcs: the header,
// the name table, an empty compilation unit table, then the function
// table (entry offset and record offset pairs, the end entry) and each
// function's record (entry offset, name offset).
func goTable(funcs []goFunc) []byte {
	const hdrLen = 8 + goHdrWords*goHdrWordSize
	var names []byte
	nameOff := make([]uint32, len(funcs))
	for i, f := range funcs {
		nameOff[i] = uint32(len(names))
		names = append(append(names, f.name...), 0)
	}
	nameTab := uint64(hdrLen)
	cuTab := nameTab + uint64(len(names))
	funcTab := cuTab
	b := slices.Clone(goTableMagic)
	for _, w := range []uint64{uint64(len(funcs)), 0, 0, nameTab, cuTab, cuTab, cuTab, funcTab} {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	b = append(b, names...)
	recs := uint32(8*len(funcs) + 4)
	for i, f := range funcs {
		b = binary.LittleEndian.AppendUint32(b, f.slot)
		b = binary.LittleEndian.AppendUint32(b, recs+8*uint32(i))
	}
	b = binary.LittleEndian.AppendUint32(b, ^uint32(0)) // the end entry
	for i, f := range funcs {
		b = binary.LittleEndian.AppendUint32(b, f.slot)
		b = binary.LittleEndian.AppendUint32(b, nameOff[i])
	}
	return b
}

// linkerSegments splits b at address addr into segments as Go's wasm
// linker does: runs of 8 or more zero bytes are left out.
func linkerSegments(addr uint64, b []byte) memImage {
	var im memImage
	for len(b) > 0 {
		if b[0] == 0 {
			b, addr = b[1:], addr+1
			continue
		}
		end := 0
		for end < len(b) {
			z := end
			for z < len(b) && b[z] == 0 {
				z++
			}
			if z > end && (z-end >= 8 || z == len(b)) {
				break
			}
			end = z + 1
			for end < len(b) && b[end] != 0 {
				end++
			}
		}
		end = min(end, len(b))
		im.segs = append(im.segs, memSeg{addr, b[:end]})
		b, addr = b[end:], addr+uint64(end)
	}
	return im
}

func TestGoFuncTable(t *testing.T) {
	funcs := []goFunc{{slot: 0x1000, name: "go:buildid"}, {slot: 0x1001, name: "example.com/m/pkg.(*T).Read"}, {slot: 0x1003, name: "pkg.Map[go.shape.int]"}, {slot: 0x1200, name: "main.main"}}
	b := goTable(funcs)
	for name, im := range map[string]memImage{
		"one segment":    {segs: []memSeg{{0x20000, b}}},
		"split on zeros": linkerSegments(0x20000, b),
	} {
		t.Run(name, func(t *testing.T) {
			hdrs := im.headers()
			if !slices.Equal(hdrs, []uint64{0x20000}) {
				t.Fatalf("headers: expected [0x20000], got %x", hdrs)
			}
			got := goFuncTable(im, hdrs[0], len(funcs))
			for i := range got {
				got[i].fn = 0 // where goTable put the records
			}
			if !slices.Equal(got, funcs) {
				t.Fatalf("expected %v, got %v", funcs, got)
			}
		})
	}
	if im := linkerSegments(0x20000, b); len(im.segs) < 2 {
		t.Fatalf("expected the header's zero words to split the table, got %d segment", len(im.segs))
	}
	bad := func(name string, b []byte, maxFuncs int) {
		t.Helper()
		if got := goFuncTable(memImage{segs: []memSeg{{0, b}}}, 0, maxFuncs); got != nil {
			t.Errorf("%s: expected no table, got %v", name, got)
		}
	}
	bad("more functions than the module", b, len(funcs)-1)
	bad("entries out of order", goTable([]goFunc{{slot: 2, name: "a"}, {slot: 1, name: "b"}}), 2)
	bad("an empty name", goTable([]goFunc{{slot: 1, name: "a"}, {slot: 2, name: ""}}), 2)
	bad("a name too long", goTable([]goFunc{{slot: 1, name: strings.Repeat("a", goNameMax+1)}}), 1)
	c := slices.Clone(b)
	binary.LittleEndian.PutUint32(c[len(c)-4:], 1<<20) // the last record's name past the name table
	bad("a name outside the name table", c, len(funcs))
	c = slices.Clone(b)
	binary.LittleEndian.PutUint64(c[8:], 1<<40) // nfunc
	bad("a huge function count", c, 1<<20)
	bad("truncated", b[:40], len(funcs))
}

// goModules are the repository's Go modules, with a name each must have.
var goModules = []struct{ path, name string }{
	{"../examples/gojson/gojson.wasm", "encoding/json.(*decodeState).object"},
	{"../testdata/gonames/go-names.wasm", "example.com/wafer.fix/go-names/inner/pkg.(*Decoder).ReadChunk"},
	{"../testdata/goreactor/goreactor.wasm", "main.panicWithMessage"},
	{"../testdata/gocmd/gocmd.wasm", "main.main"},
}

// TestGoFuncNamesModules: in every Go module of the repository, Go's
// function table lists every defined function, its slots are the
// function indices less a constant (index = imports + slot - 0x1000), and
// each function the name section names gets a Go name that Go's linker
// writes as that name.
func TestGoFuncNamesModules(t *testing.T) {
	for _, mod := range goModules {
		t.Run(mod.path, func(t *testing.T) {
			b, err := os.ReadFile(mod.path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			section := nameSectionFuncs(m)
			im := memImageOf(m.Data)
			hdrs := im.headers()
			if len(hdrs) != 1 {
				t.Fatalf("expected one table header, got %x", hdrs)
			}
			fs := goFuncTable(im, hdrs[0], len(m.Code))
			if len(fs) != len(m.Code) {
				t.Fatalf("expected %d functions, got %d", len(m.Code), len(fs))
			}
			wasm := make([]string, len(fs))
			at := map[string]int{}
			for i, s := range section {
				if _, ok := at[s]; ok {
					at[s] = -1
				} else {
					at[s] = i
				}
			}
			for j, f := range fs {
				wasm[j] = goWasmName(f.name)
			}
			nimp := int64(m.NumImported(ExternFunc))
			base, votes := goSlotBase(fs, wasm, at)
			if base != nimp-0x1000 || votes < len(fs)*9/10 {
				t.Fatalf("expected base %d by most of %d votes, got %d by %d", nimp-0x1000, len(fs), base, votes)
			}
			for j, f := range fs {
				if i := base + int64(f.slot); section[i] != wasm[j] {
					t.Fatalf("entry %d %q at index %d: the name section has %q", j, f.name, i, section[i])
				}
			}
			raw, n := matchNames(fs, section)
			named := 0
			for i, s := range section {
				if s == "" {
					continue
				}
				named++
				if raw[i] == "" || goWasmName(raw[i]) != s {
					t.Fatalf("function %d %q: Go name %q", i, s, raw[i])
				}
			}
			if n != named || named != len(m.Code) {
				t.Fatalf("expected all %d functions named, %d with a name section entry, got %d", len(m.Code), named, n)
			}
			names := goFuncNames(m, section)
			if !slices.Contains(names, mod.name) {
				t.Fatalf("no function %q", mod.name)
			}
			for _, n := range names {
				if strings.Contains(n, "[go.shape") {
					t.Fatalf("%q: not as Go prints it", n)
				}
			}
		})
	}
}

// TestGoFuncNamesNotGo: a module without Go's table keeps its names.
func TestGoFuncNamesNotGo(t *testing.T) {
	b, err := os.ReadFile("../testdata/clib/clib.wasm")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if names := goFuncNames(m, nameSectionFuncs(m)); names != nil {
		t.Fatalf("expected no Go names, got %d", len(names))
	}
	p, err := Prepare(b, Build{})
	if err != nil {
		t.Fatal(err)
	}
	if p.SiteMap.Funcs != nil {
		t.Fatalf("a plain build of a C module: expected no Funcs, got %d", len(p.SiteMap.Funcs))
	}
}

// TestMatchGoFuncs: index arithmetic tells apart functions whose names
// Go's linker writes alike; without it (no unique name votes, or an
// entry off the common offset) a name is matched only where it is
// unique on both sides, else left to the name section.
func TestMatchGoFuncs(t *testing.T) {
	tests := []struct {
		name    string
		fs      []goFunc
		section []string
		want    []string
	}{
		{"arithmetic", []goFunc{{slot: 0x1000, name: "x"}, {slot: 0x1001, name: "a/b.f"}, {slot: 0x1002, name: "a_b.f"}, {slot: 0x1003, name: "y.(*T).g"}},
			[]string{"imp", "x", "a_b.f", "a_b.f", "y.__T_.g"},
			[]string{"", "x", "a/b.f", "a_b.f", "y.(*T).g"}},
		{"reordered, unique names", []goFunc{{slot: 0x1000, name: "p/q.f"}, {slot: 0x1001, name: "p/q.g"}, {slot: 0x1002, name: "p/q.h"}},
			[]string{"p_q.h", "p_q.g", "p_q.f"},
			[]string{"p/q.h", "p/q.g", "p/q.f"}},
		{"ambiguous", []goFunc{{slot: 0x1000, name: "a/b.f"}, {slot: 0x1001, name: "a_b.f"}},
			[]string{"a_b.f", "a_b.f"},
			[]string{"", ""}},
		{"off the offset", []goFunc{{slot: 0x1000, name: "x"}, {slot: 0x1001, name: "y"}, {slot: 0x1002, name: "a/b.f"}, {slot: 0x1003, name: "a_b.f"}},
			[]string{"x", "y", "a_b.f", "z", "a_b.f"},
			[]string{"x", "y", "a/b.f", "", ""}},
		{"no table", nil, []string{"x"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := matchNames(tc.fs, tc.section)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("expected %q, got %q", tc.want, got)
			}
		})
	}
}

// linkerRE is the pattern Go's wasm linker replaces in a function name.
var linkerRE = regexp.MustCompile(`[^\w.]`)

func TestGoWasmName(t *testing.T) {
	for _, s := range []string{"example.com/wafer.fix/go-names/inner/pkg.(*Decoder).ReadChunk", "pkg.Map[go.shape.int]", "go:buildid", "main.Größe", "a\xffb", "\uFFFDx", ""} {
		if got, want := goWasmName(s), linkerRE.ReplaceAllString(s, "_"); got != want {
			t.Errorf("goWasmName(%q): expected %q, got %q", s, want, got)
		}
	}
	for s, want := range map[string]string{
		"pkg.Map[go.shape.int]":                  "pkg.Map[...]",
		"pkg.(*T[go.shape.int,go.shape.bool]).M": "pkg.(*T[...]).M",
		"pkg.F[go.shape.int].func1":              "pkg.F[...].func1",
		"example.com/m/pkg.(*Decoder).ReadChunk": "example.com/m/pkg.(*Decoder).ReadChunk",
		"odd]name[":                              "odd]name[",
	} {
		if got := goPrintName(s); got != want {
			t.Errorf("goPrintName(%q): expected %q, got %q", s, want, got)
		}
	}
}

// TestPrepareGoNames: plain and instrumented builds of a Go module name
// its functions as Go does, keep the name section's name in WasmName,
// and the SiteMap's encoding keeps both.
func TestPrepareGoNames(t *testing.T) {
	const (
		goName   = "example.com/wafer.fix/go-names/inner/pkg.(*Decoder).ReadChunk"
		wasmName = "example.com_wafer.fix_go_names_inner_pkg.__Decoder_.ReadChunk"
	)
	b, err := os.ReadFile("../testdata/gonames/go-names.wasm")
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []*Options{nil, {Fuel: true, DirtyPages: true, HeapGuard: true}} {
		p, err := Prepare(b, Build{Instrument: opts})
		if err != nil {
			t.Fatal(err)
		}
		sm := p.SiteMap
		i := slices.IndexFunc(sm.Funcs, func(f Func) bool { return f.Name == goName })
		if i < 0 || sm.Funcs[i].WasmName != wasmName {
			t.Fatalf("instrumented %v: expected %q named %q in the name section, got index %d", opts != nil, goName, wasmName, i)
		}
		for _, f := range sm.Funcs {
			if f.WasmName != "" && goWasmName(f.Name) != f.WasmName && !strings.Contains(f.Name, "[...]") {
				t.Fatalf("%q is not what the linker writes as %q", f.Name, f.WasmName)
			}
		}
		enc, err := sm.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var back SiteMap
		if err := back.UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(back.Funcs, sm.Funcs) {
			t.Fatal("the SiteMap's encoding lost function names")
		}
		if opts != nil && !bytes.Equal(enc[:len(siteMapMagic)], []byte(siteMapMagic)) {
			t.Fatalf("expected %q", siteMapMagic)
		}
	}
}

// TestSiteMapWasmNames: a v8 map (no wasm names) still reads, and a v9
// map's wasm names must name functions it has.
func TestSiteMapWasmNames(t *testing.T) {
	sm := &SiteMap{Funcs: []Func{{Name: "a/b.f", WasmName: "a_b.f"}, {Name: "g"}}}
	enc, err := sm.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	plain := &SiteMap{Funcs: []Func{{Name: "a/b.f"}, {Name: "g"}}}
	enc8, _ := plain.MarshalBinary()
	if !bytes.HasSuffix(enc8, []byte{0, 0, 0}) {
		t.Fatal("expected the empty wasm names', Go modules' and joins' counts last")
	}
	enc8 = slices.Concat([]byte(siteMapMagicV8), enc8[len(siteMapMagic):len(enc8)-3])
	var back SiteMap
	if err := back.UnmarshalBinary(enc8); err != nil || !slices.Equal(back.Funcs, plain.Funcs) {
		t.Fatalf("v8 map: %v, %v", err, back.Funcs)
	}
	// the last bytes: count 1, index 0, "a_b.f", then no Go modules and no joins
	tail := []byte{1, 0, 5, 'a', '_', 'b', '.', 'f', 0, 0}
	if !bytes.HasSuffix(enc, tail) {
		t.Fatalf("expected the wasm names last, got %q", enc[len(enc)-len(tail):])
	}
	head := enc[:len(enc)-len(tail)]
	for name, tc := range map[string]struct {
		tail []byte
		want string
	}{
		"index past the functions": {[]byte{1, 2, 1, 'x'}, "sitemap: wasm name of function 2, the map has 2"},
		"empty name":               {[]byte{1, 0, 0}, "sitemap: empty wasm name of function 0"},
		"truncated":                {[]byte{1, 0, 5, 'a'}, "sitemap: string of 5 bytes exceeds the 1 left"},
	} {
		err := new(SiteMap).UnmarshalBinary(slices.Concat(head, tc.tail))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: expected %q, got %v", name, tc.want, err)
		}
	}
}

// FuzzGoFuncTable: whatever the bytes, the table reader does not panic,
// returns at most maxFuncs functions, and keeps names within goNameMax
// bytes each and goNamesMax in all. Seeds: a table, split as the linker
// splits it, and the same with its words damaged.
func FuzzGoFuncTable(f *testing.F) {
	tab := goTable([]goFunc{{slot: 0x1000, name: "go:buildid"}, {slot: 0x1001, name: "example.com/m/pkg.(*T).Read"}, {slot: 0x1003, name: "pkg.Map[go.shape.int]"}})
	f.Add(tab, uint32(0x20000))
	f.Add(tab[:len(tab)-5], uint32(0))
	f.Add(append(slices.Clone(goTableMagic), bytes.Repeat([]byte{0xff}, 64)...), uint32(0xfffffff0))
	f.Fuzz(func(t *testing.T, b []byte, addr uint32) {
		const maxFuncs = 1 << 10
		for _, im := range []memImage{{segs: []memSeg{{uint64(addr), b}}}, linkerSegments(uint64(addr), b)} {
			for _, hdr := range im.headers() {
				fs := goFuncTable(im, hdr, maxFuncs)
				if len(fs) > maxFuncs {
					t.Fatalf("%d functions, at most %d expected", len(fs), maxFuncs)
				}
				total := 0
				seen := map[string]bool{}
				for _, f := range fs {
					if len(f.name) > goNameMax || f.name == "" {
						t.Fatalf("a name of %d bytes", len(f.name))
					}
					if !seen[f.name] {
						seen[f.name] = true
						total += len(f.name)
					}
				}
				if total > goNamesMax {
					t.Fatalf("%d bytes of names", total)
				}
				section := make([]string, len(fs)+2)
				for i, f := range fs {
					section[i+1] = goWasmName(f.name)
				}
				if names, n := matchNames(fs, section); len(fs) > 0 && (len(names) != len(section) || n > len(section)) {
					t.Fatalf("%d names for %d functions", len(names), len(section))
				}
			}
		}
	})
}

// matchNames is matchGoFuncs with the paired entries' names ("" for none).
func matchNames(fs []goFunc, section []string) ([]string, int) {
	idx, n := matchGoFuncs(fs, section)
	if idx == nil {
		return nil, 0
	}
	names := make([]string, len(idx))
	for i, j := range idx {
		if j >= 0 {
			names[i] = fs[j].name
		}
	}
	return names, n
}
