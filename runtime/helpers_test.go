package runtime

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
)

// fixture reads a checked-in fixture from ../testdata (rebuilt by
// ../testdata/build.sh; tests never run the tools).
func fixture(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testCacheDir is this test process's compilation cache, a fresh
// directory TestMain makes and removes: repeated tests don't recompile the
// Go fixtures (seconds each), nothing lands in $HOME, and two `go test`
// processes at once never share a cache. Set once, before any test runs.
var testCacheDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wafer-runtime-test-cache-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "runtime tests: compilation cache: %v\n", err)
		os.Exit(1)
	}
	testCacheDir = dir
	code := m.Run()
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintf(os.Stderr, "runtime tests: remove the compilation cache: %v\n", err)
	}
	os.Exit(code)
}

// testConfig returns cfg with testCacheDir as its cache unless cfg names
// one or disables it.
func testConfig(t testing.TB, cfg Config) Config {
	t.Helper()
	if cfg.CacheDir == "" && !cfg.NoCache {
		cfg.CacheDir = testCacheDir
	}
	return cfg
}

// fakeMeta describes testdata/fake/fake.wat, laid out as instrument would.
var fakeLayout = instrument.Layout{
	ReservedPages:      1,
	CountersOffset:     0,
	Counters:           4,
	DirtyOffset:        16,
	DirtyPages:         4,
	MemoryExport:       "wafer.memory",
	FuelExport:         "wafer.fuel",
	GlobalExportPrefix: "wafer.g",
}

func fakeMeta() meta { return meta{instrumented: true, layout: fakeLayout} }

func load(t testing.TB, rel string, m meta, cfg Config) *Target {
	t.Helper()
	ctx := context.Background()
	wasm := fixture(t, rel)
	tg, err := newTarget(ctx, wasm, summary(t, wasm), m, testConfig(t, cfg))
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	t.Cleanup(func() { tg.Close(ctx) })
	return tg
}

func worker(t testing.TB, tg *Target) *Worker {
	t.Helper()
	w, err := tg.NewWorker(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close(context.Background()) })
	return w
}

func run(t testing.TB, w *Worker, input string) Result {
	t.Helper()
	res, err := w.Run(context.Background(), []byte(input))
	if err != nil {
		t.Fatalf("run %q: %v", input, err)
	}
	return res
}

// summary is wasm's instrument.Summary.
func summary(t testing.TB, wasm []byte) *instrument.Summary {
	t.Helper()
	s, err := instrument.Summarize(wasm)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// prepare makes wasm's build for a Target under cfg as a campaign does
// (Preparation, instrument.Prepare): instrumented with opts, or plain when
// opts is nil.
func prepare(t testing.TB, wasm []byte, cfg Config, opts *instrument.Options) *instrument.Prepared {
	t.Helper()
	b := Preparation(summary(t, wasm), cfg)
	b.Instrument = opts
	p, err := instrument.Prepare(wasm, b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// loadPlain makes a fixture's plain build as wafer repro does (prepare)
// and loads it.
func loadPlain(t testing.TB, rel string, cfg Config) *Target {
	t.Helper()
	p := prepare(t, fixture(t, rel), cfg, nil)
	ctx := context.Background()
	tg, err := New(ctx, p, testConfig(t, cfg))
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	t.Cleanup(func() { tg.Close(ctx) })
	return tg
}
