package gofuzz

import (
	"slices"
	"strings"
)

// testMachinery are the packages through which a test binary reaches
// what it links only to run tests: a package reached from the test's
// own code only through them is not the user's (uncounted).
var testMachinery = map[string]bool{"testing": true, "testing/internal/testdeps": true, "internal/fuzz": true}

// uncounted returns the Skip patterns (instrument.UncountedSection) of
// the packages of a test binary (pkgs, `go list -deps -test`) that the
// package importPath's code and its test files' code (internal and
// external test package) do not reach, by imports, without passing
// through package testing, testing/internal/testdeps or internal/fuzz
// (their functions and their types' generated equality functions):
// runtime/pprof, regexp, compress/flate and the rest testing links,
// whose branches the fuzz function cannot reach but through testing's
// own calls. A package the user's code imports stays counted, also when
// testing imports it too. The generated file's imports do not count
// (pkgs are listed without the overlay). Left counted as well: package
// main (the test binary's, whose names are main's), and a package whose
// name-section prefix is, or is a prefix of, or starts with, a reached
// package's (a pattern could match the reached package's functions: "a/b"
// and "a_b" are both "a_b", "example" would match "example.com_p.F").
//
// With roots not nil (testImports: the imports one fuzz test's code
// reaches), the walk starts from the package's imports among roots
// instead of from all of its imports; the package itself stays counted.
func uncounted(pkgs []listed, importPath string, roots []string) []string {
	byPath := make(map[string]*listed, len(pkgs))
	for i := range pkgs {
		byPath[pkgs[i].ImportPath] = &pkgs[i]
	}
	reached := map[string]bool{}
	var walk func(p string)
	walk = func(p string) {
		if reached[p] || testMachinery[p] {
			return
		}
		reached[p] = true
		if l := byPath[p]; l != nil {
			for _, q := range l.Imports {
				walk(q)
			}
		}
	}
	var self []string // the package's test variants, counted in any case
	for _, p := range pkgs {
		base := plainPath(p.ImportPath)
		if p.Name == "main" || (base != importPath && base != importPath+"_test") {
			continue
		}
		if roots == nil {
			walk(p.ImportPath)
			continue
		}
		self = append(self, p.ImportPath)
		for _, q := range p.Imports {
			if rootImport(roots, plainPath(q)) {
				walk(q)
			}
		}
	}
	for _, p := range self {
		reached[p] = true
	}
	var keep []string // the reached packages' prefixes, with their dot
	for p := range reached {
		keep = append(keep, namePrefix(plainPath(p))+".")
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range pkgs {
		if reached[p.ImportPath] || p.Name == "main" || p.ImportPath == "runtime" {
			continue
		}
		pre := namePrefix(plainPath(p.ImportPath)) + "."
		if seen[pre] || slices.ContainsFunc(keep, func(k string) bool { return strings.HasPrefix(k, pre) || strings.HasPrefix(pre, k) }) {
			continue
		}
		seen[pre] = true
		out = append(out, pre+"*", typeEq+pre+"*")
	}
	slices.Sort(out)
	return out
}

// rootImport reports whether the resolved import path q is one of roots
// as the source spells them (a vendored copy's path ends in the
// source's: "vendor/golang.org/x/net/dns/dnsmessage").
func rootImport(roots []string, q string) bool {
	for _, r := range roots {
		if q == r || strings.HasSuffix(q, "/vendor/"+r) || q == "vendor/"+r {
			return true
		}
	}
	return false
}

// typeEq starts the name-section names of the equality functions the
// compiler generates for a package's types ("type:.eq.regexp.onePassInst"
// spelt "type_.eq.regexp.onePassInst").
const typeEq = "type_.eq."

// plainPath is an import path of `go list -test` without its test
// variant's suffix ("p [p.test]" is p).
func plainPath(p string) string {
	if i := strings.Index(p, " ["); i >= 0 {
		return p[:i]
	}
	return p
}

// namePrefix is how Go's wasm linker spells the package path in the
// name section's function names: the symbol prefix (control characters,
// space, '%', '"', bytes past 0x7e and a '.' in the last element escaped
// as %xx, as cmd/internal/objabi does), then every byte but a letter,
// digit, '_' or '.' written as '_' (cmd/link's wasm name section).
func namePrefix(path string) string {
	slash := strings.LastIndexByte(path, '/')
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		c := path[i]
		switch {
		case c <= ' ' || (c == '.' && i > slash) || c == '%' || c == '"' || c >= 0x7f:
			b.WriteString("_") // '%'
			const hex = "0123456789abcdef"
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '.':
			b.WriteByte(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}
