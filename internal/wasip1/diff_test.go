package wasip1

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/tetratelabs/wazero"
)

// TestEnginesAgree runs the real programs on wazero's interpreter and
// compiler: identical output and exit codes (the host module behaves the
// same whatever calls it). Compiling the Go program takes seconds, so
// this runs only with WAFER_FULL=1.
func TestEnginesAgree(t *testing.T) {
	if os.Getenv("WAFER_FULL") == "" {
		t.Skip("set WAFER_FULL=1 to compile the Go program with wazero's compiler")
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		wasm []byte
		args []string
	}{
		{"go", gocmdWasm, []string{"gocmd", "/input"}},
		{"c", ccmdWasm, []string{"ccmd", "/input"}},
		{"base", baseWasm, []string{"base", "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var outs [][]byte
			for _, cfg := range []wazero.RuntimeConfig{wazero.NewRuntimeConfigInterpreter(), compilerConfig(t)} {
				r := wazero.NewRuntimeWithConfig(ctx, cfg)
				defer r.Close(ctx)
				if _, err := Instantiate(ctx, r); err != nil {
					t.Fatal(err)
				}
				compiled, err := r.CompileModule(ctx, tc.wasm)
				if err != nil {
					t.Fatal(err)
				}
				s := &State{
					Args: tc.args, Env: []string{"EXIT_CODE=9"}, Stdin: []byte("in"),
					Files: map[string][]byte{"input": []byte("file")}, Seed: 3,
					Stdout: NewTailBuffer(1 << 16), Stderr: NewTailBuffer(1 << 16),
				}
				if tc.name == "base" {
					s.Base = 65536
				}
				code := runCommand(t, r, compiled, s)
				outs = append(outs, append([]byte{byte(code)}, append(s.Stdout.Bytes(), s.Stderr.Bytes()...)...))
			}
			if !bytes.Equal(outs[0], outs[1]) {
				t.Errorf("interpreter and compiler differ:\n%q\n%q", outs[0], outs[1])
			}
		})
	}
}

func compilerConfig(t *testing.T) wazero.RuntimeConfig {
	compilerRuntime(t) // skips where there is no compiler
	return wazero.NewRuntimeConfigCompiler()
}
