package runtime

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// TestGoNames: a Go target's failures name its functions as Go prints
// them, in the identity, the stack and the report, whether the stack came
// from Go's panic trace ('P') or from the Wasm frames ('L', 'G': fuel
// hangs), in an instrumented build and in a plain one (wafer repro's).
// The fixture's module, example.com/wafer.fix/go-names, has dots and
// slashes in its path, and the function a pointer receiver, which Go's
// linker writes in the name section as
// "example.com_wafer.fix_go_names_inner_pkg.__Decoder_.ReadChunk".
func TestGoNames(t *testing.T) {
	const (
		readChunk = "example.com/wafer.fix/go-names/inner/pkg.(*Decoder).ReadChunk"
		sum       = "example.com/wafer.fix/go-names/inner/pkg.Sum[...]"
	)
	fixtureName := "gonames/go-names.wasm"
	cfg := Config{Fuel: 1 << 20, MaxInputLen: 64}
	instrumented := worker(t, loadInstrumented(t, fixtureName, fullOpts, cfg))
	plain := worker(t, loadPlain(t, fixtureName, cfg))
	tests := []struct {
		name   string
		w      *Worker
		in     string
		kind   Kind
		frame  string
		wantID string
	}{
		{"panic", instrumented, "P", KindGoPanic, readChunk, "crash: go-panic|go-names fixture: bad chunk|" + readChunk + ";main.fuzz"},
		{"panic, plain", plain, "P", KindGoPanic, readChunk, "crash: go-panic|go-names fixture: bad chunk|" + readChunk + ";main.fuzz"},
		{"fuel hang", instrumented, "L", KindFuel, readChunk, "hang: fuel|out of fuel (budget N)|" + readChunk + ";main.fuzz"},
		{"fuel hang, generic", instrumented, "G", KindFuel, sum, "hang: fuel|out of fuel (budget N)|" + sum + ";main.fuzz"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.w, tc.in)
			if r.Failure == nil || r.Failure.Kind != tc.kind {
				t.Fatalf("expected a %v failure, got %v %v", tc.kind, r.Outcome, r.Failure)
			}
			if id := r.Identity(); id != tc.wantID {
				t.Errorf("identity: expected %q, got %q", tc.wantID, id)
			}
			if !slices.ContainsFunc(r.Failure.Stack, func(f Frame) bool { return f.Func == tc.frame }) {
				t.Errorf("stack: expected a frame %q, got %v", tc.frame, r.Failure.Stack)
			}
			rep := Report(r)
			if !strings.Contains(rep, "\n    "+tc.frame) {
				t.Errorf("report: expected a frame %q, got\n%s", tc.frame, rep)
			}
			for _, s := range []string{r.Identity(), rep, r.CrashSite()} {
				if strings.Contains(s, "example.com_wafer") || strings.Contains(s, "__Decoder_") || strings.Contains(s, "go.shape") {
					t.Errorf("the name section's spelling: %s", s)
				}
			}
		})
	}
}

// TestGoNamesWasmStack: wazero's frames, named as the name section names
// them, get Go's names from a plain build's SiteMap (what wafer repro
// runs); a name section name two functions share stays as it is.
func TestGoNamesWasmStack(t *testing.T) {
	trace := errors.New("wasm error: unreachable\nwasm stack trace:\n" +
		"\t.example.com_wafer.fix_go_names_inner_pkg.__Decoder_.ReadChunk(i32) i32\n" +
		"\t.example.com_wafer.fix_go_names_inner_pkg.Sum_go.shape.uint8_(i32) i32\n" +
		"\t.main.fuzz(i32) i32\n")
	p := prepare(t, fixture(t, "gonames/go-names.wasm"), Config{}, nil)
	var got []string
	for _, f := range wasmStack(trace, metaOf(p.SiteMap).funcs) {
		got = append(got, f.Func)
	}
	want := []string{"example.com/wafer.fix/go-names/inner/pkg.(*Decoder).ReadChunk", "example.com/wafer.fix/go-names/inner/pkg.Sum[...]", "main.fuzz"}
	if !slices.Equal(got, want) {
		t.Fatalf("expected %q, got %q", want, got)
	}
	shared := &instrument.SiteMap{Funcs: []instrument.Func{{Name: "a/b.f", WasmName: "a_b.f"}, {Name: "a.b/f", WasmName: "a_b.f"}, {Name: "c/d.g", WasmName: "c_d.g"}}}
	trace = errors.New("wasm stack trace:\n\t.a_b.f(i32) i32\n\t.c_d.g(i32) i32\n")
	got = got[:0]
	for _, f := range wasmStack(trace, metaOf(shared).funcs) {
		got = append(got, f.Func)
	}
	if want := []string{"a_b.f", "c/d.g"}; !slices.Equal(got, want) {
		t.Fatalf("expected %q, got %q", want, got)
	}
}
