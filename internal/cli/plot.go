package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/wafer-fuzz/wafer/plot"
)

const plotHelp = `usage: wafer plot [-o FILE.svg|FILE.png] [--x time|execs] OUT_DIR...

Draws the plot_data of one or more campaign output directories: branch
coverage (all runs and valid runs), executions per second, queue size,
unique crashes and the Hill numbers B(0), B(1), B(2), over time or over
executions, the campaigns overlaid and named by directory in a legend.

examples:
  wafer plot -o tlv.svg tlv-out
  wafer plot --x execs -o cmp.png compare-out/havoc-seed1 compare-out/fairfuzz-seed1
`

type plotFlags struct {
	fs    *pflag.FlagSet
	out   string
	x     string
	title string
}

func newPlotFlags() *plotFlags {
	f := &plotFlags{fs: newFlagSet("plot")}
	f.fs.StringVarP(&f.out, "output", "o", "wafer-plot.svg", "write the drawing to `FILE` (.svg or .png)")
	f.fs.StringVar(&f.x, "x", "time", "horizontal axis: time (seconds) or execs (executions)")
	f.fs.StringVar(&f.title, "title", "", "title above the panels")
	return f
}

func (c *cli) plot(ctx context.Context, args []string) error {
	f := newPlotFlags()
	if err := parseFlags(f.fs, args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return c.help(ctx, []string{"plot"})
		}
		return err
	}
	if f.fs.NArg() == 0 {
		return usagef("plot: expected at least one OUT_DIR (run 'wafer help plot')")
	}
	opts := plot.Options{Title: f.title}
	switch f.x {
	case "time":
	case "execs":
		opts.X = plot.Execs
	default:
		return usagef("--x: expected time or execs, got %q", f.x)
	}
	if _, err := plot.Format(f.out); err != nil {
		return usagef("-o: %v", err)
	}
	if err := ensureWritableFile(f.out); err != nil {
		return err
	}
	var series []plot.Series
	for _, d := range f.fs.Args() {
		s, err := plot.Read(d)
		if err != nil {
			return err
		}
		series = append(series, s)
	}
	if err := plot.Write(f.out, series, opts); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "plotted %d campaigns into %s\n", len(series), f.out)
	return nil
}
