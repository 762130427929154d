package instrument_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/wafer-fuzz/wafer/internal/wasip1"
)

// Temporary: instruction counting under valgrind (not committed).
func TestZZCount(t *testing.T) {
	prog := os.Getenv("COUNT_PROG")
	if prog == "" {
		t.Skip()
	}
	inputs := map[string]string{
		"cwords": strings.Repeat("hello world\nthree little words\naeiou bcd aeiou bcd aeiou bcd\n", 30),
		"crunch": "42\n",
		"gocalc": `[{"op":"set","name":"x","args":[3]},{"op":"get","name":"x"},{"op":"mul","args":[2]},{"op":"sort","args":[9,-1,4]},{"op":"json"},{"op":"print"}]`,
	}
	ctx := context.Background()
	cache, _ := wazero.NewCompilationCacheWithDir("/tmp/wzcache")
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler().WithCompilationCache(cache))
	if _, err := wasip1.Instantiate(ctx, rt); err != nil {
		t.Fatal(err)
	}
	wasm, err := os.ReadFile("testdata/programs/" + prog + "/" + prog + ".wasm")
	if err != nil {
		t.Fatal(err)
	}
	var v realVariant
	for _, x := range realVariants() {
		if x.name == os.Getenv("COUNT_VAR") {
			v = x
		}
	}
	tg, err := newRealTarget(ctx, rt, prog, wasm, v.opts)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(os.Getenv("COUNT_N"))
	start := os.Getenv("COUNT_START") == "1"
	for i := 0; i < n; i++ {
		if start {
			if _, err := tg.run(ctx, []byte(inputs[prog]), 1<<40); err != nil {
				t.Fatal(err)
			}
			continue
		}
		st := &wasip1.State{Base: tg.base(), Args: []string{prog}, Stdin: []byte(inputs[prog]), Seed: 1}
		mod, err := rt.InstantiateModule(wasip1.WithState(ctx, st), tg.cm, wazero.NewModuleConfig().WithName("").WithStartFunctions())
		if err != nil {
			t.Fatal(err)
		}
		mod.Close(ctx)
	}
}
