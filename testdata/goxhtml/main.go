// Command goxhtml is a wafer fixture: a Go reactor, written with the
// harness package, that fuzzes a parser from a module outside the
// standard library (golang.org/x/net/html) through a package of its own
// module (tree). wafer cov's tests read its report: the module's own
// packages are the program, golang.org/x/net a dependency beside them,
// the runtime and standard library apart. Rebuild with build.sh.
//
// An input is an HTML document (its first 16 KiB). It is invalid when
// rendering its tree fails or the rendering parses to a tree of another
// shape (x/net/html has known cases: misnested tables, foster
// parenting), valid otherwise; a rendering that does not parse panics.
// seeds/ holds two documents for tests.
package main

import (
	"example.com/wafer.fix/goxhtml/tree"

	"github.com/wafer-fuzz/wafer/harness"
)

func init() {
	harness.Fuzz(fuzz)
}

// maxInput caps an input, so one tree stays small.
const maxInput = 16 << 10

func fuzz(data []byte) error {
	if len(data) > maxInput {
		data = data[:maxInput]
	}
	return tree.RoundTrip(data)
}

func main() {}
