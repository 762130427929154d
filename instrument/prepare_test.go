package instrument

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"testing"
	"time"
)

// chain is what Prepare replaces: each rewrite decoding the bytes the
// previous one encoded (OwnMemory, UnwrapCommandExports, Instrument,
// ExportFunction, ExportStackPointer), with the plain build's SiteMap
// assembled from ExportStackPointer's Layout and DWARFFuncNames (or a Go
// module's names, goOnlyNames).
func chain(t testing.TB, wasm []byte, b Build) ([]byte, *SiteMap, []string) {
	t.Helper()
	w, _, err := OwnMemory(wasm)
	if err != nil {
		t.Fatal(err)
	}
	var unwrapped []string
	if b.Initialize != "" {
		if w, unwrapped, err = UnwrapCommandExports(w, b.Initialize); err != nil {
			t.Fatal(err)
		}
	}
	var sm *SiteMap
	if b.Instrument != nil {
		if w, sm, err = Instrument(w, *b.Instrument); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range b.Export {
		if w, _, err = ExportFunction(w, name); err != nil {
			t.Fatal(err)
		}
	}
	if b.Instrument != nil {
		return w, sm, unwrapped
	}
	sm = &SiteMap{}
	for _, n := range DWARFFuncNames(w) {
		sm.Funcs = append(sm.Funcs, Func{Name: n})
	}
	if sm.Funcs == nil {
		m, err := Decode(w)
		if err != nil {
			t.Fatal(err)
		}
		sm.Funcs = goOnlyNames(m)
	}
	if w, sm.Layout, err = ExportStackPointer(w); err != nil {
		t.Fatal(err)
	}
	return w, sm, unwrapped
}

// TestPrepare: on fixtures that need each rewrite (an imported memory, a
// command's wrapped exports, an allocator left unexported, a stack
// pointer, DWARF names without a name section), every build Prepare makes
// from one decoding is byte for byte the output of the rewrites run one
// after the other, with the same SiteMap; and a plain build of a module
// that needs nothing is the input itself.
func TestPrepare(t *testing.T) {
	campaign := Options{Fuel: true, DirtyPages: true, HeapGuard: true, StackCheck: true, StackDepth: true, CallPairs: true}
	checked := campaign
	checked.HeapCheck = true
	compares := campaign
	compares.Compares = true
	libFuzzer := Build{Initialize: "_initialize", Export: []string{"malloc", "free"}}
	for _, tc := range []struct {
		fixture string
		b       Build
		want    []string // what must have changed, to be sure the pass ran
	}{
		{"clib/importmem.wasm", libFuzzer, []string{"memory", "free"}},
		{"cxxcommand/command.wasm", libFuzzer, []string{"unwrap", "free"}},
		{"cxxcommand/stripped.wasm", libFuzzer, []string{"unwrap"}},
		{"clib/nomalloc.wasm", libFuzzer, []string{"malloc", "free"}},
		{"clib/nonames.wasm", libFuzzer, []string{"dwarf"}},
		{"stack/stack.wasm", libFuzzer, []string{"stack"}},
		{"gocmd/gocmd.wasm", Build{}, nil},
	} {
		wasm, err := os.ReadFile("../testdata/" + tc.fixture)
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range []*Options{nil, {}, &campaign, &checked, &compares} {
			b := tc.b
			b.Instrument = opts
			p, err := Prepare(wasm, b)
			if err != nil {
				t.Fatalf("%s: %v", tc.fixture, err)
			}
			want, wantSM, unwrapped := chain(t, wasm, b)
			if !bytes.Equal(p.Wasm, want) {
				t.Errorf("%s %+v: Prepare's %d bytes differ from the chain's %d", tc.fixture, opts, len(p.Wasm), len(want))
			}
			got, _ := p.SiteMap.MarshalBinary()
			exp, _ := wantSM.MarshalBinary()
			if !bytes.Equal(got, exp) {
				t.Errorf("%s %+v: the SiteMaps differ", tc.fixture, opts)
			}
			if !slices.Equal(p.Unwrapped, unwrapped) {
				t.Errorf("%s: unwrapped %q, the chain %q", tc.fixture, p.Unwrapped, unwrapped)
			}
			if p.Instrumented() != (opts != nil) {
				t.Errorf("%s %+v: Instrumented() = %v", tc.fixture, opts, p.Instrumented())
			}
			if opts != nil {
				continue
			}
			m, err := Decode(p.Wasm)
			if err != nil {
				t.Fatalf("%s: output does not decode: %v", tc.fixture, err)
			}
			exported := func(name string) bool {
				return slices.ContainsFunc(m.Exports, func(e Export) bool { return e.Name == name })
			}
			for _, w := range tc.want {
				var ok bool
				switch w {
				case "memory":
					ok = len(m.Memories) == 1 && m.NumImported(ExternMemory) == 0
				case "unwrap":
					ok = len(p.Unwrapped) > 0 && exported("_initialize")
				case "malloc", "free":
					ok = exported(w)
				case "dwarf":
					ok = slices.ContainsFunc(p.SiteMap.Funcs, func(f Func) bool { return f.Name == "divide_by_zero" })
				case "stack":
					ok = p.SiteMap.Layout.StackPointerExport != "" && exported(p.SiteMap.Layout.StackPointerExport)
				}
				if !ok {
					t.Errorf("%s: the plain build lacks %s", tc.fixture, w)
				}
			}
			if tc.want == nil && !bytes.Equal(p.Wasm, wasm) {
				t.Errorf("%s: a plain build with nothing to do changed the module", tc.fixture)
			}
		}
	}
	inst, _, err := Instrument(branchesWasm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Prepare(inst, Build{}); !errors.Is(err, ErrInstrumented) {
		t.Errorf("an instrumented module: %v, want ErrInstrumented", err)
	}
	var fe *FormatError
	if _, err := Prepare([]byte("\x00asm\x01\x00\x00\x00\x05"), Build{}); !errors.As(err, &fe) {
		t.Errorf("a truncated module: %v, want a *FormatError", err)
	}
}

// FuzzPrepare makes both builds of arbitrary input: Prepare must never
// panic, and where it succeeds its output is the chain's (the rewrites
// one after the other) and decodes.
//
//	go test ./instrument -run '^$' -fuzz FuzzPrepare -fuzztime 5m
func FuzzPrepare(f *testing.F) {
	for _, fx := range []string{"clib/importmem.wasm", "cxxcommand/command.wasm", "clib/nomalloc.wasm", "stack/stack.wasm"} {
		if b, err := os.ReadFile("../testdata/" + fx); err == nil {
			f.Add(b, false)
		}
	}
	f.Add(branchesWasm, true)
	f.Add(memWasm, false)
	f.Fuzz(func(t *testing.T, wasm []byte, instrument bool) {
		b := Build{Initialize: "_initialize", Export: []string{"malloc", "free"}}
		if instrument {
			b.Instrument = &Options{Fuel: true, DirtyPages: true, HeapGuard: true, StackCheck: true}
		}
		p, err := Prepare(wasm, b)
		if err != nil {
			return
		}
		if _, err := Decode(p.Wasm); err != nil {
			t.Fatalf("output does not decode: %v", err)
		}
		if want, _, _ := chain(t, wasm, b); !bytes.Equal(p.Wasm, want) {
			t.Fatalf("Prepare's %d bytes differ from the chain's %d", len(p.Wasm), len(want))
		}
	})
}

// BenchmarkPrepare times, side by side in each iteration, a campaign's
// default build made by Prepare (one decoding, one encoding) and by the
// rewrites one after the other (chain), on the largest Go example and the
// largest C one (whose free is exported after instrumentation), with the
// steps the old chain took on each: ratio is chain's time over Prepare's, immune to the
// load that moves both (each goes first in every other iteration).
//
//	go test ./instrument -run '^$' -bench Prepare -count 6
func BenchmarkPrepare(b *testing.B) {
	opts := Options{Fuel: true, DirtyPages: true, HeapGuard: true, StackCheck: true, StackDepth: true, CallPairs: true}
	for _, tc := range []struct {
		name string
		b    Build
	}{
		{"gojson", Build{Instrument: &opts}},
		// what the old chain did to csqlite: it exports malloc and
		// _initialize, which the runtime saw without decoding; free it
		// exported after instrumentation
		{"csqlite", Build{Instrument: &opts, Export: []string{"free"}}},
	} {
		wasm, err := os.ReadFile("../examples/" + tc.name + "/" + tc.name + ".wasm")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			var inChain, inPrepare time.Duration
			timeChain := func() {
				start := time.Now()
				chain(b, wasm, tc.b)
				inChain += time.Since(start)
			}
			timePrepare := func() {
				start := time.Now()
				if _, err := Prepare(wasm, tc.b); err != nil {
					b.Fatal(err)
				}
				inPrepare += time.Since(start)
			}
			for i := 0; b.Loop(); i++ {
				// each first in turn: neither pays the other's garbage
				// more often
				if i%2 == 0 {
					timeChain()
					timePrepare()
				} else {
					timePrepare()
					timeChain()
				}
			}
			b.ReportMetric(float64(inChain.Milliseconds())/float64(b.N), "chain-ms/op")
			b.ReportMetric(float64(inPrepare.Milliseconds())/float64(b.N), "prepare-ms/op")
			b.ReportMetric(float64(inChain)/float64(inPrepare), "ratio")
		})
	}
}
