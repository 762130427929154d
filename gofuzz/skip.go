package gofuzz

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
)

// skipper is the type the overlay calls Skip and Skipf on in place of
// the fuzz function's T (fastSkips); the generated file defines it.
const skipper = "waferFuzzSkipper"

// fastSkips returns arg, the source of an f.Fuzz call's argument, with
// each call t.Skip(...) or t.Skipf(...) on the function literal's T
// parameter t spelled waferFuzzSkipper{t}.Skip(...): the arguments are
// still evaluated, then t.SkipNow runs. An input that skips is invalid
// all the same, and its log line is one nobody reads (wafer reports no
// log of an invalid input, go test -fuzz neither), but t.Skip's logging
// unwinds the stack for the caller's file:line, which costs more than
// the rest of a skip in Go's wasm port (examples/gotest's FuzzJSON: 2,668
// fuel per invalid input against 910 with t.SkipNow; docs/PERFORMANCE.md).
// Calls split over lines, on another name, or in other functions are
// left as they are; arg is returned unchanged when it is not a function
// literal that parses.
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
	type span struct{ start, end int }
	var sels []span
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		if inner, ok := n.(*ast.FuncLit); ok {
			return !declares(inner.Type.Params, t) // a t of its own
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || (sel.Sel.Name != "Skip" && sel.Sel.Name != "Skipf") {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); !ok || x.Name != t {
			return true
		}
		s := span{fset.Position(sel.Pos()).Offset, fset.Position(sel.End()).Offset}
		if s.start < 0 || s.end > len(arg) || bytes.ContainsAny(arg[s.start:s.end], "\n\r") {
			return true // on one line only: the file's lines stay where they were
		}
		sels = append(sels, s)
		return true
	})
	if len(sels) == 0 {
		return arg
	}
	slices.SortFunc(sels, func(a, b span) int { return a.start - b.start })
	var b bytes.Buffer
	at := 0
	for _, s := range sels {
		name := "Skip"
		if bytes.HasSuffix(arg[s.start:s.end], []byte("Skipf")) {
			name = "Skipf"
		}
		b.Write(arg[at:s.start])
		b.WriteString(skipper + "{" + t + "}." + name)
		at = s.end
	}
	b.Write(arg[at:])
	return b.Bytes()
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
