// Command gofuzzeval is the Go half of eval/gofuzz.sh (issue 45's
// measurements of Go fuzz tests run by wafer):
//
//	gofuzzeval gocorpus -types '[]byte,uint8' -o DIR INPUT|DIR...
//	    writes each input (wafer's tuple encoding of those argument
//	    types) as a go test corpus file ("go test fuzz v1") into DIR
//	gofuzzeval stmts -pkg image/png PROFILE
//	    prints "covered total" statements of the package's own files in
//	    a go test -coverprofile
//	gofuzzeval speed FILE.tsv
//	    per target, the median (min–max) over rounds of the generated
//	    target's execs/s over the hand-written reactor's, each round's
//	    ratio taken within the round (rows: target round arm value, arm
//	    "gotest" or "harness")
//	gofuzzeval cov FILE.tsv
//	    per fuzz test, medians (min–max) of the statements covered by
//	    each tool's corpus replayed natively, Mann-Whitney U p and
//	    Vargha-Delaney Â12 of wafer against go test, and crashes (rows:
//	    test seed tool covered total crashed, tool "wafer" or "gotest")
//
// It does not run anything: eval/gofuzz.sh runs the campaigns.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wafer-fuzz/wafer/evalstats"
	"github.com/wafer-fuzz/wafer/generators"
	"github.com/wafer-fuzz/wafer/gofuzz"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gofuzzeval gocorpus|stmts|speed|cov ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gocorpus":
		err = goCorpus(os.Args[2:])
	case "stmts":
		err = stmts(os.Args[2:], os.Stdout)
	case "speed":
		err = speed(os.Args[2:], os.Stdout)
	case "cov":
		err = cov(os.Args[2:], os.Stdout)
	default:
		err = fmt.Errorf("unknown command %q: expected gocorpus, stmts, speed or cov", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gofuzzeval:", err)
		os.Exit(1)
	}
}

func goCorpus(args []string) error {
	fs := flag.NewFlagSet("gocorpus", flag.ContinueOnError)
	types := fs.String("types", "[]byte", "the fuzz function's argument types, comma-separated")
	out := fs.String("o", "", "output directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("gocorpus: -o DIR is required")
	}
	var fields []generators.Field
	for i, name := range strings.Split(*types, ",") {
		t, err := generators.ParseValueType(name)
		if err != nil {
			return err
		}
		fields = append(fields, generators.Field{Name: fmt.Sprintf("arg%d", i+1), Type: t})
	}
	var files []string
	for _, p := range fs.Args() {
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
				files = append(files, filepath.Join(p, e.Name()))
			}
		}
	}
	for _, p := range files {
		in, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if _, err := gofuzz.WriteCorpusFile(*out, fields, in); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return nil
}

// stmts counts the statements of a cover profile's blocks in files of
// the package (import path pkg, its own files, not its subpackages'),
// each block once (the largest count wins).
func stmts(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("stmts", flag.ContinueOnError)
	pkg := fs.String("pkg", "", "import path of the package")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *pkg == "" {
		return errors.New("stmts: expected -pkg PATH PROFILE")
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	type block struct{ n, count int }
	blocks := map[string]block{}
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		if ln == 1 || line == "" {
			continue // mode: set|count|atomic
		}
		// file.go:l.c,l.c numStmts count
		fields := strings.Fields(line)
		if len(fields) != 3 {
			return fmt.Errorf("%s:%d: expected 3 fields, got %q", fs.Arg(0), ln, line)
		}
		file := fields[0][:strings.LastIndexByte(fields[0], ':')]
		if filepath.ToSlash(filepath.Dir(file)) != *pkg {
			continue
		}
		n, err1 := strconv.Atoi(fields[1])
		c, err2 := strconv.Atoi(fields[2])
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("%s:%d: %w", fs.Arg(0), ln, err)
		}
		b := blocks[fields[0]]
		blocks[fields[0]] = block{n: n, count: max(b.count, c)}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	covered, total := 0, 0
	for _, b := range blocks {
		total += b.n
		if b.count > 0 {
			covered += b.n
		}
	}
	if total == 0 {
		return fmt.Errorf("%s: no statements of package %s", fs.Arg(0), *pkg)
	}
	_, err = fmt.Fprintf(w, "%d %d\n", covered, total)
	return err
}

