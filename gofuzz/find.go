package gofuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Test is one fuzz test of a package, as Find locates it.
type Test struct {
	// Name is the fuzz test's name (FuzzXxx).
	Name string
	// Pattern is the package as the user named it ("./parser"), Dir its
	// directory, ImportPath its import path.
	Pattern, Dir, ImportPath string
	// Package is the package clause of the file that declares the test:
	// the package's name, or NAME_test for an external test package.
	Package string
	// Pos is where the test is declared (file:line).
	Pos string
	// Params are the fuzz function's parameter names after its *testing.T
	// when f.Fuzz is given a function literal in the test's body; nil
	// otherwise (the types come from Describe either way).
	Params []string
	// WorkDir is the directory the go command runs in (Find's dir).
	WorkDir string
	// Root is the directory of the package's module (or GOROOT/src, or a
	// GOPATH directory), as go list reports it.
	Root string

	// tests are the fuzz tests declared in the package clause Package,
	// this one among them, by name: one build serves them all.
	tests []fuzzDecl
}

// fuzzDecl is a fuzz test's declaration as Build needs it.
type fuzzDecl struct {
	name string
	// call is the f.Fuzz call of the test's body, which Build wraps (in
	// an overlay); zero when f.Fuzz is called elsewhere (a helper).
	call fuzzCall
	// paramTypes are the fuzz function literal's parameter types after
	// its *testing.T as the source spells them ("[]byte", "int"), one per
	// parameter; nil when it is no literal or one is spelt another way.
	paramTypes []string
}

// fuzzCall locates the argument of an f.Fuzz call: its file and the byte
// offsets of its first and past its last character.
type fuzzCall struct {
	file       string
	start, end int
}

// ParseSpec splits a fuzz test named as PKG:FuzzXxx ("./parser:FuzzParse")
// into the package and the test's name; ok is false when spec is not of
// that form.
func ParseSpec(spec string) (pkg, name string, ok bool) {
	i := strings.LastIndexByte(spec, ':')
	if i < 0 || !strings.HasPrefix(spec[i+1:], "Fuzz") || i == 0 {
		return "", "", false
	}
	return spec[:i], spec[i+1:], true
}

// goList is the part of `go list -json` Find reads.
type goList struct {
	Dir, ImportPath, Name, Root string
	TestGoFiles                 []string
	XTestGoFiles                []string
	CgoFiles                    []string
	Standard                    bool
	Module                      *struct{ Path, Dir string }
	Error                       *struct{ Err string }
}

// wasmEnv is the go command's environment for wasip1 builds: the user's,
// with GOOS, GOARCH and CGO_ENABLED set.
func wasmEnv() []string {
	return append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
}

// goCommand runs the go command in dir with the wasip1 environment and
// returns its stdout; a failure is an error with the command's first
// lines of stderr.
func goCommand(ctx context.Context, goCmd, dir string, args ...string) ([]byte, error) {
	if goCmd == "" {
		goCmd = "go"
	}
	cmd := exec.CommandContext(ctx, goCmd, args...)
	cmd.Dir = dir
	cmd.Env = wasmEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := firstLines(stderr.String(), 6)
		if msg == "" {
			msg = err.Error()
		}
		return out, errors.New(msg)
	}
	return out, nil
}

// firstLines is s's first n non-empty lines joined by "; ".
func firstLines(s string, n int) string {
	var ls []string
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "# ") && len(ls) < n {
			ls = append(ls, l)
		}
	}
	return strings.Join(ls, "; ")
}

