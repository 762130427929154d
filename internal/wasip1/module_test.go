package wasip1

import (
	"context"
	_ "embed"
	"slices"
	"testing"

	"github.com/tetratelabs/wazero"
	wazerowasi "github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// TestSignatures compares every exported function with wazero's own
// wasi_snapshot_preview1: same set of names, same parameter and result
// types, so any module linking against one links against the other.
func TestSignatures(t *testing.T) {
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	ours, err := NewHostModuleBuilder(r).Compile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := wazerowasi.NewBuilder(r).Compile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	of, tf := ours.ExportedFunctions(), theirs.ExportedFunctions()
	if len(of) != len(tf) {
		t.Errorf("expected %d functions, got %d", len(tf), len(of))
	}
	for name, td := range tf {
		od, ok := of[name]
		if !ok {
			t.Errorf("%s: missing", name)
			continue
		}
		if !slices.Equal(od.ParamTypes(), td.ParamTypes()) || !slices.Equal(od.ResultTypes(), td.ResultTypes()) {
			t.Errorf("%s: expected %v -> %v, got %v -> %v", name, td.ParamTypes(), td.ResultTypes(), od.ParamTypes(), od.ResultTypes())
		}
	}
	if got := FunctionNames(); len(got) != len(tf) {
		t.Errorf("FunctionNames: expected %d names, got %d", len(tf), len(got))
	}
}

// TestNoState: a call without a State in its context gets ENOSYS, no
// panic.
func TestNoState(t *testing.T) {
	f := newFwd(t)
	for _, tc := range []struct {
		name   string
		params []uint64
	}{
		{"args_sizes_get", []uint64{0, 4}},
		{"fd_write", []uint64{1, 0, 0, 0}},
		{"clock_time_get", []uint64{0, 0, 0}},
		{"random_get", []uint64{0, 8}},
	} {
		if got := f.call(nil, tc.name, tc.params...); got != ErrnoNosys {
			t.Errorf("%s: expected nosys, got %v", tc.name, got)
		}
	}
}

func TestErrnoString(t *testing.T) {
	for _, tc := range []struct {
		e    Errno
		want string
	}{
		{ErrnoSuccess, "success"}, {ErrnoBadf, "badf"}, {ErrnoFault, "fault"},
		{ErrnoNoent, "noent"}, {ErrnoNosys, "nosys"}, {ErrnoRofs, "rofs"},
		{ErrnoNotcapable, "notcapable"}, {Errno(77), "errno(77)"},
	} {
		if got := tc.e.String(); got != tc.want {
			t.Errorf("Errno(%d): expected %q, got %q", uint16(tc.e), tc.want, got)
		}
	}
	// Spot-check ABI values.
	if ErrnoBadf != 8 || ErrnoFault != 21 || ErrnoInval != 28 || ErrnoNoent != 44 || ErrnoNosys != 52 || ErrnoNotsup != 58 || ErrnoRofs != 69 || ErrnoNotcapable != 76 {
		t.Error("errno values drifted from the preview1 ABI")
	}
}

//go:embed testdata/nomem.wasm
var nomemWasm []byte

// TestNoMemory: a module without memory gets EFAULT for anything that
// needs memory and success for what does not.
func TestNoMemory(t *testing.T) {
	ctx := WithState(context.Background(), &State{})
	mod, err := newRuntime(t).Instantiate(ctx, nomemWasm)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		fn   string
		want Errno
	}{{"write", ErrnoFault}, {"yield", ErrnoSuccess}} {
		res, err := mod.ExportedFunction(tc.fn).Call(ctx)
		if err != nil || Errno(res[0]) != tc.want {
			t.Errorf("%s: expected %v, got %v %v", tc.fn, tc.want, res, err)
		}
	}
}
