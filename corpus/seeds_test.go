package corpus

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseGoCorpus(t *testing.T) {
	tests := []struct {
		name, in string
		want     string
		err      string
	}{
		{"bytes", "go test fuzz v1\n[]byte(\"a\\x00b\\n\")\n", "a\x00b\n", ""},
		{"string", "go test fuzz v1\nstring(\"héllo\")\n", "héllo", ""},
		{"raw", "go test fuzz v1\n[]byte(`x\\y`)\n", "x\\y", ""},
		{"unicode escape", "go test fuzz v1\n[]byte(\"\\u00e9\")", "é", ""},
		{"comment and blank", "go test fuzz v1\n\n// from a crash\n[]byte(\"\")\n", "", ""},
		{"crlf", "go test fuzz v1\r\n[]byte(\"q\")\r\n", "q", ""},
		{"two values", "go test fuzz v1\n[]byte(\"a\")\nint(1)\n", "", "expected one []byte or string value, got 2 values"},
		{"an int", "go test fuzz v1\nint(1)\n", "", "expected one []byte or string value, got a value of type int"},
		{"no value", "go test fuzz v1\n", "", "expected one []byte or string value, got 0 values"},
		{"bad literal", "go test fuzz v1\n[]byte(\"\\q\")\n", "", `line 2: "[]byte(\"\\q\")": not a Go expression`},
		{"not a literal", "go test fuzz v1\n[]byte(x)\n", "", `line 2: "[]byte(x)": expected a literal argument`},
		{"header", "go test fuzz v2\n[]byte(\"a\")\n", "", `expected "go test fuzz v1" header`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseGoCorpus([]byte(tc.in))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("expected error %q, got %v", tc.err, err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("expected %q, got %q %v", tc.want, got, err)
			}
			back, err := ParseGoCorpus(FormatGoCorpus(got))
			if err != nil || string(back) != tc.want {
				t.Fatalf("FormatGoCorpus round trip: %q %v", back, err)
			}
		})
	}
}

func TestReadSeeds(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write := func(p, s string) {
		p = filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// libFuzzer flat dir, with a subdirectory and a hidden file.
	write("flat/b", "bee")
	write("flat/a", "ay")
	write("flat/sub/c", "see")
	write("flat/.hidden", "no")
	// Go testdata/fuzz/FuzzX.
	write("testdata/fuzz/FuzzX/0123", "go test fuzz v1\n[]byte(\"go\\xff\")\n")
	write("testdata/fuzz/FuzzX/bad", "go test fuzz v1\nint(3)\n")
	// AFL or wafer output directory: only queue/ is read.
	write("afl/queue/id:000000,time:0,orig:x", "q0")
	write("afl/crashes/id:000000,sig:06", "crash")
	write("single", "one file")
	// A sync root: OUT/<name>/queue for each campaign.
	write("root/m/queue/id:000000", "m0")
	write("root/m/fuzzer_stats", "x : 1")
	write("root/m/.wafer/meta/queue/id:000000", "meta")
	write("root/s/queue/id:000000", "s0")
	seeds, skipped, err := ReadSeeds(ctx, nil,
		filepath.Join(root, "flat"), filepath.Join(root, "testdata/fuzz/FuzzX"),
		filepath.Join(root, "afl"), filepath.Join(root, "single"), filepath.Join(root, "missing"), filepath.Join(root, "root"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range seeds {
		got = append(got, strings.TrimPrefix(s.Path, root+"/")+"="+string(s.Data))
	}
	want := "flat/a=ay flat/b=bee flat/sub/c=see testdata/fuzz/FuzzX/0123=go\xff afl/queue/id:000000,time:0,orig:x=q0 single=one file root/m/queue/id:000000=m0 root/s/queue/id:000000=s0"
	if strings.Join(got, " ") != want {
		t.Fatalf("expected\n%s\ngot\n%s", want, strings.Join(got, " "))
	}
	var se *SkipError
	if !errors.As(skipped, &se) || len(se.Files) != 2 || se.Files[0].Path != filepath.Join(root, "testdata/fuzz/FuzzX/bad") || se.Files[1].Path != filepath.Join(root, "missing") {
		t.Fatalf("expected bad and missing skipped, got %v", skipped)
	}
	ctx2, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := ReadSeeds(ctx2, nil, root); !errors.Is(err, context.Canceled) {
		t.Fatalf("expected context.Canceled, got %v", err)
	}
}

func TestFlat(t *testing.T) {
	ctx := context.Background()
	f := Flat{Path: filepath.Join(t.TempDir(), "merged")}
	p, err := f.Write(ctx, "crash-", []byte("abc"))
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(p) != "crash-a9993e364706816aba3e25717850c26c9cd0d89d" {
		t.Fatalf("expected libFuzzer's artifact name, got %s", p)
	}
	if p2, err := f.Write(ctx, "crash-", []byte("abc")); err != nil || p2 != p {
		t.Fatalf("second write: %s %v", p2, err)
	}
	f.Write(ctx, "", []byte("x"))
	seeds, skipped, err := ReadSeeds(ctx, nil, f.Path)
	if err != nil || skipped != nil || len(seeds) != 2 {
		t.Fatalf("read back: %v %v %v", seeds, skipped, err)
	}
}

// TestFlatRemoveTemps: a shared directory loses only the temporaries old
// enough to be a killed write's; zero age removes them all; inputs stay.
func TestFlatRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	f := Flat{Path: dir}
	write := func(name string, age time.Duration) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	write(".tmp-stale.1", 2*StaleTemp)
	write(".tmp-live.2", 0)
	write("old-input", 2*StaleTemp)
	left := func() []string {
		des, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, de := range des {
			names = append(names, de.Name())
		}
		return names
	}
	if err := f.RemoveTemps(StaleTemp); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(left(), " "); got != ".tmp-live.2 old-input" {
		t.Fatalf("after RemoveTemps(StaleTemp): %s", got)
	}
	if err := f.RemoveTemps(0); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(left(), " "); got != "old-input" {
		t.Fatalf("after RemoveTemps(0): %s", got)
	}
	if err := (Flat{Path: filepath.Join(dir, "missing")}).RemoveTemps(0); err != nil {
		t.Fatalf("a missing directory: %v", err)
	}
}