// Find locates the fuzz test name of the package pattern (as go test
// takes it, resolved in dir) with `go list` for GOOS=wasip1 and
// go/parser. The errors name the reason: no such package, a package that
// does not build for wasip1 (cgo, build constraints), no test of that
// name (with the fuzz tests there are), a test that is not a fuzz test.
func Find(ctx context.Context, goCmd, dir, pattern, name string) (*Test, error) {
	if strings.Contains(pattern, "...") {
		return nil, fmt.Errorf("%s: expected one package, not a pattern", pattern)
	}
	out, err := goCommand(ctx, goCmd, dir, "list", "-e", "-json=Dir,ImportPath,Name,Root,Module,TestGoFiles,XTestGoFiles,CgoFiles,Error", pattern)
	if err != nil {
		return nil, fmt.Errorf("%s: go list: %w", pattern, err)
	}
	var p goList
	if err := json.Unmarshal(out, &p); err != nil {
		return nil, fmt.Errorf("%s: go list: %w", pattern, err)
	}
	if p.Error != nil {
		return nil, fmt.Errorf("%s: %s", pattern, strings.TrimSpace(p.Error.Err))
	}
	if len(p.CgoFiles) > 0 {
		return nil, fmt.Errorf("%s: uses cgo (%s), which GOOS=wasip1 does not support", pattern, strings.Join(p.CgoFiles, ", "))
	}
	t := &Test{Name: name, Pattern: pattern, Dir: p.Dir, ImportPath: p.ImportPath, WorkDir: dir, Root: p.Root}
	if p.Module != nil && p.Module.Dir != "" {
		t.Root = p.Module.Dir
	}
	var found []string
	decls := map[string][]fuzzDecl{} // by package clause
	for _, files := range [][]string{p.TestGoFiles, p.XTestGoFiles} {
		for _, f := range files {
			path := filepath.Join(p.Dir, f)
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", pattern, err)
			}
			for _, d := range file.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Fuzz") {
					continue
				}
				fParam, isFuzz := fuzzParam(file, fn)
				if !isFuzz && fn.Name.Name == name {
					pos := fset.Position(fn.Pos())
					at := filepath.Base(pos.Filename) + ":" + strconv.Itoa(pos.Line)
					return nil, fmt.Errorf("%s: %s (%s) is not a fuzz test: expected func %s(f *testing.F)", pattern, name, at, name)
				}
				if !isFuzz {
					continue
				}
				found = append(found, fn.Name.Name)
				d := fuzzDecl{name: fn.Name.Name}
				var params []string
				if call := findFuzzCall(fn, fParam); call != nil {
					arg := call.Args[0]
					d.call = fuzzCall{file: path, start: fset.Position(arg.Pos()).Offset, end: fset.Position(arg.End()).Offset}
					if lit, ok := arg.(*ast.FuncLit); ok {
						params, d.paramTypes = paramNames(lit), paramTypes(lit)
					}
				}
				decls[file.Name.Name] = append(decls[file.Name.Name], d)
				if fn.Name.Name == name {
					pos := fset.Position(fn.Pos())
					t.Package, t.Pos = file.Name.Name, filepath.Base(pos.Filename)+":"+strconv.Itoa(pos.Line)
					t.Params = params
				}
			}
		}
	}
	if t.Package == "" {
		slices.Sort(found)
		there := "none"
		if len(found) > 0 {
			there = strings.Join(found, ", ")
		}
		return nil, fmt.Errorf("%s: no fuzz test %s in %s (fuzz tests there: %s)", pattern, name, p.ImportPath, there)
	}
	t.tests = decls[t.Package]
	slices.SortFunc(t.tests, func(a, b fuzzDecl) int { return strings.Compare(a.name, b.name) })
	return t, nil
}

// fuzzParam returns the name of fn's *testing.F parameter, and whether fn
// has the signature of a fuzz test: one parameter of that type, no
// results.
func fuzzParam(file *ast.File, fn *ast.FuncDecl) (string, bool) {
	ps := fn.Type.Params.List
	if len(ps) != 1 || len(ps[0].Names) > 1 || fn.Type.Results != nil {
		return "", false
	}
	star, ok := ps[0].Type.(*ast.StarExpr)
	if !ok {
		return "", false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "F" {
		return "", false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || pkg.Name != importName(file, "testing") {
		return "", false
	}
	if len(ps[0].Names) == 0 {
		return "", true
	}
	return ps[0].Names[0].Name, true
}

// importName is the name file imports path under, "" if it does not.
func importName(file *ast.File, path string) string {
	for _, imp := range file.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == path {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return path[strings.LastIndexByte(path, '/')+1:]
		}
	}
	return ""
}

// findFuzzCall returns the call fParam.Fuzz(x) of fn's body, nil if
// there is none.
func findFuzzCall(fn *ast.FuncDecl, fParam string) *ast.CallExpr {
	var found *ast.CallExpr
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found != nil {
			return found == nil
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Fuzz" && len(call.Args) == 1 {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == fParam && fParam != "" && fParam != "_" {
				found = call
				return false
			}
		}
		return true
	})
	return found
}

// paramNames are the parameter names of the fuzz function lit after its
// *testing.T; "" for a blank or unnamed one.
func paramNames(lit *ast.FuncLit) []string {
	names := []string{}
	for i, field := range lit.Type.Params.List {
		if len(field.Names) == 0 {
			if i > 0 {
				names = append(names, "")
			}
			continue
		}
		for _, id := range field.Names {
			names = append(names, id.Name)
		}
	}
	if len(names) > 0 && len(lit.Type.Params.List[0].Names) > 0 {
		names = names[1:] // the *testing.T
	}
	for i, n := range names {
		if n == "_" {
			names[i] = ""
		}
	}
	return names
}

// paramTypes are lit's parameter types after the first as the source
// spells them, nil if one is not a plain type name or []byte.
func paramTypes(lit *ast.FuncLit) []string {
	var types []string
	for _, field := range lit.Type.Params.List {
		name := ""
		switch t := field.Type.(type) {
		case *ast.Ident:
			name = t.Name
		case *ast.ArrayType:
			if id, ok := t.Elt.(*ast.Ident); ok && t.Len == nil && (id.Name == "byte" || id.Name == "uint8") {
				name = "[]byte"
			}
		}
		n := max(1, len(field.Names))
		for range n {
			types = append(types, name)
		}
	}
	if len(types) < 2 {
		return nil
	}
	types = types[1:] // the *testing.T
	for _, t := range types {
		if _, ok := directDecode[t]; !ok {
			return nil
		}
	}
	return types
}
