package gofuzz

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/internal/atomicfile"
)

//go:embed shim.go.tmpl
var shimText string

// selectEnv is the environment variable that names the fuzz test a
// build of several runs (Test.System sets it).
const selectEnv = "WAFER_GO_FUZZ_TEST"

// shim is the generated test file that runs t's package's fuzz tests
// (t.tests) as a wafer target: the template with «Package», «Tests»,
// «Wrapped», «Fast», «Default», «Select» and «Direct» replaced. The fuzz
// test selectEnv names runs, or def when it is unset; those fast names
// run their fuzz function on the export's goroutine.
func shim(t *Test, def string, fast map[string]bool) []byte {
	var tests, wrapped, fastNames strings.Builder
	for _, d := range t.tests {
		fmt.Fprintf(&tests, "{Name: %q, Fn: %s}, ", d.name, d.name)
		if d.call.file != "" {
			fmt.Fprintf(&wrapped, "%q: true, ", d.name)
		}
		if fast[d.name] {
			fmt.Fprintf(&fastNames, "%q: true, ", d.name)
		}
	}
	return []byte(strings.NewReplacer("«Package»", t.Package, "«Tests»", tests.String(), "«Wrapped»", wrapped.String(),
		"«Fast»", fastNames.String(), "«Default»", def, "«Select»", selectEnv, "«Direct»", direct(t.tests)).Replace(shimText))
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

// sameType spells the types that are one type alike ([]byte's spelling
// is paramTypes').
var sameType = map[string]string{"byte": "uint8", "rune": "int32"}

// direct is the body of the generated waferFuzzDirect for fuzz tests
// with these declarations: for each list of parameter types the sources
// spell, a case that decodes the values in the tuple encoding's order,
// fixed-size ones first, and calls the fuzz function; nil otherwise.
func direct(decls []fuzzDecl) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, d := range decls {
		types := d.paramTypes
		canon := make([]string, len(types))
		for i, t := range types {
			canon[i] = cmp.Or(sameType[t], t)
		}
		if len(types) == 0 || seen[strings.Join(canon, ",")] {
			continue
		}
		seen[strings.Join(canon, ",")] = true
		fmt.Fprintf(&b, "\tif f, ok := ff.(func(*wftesting.T, %s)); ok {\n", strings.Join(types, ", "))
		b.WriteString("\t\treturn func(t *wftesting.T, in []byte) {\n")
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
				fmt.Fprintf(&b, "\t\t\ta%d := %s\n", i, e)
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
			fmt.Fprintf(&b, "\t\t\ta%d := %s\n", i, e)
		}
		fmt.Fprintf(&b, "\t\t\tf(t, %s)\n\t\t}\n\t}\n", strings.Join(args, ", "))
	}
	b.WriteString("\treturn nil")
	return b.String()
}

