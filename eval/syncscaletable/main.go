// Command syncscaletable prints the tables of eval/sync-scale.sh from its
// raw directory: union coverage (edges) per configuration and snapshot
// second, median [min–max] over the seeds, the executions, and live sync
// against the others (Vargha–Delaney Â12, two-sided Mann-Whitney U).
//
//	go run ./eval/syncscaletable RAW_DIR
package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/wafer-fuzz/wafer/evalstats"
)

var configs = []string{"sync2", "j2", "nosync2"}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./eval/syncscaletable RAW_DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "sync-scale-table:", err)
		os.Exit(1)
	}
}

func run(raw string) error {
	f, err := os.Open(filepath.Join(raw, "union.txt"))
	if err != nil {
		return err
	}
	defer f.Close()
	edges := map[string]map[int][]float64{} // config -> second -> per seed
	var secs []int
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fs := strings.Fields(sc.Text())
		if len(fs) != 4 {
			return fmt.Errorf("union.txt:%d: expected \"config seed second edges\", got %q", line, sc.Text())
		}
		t, err1 := strconv.Atoi(fs[2])
		e, err2 := strconv.ParseFloat(fs[3], 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("union.txt:%d: expected numbers, got %q", line, sc.Text())
		}
		if edges[fs[0]] == nil {
			edges[fs[0]] = map[int][]float64{}
		}
		edges[fs[0]][t] = append(edges[fs[0]][t], e)
		if !slices.Contains(secs, t) {
			secs = append(secs, t)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	slices.Sort(secs)
	fmt.Printf("Union coverage (edges reached by the queues), median [min–max] over the seeds\n\n| config |")
	for _, t := range secs {
		fmt.Printf(" %d s |", t)
	}
	fmt.Printf(" execs at the end |\n|---|%s---|\n", strings.Repeat("---|", len(secs)))
	for _, c := range configs {
		fmt.Printf("| %s |", c)
		for _, t := range secs {
			fmt.Printf(" %s |", sum(edges[c][t]))
		}
		ex, err := execs(raw, c)
		if err != nil {
			return err
		}
		fmt.Printf(" %s |\n", sum(ex))
	}
	last := secs[len(secs)-1]
	fmt.Printf("\nsync2 against the others: median ratio, Â12, p (two-sided Mann-Whitney U)\n\n| against | second | ratio | Â12 | p |\n|---|---|---|---|---|\n")
	for _, other := range configs[1:] {
		for _, t := range secs {
			a, b := edges["sync2"][t], edges[other][t]
			if len(a) == 0 || len(b) == 0 {
				continue
			}
			mw := evalstats.MannWhitney(a, b)
			fmt.Printf("| %s | %d | %.3f | %.2f | %.3f |\n", other, t,
				evalstats.Summarize(a).Median/evalstats.Summarize(b).Median, evalstats.A12(a, b), mw.P)
		}
	}
	_ = last
	return nil
}

// execs returns, per seed, the executions of a configuration's campaigns
// (summed over the pair), from the fuzzer_stats files.
func execs(raw, cfg string) ([]float64, error) {
	files, err := filepath.Glob(filepath.Join(raw, cfg+"-*.fuzzer_stats"))
	if err != nil {
		return nil, err
	}
	per := map[string]float64{}
	for _, p := range files {
		seed := strings.Split(strings.TrimPrefix(filepath.Base(p), cfg+"-"), "-")[0]
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		for _, l := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(l, ":")
			if ok && strings.TrimSpace(k) == "execs_done" {
				n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil {
					return nil, fmt.Errorf("%s: execs_done: %v", p, err)
				}
				per[seed] += n
			}
		}
	}
	var out []float64
	for _, v := range per {
		out = append(out, v)
	}
	return out, nil
}

func sum(xs []float64) string {
	if len(xs) == 0 {
		return "–"
	}
	s := evalstats.Summarize(xs)
	return fmt.Sprintf("%.0f [%.0f–%.0f]", s.Median, s.Min, s.Max)
}
