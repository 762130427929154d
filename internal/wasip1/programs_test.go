package wasip1

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/sys"
)

// Real programs: a Go GOOS=wasip1 command (testdata/gocmd/main.go) and a
// C wasi-libc command (testdata/ccmd.c), both rebuilt by testdata/build.sh.
// Their expected outputs are pinned byte for byte: the clock readings and
// random values depend on how many clock_time_get and random_get calls the
// language runtime makes, so rebuilding a .wasm with another toolchain may
// change those lines (and only those).
var (
	//go:embed testdata/gocmd.wasm
	gocmdWasm []byte
	//go:embed testdata/ccmd.wasm
	ccmdWasm []byte
	//go:embed testdata/goreactor.wasm
	goreactorWasm []byte
)

// runCommand instantiates a WASI command (running _start) with s and
// returns the exit code (0 when _start returned normally).
func runCommand(t testing.TB, r wazero.Runtime, compiled wazero.CompiledModule, s *State) uint32 {
	t.Helper()
	ctx := WithState(context.Background(), s)
	mod, err := r.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName(""))
	if err == nil {
		mod.Close(ctx)
		return 0
	}
	return exitCode(t, err)
}

// hostPaths are the host paths the programs try to create or remove; none
// may change.
var hostPaths = []string{"/created.txt", "/tmp/wafer-wasip1-gocmd", "/newdir", "/input"}

func hostSnapshot() map[string]bool {
	m := map[string]bool{}
	for _, p := range hostPaths {
		_, err := os.Lstat(p)
		m[p] = !errors.Is(err, fs.ErrNotExist)
	}
	// And the directories a relative path would land in.
	for _, dir := range []string{".", "testdata"} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			m[dir+"/"+e.Name()] = true
		}
	}
	return m
}

func checkHost(t *testing.T, before map[string]bool) {
	t.Helper()
	after := hostSnapshot()
	for p, existed := range after {
		if existed != before[p] {
			t.Errorf("host path %s changed: existed %v, now %v", p, before[p], existed)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("host path %s disappeared", p)
		}
	}
}

const goFullStdout = `stdin: "hello stdin" err=<nil>
args: ["gocmd" "/input"]
env: ["EXIT_CODE=3" "HOME=/"]
file /input: "file content" err=<nil>
stat: size=12 dir=false mode=-rw-------
dirent: dir dir=true
dirent: input dir=false
readdir err=<nil>
now: 2024-01-01T00:00:00.009Z
slept>=2s: true
crypto/rand: 40f94a52f653f0e9 err=<nil>
math/rand: 16454279266385068627
create: open /created.txt: Read-only file system
writefile: open /tmp/wafer-wasip1-gocmd: Read-only file system
mkdir: mkdir /newdir: Read-only file system
passwd: open /etc/passwd: No such file or directory
passwd-relative: open ../../../etc/passwd: No such file or directory
remove: remove /input: Read-only file system
`

const goBareStdout = `stdin: "" err=<nil>
args: ["gocmd"]
env: []
readdir err=open /: Bad file number
now: 2024-01-01T00:00:00.009Z
slept>=2s: true
crypto/rand: 40f94a52f653f0e9 err=<nil>
math/rand: 16454279266385068627
create: open /created.txt: Bad file number
writefile: open /tmp/wafer-wasip1-gocmd: Bad file number
mkdir: mkdir /newdir: Bad file number
passwd: open /etc/passwd: Bad file number
passwd-relative: open ../../../etc/passwd: Bad file number
`

const cFullStdout = `stdin 11: hello stdin
argv[0] = ccmd
argv[1] = /input
HOME = /home
file /input 12: file content
seek 5: con tell=8
dirent dir type=3
dirent input type=4
realtime 1704067200.001000000 monotonic 0.002000000
entropy 3f7829631da00787
passwd: No such file or directory
create: Read-only file system
`

