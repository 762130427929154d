//go:build unix

// Command seedparse measures the grammar seed reader on a corpus: the
// share of files that parse with a grammar, the share whose choice
// sequence regenerates them (the same bytes, the same tokens, the same
// token types), and the speed of parsing (files/s), with the generator's
// limits raised to fit the corpus as wafer fuzz --grammar -i does.
//
//	go run ./eval/seedparse -grammar generators/grammars/JSON.g4 examples/gojson/seeds
//	go run ./eval/seedparse -grammar generators/grammars/SQLite.g4 -gen 5000
//
// With -gen N it reads N sentences of the grammar's own generator
// (sentence i from 512 bytes of PCG(1, i), as wafer gen makes them)
// instead of files.
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/wafer-fuzz/wafer/generators"
	"github.com/wafer-fuzz/wafer/generators/grammar"
)

func main() {
	gpath := flag.String("grammar", "", "the .g4 grammar")
	start := flag.String("start", "", "the start rule (default: the first parser rule)")
	n := flag.Int("gen", 0, "read N sentences of the grammar's generator instead of files")
	ext := flag.String("ext", "", "read only files whose name ends so (e.g. .json)")
	prof := flag.String("cpuprofile", "", "write a CPU profile to `FILE`")
	flag.Parse()
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			fmt.Fprintln(os.Stderr, "seedparse:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if err := run(*gpath, *start, *n, *ext, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "seedparse:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// cpuTime returns the process's user and system CPU time so far (the
// machine is shared: wall time says little about the parser).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func run(gpath, start string, n int, ext string, paths []string) error {
	g, err := grammar.Load(gpath)
	if err != nil {
		return err
	}
	var names []string
	var data [][]byte
	if n > 0 {
		gen, err := g.Generator(grammar.Options{Start: start})
		if err != nil {
			return err
		}
		r := generators.NewRunner(gen, generators.Options{})
		for i := range n {
			pr := rand.New(rand.NewPCG(1, uint64(i)))
			b := make([]byte, 512)
			for j := range b {
				b[j] = byte(pr.Uint32())
			}
			in, _ := r.Run(generators.FromBytes(b))
			names = append(names, fmt.Sprintf("sentence %d", i))
			data = append(data, in)
		}
	}
	for _, p := range paths {
		err := filepath.WalkDir(p, func(f string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(f, ext) {
				return err
			}
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			names = append(names, f)
			data = append(data, b)
			return nil
		})
		if err != nil {
			return err
		}
	}
	t0, c0 := time.Now(), cpuTime()
	ss, err := g.ReadSeeds(grammar.Options{Start: start}, names, data)
	if err != nil {
		return err
	}
	parse, cpu := time.Since(t0), cpuTime()-c0
	var bytes int
	for _, b := range data {
		bytes += len(b)
	}
	fmt.Printf("%s: %d files (%d bytes): %d parse in %s wall, %s CPU (%.0f files per CPU second, %.2f MB per CPU second; limits fitted included)\n",
		filepath.Base(gpath), len(data), bytes, len(ss.Parsed), parse.Round(time.Millisecond), cpu.Round(time.Millisecond), float64(len(data))/cpu.Seconds(), float64(bytes)/1e6/cpu.Seconds())
	o := ss.Options
	fmt.Printf("limits: depth %d size %d repeat %d token repeat %d (0: default)\n", o.MaxDepth, o.MaxSize, o.MaxRepeat, o.MaxTokenRepeat)
	sr, err := g.NewSeedReader(ss.Options)
	if err != nil {
		return err
	}
	var counts [4]int
	t1 := time.Now()
	var misses []string
	for i, b := range ss.Parsed {
		t, err := sr.Parse(fmt.Sprint(i), b)
		if err != nil {
			return fmt.Errorf("parsed once, not twice: %w", err)
		}
		_, m, err := sr.Sequence(t, generators.Options{})
		counts[m]++
		if err != nil && len(misses) < 5 {
			misses = append(misses, fmt.Sprintf("%.60q: %v", b, err))
		}
	}
	fmt.Printf("regenerate: %d same bytes, %d same tokens, %d same token types, %d other (%s for parse and sequence again)\n",
		counts[grammar.MatchBytes], counts[grammar.MatchTokens], counts[grammar.MatchTypes], counts[grammar.MatchNone], time.Since(t1).Round(time.Millisecond))
	for _, m := range misses {
		fmt.Println("  other:", m)
	}
	why := map[string]int{}
	for _, f := range ss.Failed {
		msg := f.Err.Error()
		if i := strings.Index(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
		if len(msg) > 70 {
			msg = msg[:70]
		}
		why[msg]++
	}
	var keys []string
	for k := range why {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return why[keys[i]] > why[keys[j]] })
	for i, k := range keys {
		if i == 8 {
			break
		}
		fmt.Printf("  %d× %s\n", why[k], k)
	}
	return nil
}
