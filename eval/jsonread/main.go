// Command jsonread measures the JSON generator's seed reader
// (generators.ReadJSON) on a corpus: how many files read back, how many
// of those regenerate byte for byte (the others: the same value in the
// generator's spelling), and why the rest do not (a syntax error, or a
// value the generator does not write, by kind).
//
//	go run ./eval/jsonread [-ext .json] FILES or DIRS
//
// It reads nothing but its arguments and writes only to stdout.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wafer-fuzz/wafer/generators"
)

func main() {
	ext := flag.String("ext", "", "read only files whose name ends so (e.g. .json)")
	flag.Parse()
	if err := run(*ext, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "jsonread:", err)
		os.Exit(1)
	}
}

func run(ext string, args []string) error {
	var files []string
	for _, a := range args {
		err := filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, ext) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	sort.Strings(files)
	read, same := 0, 0
	why := map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		seq, err := generators.ReadJSON(data, generators.Options{})
		if err != nil {
			// the kind: the message past the offset, numbers and quoted
			// parts dropped
			msg := err.Error()
			if i := strings.Index(msg, ": "); i >= 0 {
				if j := strings.Index(msg[i+2:], ": "); j >= 0 {
					msg = msg[i+2+j+2:]
				}
			}
			kind := "syntax"
			if errors.Is(err, generators.ErrNotGenerated) {
				kind = "not made: " + strings.TrimPrefix(msg, generators.ErrNotGenerated.Error()+": ")
				switch {
				case strings.HasPrefix(kind, "not made: character"):
					kind = "not made: a character outside the string alphabet"
				case strings.HasPrefix(kind, "not made: number"):
					kind = "not made: a number no form of the generator holds"
				}
			}
			why[kind]++
			continue
		}
		read++
		if out, _ := generators.Run(generators.JSON, seq, generators.Options{}); bytes.Equal(out, data) {
			same++
		}
	}
	fmt.Printf("%d files: %d read back (%d byte for byte, %d the same value), %d not\n", len(files), read, same, read-same, len(files)-read)
	var kinds []string
	for k := range why {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Printf("  %4d %s\n", why[k], k)
	}
	return nil
}
