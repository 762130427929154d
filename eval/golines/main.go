// Command golines compares the lines a wafer cov lcov tracefile marks
// with those a `go build -cover` replay of the same inputs marks (a text
// profile of go tool covdata textfmt): per file prefix, how many lines
// both mark and how many of those agree on reached or not. lcov paths
// drop their module version ("golang.org/x/net@v0.62.0/html" is
// "golang.org/x/net/html"), as the profile writes import paths. A
// profile line is reached when a block covering it ran.
//
// Usage: golines LCOV PROFILE PREFIX...
package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

var (
	block   = regexp.MustCompile(`^(.+):(\d+)\.\d+,(\d+)\.\d+ \d+ (\d+)$`)
	version = regexp.MustCompile(`@v[^/]*`)
)

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: golines LCOV PROFILE PREFIX...")
		os.Exit(2)
	}
	wafer, err := readLCOV(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	native, err := readProfile(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, prefix := range os.Args[3:] {
		var both, agree, onlyWafer, onlyNative int
		for file, lines := range wafer {
			if !strings.HasPrefix(file, prefix) {
				continue
			}
			for n, w := range lines {
				g, ok := native[file][n]
				if !ok {
					continue
				}
				both++
				switch {
				case w == g:
					agree++
				case w:
					onlyWafer++
				default:
					onlyNative++
				}
			}
		}
		fmt.Printf("%s: %d lines marked by both, %d agree (%.1f %%); reached by wafer only %d, natively only %d\n",
			prefix, both, agree, 100*float64(agree)/float64(max(both, 1)), onlyWafer, onlyNative)
	}
}

// readLCOV returns, by file (version dropped), each DA line's reached.
func readLCOV(path string) (map[string]map[int]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]map[int]bool{}
	var cur map[int]bool
	s := bufio.NewScanner(f)
	for s.Scan() {
		l := s.Text()
		switch {
		case strings.HasPrefix(l, "SF:"):
			name := version.ReplaceAllString(strings.TrimPrefix(l, "SF:"), "")
			cur = map[int]bool{}
			out[name] = cur
		case strings.HasPrefix(l, "DA:") && cur != nil:
			n, c, _ := strings.Cut(strings.TrimPrefix(l, "DA:"), ",")
			c, _, _ = strings.Cut(c, ",")
			line, err1 := strconv.Atoi(n)
			hits, err2 := strconv.Atoi(c)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("%s: bad line %q", path, l)
			}
			cur[line] = hits > 0
		}
	}
	return out, s.Err()
}

// readProfile returns, by file, each line a block covers: reached when
// some block covering it ran.
func readProfile(path string) (map[string]map[int]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]map[int]bool{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		m := block.FindStringSubmatch(s.Text())
		if m == nil {
			continue
		}
		from, _ := strconv.Atoi(m[2])
		to, _ := strconv.Atoi(m[3])
		count, _ := strconv.Atoi(m[4])
		if out[m[1]] == nil {
			out[m[1]] = map[int]bool{}
		}
		for n := from; n <= to; n++ {
			out[m[1]][n] = out[m[1]][n] || count > 0
		}
	}
	return out, s.Err()
}
