package engine_test

import (
	"context"
	"fmt"
	"os"

	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/engine"
	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/runtime"
)

// Example wires a campaign as `wafer fuzz` does: instrument the module,
// compile it once, open the output directory, and fuzz with one runtime
// Worker per engine worker. (No Output: it is compiled, not run.)
func Example() {
	ctx := context.Background()
	wasm, _ := os.ReadFile("target.wasm")
	inst, sm, err := instrument.Instrument(wasm, instrument.Options{Fuel: true, DirtyPages: true})
	if err != nil {
		panic(err)
	}
	target, err := runtime.New(ctx, inst, sm, runtime.Config{})
	if err != nil {
		panic(err)
	}
	defer target.Close(ctx)
	dir, _, err := corpus.Open(ctx, "wafer-out", corpus.Options{})
	if err != nil {
		panic(err)
	}
	defer dir.Close()
	store := engine.NewCorpusStore(dir, true)
	store.TotalEdges = len(sm.Sites)
	store.Repro = "wafer repro target.wasm {input}"

	sum, err := engine.Fuzz(ctx, engine.Config{Workers: 2, Runs: 1_000_000}, engine.Deps{
		NewExecutor: engine.RuntimeExecutors(target),
		Store:       store,
		TargetDict:  sm.Dictionary,
		Status:      os.Stderr,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(sum.Stop, sum.Stats.Execs, len(sum.Failures))
}
