package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/wafer-fuzz/wafer/internal/atomicfile"
)

const buildHelp = `usage: wafer build -o OUT.wasm PKG:FuzzXxx
       wafer build -o OUT.wasm --go-test FuzzXxx PKG

Builds the Go fuzz test FuzzXxx (func FuzzXxx(f *testing.F)) of package
PKG for wasip1, as wafer fuzz PKG:FuzzXxx does, and writes the module to
OUT.wasm: a target for CI, wafer wrap and wafertest that needs no Go
toolchain to fuzz. The package's files are not changed; the build is also
kept in wafer's cache. The module runs FuzzXxx (it holds the package's
other fuzz tests too, which run when its WASI environment names them:
WAFER_GO_FUZZ_TEST=FuzzYyy). A fuzz test that reads files (its seeds)
reads them only when fuzzed as PKG:FuzzXxx, which shows it its
package's directory.

examples:
  wafer build -o json.wasm ./examples/gotest:FuzzJSON
  wafer fuzz --max-total-time 60s json.wasm
`

type buildFlags struct {
	fs     *pflag.FlagSet
	out    string
	goTest goTestFlags
	target targetFlags // for goTestFlags.resolve; only sys is used
}

func newBuildFlags() *buildFlags {
	f := &buildFlags{fs: newFlagSet("build")}
	f.fs.StringVarP(&f.out, "output", "o", "", "write the module to `FILE` (required)")
	f.goTest.register(f.fs, false)
	return f
}

func (c *cli) build(ctx context.Context, args []string) error {
	f := newBuildFlags()
	if err := parseFlags(f.fs, args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return c.help(ctx, []string{"build"})
		}
		return err
	}
	if f.fs.NArg() != 1 {
		return usagef("build: expected one PKG:FuzzXxx, got %d arguments (run 'wafer help build')", f.fs.NArg())
	}
	if f.out == "" {
		return usagef("build: missing -o OUT.wasm")
	}
	f.goTest.standalone = true
	test, wasm, err := f.goTest.resolve(ctx, c, f.fs.Arg(0), &f.target)
	if err != nil {
		return err
	}
	if test == nil {
		return usagef("build: expected PKG:FuzzXxx (or --go-test FuzzXxx PKG), got %q", f.fs.Arg(0))
	}
	b, err := os.ReadFile(wasm)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(f.out, b); err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	fmt.Fprintf(c.stderr, "wrote %s (%s of %s, %d bytes)\n", f.out, test.Name, test.ImportPath, len(b))
	return nil
}
