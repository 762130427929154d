package plot

import (
	"bytes"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wafer-fuzz/wafer/corpus"
)

// rows makes a campaign whose coverage grows as a square root.
func rows(n int, scale float64) []corpus.PlotRow {
	var rs []corpus.PlotRow
	for i := 1; i <= n; i++ {
		cov := int(scale * float64(i*i) / float64(n))
		rs = append(rs, corpus.PlotRow{RelTime: time.Duration(i) * time.Second, TotalExecs: uint64(i) * 1000, EdgesFound: 10 + cov, ValidEdges: 5 + cov/2,
			ExecsPerSec: 1000 + float64(i%3), CorpusCount: 3 + i/2, SavedCrashes: i / 20, B0: float64(10 + cov), B1: float64(8 + cov/2), B2: float64(6 + cov/3)})
	}
	return rs
}

func TestRenderPNG(t *testing.T) {
	for _, tc := range []struct {
		name   string
		series []Series
	}{
		{"single", []Series{{Name: "a", Rows: rows(60, 40)}}},
		{"overlaid", []Series{{Name: "havoc", Rows: rows(60, 40)}, {Name: "havoc", Rows: rows(50, 35)}, {Name: "zest", Rows: rows(60, 60)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := Render(tc.series, Options{X: Execs, Width: 600, Height: 400}, "png")
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != 800 || b.Dy() != 533 {
				t.Errorf("size %v, want 800x533 (600x400 points at 96 dpi)", b)
			}
			// Not blank: the lines' colours are there, next to white.
			seen := map[[3]uint32]bool{}
			for y := 0; y < 533; y++ {
				for x := 0; x < 800; x++ {
					r, g, b, _ := img.At(x, y).RGBA()
					seen[[3]uint32{r >> 8, g >> 8, b >> 8}] = true
				}
			}
			want := [][3]uint32{{255, 255, 255}, {0, 114, 178}}
			if len(tc.series) > 1 {
				want = append(want, [3]uint32{213, 94, 0})
			}
			for _, c := range want {
				if !seen[c] {
					t.Errorf("colour %v not drawn (%d colours)", c, len(seen))
				}
			}
		})
	}
}

// The same rows give the same bytes, and the SVG names the legend's
// campaigns once each.
func TestRenderSVGDeterministic(t *testing.T) {
	s := []Series{{Name: "havoc", Rows: rows(30, 20)}, {Name: "havoc", Rows: rows(30, 25)}, {Name: "zest", Rows: rows(30, 30)}}
	a, err := Render(s, Options{}, "svg")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Render(s, Options{}, "svg")
	if !bytes.Equal(a, b) {
		t.Error("two renderings of the same rows differ")
	}
	if n := strings.Count(string(a), ">zest<"); n != 1 {
		t.Errorf("legend entry zest appears %d times, want 1", n)
	}
	if n := strings.Count(string(a), ">havoc<"); n != 1 {
		t.Errorf("legend entry havoc appears %d times, want 1", n)
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	_, err := Read(dir)
	if !errors.Is(err, ErrNoPlotData) || !strings.HasPrefix(err.Error(), dir+": no plot_data") {
		t.Errorf("Read of a directory without plot_data: %v", err)
	}
	var b bytes.Buffer
	b.WriteString(corpus.PlotHeader + "\n")
	for _, r := range rows(5, 3) {
		b.Write(corpus.FormatPlotRow(r))
	}
	b.WriteString("7, 1, 2") // torn by a kill
	os.WriteFile(filepath.Join(dir, corpus.PlotFile), b.Bytes(), 0o644)
	s, err := Read(dir)
	if err != nil || len(s.Rows) != 5 || s.Name != filepath.Base(dir) || s.Rows[4].EdgesFound != rows(5, 3)[4].EdgesFound {
		t.Errorf("Read = %+v, %v; want 5 rows named %s", s, err, filepath.Base(dir))
	}
	os.WriteFile(filepath.Join(dir, corpus.PlotFile), []byte("garbage\n"), 0o644)
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "no readable row") {
		t.Errorf("Read of a garbage plot_data: %v", err)
	}
}

func TestFormat(t *testing.T) {
	for in, want := range map[string]string{"a.svg": "svg", "b.PNG": "png", "c.pdf": "", "d": ""} {
		got, err := Format(in)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("Format(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// FuzzRead: any plot_data gives rows or an error naming the file, never a
// panic, and rows render.
func FuzzRead(f *testing.F) {
	var b bytes.Buffer
	b.WriteString(corpus.PlotHeader + "\n")
	for _, r := range rows(3, 3) {
		b.Write(corpus.FormatPlotRow(r))
	}
	f.Add(b.Bytes())
	f.Add([]byte("1, 2, 3, 4, 5, 6, 7%, 8, 9, 10, 11, 12, 13\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, corpus.PlotFile), data, 0o644)
		s, err := Read(dir)
		if err != nil {
			if !strings.Contains(err.Error(), dir) {
				t.Fatalf("error does not name the directory: %v", err)
			}
			return
		}
		if _, err := Render([]Series{s}, Options{Width: 300, Height: 200}, "svg"); err != nil {
			t.Fatalf("Render: %v", err)
		}
	})
}

// TestRenderMemoryPanel: rss_kib is drawn, in MiB, in a panel of its
// own; rows without it (older plot_data, AFL++'s) are left out of that
// panel rather than drawn as zero, and a campaign with none still renders.
func TestRenderMemoryPanel(t *testing.T) {
	i := slices.IndexFunc(panels, func(p panel) bool { return strings.HasPrefix(p.title, "resident memory") })
	if i < 0 {
		t.Fatal("no memory panel")
	}
	pn := panels[i]
	half := rows(30, 20)
	for i := 15; i < len(half); i++ {
		half[i].RSS = uint64(100<<10 + i*1024) // 100 MiB and one more a row
	}
	secs := func(r corpus.PlotRow) float64 { return r.RelTime.Seconds() }
	pts := curve(half, secs, pn.solid, pn.known)
	if len(pts) != 15 || pts[0].X != 16 || pts[0].Y != 115 || pts[14].Y != 129 {
		t.Errorf("memory curve of rows 16-30 at 115-129 MiB: got %v", pts)
	}
	if pts := curve(rows(30, 20), secs, pn.solid, pn.known); len(pts) != 0 {
		t.Errorf("rows without rss_kib: expected no point, got %d", len(pts))
	}
	for _, rs := range [][]corpus.PlotRow{half, rows(30, 20)} {
		svg, err := Render([]Series{{Name: "a", Rows: rs}}, Options{}, "svg")
		if err != nil || !strings.Contains(string(svg), "resident memory (MiB)") {
			t.Errorf("render: %v, memory panel drawn: %v", err, err == nil && strings.Contains(string(svg), "resident memory"))
		}
	}
}

// A title sits above the panels: every other text's top (its baseline
// plus its font size, in the SVG's upward coordinates) is below the
// title's baseline, and the title is centred.
func TestRenderTitleAbovePanels(t *testing.T) {
	svg, err := Render([]Series{{Name: "a", Rows: rows(30, 20)}}, Options{Title: "THE TITLE", Width: 800, Height: 400}, "svg")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`<text x="([-0-9.]+)" y="([-0-9.]+)"[^>]*font-size:([0-9.]+)px">([^<]*)<`)
	var title []float64
	type text struct {
		top  float64
		name string
	}
	var others []text
	for _, m := range re.FindAllStringSubmatch(string(svg), -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		size, _ := strconv.ParseFloat(m[3], 64)
		if m[4] == "THE TITLE" {
			title = []float64{x, -y}
			continue
		}
		others = append(others, text{-y + size, m[4]})
	}
	if title == nil || len(others) == 0 {
		t.Fatalf("title found %v, %d other texts", title, len(others))
	}
	for _, o := range others {
		if o.top > title[1] {
			t.Errorf("text %q reaches %.1f, above the title's baseline %.1f", o.name, o.top, title[1])
		}
	}
	// Centred: the title starts left of the middle (400) by less than half
	// the canvas.
	if title[0] >= 400 || title[0] < 300 {
		t.Errorf("title starts at x=%.1f, want it centred on 400", title[0])
	}
}

// A portfolio campaign's rows get the shares' panel, one legend entry per
// arm; rows without shares do not.
func TestRenderShares(t *testing.T) {
	plain, err := Render([]Series{{Name: "havoc", Rows: rows(10, 5)}}, Options{}, "svg")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(plain), "share of the schedule") {
		t.Error("a campaign without shares got the shares' panel")
	}
	rs := rows(10, 5)
	for i := range rs {
		f := float64(i) / 10
		rs[i].Shares = []corpus.ArmShare{{Name: "havoc", Share: 1 - f}, {Name: "levy", Share: f}}
	}
	svg, err := Render([]Series{{Name: "auto", Rows: rs}, {Name: "havoc", Rows: rows(10, 5)}}, Options{}, "svg")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "share of the schedule") {
		t.Fatalf("expected the shares' panel")
	}
	for _, arm := range []string{">havoc<", ">levy<"} {
		if !strings.Contains(string(svg), arm) {
			t.Errorf("legend entry %s missing", arm)
		}
	}
}