// rows reads a whitespace-separated table, skipping blank lines and
// lines starting with #.
func rows(path string) ([][]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out [][]string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, strings.Fields(l))
		}
	}
	return out, nil
}

func num(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

func speed(args []string, w io.Writer) error {
	if len(args) != 1 {
		return errors.New("speed: expected FILE.tsv")
	}
	rs, err := rows(args[0])
	if err != nil {
		return err
	}
	// target → round → arm → value
	vals := map[string]map[string]map[string]float64{}
	var targets []string
	for _, r := range rs {
		if len(r) < 4 {
			return fmt.Errorf("%s: row %q: expected target round arm value", args[0], strings.Join(r, " "))
		}
		if vals[r[0]] == nil {
			vals[r[0]] = map[string]map[string]float64{}
			targets = append(targets, r[0])
		}
		if vals[r[0]][r[1]] == nil {
			vals[r[0]][r[1]] = map[string]float64{}
		}
		vals[r[0]][r[1]][r[2]] = num(r[3])
	}
	fmt.Fprintln(w, "| target | rounds | hand-written reactor | generated target | generated / hand-written |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, t := range targets {
		var h, g, ratio []float64
		for _, arms := range vals[t] {
			hv, ok1 := arms["harness"]
			gv, ok2 := arms["gotest"]
			if !ok1 || !ok2 || hv <= 0 {
				continue
			}
			h, g, ratio = append(h, hv), append(g, gv), append(ratio, gv/hv)
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s |\n", t, len(ratio), span(h, "%.0f"), span(g, "%.0f"), span(ratio, "%.3f"))
	}
	return nil
}

// span is "median (min–max)".
func span(xs []float64, f string) string {
	s := evalstats.Summarize(xs)
	if s.N == 0 {
		return "–"
	}
	return fmt.Sprintf(f+" ("+f+"–"+f+")", s.Median, s.Min, s.Max)
}

func cov(args []string, w io.Writer) error {
	if len(args) != 1 {
		return errors.New("cov: expected FILE.tsv")
	}
	rs, err := rows(args[0])
	if err != nil {
		return err
	}
	type sample struct {
		covered []float64
		crashes int
	}
	data := map[string]map[string]*sample{}
	totals := map[string]string{}
	var tests []string
	for _, r := range rs {
		if len(r) < 6 {
			return fmt.Errorf("%s: row %q: expected test seed tool covered total crashed", args[0], strings.Join(r, " "))
		}
		if data[r[0]] == nil {
			data[r[0]] = map[string]*sample{"wafer": {}, "gotest": {}}
			tests = append(tests, r[0])
		}
		s := data[r[0]][r[2]]
		if s == nil {
			return fmt.Errorf("%s: tool %q: expected wafer or gotest", args[0], r[2])
		}
		s.covered = append(s.covered, num(r[3]))
		totals[r[0]] = r[4]
		if r[5] != "0" {
			s.crashes++
		}
	}
	fmt.Fprintln(w, "| fuzz test | statements | wafer | go test -fuzz | Â12 (wafer vs go test) | p (Mann-Whitney U) | runs with a crash: wafer / go test |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, t := range tests {
		a, b := data[t]["wafer"], data[t]["gotest"]
		mw := evalstats.MannWhitney(a.covered, b.covered)
		fmt.Fprintf(w, "| %s | %s | %s | %s | %.2f | %.3f | %d of %d / %d of %d |\n", t, totals[t],
			span(a.covered, "%.0f"), span(b.covered, "%.0f"), evalstats.A12(a.covered, b.covered), mw.P,
			a.crashes, len(a.covered), b.crashes, len(b.covered))
	}
	return nil
}
