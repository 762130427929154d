package wasip1

import (
	"context"
	_ "embed"
	"errors"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// Fixtures: regenerate with testdata/build.sh.
var (
	//go:embed testdata/forward.wasm
	forwardWasm []byte
	//go:embed testdata/base.wasm
	baseWasm []byte
)

// newRuntime returns a runtime (interpreter: fast to compile, and the
// tests exercise the host side) with the host module instantiated.
func newRuntime(t testing.TB) wazero.Runtime {
	t.Helper()
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	t.Cleanup(func() { r.Close(ctx) })
	if _, err := Instantiate(ctx, r); err != nil {
		t.Fatal(err)
	}
	return r
}

// fwd is an instance of testdata/forward.wasm: every WASI function
// re-exported, memory of 3 pages.
type fwd struct {
	t   testing.TB
	mod api.Module
	mem api.Memory
	fns map[string]api.Function
}

func newFwd(t testing.TB) *fwd {
	t.Helper()
	r := newRuntime(t)
	mod, err := r.InstantiateWithConfig(context.Background(), forwardWasm, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		t.Fatal(err)
	}
	return &fwd{t: t, mod: mod, mem: mod.Memory(), fns: map[string]api.Function{}}
}

// call invokes WASI function name with s in the context and returns its
// errno.
func (f *fwd) call(s *State, name string, params ...uint64) Errno {
	f.t.Helper()
	fn := f.fns[name]
	if fn == nil {
		fn = f.mod.ExportedFunction(name)
		if fn == nil {
			f.t.Fatalf("no export %q", name)
		}
		f.fns[name] = fn
	}
	ctx := context.Background()
	if s != nil {
		ctx = WithState(ctx, s)
	}
	res, err := fn.Call(ctx, params...)
	if err != nil {
		f.t.Fatalf("%s: %v", name, err)
	}
	return Errno(res[0])
}

// put writes b at real address a.
func (f *fwd) put(a uint32, b []byte) {
	f.t.Helper()
	if !f.mem.Write(a, b) {
		f.t.Fatalf("write %d bytes at %#x out of range", len(b), a)
	}
}

// get reads n bytes at real address a (a copy).
func (f *fwd) get(a, n uint32) []byte {
	f.t.Helper()
	b, ok := f.mem.Read(a, n)
	if !ok {
		f.t.Fatalf("read %d bytes at %#x out of range", n, a)
	}
	return append([]byte(nil), b...)
}

func (f *fwd) u32(a uint32) uint32 { return le.Uint32(f.get(a, 4)) }
func (f *fwd) u64(a uint32) uint64 { return le.Uint64(f.get(a, 8)) }

func (f *fwd) putIovecs(a uint32, pairs ...uint32) {
	f.t.Helper()
	b := make([]byte, 4*len(pairs))
	for i, v := range pairs {
		le.PutUint32(b[4*i:], v)
	}
	f.put(a, b)
}

// exitCode extracts the code of a *sys.ExitError, or fails.
func exitCode(t testing.TB, err error) uint32 {
	t.Helper()
	var ee *sys.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("expected *sys.ExitError, got %v", err)
	}
	return ee.ExitCode()
}
