// Command speedratios prints, per target, the medians (min–max) over rounds of
// the ratios docs/PERFORMANCE.md tabulates ("Where a run's time goes",
// "Two workers") from BenchmarkReactors output
// (eval/speed.sh's base.txt and head.txt): replay / bare and loop
// 1w / bare in CPU time, loop 1w / bare in wall clock, and the two-worker
// speed-ups in wall clock (deterministic, the same over the search alone,
// and free-running). A round is one run of every benchmark of a target;
// ratios are taken within a round, so a load that changes between rounds
// moves both sides alike.
//
//	go run ./eval/speedratios /tmp/wafer-speed/base.txt /tmp/wafer-speed/head.txt
package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"

	"github.com/wafer-fuzz/wafer/evalstats"
)

var (
	line   = regexp.MustCompile(`^BenchmarkReactors/(\w+)/([\w-]+?)-\d+\s`)
	metric = regexp.MustCompile(`([\d.]+) ([\w/%-]+)`)
)

// round is one run of each benchmark: target → benchmark → unit → value.
type round map[string]map[string]map[string]float64

func parse(path string) ([]round, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var rounds []round
	var targets []string
	cur := round{}
	s := bufio.NewScanner(f)
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		m := line.FindStringSubmatch(s.Text())
		if m == nil {
			continue
		}
		t, b := m[1], m[2]
		if cur[t] == nil {
			if len(rounds) == 0 {
				targets = append(targets, t)
			}
			cur[t] = map[string]map[string]float64{}
		}
		if _, seen := cur[t][b]; seen {
			rounds = append(rounds, cur)
			cur = round{t: {}}
		}
		vals := map[string]float64{}
		for _, mv := range metric.FindAllStringSubmatch(s.Text()[len(m[0]):], -1) {
			if v, err := strconv.ParseFloat(mv[1], 64); err == nil {
				vals[mv[2]] = v
			}
		}
		cur[t][b] = vals
	}
	if len(cur) > 0 {
		rounds = append(rounds, cur)
	}
	return rounds, targets, s.Err()
}

func main() {
	cols := []struct {
		name        string
		num, den    string // benchmarks
		unit, unit2 string // unit of num, of den ("" = unit)
	}{
		{"replay / bare (CPU)", "replay", "bare", "execs/cpu-s", ""},
		{"loop 1w / bare (CPU)", "loop-1w", "bare", "execs/cpu-s", ""},
		{"loop 1w / bare (wall)", "loop-1w", "bare", "execs/s", ""},
		{"2w det. / 1w (wall)", "loop-2w-det", "loop-1w", "execs/s", ""},
		{"2w det. / 1w, search alone", "loop-2w-det", "loop-1w", "search-execs/s", ""},
		{"2w / 1w (wall)", "loop-2w", "loop-1w", "execs/s", ""},
	}
	for _, path := range os.Args[1:] {
		rounds, targets, err := parse(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%s: %d rounds\n\n| target |", path, len(rounds))
		for _, c := range cols {
			fmt.Printf(" %s |", c.name)
		}
		fmt.Print("\n|---|")
		for range cols {
			fmt.Print("---|")
		}
		fmt.Println()
		for _, t := range targets {
			fmt.Printf("| %s |", t)
			for _, c := range cols {
				var xs []float64
				for _, r := range rounds {
					n, d := r[t][c.num][c.unit], r[t][c.den][c.unit]
					if n > 0 && d > 0 {
						xs = append(xs, n/d)
					}
				}
				if len(xs) == 0 {
					fmt.Print(" - |")
					continue
				}
				s := evalstats.Summarize(xs)
				fmt.Printf(" %.2f (%.2f-%.2f) |", s.Median, s.Min, s.Max)
			}
			fmt.Println()
		}
		fmt.Println()
	}
}
