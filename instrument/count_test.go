package instrument_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/wafer-fuzz/wafer/internal/wasip1"
)

// TestCountRuns is a harness for counting executed machine instructions
// with valgrind, not a test: it runs only when WAFER_COUNT_PROG names a
// program of BenchmarkRun (cwords, crunch, gocalc). It instantiates
// variant WAFER_COUNT_VAR (a realVariants name) WAFER_COUNT_N times on
// BenchmarkRun's input, calling _start when WAFER_COUNT_START=1. The
// instructions of one run are the difference between a count with _start
// and one without, divided by N; a warm compilation cache keeps compiling
// out of both (run each command once first):
//
//	go test -c -o /tmp/i.test ./instrument && cd instrument
//	WAFER_COUNT_PROG=cwords WAFER_COUNT_VAR=counters WAFER_COUNT_N=3 WAFER_COUNT_START=1 \
//	  GOMAXPROCS=1 GOGC=off valgrind --tool=lackey --basic-counts=yes --smc-check=all \
//	  /tmp/i.test -test.run TestCountRuns
func TestCountRuns(t *testing.T) {
	prog := os.Getenv("WAFER_COUNT_PROG")
	if prog == "" {
		t.Skip("a valgrind harness: set WAFER_COUNT_PROG")
	}
	var input string
	for _, p := range benchPrograms {
		if p.name == prog {
			input = p.input
		}
	}
	var v realVariant
	for _, x := range realVariants() {
		if x.name == os.Getenv("WAFER_COUNT_VAR") {
			v = x
		}
	}
	ctx := context.Background()
	cache, err := wazero.NewCompilationCacheWithDir(os.TempDir() + "/wafer-count-cache")
	if err != nil {
		t.Fatal(err)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler().WithCompilationCache(cache))
	if _, err := wasip1.Instantiate(ctx, rt); err != nil {
		t.Fatal(err)
	}
	wasm, err := os.ReadFile("testdata/programs/" + prog + "/" + prog + ".wasm")
	if err != nil {
		t.Fatal(err)
	}
	tg, err := newRealTarget(ctx, rt, prog, wasm, v.opts)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(os.Getenv("WAFER_COUNT_N"))
	for range n {
		if os.Getenv("WAFER_COUNT_START") == "1" {
			if _, err := tg.run(ctx, []byte(input), realFuel); err != nil {
				t.Fatal(err)
			}
			continue
		}
		st := &wasip1.State{Base: tg.base(), Args: []string{prog}, Stdin: []byte(input), Seed: 1}
		mod, err := rt.InstantiateModule(wasip1.WithState(ctx, st), tg.cm, wazero.NewModuleConfig().WithName("").WithStartFunctions())
		if err != nil {
			t.Fatal(err)
		}
		mod.Close(ctx)
	}
}
