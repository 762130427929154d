package gofuzz

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// testImports returns the import paths that fuzz test name's code
// reaches in the Go files files (the package clause that declares it:
// the package's files and its internal test files, or its external test
// files), read syntactically and over-approximated: from the test's
// declaration, every package-level function, variable, constant and
// type its code names is followed (a local name that shadows one
// follows it too), every method of a named type it names, and every
// method of the clause called .M wherever .M appears (but as pkg.M, a
// local name that shadows an import being read as the import); the roots also
// hold every init function and package-level variable (whose
// initialisers run whether or not the test names them), and every blank
// or dot import. An import is reached when a followed declaration's
// file names it (pkg.X). ok is false when a file does not parse or the
// test is not declared there: the caller then takes every import.
//
// What it leaves out is a package the fuzz test cannot call but through
// another test or helper of the package: FuzzPNG in a package whose
// FuzzJSON imports encoding/json does not reach encoding/json (package
// campaign leaves those uncounted: a smaller map, scanned on every run,
// and a report of the code the test can run).
func testImports(files []string, name string) (imports []string, ok bool) {
	fset := token.NewFileSet()
	funcs := map[string][]ast.Node{} // package-level functions, variables, constants, types by name
	methods := map[string][]ast.Node{}
	byType := map[string][]ast.Node{}      // methods by their receiver's type name
	in := map[ast.Node]map[string]string{} // a declaration's file's imports, by name
	var roots []ast.Node
	reached := map[string]bool{}
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, false
		}
		fd := map[string]string{}
		for _, im := range f.Imports {
			p, err := strconv.Unquote(im.Path.Value)
			if err != nil {
				return nil, false
			}
			local := p[strings.LastIndexByte(p, '/')+1:]
			if im.Name != nil {
				local = im.Name.Name
			}
			switch local {
			case "_", ".":
				reached[p] = true // a side effect, or names used unqualified
			default:
				fd[local] = p
			}
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				in[d] = fd
				switch {
				case d.Recv != nil:
					methods[d.Name.Name] = append(methods[d.Name.Name], d)
					if t := recvType(d.Recv); t != "" {
						byType[t] = append(byType[t], d)
					}
				case d.Name.Name == "init" || d.Name.Name == name:
					roots = append(roots, d)
				default:
					funcs[d.Name.Name] = append(funcs[d.Name.Name], d)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					in[s] = fd
					switch s := s.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							funcs[n.Name] = append(funcs[n.Name], s)
						}
						if d.Tok == token.VAR && len(s.Values) > 0 {
							roots = append(roots, s)
						}
					case *ast.TypeSpec:
						funcs[s.Name.Name] = append(funcs[s.Name.Name], s)
					}
				}
			}
		}
	}
	if !slices.ContainsFunc(roots, func(n ast.Node) bool {
		fn, ok := n.(*ast.FuncDecl)
		return ok && fn.Name.Name == name
	}) {
		return nil, false
	}
	seen := map[ast.Node]bool{}
	var visit func(n ast.Node)
	visit = func(n ast.Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		fd := in[n]
		if ts, ok := n.(*ast.TypeSpec); ok {
			for _, m := range byType[ts.Name.Name] {
				visit(m)
			}
		}
		ast.Inspect(n, func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok {
					if p, ok := fd[id.Name]; ok {
						reached[p] = true
						return false // pkg.X: no method of this package
					}
				}
				for _, m := range methods[x.Sel.Name] {
					visit(m)
				}
			case *ast.Ident:
				for _, d := range funcs[x.Name] {
					visit(d)
				}
			}
			return true
		})
	}
	for _, r := range roots {
		visit(r)
	}
	for p := range reached {
		imports = append(imports, p)
	}
	slices.Sort(imports)
	return imports, true
}

// recvType is the name of a method's receiver type (T of T, *T, T[P]).
func recvType(recv *ast.FieldList) string {
	if recv == nil || len(recv.List) == 0 {
		return ""
	}
	t := recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}
