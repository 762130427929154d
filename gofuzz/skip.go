package gofuzz

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// skipper is the type the overlay calls the skip methods on in place of
// the fuzz function's T (fastSkips); the generated file defines it.
const skipper = "waferFuzzSkipper"

// fastSkips returns arg, the source of an f.Fuzz call's argument, with
// each call t.Skip(...), t.Skipf(...) or t.SkipNow() on the function
// literal's T parameter t made cheap (the arguments are still
// evaluated; docs/PERFORMANCE.md, "Go fuzz tests"):
//
//   - a call that is a statement of the literal's own body (not of a
//     function literal inside it) becomes
//     { waferFuzzSkipper{t}.Mark(...); return }: the input is marked
//     invalid and the function returns, running its deferred calls as
//     t.Skip's runtime.Goexit would;
//   - any other becomes waferFuzzSkipper{t}.Skip(...) (Skipf, SkipNow),
//     which ends the call with a panic the generated file recovers, or
//     calls t.SkipNow where the fuzz function runs on the T's goroutine.
//
// t.Skip's own log line is dropped: wafer shows no log of an invalid
// input, nor does go test -fuzz. Calls split over lines, on other names,
// or in other functions are left as they are (otherSkips finds them);
// arg is returned unchanged when it is not a function literal that
// parses. The file's lines stay where they were.
func fastSkips(arg []byte) []byte {
	fset := token.NewFileSet()
	e, err := parser.ParseExprFrom(fset, "", arg, 0)
	if err != nil {
		return arg
	}
	lit, ok := e.(*ast.FuncLit)
	if !ok || lit.Type.Params == nil || len(lit.Type.Params.List) == 0 || len(lit.Type.Params.List[0].Names) == 0 {
		return arg
	}
	t := lit.Type.Params.List[0].Names[0].Name
	if t == "_" {
		return arg
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	type edit struct {
		start, end int // the bytes replaced
		text       string
	}
	var edits []edit
	stmts := map[*ast.CallExpr]bool{}
	var nested [][2]int // the spans of function literals inside lit
	inNested := func(p int) bool {
		for _, s := range nested {
			if s[0] <= p && p < s[1] {
				return true
			}
		}
		return false
	}
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			nested = append(nested, [2]int{off(x.Pos()), off(x.End())})
			return !declares(x.Type.Params, t) // a t of its own
		case *ast.ExprStmt:
			if c, ok := x.X.(*ast.CallExpr); ok {
				stmts[c] = true
			}
			return true
		case *ast.CallExpr:
			name, ok := skipCall(x, t)
			if !ok {
				return true
			}
			sel := x.Fun.(*ast.SelectorExpr)
			s, end := off(sel.Pos()), off(sel.End())
			if s < 0 || end > len(arg) || bytes.ContainsAny(arg[s:end], "\n\r") {
				return true
			}
			recv := skipper + "{" + t + "}."
			if stmts[x] && !inNested(s) {
				mark := strings.Replace(name, "Skip", "Mark", 1)
				edits = append(edits, edit{s, s, "{ "}, edit{s, end, recv + mark}, edit{off(x.End()), off(x.End()), "; return }"})
			} else {
				edits = append(edits, edit{s, end, recv + name})
			}
		}
		return true
	})
	if len(edits) == 0 {
		return arg
	}
	slices.SortStableFunc(edits, func(a, b edit) int { return a.start - b.start })
	var b bytes.Buffer
	at := 0
	for _, ed := range edits {
		b.Write(arg[at:ed.start])
		b.WriteString(ed.text)
		at = ed.end
	}
	b.Write(arg[at:])
	return b.Bytes()
}

// skipCall returns the method's name when call is recv.Skip(...),
// recv.Skipf(...) or recv.SkipNow() on the identifier recv ("" for any
// receiver but a waferFuzzSkipper literal).
func skipCall(call *ast.CallExpr, recv string) (string, bool) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	switch sel.Sel.Name {
	case "Skip", "Skipf", "SkipNow":
	default:
		return "", false
	}
	switch x := sel.X.(type) {
	case *ast.Ident:
		return sel.Sel.Name, recv == "" || x.Name == recv
	case *ast.CompositeLit:
		if id, ok := x.Type.(*ast.Ident); ok && id.Name == skipper {
			return "", false
		}
	}
	return sel.Sel.Name, recv == ""
}

// otherSkips reports whether a test file in dir (the files with f.Fuzz
// calls as wrapped: their sources by path) calls a method Skip, Skipf or
// SkipNow that fastSkips did not rewrite, outside the tests, fuzz tests,
// benchmarks and examples other than the fuzz test name: one its fuzz
// function may reach, which then cannot run on the export's goroutine (a
// SkipNow there would end the goroutine the export must return on). An
// unreadable file counts as one that does.
func otherSkips(dir, name string, wrapped map[string][]byte) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return true
	}
	fset := token.NewFileSet()
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		var src any
		if w, ok := wrapped[path]; ok {
			src = w
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return true
		}
		found := false
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name != name && entryPoint(fn.Name.Name) {
				continue // another test: the fuzz function does not call it
			}
			ast.Inspect(d, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok && !found {
					_, found = skipCall(c, "")
				}
				return !found
			})
			if found {
				return true
			}
		}
	}
	return false
}

// entryPoint reports whether a function of a test file named name is one
// go test calls (a test, fuzz test, benchmark or example).
func entryPoint(name string) bool {
	for _, p := range []string{"Test", "Fuzz", "Benchmark", "Example"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// declares reports whether the field list names name.
func declares(fl *ast.FieldList, name string) bool {
	if fl == nil {
		return false
	}
	for _, f := range fl.List {
		for _, n := range f.Names {
			if n.Name == name {
				return true
			}
		}
	}
	return false
}
