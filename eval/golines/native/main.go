// Command native replays the inputs of a directory on
// testdata/goxhtml's tree.RoundTrip as its reactor does (the first 16
// KiB of each, a panic recovered), built by eval/golines.sh with -cover.
package main

import (
	"os"
	"path/filepath"

	"example.com/wafer.fix/goxhtml/tree"
)

func main() {
	files, err := filepath.Glob(filepath.Join(os.Args[1], "*"))
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		b = b[:min(len(b), 16<<10)]
		func() {
			defer func() { recover() }()
			tree.RoundTrip(b)
		}()
	}
}
