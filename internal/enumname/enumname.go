// Package enumname names the values of a typed integer enum from one
// table: the name of each value for its String method, and the inverse,
// Parse, whose error lists the valid names. Every enum of wafer whose
// values have names (runtime's outcomes, failure kinds, harnesses and
// reset modes, instrument's site kinds, ...) is named through it. It
// imports no wafer package.
package enumname

import (
	"fmt"
	"strconv"
	"strings"
)

// Integer is the set of types an enum may have: every value fits an
// int64.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~uint8 | ~uint16 | ~uint32
}

// Table is the names of the values 0, 1, ... of the enum T. An empty
// name marks a value that has no name of its own (a "default" zero
// value): String gives it as "", Parse never returns it. A Table is
// built once, kept in a package-level variable and never changed: it is
// safe for concurrent use. The zero Table names nothing.
type Table[T Integer] struct {
	typ   string // the Go type, for values past the table: "Kind(31)"
	what  string // what a value is, for Parse's error: "failure kind"
	names []string
}

// New returns the table of T: typ is T's name (String gives a value
// past the table as typ(N)), what says in words what a value is (Parse's
// error: unknown what "s"), names[i] is the name of value i.
func New[T Integer](typ, what string, names ...string) Table[T] {
	return Table[T]{typ: typ, what: what, names: names}
}

// String is the name of v, or typ(N) for a value past the table.
func (t Table[T]) String(v T) string {
	if v >= 0 && uint64(v) < uint64(len(t.names)) {
		return t.names[v]
	}
	return t.typ + "(" + strconv.FormatInt(int64(v), 10) + ")"
}

// Parse returns the value named s. An s that names no value is an
// *Error listing the valid names.
func (t Table[T]) Parse(s string) (T, error) {
	for i, n := range t.names {
		if n != "" && n == s {
			return T(i), nil
		}
	}
	return 0, &Error{What: t.what, Name: s, Valid: t.Names()}
}

// Names returns the names of the table's values in value order, without
// the empty ones. The caller owns the slice.
func (t Table[T]) Names() []string {
	out := make([]string, 0, len(t.names))
	for _, n := range t.names {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

// Error says that a name is none of the valid ones: Table.Parse's error,
// and that of any lookup by name among a fixed set (engine's strategies).
type Error struct {
	What  string   // what a value is: "harness", "strategy"
	Name  string   // the name given
	Valid []string // the valid names, in the order the message lists them
}

func (e *Error) Error() string {
	return fmt.Sprintf("unknown %s %q: expected one of %s", e.What, e.Name, strings.Join(e.Valid, ", "))
}
