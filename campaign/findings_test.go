package campaign

import (
	"context"
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/wafer-fuzz/wafer/engine"
	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/runtime"
)

// TestOneBugOneReport runs the seeds of testdata/findings once each, with
// --keep-going: a divide by zero reached through three call chains that
// differ only above its top three frames is one report with three hits;
// an out-of-bounds read reached through two different third frames is
// two crash states of one crash site (one bug); two endless loops are two
// hangs, each naming its loop's function and line.
func TestOneBugOneReport(t *testing.T) {
	wasm, err := os.ReadFile("../testdata/findings/findings.wasm")
	if err != nil {
		t.Fatal(err)
	}
	wasm, sm, err := instrument.Instrument(wasm, instrument.Options{Fuel: true, DirtyPages: true, HeapGuard: true, StackCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tg, err := runtime.New(ctx, &instrument.Prepared{Wasm: wasm, SiteMap: sm}, runtime.Config{MaxInputLen: 1 << 16, Fuel: 1 << 20, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close(ctx)
	seeds := [][]byte{[]byte("Aa"), []byte("Ab"), []byte("Ac"), []byte("Tx\xff"), []byte("Ty\xff"), []byte("L_"), []byte("M_")}
	sum, err := engine.Fuzz(ctx, engine.Config{Search: engine.Search{Seed: 1, Runs: int64(len(seeds)), KeepGoing: true, NoShrink: true}},
		engine.Deps{NewExecutor: Executors(tg), Seeds: seeds})
	if err != nil {
		t.Fatal(err)
	}
	var crashes, hangs []*engine.Finding
	sites := map[string]bool{}
	for _, f := range sum.Failures {
		t.Logf("%s ×%d at %s", f.Identity, f.Count, f.Failure.Site)
		if f.Outcome == engine.Hang {
			hangs = append(hangs, f)
			continue
		}
		crashes = append(crashes, f)
		sites[f.Failure.Site] = true
	}
	if len(crashes) != 3 || len(sites) != 2 {
		t.Fatalf("expected 3 crash states at 2 crash sites, got %d at %d", len(crashes), len(sites))
	}
	var div *engine.Finding
	for _, f := range crashes {
		if f.Failure.Kind == runtime.KindDivideByZero {
			div = f
		}
	}
	if div == nil || div.Count != 3 || !strings.HasSuffix(div.Identity, "|divide;level3;level2") {
		t.Fatalf("expected the divide by zero once, with 3 hits: %+v", div)
	}
	if !strings.Contains(div.Failure.Site, "divide testdata/findings/findings.c:17") {
		t.Errorf("divide's crash site without its line: %q", div.Failure.Site)
	}
	if len(hangs) != 2 {
		t.Fatalf("expected two hangs, got %d", len(hangs))
	}
	// the loops' lines: the function's line is 35 (spin) and 41 (wait_for)
	for i, want := range []string{"spin testdata/findings/findings.c:37", "wait_for testdata/findings/findings.c:45"} {
		if !strings.Contains(hangs[i].Failure.Site, want) || !strings.Contains(hangs[i].Failure.Text, want) {
			t.Errorf("hang %d: expected its report to name %q, got site %q", i, want, hangs[i].Failure.Site)
		}
	}
}

// TestGuardAndCheckOneReport: a write past a heap block that the plain
// build's heap guard finds when the block is freed and the checked build
// finds at the write (testdata/heapguard's "O") is one report, with the
// checked build's identity, whichever build met it first: here two
// inputs, one of each build's (SampledExecutors by the input's hash), in
// both orders.
func TestGuardAndCheckOneReport(t *testing.T) {
	wasm, err := os.ReadFile("../testdata/heapguard/guard.wasm")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	load := func(check bool) *runtime.Target {
		out, sm, err := instrument.Instrument(wasm, instrument.Options{Fuel: true, DirtyPages: true, HeapGuard: true, HeapCheck: check, StackCheck: true})
		if err != nil {
			t.Fatal(err)
		}
		tg, err := runtime.New(ctx, &instrument.Prepared{Wasm: out, SiteMap: sm}, runtime.Config{MaxInputLen: 1 << 16, CacheDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close(ctx) })
		return tg
	}
	plain, checked := load(false), load(true)
	const every = 8
	var toChecked, toPlain []byte
	for i := 0; toChecked == nil || toPlain == nil; i++ {
		in := []byte("O0123456789ab" + strings.Repeat("z", i))
		if xxhash.Sum64(in)%every == 0 {
			toChecked = in
		} else {
			toPlain = in
		}
	}
	for _, seeds := range [][][]byte{{toPlain, toChecked}, {toChecked, toPlain}} {
		sum, err := engine.Fuzz(ctx, engine.Config{Search: engine.Search{Seed: 1, Runs: 2, KeepGoing: true, NoShrink: true}},
			engine.Deps{NewExecutor: sampledExecutors(plain, checked, every, 1), Seeds: seeds})
		if err != nil {
			t.Fatal(err)
		}
		if len(sum.Failures) != 1 {
			for _, f := range sum.Failures {
				t.Logf("%s ×%d", f.Identity, f.Count)
			}
			t.Fatalf("expected one report, got %d", len(sum.Failures))
		}
		f := sum.Failures[0]
		if f.Count != 2 || !strings.HasSuffix(f.Identity, "outside every heap block (in a redzone)|overflow_write") {
			t.Fatalf("expected the checked build's report with 2 hits, got %s ×%d", f.Identity, f.Count)
		}
	}
}

// TestGoHugeAllocationOneReport: testdata/gohuge's one bug, a make sized
// from the input, fails as a makeslice panic (its stack from Go's trace)
// or as memory.grow past the cap or past the malloc limit (its stack from
// the Wasm frames, which the name section names "main.__buffer_.fill"
// and wafer "main.(*buffer).fill", as Go's trace does), depending on the
// size, and is reached through two callers below its top three frames:
// one report with every hit.
func TestGoHugeAllocationOneReport(t *testing.T) {
	wasm, err := os.ReadFile("../testdata/gohuge/gohuge.wasm")
	if err != nil {
		t.Fatal(err)
	}
	wasm, sm, err := instrument.Instrument(wasm, instrument.Options{Fuel: true, DirtyPages: true, HeapGuard: true, StackCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tg, err := runtime.New(ctx, &instrument.Prepared{Wasm: wasm, SiteMap: sm}, runtime.Config{MaxMemoryPages: 4096, MallocLimit: 512 << 20, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close(ctx)
	size := func(n uint64, via byte) []byte {
		return append(binary.LittleEndian.AppendUint64([]byte("H"), n), via)
	}
	seeds := [][]byte{
		size(1<<60, 'a'),   // makeslice: len out of range
		size(300<<20, 'b'), // past the 256 MiB cap, within the malloc limit
		size(700<<20, 'a'), // past the malloc limit
		size(1<<50, 'b'),
	}
	sum, err := engine.Fuzz(ctx, engine.Config{Search: engine.Search{Seed: 1, Runs: int64(len(seeds)), KeepGoing: true, NoShrink: true}},
		engine.Deps{NewExecutor: Executors(tg), Seeds: seeds})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range sum.Failures {
		t.Logf("%s ×%d (%s: %s)", f.Identity, f.Count, f.Failure.Kind, f.Failure.Message)
	}
	if len(sum.Failures) != 1 || sum.Failures[0].Count != int64(len(seeds)) {
		t.Fatalf("expected one report with %d hits, got %d reports", len(seeds), len(sum.Failures))
	}
	if id := sum.Failures[0].Identity; !strings.HasSuffix(id, "out-of-memory||main.(*buffer).fill;main.decode;main.parse") {
		t.Fatalf("identity %q", id)
	}
}
