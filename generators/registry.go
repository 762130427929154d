package generators

import "slices"

// registry is the constant table behind Lookup and Names.
var registry = []struct {
	name string
	gen  Generator
	read SeedReader // nil: the generator cannot read its inputs back
}{
	{"expr", Expr, nil},
	{"json", JSON, ReadJSON},
	{"png", PNG, nil},
	{"raw", Raw, nil},
	{"sql", SQL, nil},
	{"xml", XML, nil},
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

// LookupReader returns the SeedReader of the built-in generator called
// name ("json": ReadJSON) and true, or nil and false for a generator that
// cannot read its inputs back.
func LookupReader(name string) (SeedReader, bool) {
	for _, e := range registry {
		if e.name == name && e.read != nil {
			return e.read, true
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