func TestPrograms(t *testing.T) {
	ctx := context.Background()
	r := newRuntime(t)
	cache := map[*byte]wazero.CompiledModule{}
	compiledFor := func(t *testing.T, wasm []byte) wazero.CompiledModule {
		t.Helper()
		if c, ok := cache[&wasm[0]]; ok {
			return c
		}
		c, err := r.CompileModule(ctx, wasm)
		if err != nil {
			t.Fatal(err)
		}
		cache[&wasm[0]] = c
		return c
	}
	files := func() map[string][]byte {
		return map[string][]byte{"input": []byte("file content"), "dir/a.txt": []byte("a")}
	}
	for _, tc := range []struct {
		name       string
		wasm       []byte
		state      State
		wantCode   uint32
		wantStdout string
		wantStderr string // a prefix when it ends in "..."
	}{
		{"go full", gocmdWasm, State{
			Args: []string{"gocmd", "/input"}, Env: []string{"EXIT_CODE=3", "HOME=/"},
			Stdin: []byte("hello stdin"), Files: files(), Seed: 1,
		}, 3, goFullStdout, "to stderr\n"},
		{"go bare", gocmdWasm, State{Args: []string{"gocmd"}, Seed: 1}, 0, goBareStdout, "to stderr\n"},
		{"go exit 42", gocmdWasm, State{Args: []string{"gocmd"}, Env: []string{"EXIT_CODE=42"}, Seed: 1}, 42, "", "to stderr\n"},
		{"go panic", gocmdWasm, State{Args: []string{"gocmd"}, Env: []string{"PANIC=boom"}, Seed: 1}, 2, "",
			"to stderr\npanic: boom\n\ngoroutine 1 [running]:\nmain.main()..."},
		{"c full", ccmdWasm, State{
			Args: []string{"ccmd", "/input"}, Env: []string{"HOME=/home"},
			Stdin: []byte("hello stdin"), Files: files(), Seed: 1,
		}, 5, cFullStdout, "bye from C\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			compiled := compiledFor(t, tc.wasm)
			before := hostSnapshot()
			var outs [2][]byte
			for i := range outs {
				s := tc.state // fresh run state, same configuration
				s.Stdout, s.Stderr = NewTailBuffer(1<<16), NewTailBuffer(1<<16)
				code := runCommand(t, r, compiled, &s)
				if code != tc.wantCode {
					t.Errorf("run %d: expected exit code %d, got %d (stderr %q)", i, tc.wantCode, code, s.Stderr)
				}
				if tc.wantStdout != "" && s.Stdout.String() != tc.wantStdout {
					t.Errorf("run %d stdout:\n got %q\nwant %q", i, s.Stdout, tc.wantStdout)
				}
				if want, ok := strings.CutSuffix(tc.wantStderr, "..."); ok {
					if !strings.HasPrefix(s.Stderr.String(), want) {
						t.Errorf("run %d stderr: expected prefix %q, got %q", i, want, s.Stderr)
					}
				} else if s.Stderr.String() != tc.wantStderr {
					t.Errorf("run %d stderr: expected %q, got %q", i, tc.wantStderr, s.Stderr)
				}
				outs[i] = append(s.Stdout.Bytes(), s.Stderr.Bytes()...)
			}
			if !bytes.Equal(outs[0], outs[1]) {
				t.Errorf("two runs differ:\n%q\n%q", outs[0], outs[1])
			}
			checkHost(t, before)
		})
	}
}

// TestProgramSeed: the seed reaches the program's randomness and nothing
// else; reusing one State with Reset reproduces a run exactly.
func TestProgramSeed(t *testing.T) {
	ctx := context.Background()
	r := newRuntime(t)
	compiled, err := r.CompileModule(ctx, gocmdWasm)
	if err != nil {
		t.Fatal(err)
	}
	s := &State{Args: []string{"gocmd"}, Seed: 2, Stdout: NewTailBuffer(1 << 16)}
	runCommand(t, r, compiled, s)
	first := s.Stdout.String()
	if first == goBareStdout {
		t.Fatal("seed 2 gives seed 1's output")
	}
	diff := 0
	for i, l := range bytes.Split([]byte(first), []byte("\n")) {
		if want := bytes.Split([]byte(goBareStdout), []byte("\n"))[i]; !bytes.Equal(l, want) {
			diff++
			if !bytes.HasPrefix(l, []byte("crypto/rand: ")) && !bytes.HasPrefix(l, []byte("math/rand: ")) {
				t.Errorf("seed changed a non-random line: %q", l)
			}
		}
	}
	if diff != 2 {
		t.Errorf("expected the 2 random lines to change, %d did", diff)
	}
	s.Reset()
	runCommand(t, r, compiled, s)
	if got := s.Stdout.String(); got != first {
		t.Errorf("after Reset:\n got %q\nwant %q", got, first)
	}
}