// wrapCalls is the source of file with the argument x of each f.Fuzz
// call of decls there as waferFuzzWrap(x), on the same lines.
func wrapCalls(file string, decls []fuzzDecl) ([]byte, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var calls []fuzzCall
	for _, d := range decls {
		if d.call.file == file {
			calls = append(calls, d.call)
		}
	}
	slices.SortFunc(calls, func(a, b fuzzCall) int { return a.start - b.start })
	var b bytes.Buffer
	at := 0
	for _, c := range calls {
		if c.end > len(src) || c.start > c.end || c.start < at {
			return nil, fmt.Errorf("%s: changed while building", file)
		}
		b.Write(src[at:c.start])
		b.WriteString("waferFuzzWrap(")
		b.Write(fastSkips(src[c.start:c.end]))
		b.WriteString(")")
		at = c.end
	}
	b.Write(src[at:])
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
	// Standalone builds a module that runs the test when it is fuzzed
	// without Test.System's environment (wafer build's .wasm): otherwise
	// a package with several fuzz tests runs the one that names.
	Standalone bool
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
// the .wasm file's path in the cache: the binary with t's
// UncountedSection (the packages t's code does not reach). One go build
// serves every fuzz test of t's package (of its package clause: the
// package or its external test package), each test its own file: the one
// that runs is named by Test.System's environment, or,
// without it, the package's only fuzz test (or t with
// opts.Standalone). A build is reused while its key is
// the same: the go version and settings (GOFLAGS, GOWORK, GOEXPERIMENT,
// ...), the generated file, the go.work, the go.mod files and
// vendor/modules.txt in effect, and the contents of every file of every
// package the test binary imports outside the standard library and the
// module cache (those of the module cache by their module version):
// packages of replaced, vendored and workspace modules count by their
// files. A failed build leaves nothing in the cache.
func Build(ctx context.Context, t *Test, opts BuildOptions) (string, error) {
	dir, err := opts.cacheDir()
	if err != nil {
		return "", err
	}
	def := ""
	if opts.Standalone || len(t.tests) == 1 {
		def = t.Name
	}
	// The wrapped files first: a fuzz function runs on the export's
	// goroutine unless a skip may end that goroutine (otherSkips).
	wrapped := map[string][]byte{} // by the file they replace
	for _, d := range t.tests {
		if d.call.file == "" || wrapped[d.call.file] != nil {
			continue
		}
		if wrapped[d.call.file], err = wrapCalls(d.call.file, t.tests); err != nil {
			return "", err
		}
	}
	fast := map[string]bool{}
	for _, d := range t.tests {
		fast[d.name] = d.call.file != "" && !otherSkips(t.Dir, d.name, wrapped)
	}
	src := shim(t, def, fast)
	key, skip, err := buildKey(ctx, opts.Go, t, src)
	if err != nil {
		return "", err
	}
	// key.wasm is the package's test binary; key-Name.wasm, the file
	// returned, the same with the UncountedSection of test Name.
	raw, wasm := filepath.Join(dir, key+".wasm"), filepath.Join(dir, key+"-"+t.Name+".wasm")
	if _, err := os.Stat(wasm); err == nil {
		return wasm, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cache for Go fuzz test builds: %w", err)
	}
	b, err := os.ReadFile(raw)
	if errors.Is(err, fs.ErrNotExist) {
		b, err = goBuild(ctx, t, opts, dir, src, wrapped, raw)
	}
	if err != nil {
		return "", err
	}
	b = instrument.AppendCustom(b, instrument.UncountedSection, []byte(strings.Join(skip, "\n")))
	if err := atomicfile.Write(wasm, b); err != nil {
		return "", fmt.Errorf("cache for Go fuzz test builds: %w", err)
	}
	return wasm, nil
}

// goBuild builds t's package's test binary for wasip1 with the generated
// file src and the wrapped files (go test -c, an overlay) and writes it
// to raw, in the cache directory dir; it returns the module.
func goBuild(ctx context.Context, t *Test, opts BuildOptions, dir string, src []byte, wrapped map[string][]byte, raw string) ([]byte, error) {
	if opts.Log != nil {
		names := make([]string, len(t.tests))
		for i, d := range t.tests {
			names[i] = d.name
		}
		fmt.Fprintf(opts.Log, "INFO: building %s for wasip1 (go test -c; one build serves its fuzz tests %s)\n", t.ImportPath, strings.Join(names, ", "))
	}
	tmp, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		return nil, fmt.Errorf("cache for Go fuzz test builds: %w", err)
	}
	defer os.RemoveAll(tmp)
	gen := filepath.Join(tmp, "shim.go")
	if err := os.WriteFile(gen, src, 0o644); err != nil {
		return nil, err
	}
	replace := map[string]string{shimPath(t.Dir): gen}
	for i, d := range t.tests {
		if d.call.file == "" || replace[d.call.file] != "" {
			continue
		}
		path := filepath.Join(tmp, fmt.Sprintf("wrapped%d.go", i))
		if err := os.WriteFile(path, wrapped[d.call.file], 0o644); err != nil {
			return nil, err
		}
		replace[d.call.file] = path
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		return nil, err
	}
	ovPath := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ovPath, overlay, 0o644); err != nil {
		return nil, err
	}
	out := filepath.Join(tmp, "test.wasm")
	if _, err := goCommand(ctx, opts.Go, t.WorkDir, "test", "-c", "-buildmode=c-shared", "-trimpath", "-overlay", ovPath, "-o", out, t.Pattern); err != nil {
		return nil, fmt.Errorf("%s: build for wasip1: %w", t.Pattern, err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("%s: build for wasip1: %w", t.Pattern, err)
	}
	if err := atomicfile.Write(raw, b); err != nil {
		return nil, fmt.Errorf("cache for Go fuzz test builds: %w", err)
	}
	return b, nil
}

// shimPath is where the generated file is added to the package in dir: a
// name none of its files has.
func shimPath(dir string) string {
	for i := 0; ; i++ {
		p := filepath.Join(dir, "wafer_fuzz_gen_test.go")
		if i > 0 {
			p = filepath.Join(dir, fmt.Sprintf("wafer_fuzz_gen%d_test.go", i))
		}
		if _, err := os.Lstat(p); err != nil {
			return p
		}
	}
}

// harnessPath is wafer's harness package, which a fuzz test's build
// must not link (its exports are the generated file's).
const harnessPath = "github.com/wafer-fuzz/wafer/harness"

// listed is the part of `go list -deps -test -json` buildKey reads.
type listed struct {
	ImportPath, Dir, Name string
	Standard              bool
	Module                *struct{ Path, Version, Dir, GoMod string }
	GoFiles, CgoFiles, TestGoFiles, XTestGoFiles, SFiles, EmbedFiles,
	IgnoredGoFiles []string
	Imports []string // as resolved (test variants with their suffix)
	Error   *struct{ Err string }
}

// keyEnv are the go command's settings that change a build besides its
// files: the toolchain, its flags, the module cache (whose files are
// keyed by version), the main module and workspace, experiments.
var keyEnv = []string{"GOVERSION", "GOFLAGS", "GOMODCACHE", "GOMOD", "GOWORK", "GOEXPERIMENT", "GOWASM"}

