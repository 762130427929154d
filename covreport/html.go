package covreport

import (
	"bytes"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"github.com/wafer-fuzz/wafer/internal/atomicfile"
)

// Page file names inside the report directory.
const (
	IndexPage = "index.html"
	plotFile  = "plot.svg"
)

func filePage(i int) string        { return fmt.Sprintf("file-%d.html", i) }
func funcPage(index uint32) string { return fmt.Sprintf("func-%d.html", index) }

// Pages returns the report's pages by file name, as WriteHTML writes them.
func (r *Report) Pages() (map[string][]byte, error) {
	pages := map[string][]byte{}
	var b bytes.Buffer
	if err := indexTmpl.Execute(&b, r.indexData()); err != nil {
		return nil, err
	}
	pages[IndexPage] = bytes.Clone(b.Bytes())
	if r.plotSVG != nil {
		pages[plotFile] = r.plotSVG
	}
	for i := range r.Files {
		f := &r.Files[i]
		if f.Source == nil {
			continue
		}
		b.Reset()
		if err := fileTmpl.Execute(&b, r.fileData(i)); err != nil {
			return nil, err
		}
		pages[filePage(i)] = bytes.Clone(b.Bytes())
	}
	for i := range r.Funcs {
		f := &r.Funcs[i]
		if f.SourceFile >= 0 {
			continue
		}
		b.Reset()
		if err := funcTmpl.Execute(&b, r.funcData(f)); err != nil {
			return nil, err
		}
		pages[funcPage(f.Index)] = bytes.Clone(b.Bytes())
	}
	return pages, nil
}

