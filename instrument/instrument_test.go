package instrument

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// coreFeatures are the wazero features of each spec directory, plus
// extended-const (data segment offsets that use global.get are shifted
// with an extended constant expression).
func coreFeatures(suite string) api.CoreFeatures {
	f := api.CoreFeaturesV2 | experimental.CoreFeaturesExtendedConst
	switch suite {
	case "v1":
		f = api.CoreFeaturesV1 | experimental.CoreFeaturesExtendedConst
	case "threads":
		f |= experimental.CoreFeaturesThreads
	case "tail-call":
		f |= experimental.CoreFeaturesTailCall
	case "exception-handling":
		f |= experimental.CoreFeaturesExceptionHandling | experimental.CoreFeaturesTailCall | experimental.CoreFeaturesTypedFunctionReferences
	case "typed-function-references":
		f |= experimental.CoreFeaturesTypedFunctionReferences | experimental.CoreFeaturesTailCall
	}
	return f
}

var coreOptionSets = []struct {
	name string
	opts Options
}{
	{"counters", Options{}},
	{"fuel", Options{Fuel: true}},
	{"fuel+dirty", Options{Fuel: true, DirtyPages: true, CallPairs: true}},
}

// TestSpecInstrumentCompiles instruments every valid spec module (a sample
// unless WAFER_FULL=1) with each option set and compiles the output in
// wazero with the features of its directory. Modules the original does not
// compile in are skipped; ErrUnsupported is counted.
func TestSpecInstrumentCompiles(t *testing.T) {
	ctx := context.Background()
	var files []coreSpecFile
	for _, f := range coreSpecFiles(t) {
		if f.valid {
			files = append(files, f)
		}
	}
	files = coreSample(files, 5)
	runtimes := map[string]wazero.Runtime{}
	defer func() {
		for _, r := range runtimes {
			r.Close(ctx)
		}
	}()
	var ok, unsupported, origBad int
	for _, f := range files {
		rt := runtimes[f.suite]
		if rt == nil {
			rt = wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter().WithCoreFeatures(coreFeatures(f.suite)))
			runtimes[f.suite] = rt
		}
		wasm, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if cm, err := rt.CompileModule(ctx, wasm); err != nil {
			origBad++
			continue
		} else {
			cm.Close(ctx)
		}
		for _, os := range coreOptionSets {
			out, sm, err := Instrument(wasm, os.opts)
			if errors.Is(err, ErrUnsupported) {
				unsupported++
				t.Logf("%s: %v", f.path, err)
				continue
			}
			if err != nil {
				t.Errorf("%s [%s]: %v", f.path, os.name, err)
				continue
			}
			cm, err := rt.CompileModule(ctx, out)
			if err != nil {
				t.Errorf("%s [%s]: instrumented module does not compile: %v", f.path, os.name, err)
				continue
			}
			cm.Close(ctx)
			if int(sm.Layout.Counters) != len(sm.Sites) {
				t.Errorf("%s: %d counters, %d sites", f.path, sm.Layout.Counters, len(sm.Sites))
			}
			ok++
		}
	}
	t.Logf("compiled %d instrumented modules, %d ErrUnsupported, %d originals that do not compile skipped", ok, unsupported, origBad)
	want := specCompiles[coreMode()]
	if ok < want.ok || unsupported > want.unsupported || origBad > want.origBad {
		t.Errorf("%s: compiled %d, %d ErrUnsupported, %d originals that do not compile; expected at least %d, at most %d, at most %d",
			coreMode(), ok, unsupported, origBad, want.ok, want.unsupported, want.origBad)
	}
}

// specCompiles is, per coreMode, what TestSpecInstrumentCompiles gives
// today (wazero v1.12.0's suite, `go test -v -run
// TestSpecInstrumentCompiles ./instrument` in each mode): instrumented
// modules compiled (one per module and option set), at least; ErrUnsupported
// ("module imports its memory", and in full mode 9 for a GC type) and
// originals wazero does not compile, at most. A loader that skips modules compiles fewer.
var specCompiles = map[string]struct{ ok, unsupported, origBad int }{
	"full":    {8190, 351, 9},
	"sampled": {1647, 66, 1},
	"short":   {414, 15, 0},
}
