package instrument

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// stripSummary zeroes what depends on where an instruction was decoded
// from (the offsets of the data segments' offset expressions).
func stripSummary(s *Summary) *Summary {
	for i := range s.Data {
		for j := range s.Data[i].Offset.Instrs {
			s.Data[i].Offset.Instrs[j].Off = 0
		}
	}
	return s
}

// summaryModules are the repository's modules the Summary tests read.
func summaryModules(t testing.TB) []string {
	var paths []string
	for _, glob := range []string{"testdata/*.wasm", "../examples/*/*.wasm"} {
		p, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p...)
	}
	if len(paths) < 10 {
		t.Fatalf("expected the repository's modules, found %d", len(paths))
	}
	return paths
}

// TestSummarize: stepping over the bodies gives the Summary of the full
// decode, and that Summary is what the module holds.
func TestSummarize(t *testing.T) {
	for _, path := range summaryModules(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			wasm, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, derr := Decode(wasm)
			s, err := Summarize(wasm)
			if derr != nil {
				return // a malformed fixture: TestSummarizeErrors covers errors
			}
			if err != nil {
				t.Fatalf("Decode succeeded, Summarize failed: %v", err)
			}
			if want := stripSummary(m.summary()); !reflect.DeepEqual(stripSummary(s), want) {
				t.Fatalf("Summarize differs from the full decode's summary:\n got %+v\nwant %+v", s, want)
			}
			for _, c := range m.Customs {
				if !s.HasCustom(c.Name) {
					t.Errorf("HasCustom(%q) = false", c.Name)
				}
			}
			for _, e := range m.Exports {
				if !s.Exported(e.Kind, e.Name) {
					t.Errorf("Exported(%d, %q) = false", e.Kind, e.Name)
				}
			}
			if s.IsGo() != HasCustomSection(wasm, "go:buildid") {
				t.Errorf("IsGo() = %v, go:buildid section: %v", s.IsGo(), !s.IsGo())
			}
		})
	}
}

// TestPreparedSummary: the Summary Prepare returns with a build is the one
// Summarize reads from the build's bytes, plain or instrumented.
func TestPreparedSummary(t *testing.T) {
	opts := Options{Fuel: true, DirtyPages: true, HeapGuard: true, StackCheck: true, StackDepth: true, CallPairs: true}
	for _, path := range summaryModules(t) {
		wasm, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range []struct {
			name  string
			build Build
		}{
			{"plain", Build{Initialize: "_initialize", Export: []string{"malloc"}}},
			{"instrumented", Build{Instrument: &opts, Export: []string{"malloc", "free"}}},
		} {
			t.Run(filepath.Base(path)+"/"+b.name, func(t *testing.T) {
				p, err := Prepare(wasm, b.build)
				if err != nil {
					return // a module Prepare refuses has no build
				}
				want, err := Summarize(p.Wasm)
				if err != nil {
					t.Fatalf("Summarize of the build: %v", err)
				}
				if !reflect.DeepEqual(stripSummary(p.Summary), stripSummary(want)) {
					t.Fatalf("Prepared.Summary differs from the build's:\n got %+v\nwant %+v", p.Summary, want)
				}
			})
		}
	}
}

// TestSummarizeErrors: Summarize reports a malformed module outside the
// bodies as Decode does, steps over the bodies, and names section, offset
// and expectation.
func TestSummarizeErrors(t *testing.T) {
	hdr := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	mod := func(b ...byte) []byte { return append(append([]byte{}, hdr...), b...) }
	tests := []struct {
		name string
		in   []byte
		want string // "" for none
	}{
		{"empty", nil, "offset 0x0: unexpected end: expected 8-byte header, got 0 bytes"},
		{"bad magic", []byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0}, "offset 0x0: bad magic: expected 00 61 73 6d, got 7f 45 4c 46"},
		{"bad version", []byte{0, 'a', 's', 'm', 2, 0, 0, 0}, "offset 0x4: bad version: expected 01 00 00 00, got 02 00 00 00"},
		{"section size past end", mod(1, 5, 0), "section type: offset 0x9: section size 5 exceeds the 1 bytes left"},
		{"memory64", mod(5, 3, 1, 4, 1), "section memory: offset 0xb: memory64 limits (flags 0x04) are not supported"},
		{"body size past section", mod(1, 4, 1, 0x60, 0, 0, 3, 2, 1, 0, 10, 3, 1, 9, 0),
			"section code: offset 0x15: function body size 9 exceeds the 1 bytes left"},
		{"function without code", mod(1, 4, 1, 0x60, 0, 0, 3, 2, 1, 0),
			"section code: offset 0x12: function and code section have inconsistent lengths: expected 1 bodies, got 0"},
		// a body's instructions are not read: Decode reports this one
		{"unknown opcode", mod(1, 4, 1, 0x60, 0, 0, 3, 2, 1, 0, 10, 5, 1, 3, 0, 0xff, 0x0b), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Summarize(tc.in)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("expected no error, got %v", err)
			case tc.want == "":
			case err == nil:
				t.Fatalf("Summarize succeeded, want %q", tc.want)
			case err.Error() != tc.want:
				t.Fatalf("error\n got: %s\nwant: %s", err, tc.want)
			}
			var fe *FormatError
			if err != nil && !errors.As(err, &fe) {
				t.Errorf("error %T is not a *FormatError", err)
			}
		})
	}
}

// BenchmarkSummarize: the full decode against Summarize, which steps over
// the bodies, on the largest example.
//
//	go test ./instrument -run '^$' -bench Summarize -count 6 | benchstat -col /decode -
func BenchmarkSummarize(b *testing.B) {
	wasm, err := os.ReadFile("../examples/csqlite/csqlite.wasm")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decode=full", func(b *testing.B) {
		b.SetBytes(int64(len(wasm)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Decode(wasm); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode=summary", func(b *testing.B) {
		b.SetBytes(int64(len(wasm)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Summarize(wasm); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// An UncountedSection that AppendCustom adds to a module (the first, if
// several) is read into Summary.Uncounted, one pattern a line, blank
// lines dropped; the module still decodes, with the section kept.
func TestSummaryUncounted(t *testing.T) {
	wasm, err := os.ReadFile("../examples/gojson/gojson.wasm")
	if err != nil {
		t.Fatal(err)
	}
	if s, err := Summarize(wasm); err != nil || s.Uncounted != nil {
		t.Fatalf("without the section: %v, %q; want nil", err, s.Uncounted)
	}
	w := AppendCustom(bytes.Clone(wasm), UncountedSection, []byte("regexp.*\n\n flag.* \n"))
	w = AppendCustom(w, UncountedSection, []byte("fmt.*"))
	s, err := Summarize(w)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"regexp.*", "flag.*"}; !reflect.DeepEqual(s.Uncounted, want) {
		t.Errorf("Uncounted = %q, want %q", s.Uncounted, want)
	}
	m, err := Decode(w)
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Customs[len(m.Customs)-2]; c.Name != UncountedSection || string(c.Data()) != "regexp.*\n\n flag.* \n" {
		t.Errorf("decoded custom section %q: %q", c.Name, c.Data())
	}
}
