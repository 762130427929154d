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

// FuzzInstrument instruments arbitrary input with every option: it must
// never panic; when the input compiles in wazero, so must the output, and
// the output must decode with the promised layout.
//
//	go test ./instrument -run '^$' -fuzz FuzzInstrument -fuzztime 5m
func FuzzInstrument(f *testing.F) {
	for _, sf := range coreSample(coreSpecFiles(f), 40) {
		if b, err := os.ReadFile(sf.path); err == nil && sf.valid {
			f.Add(b, uint8(0))
		}
	}
	f.Add(memWasm, uint8(7))
	f.Add(compareWasm, uint8(11))
	f.Add(branchesWasm, uint8(3))
	f.Add(callPairsWasm, uint8(128+3))
	f.Add(dwWasm, uint8(1))
	// Go's resume-point dispatch (godispatch.go): mutations of its shape
	// must be recognised exactly or left as any other code
	f.Add(asGoModule(goDispatchWasm), uint8(3))
	f.Add(asGoModule(goDispatchWasm), uint8(4+1))
	// a Go frame (goframe.go): with dirty pages, mutations of the SP
	// local's pattern must be followed exactly or left to marks.go
	f.Add(asGoModule(goFrameWasm), uint8(2))
	f.Add(asGoModule(goFrameWasm), uint8(3))
	if b, err := os.ReadFile("../testdata/heapguard/guard.wasm"); err == nil {
		f.Add(b, uint8(16+3)) // a C allocator for the heap guard and check
		f.Add(b, uint8(16+2)) // the guard alone (the check needs fuel's flag)
	}
	if b, err := os.ReadFile("../testdata/stack/stack.wasm"); err == nil {
		f.Add(b, uint8(64+32+3)) // a stack pointer for StackDepth and StackCheck
	}
	ctx := context.Background()
	feats := api.CoreFeaturesV2 | experimental.CoreFeaturesThreads | experimental.CoreFeaturesTailCall |
		experimental.CoreFeaturesExtendedConst | experimental.CoreFeaturesExceptionHandling |
		experimental.CoreFeaturesTypedFunctionReferences
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter().WithCoreFeatures(feats))
	defer rt.Close(ctx)
	f.Fuzz(func(t *testing.T, wasm []byte, flags uint8) {
		opts := Options{Fuel: flags&1 != 0, DirtyPages: flags&2 != 0, Compares: flags&8 != 0, HeapGuard: flags&16 != 0, HeapCheck: flags&16 != 0 && flags&1 != 0, StackDepth: flags&32 != 0, StackCheck: flags&64 != 0, CallPairs: flags&128 != 0}
		if flags&4 != 0 {
			opts.Skip = []string{"*"}
		}
		out, sm, err := Instrument(wasm, opts)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) && !errors.Is(err, ErrUnsupported) && err.Error() == "" {
				t.Fatalf("bad error %v", err)
			}
			return
		}
		m, err := Decode(out)
		if err != nil {
			t.Fatalf("output does not decode: %v", err)
		}
		if len(m.Memories) != 1 || m.Memories[0].Min < uint64(sm.Layout.ReservedPages) {
			t.Fatalf("output memory %+v, reserved %d", m.Memories, sm.Layout.ReservedPages)
		}
		if in, err := Decode(wasm); err == nil {
			for i := range in.Customs {
				if in.Customs[i].Name == "name" && !validNameSection(in.Customs[i].Data()) {
					// wazero's name section decoder can take tens of
					// seconds on a malformed one (huge counts): skip
					return
				}
			}
		}
		cm, err := rt.CompileModule(ctx, wasm)
		if err != nil {
			return // invalid input: no promise about the output
		}
		cm.Close(ctx)
		cm, err = rt.CompileModule(ctx, out)
		if err != nil {
			t.Fatalf("input compiles, output does not: %v", err)
		}
		cm.Close(ctx)
	})
}
