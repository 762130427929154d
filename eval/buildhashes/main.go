// Command buildhashes prints the SHA-256 of the builds wafer makes of
// every .wasm file under a directory: the plain build a reproducer runs,
// the campaign's counters build, the comparison-logging and heap-checked
// builds (with the options a campaign gives them), and a bare instrument
// run (fuel and dirty marks only). A refactoring that must not change what
// wafer runs keeps the list identical:
//
//	go run ./eval/buildhashes . > /tmp/before.txt   # at the old commit
//	go run ./eval/buildhashes . | diff /tmp/before.txt -
//
// A file that is no module (or one wafer rejects) prints its error in
// place of a hash. It reads the files and writes only to stdout.
package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/runtime"
)

// builds are the kinds of build, in the order printed.
var builds = []string{"plain", "counters", "compares", "checked", "bare"}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: buildhashes DIR")
		os.Exit(2)
	}
	root := os.Args[1]
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".wasm") {
			files = append(files, p) // WalkDir walks in lexical order
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "buildhashes:", err)
		os.Exit(1)
	}
	for _, f := range files {
		wasm, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "buildhashes:", err)
			os.Exit(1)
		}
		rel, _ := filepath.Rel(root, f)
		for _, k := range builds {
			out, err := build(wasm, k)
			if err != nil {
				fmt.Printf("%s %s error %v\n", filepath.ToSlash(rel), k, strings.ReplaceAll(err.Error(), "\n", " "))
				continue
			}
			fmt.Printf("%s %s %x\n", filepath.ToSlash(rel), k, sha256.Sum256(out))
		}
	}
}

// build makes build kind k of wasm.
func build(wasm []byte, k string) ([]byte, error) {
	if k == "bare" {
		out, _, err := instrument.Instrument(wasm, instrument.Options{Fuel: true, DirtyPages: true})
		return out, err
	}
	var steps instrument.Build
	if s, err := instrument.Summarize(wasm); err == nil {
		steps = runtime.Preparation(s, runtime.Config{})
	}
	if k != "plain" {
		steps.Instrument = &instrument.Options{Fuel: true, DirtyPages: true, Compares: k == "compares", HeapGuard: true,
			HeapCheck: k == "checked", StackCheck: true, StackDepth: true, CallPairs: true}
	}
	p, err := instrument.Prepare(wasm, steps)
	if err != nil {
		return nil, err
	}
	return p.Wasm, nil
}
