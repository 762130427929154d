package generators

import "github.com/wafer-fuzz/wafer/internal/enumname"

// Kind says whether a draw is structural or a value (docs/ALGORITHMS.md §2).
// The zero value is Value.
type Kind uint8

const (
	// Value draws only fill in a leaf: no later decision of the generator
	// about which or how many draws to make depends on them.
	Value Kind = iota
	// Structural draws decide which or how many draws follow: a repetition
	// count, an alternative, whether to recurse.
	Structural
)

var kindNames = enumname.New[Kind]("Kind", "choice kind", "value", "structural")

// String returns "value" or "structural".
func (k Kind) String() string { return kindNames.String(k) }
