package wasip1

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/tetratelabs/wazero"
)

// TestBaseOffset runs testdata/base.wasm, a command whose target memory
// starts at real address 64 KiB, with State.Base = 65536: args_get,
// fd_write iovecs, random_get, clock_time_get and fd_read must all land in
// the target's memory, never in the reserved page.
func TestBaseOffset(t *testing.T) {
	ctx := context.Background()
	r := newRuntime(t)
	compiled, err := r.CompileModule(ctx, baseWasm)
	if err != nil {
		t.Fatal(err)
	}
	stdin := bytes.Repeat([]byte("0123456789abcdef"), 5) // 80 bytes, 64 read
	s := &State{
		Base:   65536,
		Args:   []string{"base", "-x", "@@"},
		Stdin:  stdin,
		Stdout: NewTailBuffer(1024),
		Stderr: NewTailBuffer(1024),
		Seed:   42,
	}
	// Instantiate without running _start so the memory can be inspected
	// after proc_exit closed the module.
	mod, err := r.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		t.Fatal(err)
	}
	mem := mod.Memory()
	_, err = mod.ExportedFunction("_start").Call(WithState(ctx, s))
	if code := exitCode(t, err); code != 3 {
		t.Fatalf("expected exit code 3, got %d (stderr %q)", code, s.Stderr.String())
	}
	reserved, ok := mem.Read(0, 65536)
	if !ok {
		t.Fatal("memory unreadable after exit")
	}
	if i := bytes.IndexFunc(reserved, func(r rune) bool { return r != 0 }); i >= 0 {
		t.Errorf("host wrote into the reserved page at real address %#x", i)
	}
	// The guest's own view: argv[1] is a target address too.
	if got, _ := mem.ReadUint32Le(65536 + 0x204); got != 0x300+5 {
		t.Errorf("argv[1]: expected target address %#x, got %#x", 0x300+5, got)
	}

	var want []byte
	want = append(want, "base\x00-x\x00@@\x00"...)
	pcg := rand.NewPCG(42, 42^0x9e3779b97f4a7c15)
	want = le.AppendUint64(want, pcg.Uint64())
	want = le.AppendUint64(want, pcg.Uint64())
	want = append(want, "hello from base\n"...)
	want = le.AppendUint64(want, DefaultClockStep)
	if got := s.Stdout.Bytes(); !bytes.Equal(got, want) {
		t.Errorf("stdout:\n got %q\nwant %q", got, want)
	}
	if got := s.Stderr.Bytes(); !bytes.Equal(got, stdin[:64]) {
		t.Errorf("stderr: expected %q, got %q", stdin[:64], got)
	}
	if !s.Exited || s.ExitCode != 3 {
		t.Errorf("expected State.Exited with code 3, got %v %d", s.Exited, s.ExitCode)
	}
}

// TestBaseOffsetControl shows TestBaseOffset has teeth: with Base 0 the
// host writes argv into the reserved page, the module reads zeros at its
// argv and exits with its check code 103.
func TestBaseOffsetControl(t *testing.T) {
	ctx := context.Background()
	r := newRuntime(t)
	s := &State{Args: []string{"base"}}
	_, err := r.InstantiateWithConfig(WithState(ctx, s), baseWasm, wazero.NewModuleConfig().WithName(""))
	if code := exitCode(t, err); code != 103 {
		t.Fatalf("expected exit code 103, got %d", code)
	}
}