// WriteHTML writes the report's pages into dir (created if missing), each
// atomically; index.html is the summary page.
func (r *Report) WriteHTML(dir string) error {
	pages, err := r.Pages()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range pages {
		if err := atomicfile.Write(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	return nil
}

func pct(hit, total int) string {
	if total == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(hit)/float64(total))
}

type row struct {
	Name, Link, Where string
	Hit, Total        int
	Uncovered         int
	Pct               string
	Entered           bool
}

type group struct {
	Name  string
	Files []row
	Funcs []row
}

type indexData struct {
	R        *Report
	Summary  string
	Plot     bool
	Failed   []Input
	Groups   []group
	ArmsPct  string
	SitesPct string
}

func (r *Report) indexData() indexData {
	d := indexData{R: r, Summary: r.Summary(), Plot: r.plotSVG != nil, ArmsPct: pct(r.ArmsHit, r.Arms), SitesPct: pct(r.Totals.Covered, r.Totals.Sites)}
	for _, in := range r.Inputs {
		if in.Outcome.Failed() {
			d.Failed = append(d.Failed, in)
		}
	}
	for g := User; g <= NoSource; g++ {
		gr := group{Name: g.String()}
		for i := range r.Files {
			f := &r.Files[i]
			if f.Group != g {
				continue
			}
			link := ""
			if f.Source != nil {
				link = filePage(i)
			}
			where := f.Found
			if where == "" {
				where = "source not found"
			}
			gr.Files = append(gr.Files, row{Name: f.Path, Link: link, Where: where, Hit: f.Hit, Total: f.Arms, Uncovered: f.Uncovered(), Pct: pct(f.Hit, f.Arms), Entered: f.LinesHit > 0})
		}
		for i := range r.Funcs {
			f := &r.Funcs[i]
			if f.Group != g {
				continue
			}
			link := funcPage(f.Index)
			if f.SourceFile >= 0 {
				link = fmt.Sprintf("%s#L%d", filePage(f.SourceFile), f.Line)
			}
			where := ""
			if f.File != "" {
				where = fmt.Sprintf("%s:%d", f.File, f.Line)
			}
			gr.Funcs = append(gr.Funcs, row{Name: f.Name, Link: link, Where: where, Hit: f.Hit, Total: f.Arms, Uncovered: f.Uncovered(), Pct: pct(f.Hit, f.Arms), Entered: f.Entry > 0})
		}
		if len(gr.Files)+len(gr.Funcs) > 0 {
			d.Groups = append(d.Groups, gr)
		}
	}
	return d
}

type srcLine struct {
	N      int
	Text   string
	Class  string
	Count  string
	Title  string
	Missed string
}

type fileData struct {
	R     *Report
	F     *File
	Lines []srcLine
	Pct   string
}

func (r *Report) fileData(i int) fileData {
	f := &r.Files[i]
	marked := map[uint32]*Line{}
	for k := range f.Lines {
		marked[f.Lines[k].Number] = &f.Lines[k]
	}
	d := fileData{R: r, F: f, Pct: pct(f.Hit, f.Arms)}
	for n, text := range f.Source {
		sl := srcLine{N: n + 1, Text: strings.ReplaceAll(text, "\t", "    ")}
		if l, ok := marked[uint32(n+1)]; ok {
			sl.Class = [...]string{"", "no", "part", "yes"}[l.State]
			sl.Count = fmt.Sprint(l.Inputs)
			sl.Title = lineTitle(l)
			var missed []string
			for _, b := range l.Branches {
				switch m := b.Missed(); {
				case len(m) == len(b.Arms):
					missed = append(missed, fmt.Sprintf("%s never reached", b.Kind))
				case len(m) > 0:
					for _, arm := range m {
						missed = append(missed, b.Kind+" "+arm)
					}
				}
			}
			if len(missed) > 0 {
				sl.Missed = "missed: " + strings.Join(missed, "; ")
			}
		}
		d.Lines = append(d.Lines, sl)
	}
	return d
}

func lineTitle(l *Line) string {
	var b strings.Builder
	fmt.Fprintf(&b, "reached by %d inputs, hit count %d", l.Inputs, l.Hits)
	for _, br := range l.Branches {
		fmt.Fprintf(&b, "\n%s at code offset %#x:", br.Kind, br.Offset)
		for _, a := range br.Arms {
			fmt.Fprintf(&b, " %s %d", a.Name(uint32(len(br.Arms)-1)), a.Inputs)
			if a.Inputs == 0 {
				b.WriteString(" (never)")
			}
			b.WriteString(",")
		}
	}
	return strings.TrimSuffix(b.String(), ",")
}

type armRow struct {
	Offset string
	Line   string
	Kind   string
	Arm    string
	Inputs uint64
	Hits   uint64
}

type funcData struct {
	R    *Report
	F    *Func
	Arms []armRow
	Pct  string
}

func (r *Report) funcData(f *Func) funcData {
	d := funcData{R: r, F: f, Pct: pct(f.Hit, f.Arms)}
	for _, b := range f.Branches {
		line := ""
		if b.Line != 0 {
			line = fmt.Sprintf("%s:%d", b.File, b.Line)
		}
		for _, a := range b.Arms {
			d.Arms = append(d.Arms, armRow{Offset: fmt.Sprintf("%#x", b.Offset), Line: line, Kind: a.Kind.String(), Arm: a.Name(uint32(len(b.Arms) - 1)), Inputs: a.Inputs, Hits: a.Hits})
		}
	}
	return d
}

const style = `<style>
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em} h2{font-size:1.1em;margin-top:1.5em}
table{border-collapse:collapse} td,th{padding:2px 8px;text-align:left;border-bottom:1px solid #ddd}
th{background:#f3f3f3} td.n{text-align:right;font-variant-numeric:tabular-nums}
.src td{border:none;padding:0 6px;font-family:ui-monospace,monospace;font-size:13px;white-space:pre}
.src td.ln{color:#999;text-align:right} .src td.ct{color:#555;text-align:right;min-width:4em}
tr.yes td.code{background:#d7f5d7} tr.part td.code{background:#fff0b3} tr.no td.code{background:#fbd0d0}
td.miss{white-space:normal;color:#a15c00;font-family:system-ui,sans-serif;font-size:12px}
.summary{font-family:ui-monospace,monospace;background:#f6f6f6;padding:6px}
.key span{padding:0 6px;margin-right:6px} .yes{background:#d7f5d7} .part{background:#fff0b3} .no{background:#fbd0d0}
img.plot{max-width:100%;border:1px solid #ddd}
</style>`

var indexTmpl = template.Must(template.New("index").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>coverage of {{.R.Target}}</title>` + style + `</head><body>
<h1>Coverage of {{.R.Target}}</h1>
<p class="summary">{{.Summary}}</p>
<p>Branch sites covered: {{.R.Totals.Covered}} of {{.R.Totals.Sites}} ({{.SitesPct}}), {{.R.Totals.ValidCovered}} by valid inputs: the campaign's edges_found and valid_edges.
Branch arms taken (every arm of every if, br_if and br_table): {{.R.ArmsHit}} of {{.R.Arms}} ({{.ArmsPct}}).
Functions entered: {{.R.FuncsHit}} of {{len .R.Funcs}}. Marked lines reached: {{.R.LinesHit}} of {{.R.Lines}}.</p>
{{if .Plot}}<h2>Campaign</h2><img class="plot" src="plot.svg" alt="the campaign's plot_data">{{end}}
{{if .Failed}}<h2>Inputs that crash or hang ({{len .Failed}}, their coverage not counted)</h2>
<table><tr><th>input</th><th>outcome</th><th>failure</th></tr>
{{range .Failed}}<tr><td>{{.Path}}</td><td>{{.Outcome}}</td><td>{{.Failure}}</td></tr>
{{end}}</table>{{end}}
{{range .Groups}}<h2>{{.Name}}</h2>
{{if .Files}}<h3>Source files, most uncovered arms first</h3>
<table><tr><th>file</th><th>arms not taken</th><th>arms taken</th><th>%</th><th>read from</th></tr>
{{range .Files}}<tr><td>{{if .Link}}<a href="{{.Link}}">{{.Name}}</a>{{else}}{{.Name}}{{end}}</td><td class="n">{{.Uncovered}}</td><td class="n">{{.Hit}} / {{.Total}}</td><td class="n">{{.Pct}}</td><td>{{.Where}}</td></tr>
{{end}}</table>{{end}}
<h3>Functions, most uncovered arms first</h3>
<table><tr><th>function</th><th>arms not taken</th><th>arms taken</th><th>%</th><th>entered</th><th>defined at</th></tr>
{{range .Funcs}}<tr><td><a href="{{.Link}}">{{.Name}}</a></td><td class="n">{{.Uncovered}}</td><td class="n">{{.Hit}} / {{.Total}}</td><td class="n">{{.Pct}}</td><td>{{if .Entered}}yes{{else}}never{{end}}</td><td>{{.Where}}</td></tr>
{{end}}</table>
{{end}}
</body></html>
`))

var fileTmpl = template.Must(template.New("file").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.F.Path}}: coverage of {{.R.Target}}</title>` + style + `</head><body>
<p><a href="index.html">{{.R.Target}}</a></p>
<h1>{{.F.Path}}</h1>
<p>Branch arms taken: {{.F.Hit}} of {{.F.Arms}} ({{.Pct}}). Read from {{.F.Found}}.</p>
<p class="key"><span class="yes">covered</span><span class="part">partly covered: an arm never taken</span><span class="no">not covered</span> the count is the number of inputs that reached the line; hover for the arms.</p>
<table class="src">
{{range .Lines}}<tr id="L{{.N}}"{{if .Class}} class="{{.Class}}"{{end}}{{if .Title}} title="{{.Title}}"{{end}}><td class="ln">{{.N}}</td><td class="ct">{{.Count}}</td><td class="code">{{.Text}}</td><td class="miss">{{.Missed}}</td></tr>
{{end}}</table>
</body></html>
`))

