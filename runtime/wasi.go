package runtime

// This file adapts wafer's WASI host (internal/wasip1): one host module per
// wazero.Runtime, one wasip1.State per Worker carried in the call context.

import (
	"context"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/internal/wasip1"
)

const wasiModule = wasip1.ModuleName

// wasiIO is one worker's view of WASI: configuration plus run state.
type wasiIO struct {
	st  wasip1.State
	ctx context.Context // parent ctx of the last call with st attached
	par context.Context
}

func instantiateHost(ctx context.Context, r wazero.Runtime) (api.Closer, error) {
	return wasip1.Instantiate(ctx, r)
}

func (w *wasiIO) init(lay instrument.Layout, args, env []string, seed uint64, tail int) {
	w.st.Base = lay.ReservedBytes()
	// WASI's own writes into guest memory mark the dirty-page map too, so a
	// dirty-page restore also undoes them.
	w.st.DirtyOffset, w.st.DirtyLen = uint64(lay.DirtyOffset), uint64(lay.DirtyPages)
	w.st.DirtyShift = uint8(lay.DirtyShift())
	w.st.Args = args
	w.st.Env = env
	w.st.Seed = seed
	w.st.Stdout = wasip1.NewTailBuffer(tail)
	w.st.Stderr = wasip1.NewTailBuffer(tail)
	// Go's panic and fatal error lines, which a deep goroutine trace
	// would push out of the tail (classify reads them from here).
	w.st.Stderr.CaptureFrom("panic: ", "fatal error: ")
}

// reset clears the run state before a run (stdin position, clocks, random
// stream, descriptors, output).
func (w *wasiIO) reset() { w.st.Reset() }

// resetOutput clears only the captured output (persistent mode).
func (w *wasiIO) resetOutput() {
	w.st.Stdout.Reset()
	w.st.Stderr.Reset()
}

// moduleConfig configures one instance: anonymous, no start functions
// (wafer calls them itself), everything else comes from the State.
func (w *wasiIO) moduleConfig() wazero.ModuleConfig {
	return wazero.NewModuleConfig().WithName("").WithStartFunctions().WithRandSource(zeroReader{})
}

// zeroReader stands in for wazero's own random source, which only wazero's
// WASI implementation reads (wafer's, internal/wasip1, has its own stream).
// Without one, wazero seeds a math/rand source for every instance: about
// 10 % of instantiating a small C command.
type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// context returns ctx carrying the State, reusing the last one when ctx is
// the same parent (no allocation on the hot path).
func (w *wasiIO) context(ctx context.Context) context.Context {
	if w.ctx == nil || w.par != ctx {
		w.par = ctx
		w.ctx = wasip1.WithState(ctx, &w.st)
	}
	return w.ctx
}

// wasiProvides reports whether the host implements wasi_snapshot_preview1.name.
func wasiProvides(name string) bool {
	for _, n := range wasip1.FunctionNames() {
		if n == name {
			return true
		}
	}
	return false
}
