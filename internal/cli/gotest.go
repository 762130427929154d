package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/wafer-fuzz/wafer/campaign"
	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/generators"
	"github.com/wafer-fuzz/wafer/gofuzz"
)

// goTestFlags select a Go fuzz test as the target: PKG:FuzzXxx as the
// target argument, or --go-test FuzzXxx with the package as the target.
type goTestFlags struct {
	name     string // --go-test
	testdata bool   // --go-testdata
	goCmd    string // --go
	// standalone builds a module that runs the test without its
	// package's files and environment (wafer build)
	standalone bool
}

func (g *goTestFlags) register(fs *pflag.FlagSet, findings bool) {
	fs.StringVar(&g.name, "go-test", "", "fuzz the Go fuzz test `FuzzXxx` of the package given as the target (the same as PKG:FuzzXxx)")
	fs.StringVar(&g.goCmd, "go", "go", "the go `command` that builds Go fuzz tests")
	if findings {
		fs.BoolVar(&g.testdata, "go-testdata", true, "with a Go fuzz test: also write each crash into the package's testdata/fuzz/FuzzXxx as go test -fuzz does, so go test replays it")
	}
}

// goTest is a Go fuzz test being fuzzed: Test is nil when a built .wasm
// was given instead of the package.
type goTest struct {
	Test *gofuzz.Test
	Desc *gofuzz.Description
}

// resolve returns the Go fuzz test the target argument names (nil when
// it names a .wasm file), found and built, and sets what it sees of the
// host in t.
func (g *goTestFlags) resolve(ctx context.Context, c *cli, arg string, t *targetFlags) (test *gofuzz.Test, wasm string, err error) {
	pkg, name := arg, g.name
	if name == "" {
		var ok bool
		if _, statErr := os.Stat(arg); statErr == nil {
			return nil, "", nil
		}
		if pkg, name, ok = gofuzz.ParseSpec(arg); !ok {
			return nil, "", nil
		}
	}
	test, err = gofuzz.Find(ctx, g.goCmd, ".", pkg, name)
	if err != nil {
		return nil, "", err
	}
	wasm, err = gofuzz.Build(ctx, test, gofuzz.BuildOptions{Go: g.goCmd, Log: c.stderr, Standalone: g.standalone})
	if err != nil {
		return nil, "", err
	}
	sys, skipped, err := test.System()
	if err != nil {
		return nil, "", err
	}
	if skipped > 0 {
		fmt.Fprintf(c.stderr, "INFO: %s: %d files near the package left out of what the test sees (over 8 MiB, or past 128 MiB in all)\n", test.Pattern, skipped)
	}
	t.sys = sys
	return test, wasm, nil
}

// describe returns the Go fuzz test of wasm (test, from resolve, or nil
// for a .wasm file), nil when wasm is no Go fuzz test.
func describeGoTest(ctx context.Context, test *gofuzz.Test, wasm []byte, sys gofuzz.System) (*goTest, error) {
	if test == nil && !gofuzz.IsGoFuzzTest(wasm) {
		return nil, nil
	}
	var params []string
	if test != nil {
		params = test.Params
	}
	d, err := gofuzz.DescribeCached(ctx, wasm, sys, params, "")
	if err != nil {
		return nil, fmt.Errorf("Go fuzz test: %w", err)
	}
	return &goTest{Test: test, Desc: d}, nil
}

// seeds are the campaign's first inputs for a Go fuzz test: the f.Add
// values, the package's testdata/fuzz/FuzzXxx files, then the given
// seeds, those in go test's corpus format converted to wafer's tuple
// encoding.
func (g *goTest) seeds(c *cli, given []corpus.Seed) [][]byte {
	fields := g.Desc.Fields
	out := append([][]byte(nil), g.Desc.Seeds...)
	if g.Test != nil {
		files, skipped, err := gofuzz.ReadCorpusDir(g.Test.TestdataDir(), fields)
		if err != nil {
			fmt.Fprintf(c.stderr, "INFO: %s: %v\n", g.Test.TestdataDir(), err)
		}
		for _, err := range skipped {
			fmt.Fprintf(c.stderr, "INFO: skipped seed %v\n", err)
		}
		out = append(out, files...)
	}
	for _, s := range given {
		in, err := g.input(s.Data)
		if err != nil {
			fmt.Fprintf(c.stderr, "INFO: skipped seed %s: %v\n", s.Path, err)
			continue
		}
		out = append(out, in)
	}
	return out
}

// input is the input of a file: a go test corpus file's values in the
// tuple encoding, any other file as it is.
func (g *goTest) input(file []byte) ([]byte, error) {
	if !gofuzz.IsCorpusFile(file) {
		return file, nil
	}
	values, err := gofuzz.ReadCorpusFile(file, g.Desc.Fields)
	if err != nil {
		return nil, err
	}
	return generators.EncodeTuple(g.Desc.Fields, values)
}

// typedStrategies are the strategies that search a Go fuzz test's
// arguments through generators.Tuple (typed draws named after the
// parameters); the others mutate their encoding.
var typedStrategies = map[string]bool{"zest": true, "tree": true, "bedivfuzz": true, "spoton": true}

// generator returns the Tuple generator of the fuzz test's arguments and
// its reader, for the typed strategies.
func (g *goTest) generator(maxLen int) (generators.Generator, func([]byte, generators.Options) (*generators.Sequence, error)) {
	fields := g.Desc.Fields
	return generators.Tuple(fields, maxLen), func(in []byte, o generators.Options) (*generators.Sequence, error) {
		return generators.ReadTuple(fields, maxLen, o, in)
	}
}

// writeFindings writes each crash of sum into the package's
// testdata/fuzz/FuzzXxx (as go test -fuzz does) and prints how to replay
// it with go test.
func (g *goTest) writeFindings(c *cli, sum *campaign.Summary) error {
	if g.Test == nil {
		return nil
	}
	for _, fd := range sum.Findings {
		if fd.Outcome != campaign.Crash {
			continue
		}
		path, err := gofuzz.WriteCorpusFile(g.Test.TestdataDir(), g.Desc.Fields, fd.Input)
		if err != nil {
			return fmt.Errorf("write the finding for go test: %w", err)
		}
		rel := path
		if r, err := filepath.Rel(".", path); err == nil && !strings.HasPrefix(r, "..") {
			rel = r
		}
		fmt.Fprintf(c.stderr, "Failing input written to %s\nTo re-run:\ngo test -run=%s/%s %s\n", rel, g.Test.Name, filepath.Base(path), g.Test.Pattern)
	}
	return nil
}
