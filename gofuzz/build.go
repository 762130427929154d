package gofuzz

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wafer-fuzz/wafer/internal/atomicfile"
)

//go:embed shim.go.tmpl
var shimText string

// shim is the generated test file that runs t as a wafer target: the
// template with «Package», «Name», «Wrapped», «Fast» and «Direct»
// replaced; fast runs the fuzz function on the export's goroutine.
func shim(t *Test, fast bool) []byte {
	wrapped := strconv.FormatBool(t.call.file != "")
	return []byte(strings.NewReplacer("«Package»", t.Package, "«Name»", t.Name, "«Wrapped»", wrapped, "«Fast»", strconv.FormatBool(fast), "«Direct»", direct(t.paramTypes)).Replace(shimText))
}

// directDecode is the expression that takes one value of a fixed-size
// type off the input in the generated file (its fuzz function's
// parameter types as the source spells them); "" marks []byte and string.
var directDecode = map[string]string{
	"bool": "waferFuzzFixed(&in, 1)&1 == 1",
	"int":  "int(waferFuzzFixed(&in, 8))", "int8": "int8(waferFuzzFixed(&in, 1))", "int16": "int16(waferFuzzFixed(&in, 2))",
	"int32": "int32(waferFuzzFixed(&in, 4))", "rune": "rune(waferFuzzFixed(&in, 4))", "int64": "int64(waferFuzzFixed(&in, 8))",
	"uint": "uint(waferFuzzFixed(&in, 8))", "uint8": "uint8(waferFuzzFixed(&in, 1))", "byte": "byte(waferFuzzFixed(&in, 1))",
	"uint16": "uint16(waferFuzzFixed(&in, 2))", "uint32": "uint32(waferFuzzFixed(&in, 4))", "uint64": "waferFuzzFixed(&in, 8)",
	"float32": "wfmath.Float32frombits(uint32(waferFuzzFixed(&in, 4)))", "float64": "wfmath.Float64frombits(waferFuzzFixed(&in, 8))",
	"[]byte": "", "string": "",
}

