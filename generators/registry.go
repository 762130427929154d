package generators

import "slices"

// registry is the constant table behind Lookup and Names.
var registry = []struct {
	name string
	gen  Generator
}{
	{"expr", Expr},
	{"json", JSON},
	{"png", PNG},
	{"raw", Raw},
	{"sql", SQL},
	{"xml", XML},
}

// Lookup returns the built-in generator called name ("raw", "json", "xml",
// "png", "expr", "sql") and true, or nil and false.
func Lookup(name string) (Generator, bool) {
	for _, e := range registry {
		if e.name == name {
			return e.gen, true
		}
	}
	return nil, false
}

// Names returns the names Lookup knows, sorted.
func Names() []string {
	out := make([]string, 0, len(registry))
	for _, e := range registry {
		out = append(out, e.name)
	}
	slices.Sort(out)
	return out
}