// TestGoReactor: a Go c-shared reactor (the shape of a wafer Go target)
// initialises on the host module, its exports run with the State of each
// call, and os.Exit inside an export surfaces as *sys.ExitError.
func TestGoReactor(t *testing.T) {
	ctx := context.Background()
	r := newRuntime(t)
	s := &State{Seed: 5, Stdout: NewTailBuffer(1 << 12), Stderr: NewTailBuffer(1 << 12)}
	sctx := WithState(ctx, s)
	mod, err := r.InstantiateWithConfig(sctx, goreactorWasm, wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize"))
	if err != nil {
		t.Fatalf("_initialize: %v (stderr %q)", err, s.Stderr)
	}
	step := mod.ExportedFunction("step")
	for i, x := range []uint64{21, 100} {
		res, err := step.Call(sctx, x)
		if err != nil {
			t.Fatalf("step(%d): %v", x, err)
		}
		if uint32(res[0]) != uint32(2*x) {
			t.Errorf("step(%d): expected %d, got %d", x, 2*x, uint32(res[0]))
		}
		if i == 0 && !strings.HasPrefix(s.Stdout.String(), "step 1: x=21 now=2024-01-01T00:00:00.") {
			t.Errorf("unexpected output %q", s.Stdout)
		}
	}
	first := s.Stdout.String()
	if n := strings.Count(first, "\n"); n != 2 {
		t.Errorf("expected 2 lines, got %d: %q", n, first)
	}
	_, err = step.Call(sctx, uint64(0xffffffff)) // -1
	if code := exitCode(t, err); code != 4 {
		t.Errorf("expected exit code 4, got %d", code)
	}
	if !strings.HasSuffix(s.Stderr.String(), "negative input\n") {
		t.Errorf("stderr: expected %q at the end, got %q", "negative input\n", s.Stderr)
	}

	// A second instance with a fresh State of the same configuration
	// prints exactly the same.
	s2 := &State{Seed: 5, Stdout: NewTailBuffer(1 << 12)}
	sctx2 := WithState(ctx, s2)
	mod2, err := r.InstantiateWithConfig(sctx2, goreactorWasm, wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize"))
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []uint64{21, 100} {
		if _, err := mod2.ExportedFunction("step").Call(sctx2, x); err != nil {
			t.Fatal(err)
		}
	}
	if got := s2.Stdout.String(); got != first {
		t.Errorf("second instance:\n got %q\nwant %q", got, first)
	}
}

var (
	// ccmd.wasm instrumented by wafer's instrument package (build.sh runs
	// testdata/instrumentgen), and its base offset.
	//go:embed testdata/ccmd.inst.wasm
	ccmdInstWasm []byte
	//go:embed testdata/ccmd.inst.base
	ccmdInstBase string
)

// TestInstrumentedProgram: the C program after instrument/ has moved its
// memory up by the base offset prints exactly what the original prints,
// when run with State.Base set to that offset. With Base 0 it breaks.
func TestInstrumentedProgram(t *testing.T) {
	base, err := strconv.ParseUint(strings.TrimSpace(ccmdInstBase), 10, 64)
	if err != nil || base == 0 {
		t.Fatalf("testdata/ccmd.inst.base: expected a positive offset, got %q (%v)", ccmdInstBase, err)
	}
	ctx := context.Background()
	r := newRuntime(t)
	compiled, err := r.CompileModule(ctx, ccmdInstWasm)
	if err != nil {
		t.Fatal(err)
	}
	state := func(base uint64) *State {
		return &State{
			Base: base, Args: []string{"ccmd", "/input"}, Env: []string{"HOME=/home"},
			Stdin: []byte("hello stdin"), Seed: 1,
			Files:  map[string][]byte{"input": []byte("file content"), "dir/a.txt": []byte("a")},
			Stdout: NewTailBuffer(1 << 16), Stderr: NewTailBuffer(1 << 16),
		}
	}
	s := state(base)
	if code := runCommand(t, r, compiled, s); code != 5 {
		t.Errorf("expected exit code 5, got %d (stderr %q)", code, s.Stderr)
	}
	if got := s.Stdout.String(); got != cFullStdout {
		t.Errorf("stdout:\n got %q\nwant %q", got, cFullStdout)
	}
	if got := s.Stderr.String(); got != "bye from C\n" {
		t.Errorf("stderr: expected %q, got %q", "bye from C\n", got)
	}
	// Control: with Base 0 the program exits oddly or traps.
	wrong := state(0)
	_, err = r.InstantiateModule(WithState(ctx, wrong), compiled, wazero.NewModuleConfig().WithName(""))
	var ee *sys.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 5 && wrong.Stdout.String() == cFullStdout {
		t.Error("Base 0 gives the right output: the test proves nothing")
	}
}