// buildKey is the cache key of t's package's build (see Build) and the
// Skip patterns of t's UncountedSection (uncounted, from the imports
// t's code reaches: testImports), which the key and t's name determine.
func buildKey(ctx context.Context, goCmd string, t *Test, src []byte) (string, []string, error) {
	envOut, err := goCommand(ctx, goCmd, t.WorkDir, append([]string{"env"}, keyEnv...)...)
	if err != nil {
		return "", nil, fmt.Errorf("go env: %w", err)
	}
	env := map[string]string{}
	if ls := strings.Split(strings.TrimSuffix(string(envOut), "\n"), "\n"); len(ls) == len(keyEnv) {
		for i, k := range keyEnv {
			env[k] = ls[i]
		}
	}
	modcache := env["GOMODCACHE"]
	out, err := goCommand(ctx, goCmd, t.WorkDir, "list", "-e", "-deps", "-test", "-json=ImportPath,Dir,Name,Standard,Module,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,SFiles,EmbedFiles,IgnoredGoFiles,Imports,Error", t.Pattern)
	if err != nil {
		return "", nil, fmt.Errorf("%s: go list -deps: %w", t.Pattern, err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "wafer gofuzz v5\x00%s\x00%s\x00", envOut, t.Pattern)
	h.Write(src)
	// The files that configure the build (the go.work, go.mod files and
	// the vendor directory's modules.txt: language versions, godebug
	// settings, which copy of a module) count as the sources do.
	hashed := map[string]bool{}
	config := func(path string) error {
		if path == "" || path == os.DevNull || !filepath.IsAbs(path) || hashed[path] {
			return nil
		}
		hashed[path] = true
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		} else if err != nil {
			return err
		}
		fmt.Fprintf(h, "config %s %x\x00", path, sha256.Sum256(b))
		return nil
	}
	for _, f := range []string{env["GOWORK"], env["GOMOD"]} {
		if f == "" || f == "off" || f == os.DevNull {
			continue
		}
		if err := errors.Join(config(f), config(filepath.Join(filepath.Dir(f), "vendor", "modules.txt"))); err != nil {
			return "", nil, fmt.Errorf("%s: %w", t.Pattern, err)
		}
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return "", nil, fmt.Errorf("%s: go list -deps: %w", t.Pattern, err)
		}
		if p.Error != nil {
			return "", nil, fmt.Errorf("%s: %s", p.ImportPath, strings.Join(strings.Fields(p.Error.Err), " "))
		}
		pkgs = append(pkgs, p)
		if p.Standard {
			continue
		}
		if p.ImportPath == harnessPath {
			return "", nil, fmt.Errorf("%s: imports %s, whose exports (malloc, LLVMFuzzerTestOneInput) make a reactor target of its own: fuzz that target's .wasm, or keep %s in a package that does not import it", t.Pattern, harnessPath, t.Name)
		}
		fmt.Fprintf(h, "pkg %s %s\x00", p.ImportPath, p.Dir)
		if m := p.Module; m != nil && modcache != "" && m.Version != "" && strings.HasPrefix(p.Dir, modcache+string(filepath.Separator)) {
			continue // the module cache's files do not change under a version
		}
		if m := p.Module; m != nil {
			if err := config(m.GoMod); err != nil {
				return "", nil, fmt.Errorf("%s: %w", p.ImportPath, err)
			}
		}
		for _, files := range [][]string{p.GoFiles, p.CgoFiles, p.TestGoFiles, p.XTestGoFiles, p.SFiles, p.EmbedFiles, p.IgnoredGoFiles} {
			for _, f := range files {
				name := f
				if !filepath.IsAbs(f) {
					f = filepath.Join(p.Dir, f)
				} else { // go's generated _testmain.go, in its cache
					name = filepath.Base(f)
				}
				b, err := os.ReadFile(f)
				if err != nil {
					return "", nil, fmt.Errorf("%s: %w", p.ImportPath, err)
				}
				sum := sha256.Sum256(b)
				fmt.Fprintf(h, "file %s %x\x00", name, sum)
			}
		}
	}
	roots, ok := testImports(clauseFiles(pkgs, t), t.Name)
	if !ok {
		roots = nil // every import of the package's
	}
	return hex.EncodeToString(h.Sum(nil))[:32], uncounted(pkgs, t.ImportPath, roots), nil
}

// clauseFiles are the Go files of t's package clause as pkgs list them:
// its test variant's (the package's files and its internal test files,
// or its external test files), absolute.
func clauseFiles(pkgs []listed, t *Test) []string {
	want := t.ImportPath
	if strings.HasSuffix(t.Package, "_test") {
		want += "_test"
	}
	var best *listed
	for i := range pkgs {
		p := &pkgs[i]
		if plainPath(p.ImportPath) == want && p.Name == t.Package && (best == nil || strings.Contains(p.ImportPath, " [")) {
			best = p
		}
	}
	if best == nil {
		return nil
	}
	files := slices.Clone(best.GoFiles)
	if !strings.Contains(best.ImportPath, " [") && !strings.HasSuffix(t.Package, "_test") {
		files = append(files, best.TestGoFiles...) // the plain package: its test files apart
	}
	for i, f := range files {
		if !filepath.IsAbs(f) {
			files[i] = filepath.Join(best.Dir, f)
		}
	}
	return files
}
