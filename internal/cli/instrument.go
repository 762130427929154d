package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/wafer-fuzz/wafer/campaign"
)

const instrumentHelp = `usage: wafer instrument [--fuel] [--dirty] [--skip PATTERN]... [--sitemap FILE] -o OUT.wasm IN.wasm

Writes the instrumented module wafer runs (branch counters in a reserved
region of linear memory, optionally fuel and dirty-page marking) and,
with --sitemap, the site map that names every counter (function, offset,
kind, arm, file:line). Useful to inspect what wafer runs, or to run the
instrumented module in another wazero host.

examples:
  wafer instrument -o tlv.inst.wasm examples/tlv/tlv.wasm
  wafer instrument --fuel --sitemap tlv.sites -o tlv.inst.wasm examples/tlv/tlv.wasm
  wafer instrument --skip 'runtime.*' --skip 'internal/*' -o gojson.inst.wasm examples/gojson/gojson.wasm
`

type instrumentFlags struct {
	fs      *pflag.FlagSet
	out     string
	sitemap string
	fuel    bool
	dirty   bool
	skip    []string
}

func newInstrumentFlags() *instrumentFlags {
	f := &instrumentFlags{fs: newFlagSet("instrument")}
	f.fs.StringVarP(&f.out, "output", "o", "", "write the instrumented module to `FILE` (required)")
	f.fs.StringVar(&f.sitemap, "sitemap", "", "write the binary site map to `FILE`")
	f.fs.BoolVar(&f.fuel, "fuel", false, "add fuel checks at function entries and loop headers (hang detection)")
	f.fs.BoolVar(&f.dirty, "dirty", false, "mark the pages stores and memory.grow touch (for restore mode)")
	f.fs.StringArrayVar(&f.skip, "skip", nil, "no counters in functions whose name matches `PATTERN` (path.Match; repeatable)")
	return f
}

func (c *cli) instrument(_ context.Context, args []string) error {
	f := newInstrumentFlags()
	if err := parseFlags(f.fs, args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return c.help(nil, []string{"instrument"})
		}
		return err
	}
	if f.fs.NArg() != 1 {
		return usagef("instrument: expected one input module, got %d arguments (run 'wafer help instrument')", f.fs.NArg())
	}
	if f.out == "" {
		return usagef("instrument: missing -o OUT.wasm (run 'wafer help instrument')")
	}
	in := f.fs.Arg(0)
	wasm, err := readModule(in)
	if err != nil {
		return err
	}
	if err := ensureWritableFile(f.out); err != nil {
		return err
	}
	if f.sitemap != "" {
		if err := ensureWritableFile(f.sitemap); err != nil {
			return err
		}
	}
	res, err := campaign.Instrument(wasm, campaign.InstrumentOptions{Fuel: f.fuel, DirtyPages: f.dirty, Skip: f.skip})
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if err := os.WriteFile(f.out, res.Module, 0o644); err != nil {
		return fileError(f.out, err)
	}
	if f.sitemap != "" {
		if err := os.WriteFile(f.sitemap, res.SiteMap, 0o644); err != nil {
			return fileError(f.sitemap, err)
		}
	}
	fmt.Fprintf(c.stdout, "%s: %d bytes, %d branch sites (%d counted, the others derived) -> %s (%d bytes)\n",
		in, len(wasm), res.Sites, res.Counted, f.out, len(res.Module))
	return nil
}