// direct is the body of the generated waferFuzzDirect for a fuzz
// function with these parameter types (nil: it returns nil): the values
// decoded in the tuple encoding's order, fixed-size ones first.
func direct(types []string) string {
	if len(types) == 0 {
		return "\treturn nil"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\tf, ok := ff.(func(*wftesting.T, %s))\n\tif !ok {\n\t\treturn nil\n\t}\n", strings.Join(types, ", "))
	b.WriteString("\treturn func(t *wftesting.T, in []byte) {\n")
	last := -1
	for i, t := range types {
		if directDecode[t] == "" {
			last = i
		}
	}
	args := make([]string, len(types))
	for i, t := range types {
		if e := directDecode[t]; e != "" {
			args[i] = fmt.Sprintf("a%d", i)
			fmt.Fprintf(&b, "\t\ta%d := %s\n", i, e)
		}
	}
	for i, t := range types {
		if directDecode[t] != "" {
			continue
		}
		args[i] = fmt.Sprintf("a%d", i)
		e := fmt.Sprintf("waferFuzzVar(&in, %t)", i == last)
		if t == "string" {
			e = "string(" + e + ")"
		}
		fmt.Fprintf(&b, "\t\ta%d := %s\n", i, e)
	}
	fmt.Fprintf(&b, "\t\tf(t, %s)\n\t}", strings.Join(args, ", "))
	return b.String()
}

// wrapCall is the source of the file holding t's f.Fuzz call with its
// argument x as waferFuzzWrap(x), on the same lines, and x's t.Skip calls
// made cheap (fastSkips).
func wrapCall(t *Test) ([]byte, error) {
	src, err := os.ReadFile(t.call.file)
	if err != nil {
		return nil, err
	}
	if t.call.end > len(src) || t.call.start > t.call.end {
		return nil, fmt.Errorf("%s: changed while building", t.call.file)
	}
	var b bytes.Buffer
	b.Write(src[:t.call.start])
	b.WriteString("waferFuzzWrap(")
	b.Write(fastSkips(src[t.call.start:t.call.end]))
	b.WriteString(")")
	b.Write(src[t.call.end:])
	return b.Bytes(), nil
}

// BuildOptions configure Build. The zero value builds with the go
// command from PATH into the user's cache directory.
type BuildOptions struct {
	// Go is the go command; "" means "go".
	Go string
	// CacheDir holds the builds, by content; "" means wafer/gofuzz in
	// os.UserCacheDir.
	CacheDir string
	// Log receives one line when a build starts; nil: none.
	Log io.Writer
}

func (o BuildOptions) cacheDir() (string, error) {
	if o.CacheDir != "" {
		return o.CacheDir, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for Go fuzz test builds: %w", err)
	}
	return filepath.Join(d, "wafer", "gofuzz"), nil
}

// Build builds t's test binary for wasip1 as a wafer target and returns
// the .wasm file's path in the cache. A build is reused while its key is
// the same: the go version, GOFLAGS, the generated file, and the contents
// of every file of every package the test binary imports outside the
// standard library and the module cache (those of the module cache by
// their module version). A failed build leaves nothing in the cache.
func Build(ctx context.Context, t *Test, opts BuildOptions) (string, error) {
	dir, err := opts.cacheDir()
	if err != nil {
		return "", err
	}
	// The wrapped file first: the generated one runs the fuzz function
	// on the export's goroutine unless a skip may end that goroutine.
	var wrapped []byte
	if t.call.file != "" {
		if wrapped, err = wrapCall(t); err != nil {
			return "", err
		}
	}
	src := shim(t, wrapped != nil && !otherSkips(t, wrapped))
	key, err := buildKey(ctx, opts.Go, t, src)
	if err != nil {
		return "", err
	}
	wasm := filepath.Join(dir, key+".wasm")
	if _, err := os.Stat(wasm); err == nil {
		return wasm, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cache for Go fuzz test builds: %w", err)
	}
	if opts.Log != nil {
		fmt.Fprintf(opts.Log, "INFO: building %s %s for wasip1 (go test -c)\n", t.ImportPath, t.Name)
	}
	tmp, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		return "", fmt.Errorf("cache for Go fuzz test builds: %w", err)
	}
	defer os.RemoveAll(tmp)
	gen := filepath.Join(tmp, "shim.go")
	if err := os.WriteFile(gen, src, 0o644); err != nil {
		return "", err
	}
	replace := map[string]string{filepath.Join(t.Dir, "wafer_fuzz_"+t.Name+"_test.go"): gen}
	if wrapped != nil {
		path := filepath.Join(tmp, "wrapped.go")
		if err := os.WriteFile(path, wrapped, 0o644); err != nil {
			return "", err
		}
		replace[t.call.file] = path
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		return "", err
	}
	ovPath := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ovPath, overlay, 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(tmp, "test.wasm")
	if _, err := goCommand(ctx, opts.Go, t.WorkDir, "test", "-c", "-buildmode=c-shared", "-trimpath", "-overlay", ovPath, "-o", out, t.Pattern); err != nil {
		return "", fmt.Errorf("%s: build %s for wasip1: %w", t.Pattern, t.Name, err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return "", fmt.Errorf("%s: build %s for wasip1: %w", t.Pattern, t.Name, err)
	}
	if err := atomicfile.Write(wasm, b); err != nil {
		return "", fmt.Errorf("cache for Go fuzz test builds: %w", err)
	}
	return wasm, nil
}

// harnessPath is wafer's harness package, which a fuzz test's build
// must not link (its exports are the generated file's).
const harnessPath = "github.com/wafer-fuzz/wafer/harness"

// listed is the part of `go list -deps -test -json` buildKey reads.
type listed struct {
	ImportPath, Dir string
	Standard        bool
	Module          *struct{ Path, Version, Dir string }
	GoFiles, CgoFiles, TestGoFiles, XTestGoFiles, SFiles, EmbedFiles,
	IgnoredGoFiles []string
	Error *struct{ Err string }
}

// buildKey is the cache key of t's build (see Build).
func buildKey(ctx context.Context, goCmd string, t *Test, src []byte) (string, error) {
	ver, err := goCommand(ctx, goCmd, t.WorkDir, "env", "GOVERSION", "GOFLAGS", "GOMODCACHE")
	if err != nil {
		return "", fmt.Errorf("go env: %w", err)
	}
	modcache := ""
	if ls := strings.Split(strings.TrimSpace(string(ver)), "\n"); len(ls) == 3 {
		modcache = ls[2]
	}
	out, err := goCommand(ctx, goCmd, t.WorkDir, "list", "-e", "-deps", "-test", "-json=ImportPath,Dir,Standard,Module,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,SFiles,EmbedFiles,IgnoredGoFiles,Error", t.Pattern)
	if err != nil {
		return "", fmt.Errorf("%s: go list -deps: %w", t.Pattern, err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "wafer gofuzz v1\x00%s\x00%s\x00%s\x00", ver, t.Pattern, t.Name)
	h.Write(src)
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return "", fmt.Errorf("%s: go list -deps: %w", t.Pattern, err)
		}
		if p.Error != nil {
			return "", fmt.Errorf("%s: %s", p.ImportPath, strings.TrimSpace(p.Error.Err))
		}
		if p.Standard {
			continue
		}
		if p.ImportPath == harnessPath {
			return "", fmt.Errorf("%s: imports %s, whose exports (malloc, LLVMFuzzerTestOneInput) make a reactor target of its own: fuzz that target's .wasm, or keep %s in a package that does not import it", t.Pattern, harnessPath, t.Name)
		}
		fmt.Fprintf(h, "pkg %s %s\x00", p.ImportPath, p.Dir)
		if m := p.Module; m != nil && modcache != "" && m.Version != "" && strings.HasPrefix(p.Dir, modcache+string(filepath.Separator)) {
			continue // the module cache's files do not change under a version
		}
		for _, files := range [][]string{p.GoFiles, p.CgoFiles, p.TestGoFiles, p.XTestGoFiles, p.SFiles, p.EmbedFiles, p.IgnoredGoFiles} {
			for _, f := range files {
				if !filepath.IsAbs(f) {
					f = filepath.Join(p.Dir, f)
				} // else go's generated _testmain.go, in its cache
				b, err := os.ReadFile(f)
				if err != nil {
					return "", fmt.Errorf("%s: %w", p.ImportPath, err)
				}
				sum := sha256.Sum256(b)
				fmt.Fprintf(h, "file %s %x\x00", filepath.Base(f), sum)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}
