package runtime

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// TestNoAllocatorExport: a libFuzzer-style C target whose linker did not
// export malloc (testdata/clib/nomalloc.wasm, clib built without
// --export=malloc) runs through the malloc its name section names. Plain
// and instrumented, in every reset mode, its results equal those of
// clib.wasm (which exports malloc); "H" makes the target's malloc grow
// memory and aborts if that overwrote the input, with inputs up to the
// buffer's last byte.
func TestNoAllocatorExport(t *testing.T) {
	const maxIn = 100_000 // two pages: the buffer spans a page boundary
	long := append([]byte("H"), bytes.Repeat([]byte{'z'}, maxIn-1)...)
	inputs := [][]byte{[]byte("V"), []byte("X"), []byte("Q"), []byte("H"), long, []byte("Hshort"), []byte("D"), []byte("V")}
	for _, inst := range []bool{false, true} {
		for _, mode := range []Reset{Restore, Persistent, Fresh} {
			name := mode.String()
			if inst {
				name = "instrumented/" + name
			}
			t.Run(name, func(t *testing.T) {
				cfg := Config{Reset: mode, MaxInputLen: maxIn, Timeout: testTimeout}
				var with, without *Target
				if inst {
					with = loadInstrumented(t, "clib/clib.wasm", fullOpts, cfg)
					without = loadInstrumented(t, "clib/nomalloc.wasm", fullOpts, cfg)
				} else {
					with = loadPlain(t, "clib/clib.wasm", cfg)
					without = loadPlain(t, "clib/nomalloc.wasm", cfg)
				}
				if without.Harness() != HarnessLibFuzzer {
					t.Fatalf("expected a libfuzzer harness, got %v", without.Harness())
				}
				a, b := worker(t, with), worker(t, without)
				for i, in := range inputs {
					ra, rb := run(t, a, string(in)), run(t, b, string(in))
					if ra.Outcome != rb.Outcome || (ra.Failure == nil) != (rb.Failure == nil) {
						t.Fatalf("input %d (%.8q): with malloc %v %v, without %v %v", i, in, ra.Outcome, ra.Failure, rb.Outcome, rb.Failure)
					}
					if ra.Failure != nil && (ra.Failure.Kind != rb.Failure.Kind || ra.Failure.Top() != rb.Failure.Top()) {
						t.Fatalf("input %d (%.8q): with malloc %v, without %v", i, in, ra.Failure, rb.Failure)
					}
					if bytes.HasPrefix(in, []byte("H")) && rb.Outcome != Valid {
						t.Fatalf("input %d (%.8q): the heap overlapped the input: %v %s", i, in, rb.Failure, rb.Stderr)
					}
				}
			})
		}
	}
}

// TestNoAllocatorStripped: without the export and without a name section
// to find malloc by, the target is a start-up error naming the export,
// prepared or not; and New runs the bytes it is given: the module with a
// name section but not prepared is the same error (the export is the
// build's, not the runtime's).
func TestNoAllocatorStripped(t *testing.T) {
	wasm := fixture(t, "clib/nomalloc.wasm")
	m, err := instrument.Decode(wasm)
	if err != nil {
		t.Fatal(err)
	}
	m.Customs = slices.DeleteFunc(m.Customs, func(c instrument.Custom) bool { return c.Name == "name" })
	stripped := m.Encode()
	want := "no allocator export: expected malloc beside LLVMFuzzerTestOneInput"
	for name, w := range map[string][]byte{"stripped": stripped, "prepared stripped": prepare(t, stripped, Config{}, nil).Wasm, "not prepared": wasm} {
		_, err = New(t.Context(), &instrument.Prepared{Wasm: w}, testConfig(t, Config{}))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: expected %q, got %v", name, want, err)
		}
	}
}

// TestRestoresMemory: dirty-page marking is asked for only where a
// Worker restores an instance: reactors in Restore mode, not commands (a
// new instance per run) or other modes.
func TestRestoresMemory(t *testing.T) {
	tests := []struct {
		fixture string
		cfg     Config
		want    bool
	}{
		{"clib/clib.wasm", Config{}, true},
		{"goreactor/goreactor.wasm", Config{Reset: Restore}, true},
		{"clib/clib.wasm", Config{Reset: Persistent}, false},
		{"clib/clib.wasm", Config{Reset: Fresh}, false},
		{"gocmd/gocmd.wasm", Config{}, false},
		{"clib/clib.wasm", Config{Harness: HarnessCommand}, false},
	}
	for _, tc := range tests {
		if got := RestoresMemory(summary(t, fixture(t, tc.fixture)), tc.cfg); got != tc.want {
			t.Errorf("%s %+v: expected %v, got %v", tc.fixture, tc.cfg, tc.want, got)
		}
	}
}