var funcTmpl = template.Must(template.New("func").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.F.Name}}: coverage of {{.R.Target}}</title>` + style + `</head><body>
<p><a href="index.html">{{.R.Target}}</a></p>
<h1>{{.F.Name}}</h1>
<p>Function {{.F.Index}}{{if .F.File}}, {{.F.File}}:{{.F.Line}} (source not found){{else}}, no source position{{end}}. Entered by {{.F.Entry}} inputs. Branch arms taken: {{.F.Hit}} of {{.F.Arms}} ({{.Pct}}).</p>
<table><tr><th>code offset</th><th>line</th><th>kind</th><th>arm</th><th>inputs</th><th>hit count</th></tr>
{{range .Arms}}<tr{{if eq .Inputs 0}} class="no"{{else}} class="yes"{{end}}><td>{{.Offset}}</td><td>{{.Line}}</td><td>{{.Kind}}</td><td>{{.Arm}}</td><td class="n">{{.Inputs}}</td><td class="n">{{.Hits}}</td></tr>
{{end}}</table>
</body></html>
`))

// Summary is the one-line summary: inputs, the campaign's branch sites,
// arms, functions and lines.
func (r *Report) Summary() string {
	var crashes, hangs int
	for _, in := range r.Inputs {
		switch in.Outcome {
		case Crash:
			crashes++
		case Hang:
			hangs++
		}
	}
	return fmt.Sprintf("%s: %d inputs (%d crash, %d hang): branches %d/%d (%s), %d by valid inputs; arms %d/%d; functions %d/%d; lines %d/%d",
		r.Target, len(r.Inputs), crashes, hangs, r.Totals.Covered, r.Totals.Sites, pct(r.Totals.Covered, r.Totals.Sites), r.Totals.ValidCovered,
		r.ArmsHit, r.Arms, r.FuncsHit, len(r.Funcs), r.LinesHit, r.Lines)
}
