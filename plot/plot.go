package plot

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/internal/atomicfile"
)

// Series is one campaign's plot_data rows under a legend name. Series
// with the same Name are drawn in one colour with one legend entry.
type Series struct {
	Name string
	Rows []corpus.PlotRow
}

// ErrNoPlotData is returned (wrapped, with the directory) by Read for a
// directory without plot_data.
var ErrNoPlotData = errors.New("no plot_data (not a wafer or AFL++ output directory, or the campaign wrote no stats yet)")

// Read returns the rows of dir/plot_data, named by dir's base name. A
// directory without the file is an error wrapping ErrNoPlotData and naming
// dir; rows torn by a kill are left out (corpus.ParsePlot) and a file with
// no good row at all is an error naming the file.
func Read(dir string) (Series, error) {
	path := filepath.Join(dir, corpus.PlotFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Series{}, fmt.Errorf("%s: %w", dir, ErrNoPlotData)
	}
	if err != nil {
		return Series{}, err
	}
	rows, perr := corpus.ParsePlot(data)
	if len(rows) == 0 {
		if perr != nil {
			return Series{}, fmt.Errorf("%s: no readable row: %w", path, perr)
		}
		return Series{}, fmt.Errorf("%s: no rows", path)
	}
	return Series{Name: filepath.Base(filepath.Clean(dir)), Rows: rows}, nil
}

// Axis is what the horizontal axis counts.
type Axis int

const (
	// Time is seconds since the campaign started (plot_data's
	// relative_time).
	Time Axis = iota
	// Execs is the executions done (total_execs): the axis of a
	// comparison, which the machine's load does not shift.
	Execs
)

// Options says how to draw. The zero value draws over time, 1600x800
// points.
type Options struct {
	X Axis
	// Width and Height of the image in points (zero: 1600 and 800); a
	// PNG has 96 pixels per inch of 72 points, so 1600x800 points are
	// 2133x1067 pixels.
	Width, Height vg.Length
	// Title is drawn above the grid ("" for none).
	Title string
}

// panel is one metric: its title and how to read it from a row (the
// second reader, when set, is drawn dashed in the same panel). known,
// when set, says whether a row has the metric at all: rows without it
// (older or AFL++'s plot_data) are left out of the panel rather than
// drawn as zero.
type panel struct {
	title       string
	solid, dash func(corpus.PlotRow) float64
	known       func(corpus.PlotRow) bool
}

var panels = []panel{
	{title: "branch coverage (solid: all runs, dashed: valid runs)", solid: func(r corpus.PlotRow) float64 { return float64(r.EdgesFound) }, dash: func(r corpus.PlotRow) float64 { return float64(r.ValidEdges) }},
	{title: "executions per second", solid: func(r corpus.PlotRow) float64 { return r.ExecsPerSec }},
	{title: "queue size", solid: func(r corpus.PlotRow) float64 { return float64(r.CorpusCount) }},
	{title: "unique crashes", solid: func(r corpus.PlotRow) float64 { return float64(r.SavedCrashes) }},
	{title: "B(0): branches with a unique trace", solid: func(r corpus.PlotRow) float64 { return r.B0 }},
	{title: "B(1) solid, B(2) dashed: effective branches", solid: func(r corpus.PlotRow) float64 { return r.B1 }, dash: func(r corpus.PlotRow) float64 { return r.B2 }},
	{title: "unique traces", solid: func(r corpus.PlotRow) float64 { return float64(r.UniqueTraces) }},
	{title: "resident memory (MiB)", solid: func(r corpus.PlotRow) float64 { return float64(r.RSS) / 1024 }, known: func(r corpus.PlotRow) bool { return r.RSS > 0 }},
}

// palette holds colour-blind-safe colours (Okabe and Ito), one per legend
// name in order of first appearance, repeating after eight.
var palette = []color.RGBA{
	{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255},
	{86, 180, 233, 255}, {230, 159, 0, 255}, {0, 0, 0, 255}, {240, 228, 66, 255},
}

