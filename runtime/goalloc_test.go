package runtime

import (
	"bytes"
	"context"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// TestGoAllocatorNotGuarded: testdata/goalloc is a bug-free Go reactor
// with libFuzzer-style exports and its own malloc and free (of libc's
// types). Wrapped by the heap guard and checked, its seed
// seeds/false-overflow crashed as a heap-buffer-overflow in
// runtime.memclrNoHeapPointers (Go's collector had taken the input block
// back and was clearing it for the decoder's make; the shadow still said
// redzone). The guard must leave a Go module alone: no heap export, no
// shadow, the seed valid. A C allocator named by Options.Malloc is still
// wrapped, and naming a function the module lacks wraps nothing.
func TestGoAllocatorNotGuarded(t *testing.T) {
	seed := string(fixture(t, "goalloc/seeds/false-overflow"))
	tg := loadInstrumented(t, "goalloc/goalloc.wasm", checkOpts, Config{})
	if l := tg.meta.layout; l.HeapExport != "" || l.ShadowBytes != 0 {
		t.Fatalf("the heap guard wrapped a Go module's malloc: layout %+v", l)
	}
	for i := range 3 { // after the first run the collector has run, too
		if r := run(t, worker(t, tg), seed); r.Outcome != Valid {
			t.Fatalf("run %d: %v %v", i, r.Outcome, r.Failure)
		}
	}

	named := checkOpts
	named.Malloc = "malloc"
	if l := loadInstrumented(t, "heapcheck/check.wasm", named, Config{}).meta.layout; l.HeapExport == "" || l.ShadowBytes == 0 {
		t.Fatalf("--malloc malloc: the C allocator not wrapped: %+v", l)
	}
	named.Malloc = "no_such_malloc"
	if l := loadInstrumented(t, "heapcheck/check.wasm", named, Config{}).meta.layout; l.HeapExport != "" {
		t.Fatalf("--malloc no_such_malloc: wrapped %+v", l)
	}
}

// TestGoAllocatorGuardedBefore pins the false alarm the test above guards
// against, so that a change that made it pass without the Go check (a
// seed that no longer reaches the collector) is seen: the same module,
// its go:buildid removed and its runtime.mallocgc renamed, is wrapped as a
// C allocator would be, and the seed then crashes.
func TestGoAllocatorGuardedBefore(t *testing.T) {
	if testing.Short() {
		t.Skip("instruments a 2 MB Go module twice")
	}
	wasm := fixture(t, "goalloc/goalloc.wasm")
	// the same lengths: every section keeps its size
	wasm = bytes.ReplaceAll(wasm, []byte("go:buildid"), []byte("go:buildix"))
	wasm = bytes.ReplaceAll(wasm, []byte("runtime.mallocgc"), []byte("runtime.mallocgC"))
	out, sm, err := instrument.Instrument(wasm, checkOpts)
	if err != nil {
		t.Fatal(err)
	}
	if sm.Layout.HeapExport == "" {
		t.Fatal("the disguised Go module's malloc was not wrapped: the test no longer pins the false alarm")
	}
	ctx := context.Background()
	tg, err := New(ctx, &instrument.Prepared{Wasm: out, SiteMap: sm}, testConfig(t, Config{}))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close(ctx)
	r := run(t, worker(t, tg), string(fixture(t, "goalloc/seeds/false-overflow")))
	if r.Outcome != Crash || r.Failure.Kind != KindHeapOverflow {
		t.Fatalf("expected the false heap-buffer-overflow of a wrapped Go allocator, got %v %v", r.Outcome, r.Failure)
	}
	t.Logf("wrapped: %v in %v", r.Failure, r.Failure.Top())
}
