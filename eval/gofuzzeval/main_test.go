package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// stmts counts the package's own files only, each block once, covered
// when any of its lines has a count.
func TestStmts(t *testing.T) {
	prof := write(t, "cover.out", `mode: set
image/png/reader.go:10.2,12.3 3 1
image/png/reader.go:10.2,12.3 3 0
image/png/reader.go:20.2,21.3 2 0
image/png/writer.go:5.1,6.2 4 1
image/png/sub/x.go:1.1,2.2 7 1
image/gif/reader.go:1.1,2.2 5 1
`)
	var out bytes.Buffer
	if err := stmts([]string{"-pkg", "image/png", prof}, &out); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "7 9\n"; got != want {
		t.Errorf("stmts = %q, want %q (3+4 of 3+2+4)", got, want)
	}
	if err := stmts([]string{"-pkg", "encoding/csv", prof}, &out); err == nil {
		t.Error("a profile without the package's statements: expected an error")
	}
}

// speed takes each round's ratio of the two arms, then the median.
func TestSpeed(t *testing.T) {
	tsv := write(t, "speed.tsv", `json 1 harness 1000 5000 1
json 1 gotest 100 5000 1
json 2 gotest 300 5000 1
json 2 harness 1000 5000 1
json 3 harness 100 5000 1
json 3 gotest 20 5000 1
`)
	var out bytes.Buffer
	if err := speed([]string{tsv}, &out); err != nil {
		t.Fatal(err)
	}
	if want := "| json | 3 | 1000 (100–1000) | 100 (20–300) | 0.200 (0.100–0.300) |"; !strings.Contains(out.String(), want) {
		t.Errorf("speed table:\n%s\nwant the row %s", out.String(), want)
	}
}

// cov compares wafer against go test per fuzz test and counts the runs
// with a crash.
func TestCov(t *testing.T) {
	var rows strings.Builder
	for s, v := range []string{"10", "11", "12", "13", "14"} {
		rows.WriteString("t " + string(rune('1'+s)) + " wafer " + v + " 50 0\n")
		rows.WriteString("t " + string(rune('1'+s)) + " gotest 5 50 " + map[bool]string{true: "1", false: "0"}[s == 0] + "\n")
	}
	var out bytes.Buffer
	if err := cov([]string{write(t, "stdlib.tsv", rows.String())}, &out); err != nil {
		t.Fatal(err)
	}
	if want := "| t | 50 | 12 (10–14) | 5 (5–5) | 1.00 | 0.008 | 0 of 5 / 1 of 5 |"; !strings.Contains(out.String(), want) {
		t.Errorf("cov table:\n%s\nwant the row %s", out.String(), want)
	}
}