// Render draws series in format "svg" or "png" and returns the file's
// bytes. It needs at least one series with rows.
func Render(series []Series, opts Options, format string) ([]byte, error) {
	if format != "svg" && format != "png" {
		return nil, fmt.Errorf("plot format: expected svg or png, got %q", format)
	}
	if len(series) == 0 {
		return nil, errors.New("plot: no campaigns to draw")
	}
	w, h := opts.Width, opts.Height
	if w == 0 {
		w = 1600
	}
	if h == 0 {
		h = 800
	}
	colours := map[string]color.RGBA{}
	var names []string
	for _, s := range series {
		if _, ok := colours[s.Name]; !ok {
			colours[s.Name] = palette[len(names)%len(palette)]
			names = append(names, s.Name)
		}
	}
	xlabel := "seconds"
	x := func(r corpus.PlotRow) float64 { return r.RelTime.Seconds() }
	if opts.X == Execs {
		xlabel = "executions"
		x = func(r corpus.PlotRow) float64 { return float64(r.TotalExecs) }
	}
	cw, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return nil, err
	}
	dc := draw.New(cw)
	if opts.Title != "" {
		sty := gplot.New().Title.TextStyle
		sty.Font.Size = 14
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y}, opts.Title)
		dc.Max.Y -= sty.Height(opts.Title) + 4
	}
	arms := armNames(series)
	cols := 4
	if len(arms) > 0 {
		cols = 5 // room for the shares' panel
	}
	tiles := draw.Tiles{Cols: cols, Rows: 2, PadX: 12, PadY: 12, PadTop: 4, PadBottom: 4, PadLeft: 4, PadRight: 8}
	for i, pn := range panels {
		p := gplot.New()
		p.Title.Text = pn.title
		p.X.Label.Text = xlabel
		p.X.Tick.Marker = compactTicks{}
		p.Y.Tick.Marker = compactTicks{}
		p.Add(plotter.NewGrid())
		legendDone := map[string]bool{}
		for _, s := range series {
			for k, read := range []func(corpus.PlotRow) float64{pn.solid, pn.dash} {
				if read == nil {
					continue
				}
				pts := curve(s.Rows, x, read, pn.known)
				if len(pts) == 0 {
					continue
				}
				l, err := plotter.NewLine(pts)
				if err != nil {
					return nil, fmt.Errorf("plot %s: %w", s.Name, err)
				}
				l.Color = colours[s.Name]
				l.Width = vg.Points(1.2)
				if k == 1 {
					l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
				}
				p.Add(l)
				if i == 0 && k == 0 && !legendDone[s.Name] && len(names) > 1 {
					legendDone[s.Name] = true
					p.Legend.Add(s.Name, l)
				}
			}
		}
		p.Legend.Top, p.Legend.Left = false, false
		p.Legend.YOffs = vg.Points(4)
		if len(names) == 1 && i == 0 {
			p.Title.Text += "\n" + names[0]
		}
		p.Draw(tiles.At(dc, i%tiles.Cols, i/tiles.Cols))
	}
	if len(arms) > 0 {
		p, err := sharesPanel(series, arms, x, xlabel)
		if err != nil {
			return nil, err
		}
		i := len(panels)
		p.Draw(tiles.At(dc, i%tiles.Cols, i/tiles.Cols))
	}
	var b bytes.Buffer
	if _, err := cw.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// armNames returns the arms of the series' share columns, in order of
// first appearance (none: no campaign was a portfolio).
func armNames(series []Series) []string {
	var names []string
	for _, s := range series {
		for _, r := range s.Rows {
			for _, a := range r.Shares {
				if !slices.Contains(names, a.Name) {
					names = append(names, a.Name)
				}
			}
		}
	}
	return names
}

// sharesPanel draws each arm's share of the schedule, one colour per arm
// (every campaign's line of an arm in its colour, the legend naming the
// arms).
func sharesPanel(series []Series, arms []string, x func(corpus.PlotRow) float64, xlabel string) (*gplot.Plot, error) {
	p := gplot.New()
	p.Title.Text = "portfolio: each arm's share of the schedule"
	p.X.Label.Text = xlabel
	p.X.Tick.Marker = compactTicks{}
	p.Y.Tick.Marker = compactTicks{}
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(plotter.NewGrid())
	for k, arm := range arms {
		read := func(r corpus.PlotRow) float64 {
			for _, a := range r.Shares {
				if a.Name == arm {
					return a.Share
				}
			}
			return 0
		}
		known := func(r corpus.PlotRow) bool {
			return slices.ContainsFunc(r.Shares, func(a corpus.ArmShare) bool { return a.Name == arm })
		}
		legend := false
		for _, s := range series {
			pts := curve(s.Rows, x, read, known)
			if len(pts) == 0 {
				continue
			}
			l, err := plotter.NewLine(pts)
			if err != nil {
				return nil, fmt.Errorf("plot %s: %w", s.Name, err)
			}
			l.Color = palette[k%len(palette)]
			l.Width = vg.Points(1.2)
			p.Add(l)
			if !legend {
				legend = true
				p.Legend.Add(arm, l)
			}
		}
	}
	p.Legend.Top = true
	p.Legend.YOffs = vg.Points(-4)
	return p, nil
}

// curve is the points of one line: x and y of each row that has the
// metric (all rows when known is nil).
func curve(rows []corpus.PlotRow, x, y func(corpus.PlotRow) float64, known func(corpus.PlotRow) bool) plotter.XYs {
	pts := make(plotter.XYs, 0, len(rows))
	for _, r := range rows {
		if known == nil || known(r) {
			pts = append(pts, plotter.XY{X: x(r), Y: y(r)})
		}
	}
	return pts
}

// Format returns the drawing format of a file name: "svg" or "png" by
// its extension.
func Format(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".svg", ".png":
		return ext[1:], nil
	default:
		return "", fmt.Errorf("%s: expected a .svg or .png file name, got extension %q", path, ext)
	}
}

// Write renders series into path (format by extension) atomically: a
// temporary file in the same directory, synced, then renamed.
func Write(path string, series []Series, opts Options) error {
	format, err := Format(path)
	if err != nil {
		return err
	}
	data, err := Render(series, opts, format)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, data)
}

// compactTicks labels ticks as gonum's default does, with thousands as k
// and millions as M, so an axis of executions stays readable.
type compactTicks struct{}

func (compactTicks) Ticks(min, max float64) []gplot.Tick {
	ts := gplot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label == "" {
			continue
		}
		v := ts[i].Value
		switch a := abs(v); {
		case a >= 1e6:
			ts[i].Label = trim(fmt.Sprintf("%.2f", v/1e6)) + "M"
		case a >= 1e4:
			ts[i].Label = trim(fmt.Sprintf("%.1f", v/1e3)) + "k"
		}
	}
	return ts
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

func trim(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
