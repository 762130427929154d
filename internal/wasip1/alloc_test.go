package wasip1

import (
	"bytes"
	"context"
	"io"
	"testing"

	goruntime "runtime"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	wazerowasi "github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// hotCall is one hot-path host call through forward.wasm: the function and
// the parameters to load into the stack before each call.
type hotCall struct {
	name   string
	fn     string
	params []uint64
	bytes  int64 // payload per call, for MB/s
}

// hotCalls sets up guest memory for the hot paths (Base G): a 64-byte
// ciovec payload at 0x100, iovec at 0x10, result at 0x20.
func hotCalls(mem api.Memory, base uint32) []hotCall {
	mem.Write(base+0x100, bytes.Repeat([]byte("x"), 64))
	iov := make([]byte, 8)
	le.PutUint32(iov, 0x100)
	le.PutUint32(iov[4:], 64)
	mem.Write(base+0x10, iov)
	return []hotCall{
		{"fd_write/64B", "fd_write", []uint64{1, 0x10, 1, 0x20}, 64},
		{"fd_read_stdin/64B", "fd_read", []uint64{0, 0x10, 1, 0x20}, 64},
		{"clock_time_get", "clock_time_get", []uint64{clockMonotonic, 0, 0x30}, 0},
		{"random_get/32B", "random_get", []uint64{0x200, 32}, 32},
	}
}

func hotState() *State {
	return &State{
		Base:   G,
		Stdin:  bytes.Repeat([]byte("i"), 1<<20),
		Stdout: NewTailBuffer(4096),
		Stderr: NewTailBuffer(4096),
		Seed:   1,
	}
}

// hotImpls maps the hot functions to their implementations.
func hotImpls() map[string]impl {
	return map[string]impl{"fd_write": fdWrite, "fd_read": fdRead, "clock_time_get": clockTimeGet, "random_get": randomGet}
}

// compilerRuntime returns a runtime using wazero's compiler, the engine
// wafer runs targets on, with the host module instantiated; it skips the
// test where wazero has no compiler.
func compilerRuntime(t testing.TB) wazero.Runtime {
	t.Helper()
	if goruntime.GOARCH != "amd64" && goruntime.GOARCH != "arm64" {
		t.Skip("wazero has no compiler on " + goruntime.GOARCH)
	}
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler())
	t.Cleanup(func() { r.Close(ctx) })
	if _, err := Instantiate(ctx, r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestZeroAlloc: the per-execution host calls do not allocate, neither the
// host functions themselves nor the whole call through wazero's compiler
// (api.Function.CallWithStack). (wazero's interpreter allocates on calls of
// functions with few parameters whatever the host does, so it is not
// used for the end-to-end check.)
func TestZeroAlloc(t *testing.T) {
	ctx0 := context.Background()
	mod, err := compilerRuntime(t).InstantiateWithConfig(ctx0, forwardWasm, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		t.Fatal(err)
	}
	s := hotState()
	ctx := WithState(ctx0, s)
	impls := hotImpls()
	stack := make([]uint64, 8)
	for _, hc := range hotCalls(mod.Memory(), G) {
		host := wrap(impls[hc.fn])
		if a := testing.AllocsPerRun(100, func() {
			s.stdinPos = 0
			copy(stack, hc.params)
			host(ctx, mod, stack)
		}); a != 0 {
			t.Errorf("%s host function: expected 0 allocs/op, got %v", hc.name, a)
		}
		fn := mod.ExportedFunction(hc.fn)
		if a := testing.AllocsPerRun(100, func() {
			s.stdinPos = 0
			copy(stack, hc.params)
			if err := fn.CallWithStack(ctx, stack); err != nil || stack[0] != 0 {
				t.Fatalf("%s: %v errno %d", hc.name, err, stack[0])
			}
		}); a != 0 {
			t.Errorf("%s through wazero: expected 0 allocs/op, got %v", hc.name, a)
		}
	}
	if a := testing.AllocsPerRun(100, s.Reset); a != 0 {
		t.Errorf("Reset: expected 0 allocs/op, got %v", a)
	}
}

// BenchmarkHostFuncs measures the host side alone: the function wazero
// invokes (State lookup, bounds checks with Base, the work), called
// directly.
func BenchmarkHostFuncs(b *testing.B) {
	ctx := context.Background()
	mod, err := compilerRuntime(b).InstantiateWithConfig(ctx, forwardWasm, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		b.Fatal(err)
	}
	s := hotState()
	cctx := WithState(ctx, s)
	stack := make([]uint64, 8)
	impls := hotImpls()
	for _, hc := range hotCalls(mod.Memory(), G) {
		host := wrap(impls[hc.fn])
		b.Run(hc.name, func(b *testing.B) {
			b.SetBytes(hc.bytes)
			b.ReportAllocs()
			for b.Loop() {
				s.stdinPos = 0
				copy(stack, hc.params)
				host(cctx, mod, stack)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}

// BenchmarkHostCalls measures each hot-path call end to end through
// wazero's compiler: Go -> guest wrapper -> host function -> back. Compare
// with BenchmarkWazeroWASI (wazero's own WASI, same calls, base 0).
func BenchmarkHostCalls(b *testing.B) {
	ctx := context.Background()
	mod, err := compilerRuntime(b).InstantiateWithConfig(ctx, forwardWasm, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		b.Fatal(err)
	}
	s := hotState()
	cctx := WithState(ctx, s)
	stack := make([]uint64, 8)
	for _, hc := range hotCalls(mod.Memory(), G) {
		fn := mod.ExportedFunction(hc.fn)
		b.Run(hc.name, func(b *testing.B) {
			b.SetBytes(hc.bytes)
			b.ReportAllocs()
			for b.Loop() {
				s.stdinPos = 0
				copy(stack, hc.params)
				if err := fn.CallWithStack(cctx, stack); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}

// BenchmarkWazeroWASI is the reference: wazero's own
// wasi_snapshot_preview1 serving the same calls (stdout to io.Discard,
// stdin from a reader rewound each call, fake clock and rand).
func BenchmarkWazeroWASI(b *testing.B) {
	ctx := context.Background()
	if goruntime.GOARCH != "amd64" && goruntime.GOARCH != "arm64" {
		b.Skip("wazero has no compiler on " + goruntime.GOARCH)
	}
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler())
	defer r.Close(ctx)
	wazerowasi.MustInstantiate(ctx, r)
	stdin := bytes.NewReader(bytes.Repeat([]byte("i"), 1<<20))
	mod, err := r.InstantiateWithConfig(ctx, forwardWasm, wazero.NewModuleConfig().WithName("").
		WithStdout(io.Discard).WithStdin(stdin).WithStartFunctions())
	if err != nil {
		b.Fatal(err)
	}
	stack := make([]uint64, 8)
	for _, hc := range hotCalls(mod.Memory(), 0) {
		fn := mod.ExportedFunction(hc.fn)
		b.Run(hc.name, func(b *testing.B) {
			b.SetBytes(hc.bytes)
			b.ReportAllocs()
			for b.Loop() {
				stdin.Seek(0, io.SeekStart)
				copy(stack, hc.params)
				if err := fn.CallWithStack(ctx, stack); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}

// BenchmarkCommandRun is one whole run of testdata/base.wasm (instantiate,
// _start making 9 WASI calls, proc_exit) on wazero's compiler, State reset
// and reused: what a WASI command harness pays per execution.
func BenchmarkCommandRun(b *testing.B) {
	ctx := context.Background()
	r := compilerRuntime(b)
	compiled, err := r.CompileModule(ctx, baseWasm)
	if err != nil {
		b.Fatal(err)
	}
	s := workerState(0)
	sctx := WithState(ctx, s)
	cfg := wazero.NewModuleConfig().WithName("")
	b.ReportAllocs()
	for b.Loop() {
		s.Reset()
		r.InstantiateModule(sctx, compiled, cfg)
		if s.ExitCode != 3 {
			b.Fatalf("expected exit 3, got %d", s.ExitCode)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "execs/s")
}
