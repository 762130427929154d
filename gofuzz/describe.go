package gofuzz

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tetratelabs/wazero"

	"github.com/wafer-fuzz/wafer/generators"
	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/internal/atomicfile"
	"github.com/wafer-fuzz/wafer/internal/wasip1"
)

// Description is what a built fuzz test says of itself (Describe).
type Description struct {
	// Fields are the fuzz function's arguments after its *testing.T,
	// named after its parameters where the source names them (Test.Params)
	// and "argN" (1-based) otherwise.
	Fields []generators.Field
	// Seeds are the f.Add value sets, tuple-encoded.
	Seeds [][]byte
}

// describeExport is the export of the generated file that prints the
// description.
const describeExport = "wafer_go_describe"

// Describe runs wasm, a fuzz test built by Build, far enough to learn its
// argument types and f.Add values (the fuzz test function runs, the fuzz
// function does not), in wazero's interpreter with wafer's sandboxed WASI
// showing it sys. params names the fields (Test.Params; nil: argN).
func Describe(ctx context.Context, wasm []byte, sys System, params []string) (*Description, error) {
	out, err := describeOutput(ctx, wasm, sys)
	if err != nil {
		return nil, err
	}
	return parseDescription(out, params)
}

// describeOutput is what the description export prints.
func describeOutput(ctx context.Context, wasm []byte, sys System) (string, error) {
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter().WithCloseOnContextDone(true))
	defer r.Close(ctx)
	if _, err := wasip1.Instantiate(ctx, r); err != nil {
		return "", err
	}
	st := &wasip1.State{Stdout: wasip1.NewTailBuffer(4 << 20), Stderr: wasip1.NewTailBuffer(64 << 10),
		Args: []string{"target"}, Env: sys.Env, Files: sys.Files}
	ctx = wasip1.WithState(ctx, st)
	mod, err := r.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize"))
	if err != nil {
		return "", fmt.Errorf("start: %w%s", err, stderrTail(st))
	}
	fn := mod.ExportedFunction(describeExport)
	if fn == nil {
		return "", fmt.Errorf("not a Go fuzz test built by wafer: no export %s", describeExport)
	}
	if _, err := fn.Call(ctx); err != nil {
		return "", fmt.Errorf("describe: %w%s", err, stderrTail(st))
	}
	return st.Stdout.String(), nil
}

func stderrTail(st *wasip1.State) string {
	if s := strings.TrimSpace(st.Stderr.String()); s != "" {
		return ": " + firstLines(s, 3)
	}
	return ""
}

// testingLog is what testing printed before the description, on one
// line: an F's failure before f.Fuzz ("x_test.go:12: open seeds/a: ...").
func testingLog(out string) string {
	var ls []string
	for l := range strings.SplitSeq(out, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l == "PASS" || l == "FAIL" || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "error ") ||
			strings.HasPrefix(l, "types ") || strings.HasPrefix(l, "seed ") || strings.HasPrefix(l, "testing: warning") {
			continue
		}
		ls = append(ls, l)
	}
	return strings.Join(ls[:min(len(ls), 3)], "; ")
}

// parseDescription reads the generated file's description: "types
// T1,T2,..." then "seed HEX" lines, or "error MESSAGE".
func parseDescription(out string, params []string) (*Description, error) {
	d := &Description{}
	sawTypes := false
	for i, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		word, rest, _ := strings.Cut(l, " ")
		switch word {
		case "error":
			if log := testingLog(out); log != "" {
				rest += ": " + log
			}
			return nil, fmt.Errorf("%s", rest)
		case "types":
			sawTypes = true
			for j, name := range strings.Split(rest, ",") {
				t, err := generators.ParseValueType(name)
				if err != nil {
					return nil, fmt.Errorf("argument %d: %w", j+1, err)
				}
				f := generators.Field{Name: fmt.Sprintf("arg%d", j+1), Type: t}
				if j < len(params) && params[j] != "" {
					f.Name = params[j]
				}
				d.Fields = append(d.Fields, f)
			}
		case "seed":
			b, err := hex.DecodeString(rest)
			if err != nil {
				return nil, fmt.Errorf("description line %d: %w", i+1, err)
			}
			d.Seeds = append(d.Seeds, b)
		}
	}
	if !sawTypes {
		return nil, fmt.Errorf("describe: no argument types in its output %q", firstLines(out, 2))
	}
	return d, nil
}

// IsGoFuzzTest reports whether wasm is a fuzz test built by Build (it
// exports the description); false for bytes that are no module.
func IsGoFuzzTest(wasm []byte) bool {
	s, err := instrument.Summarize(wasm)
	if err != nil {
		return false
	}
	for _, e := range s.Exports {
		if e.Name == describeExport {
			return true
		}
	}
	return false
}

// DescribeCached is Describe with its answer kept in cacheDir (""
// means Build's default) under the SHA-256 of wasm and sys: a description
// takes seconds in the interpreter, and it changes only with them.
func DescribeCached(ctx context.Context, wasm []byte, sys System, params []string, cacheDir string) (*Description, error) {
	if cacheDir == "" {
		d, err := BuildOptions{}.cacheDir()
		if err != nil {
			return Describe(ctx, wasm, sys, params)
		}
		cacheDir = d
	}
	h := sha256.New()
	h.Write(wasm)
	for _, e := range sys.Env {
		fmt.Fprintf(h, "\x00env %s", e)
	}
	names := slices.Sorted(maps.Keys(sys.Files))
	for _, n := range names {
		fmt.Fprintf(h, "\x00file %s %x", n, sha256.Sum256(sys.Files[n]))
	}
	path := filepath.Join(cacheDir, fmt.Sprintf("%x.describe", h.Sum(nil)))
	if b, err := os.ReadFile(path); err == nil {
		if d, err := parseDescription(string(b), params); err == nil {
			return d, nil
		}
	}
	out, err := describeOutput(ctx, wasm, sys)
	if err != nil {
		return nil, err
	}
	d, err := parseDescription(out, params)
	if err != nil {
		return nil, err
	}
	if os.MkdirAll(cacheDir, 0o755) == nil {
		_ = atomicfile.Write(path, []byte(out)) // a cache: a failed write only costs time
	}
	return d, nil
}
