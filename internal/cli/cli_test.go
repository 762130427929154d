package cli

import (
	"bytes"
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wafer-fuzz/wafer/corpus"
)

// result is one finished wafer invocation.
type result struct {
	code           int
	stdout, stderr string
}

// wafer runs the command line args in-process (doMain) in dir. The
// process's working directory is dir until the test ends: the tests here
// do not run in parallel.
func wafer(t *testing.T, dir string, args ...string) result {
	t.Helper()
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := doMain(context.Background(), args, &stdout, &stderr)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// repoRoot is the repository root: the tests start with the package dir,
// internal/cli, as their working directory.
var repoRoot = func() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Clean(filepath.Join(wd, "..", ".."))
}()

// repoDir is the repository root: tests run with the package dir as cwd.
func repoDir(t *testing.T) string {
	t.Helper()
	return repoRoot
}

func TestBadInvocation(t *testing.T) {
	tmp := t.TempDir()
	notWasm := filepath.Join(tmp, "notwasm.wasm")
	os.WriteFile(notWasm, []byte("hello, this is text"), 0o644)
	truncated := filepath.Join(tmp, "trunc.wasm")
	os.WriteFile(truncated, []byte("\x00asm"), 0o644)
	badVersion := filepath.Join(tmp, "v2.wasm")
	os.WriteFile(badVersion, []byte("\x00asm\x02\x00\x00\x00"), 0o644)
	component := filepath.Join(tmp, "component.wasm")
	os.WriteFile(component, []byte("\x00asm\x0d\x00\x01\x00"), 0o644)
	// A module header that the decoder must reject: a section id past the end.
	malformed := filepath.Join(tmp, "malformed.wasm")
	os.WriteFile(malformed, []byte("\x00asm\x01\x00\x00\x00\x01\xff\xff\xff\xff\x0f"), 0o644)
	readonly := filepath.Join(tmp, "ro")
	os.Mkdir(readonly, 0o555)
	// A regular file where a directory is needed makes an output dir
	// unwritable even for root.
	blocker := filepath.Join(tmp, "blocker")
	os.WriteFile(blocker, nil, 0o644)
	unwritable := filepath.Join(blocker, "out")
	tlv := filepath.Join(repoDir(t), "examples", "tlv", "tlv.wasm")
	validSeed := filepath.Join(repoDir(t), "examples", "tlv", "seeds", "valid")
	badDict := filepath.Join(tmp, "bad.dict")
	os.WriteFile(badDict, []byte("\"unterminated\n"), 0o644)

	tests := []struct {
		name string
		args []string
		code int
		want string // substring of the one error line
	}{
		{"no args", nil, 2, "no command given"},
		{"corpus before target", []string{"fuzz", tmp, tlv}, 2, "is a directory, expected TARGET.wasm first"},
		{"missing -i", []string{"fuzz", "-i", filepath.Join(tmp, "nonexist"), tlv}, 1, "nonexist"},
		{"negative max-len", []string{"fuzz", "--max-len", "-5", tlv}, 2, "--max-len"},
		{"use-cmp 2", []string{"fuzz", "--use-cmp", "2", tlv}, 2, "--use-cmp"},
		{"unknown command", []string{"fuzzz"}, 2, `unknown command "fuzzz"`},
		{"unknown flag", []string{"fuzz", "--no-such-flag", notWasm}, 2, "unknown flag: --no-such-flag"},
		{"bad flag value", []string{"fuzz", "--runs", "many", notWasm}, 2, "invalid argument"},
		{"bad duration", []string{"fuzz", "--max-total-time", "soon", notWasm}, 2, "expected seconds or a duration"},
		{"fuzz missing target", []string{"fuzz"}, 2, "missing TARGET.wasm"},
		{"fuzz missing file", []string{"fuzz", filepath.Join(tmp, "nope.wasm")}, 1, "no such file or directory"},
		{"libfuzzer missing file", []string{filepath.Join(tmp, "nope.wasm"), "-runs=1"}, 1, "no such file or directory"},
		{"fuzz not wasm", []string{"fuzz", notWasm}, 1, "not a WebAssembly module: offset 0x0: bad magic: expected 00 61 73 6d"},
		{"fuzz truncated", []string{"fuzz", truncated}, 1, "not a WebAssembly module: offset 0x4: unexpected end: expected 8-byte header, got 4 bytes"},
		{"fuzz bad version", []string{"fuzz", badVersion}, 1, "not a WebAssembly module: offset 0x4: bad version: expected 01 00 00 00"},
		{"fuzz component", []string{"fuzz", component}, 1, "a WebAssembly component (component model)"},
		{"fuzz unwritable output", []string{"fuzz", "-o", unwritable, tlv}, 1, "output directory"},
		{"fuzz malformed, nothing written", []string{"fuzz", "-o", filepath.Join(tmp, "never"), malformed}, 1, "not a WebAssembly module: section type: offset 0x9"},
		{"repro missing input", []string{"repro", malformed}, 2, "expected TARGET.wasm and at least one input"},
		{"repro not wasm", []string{"repro", notWasm, notWasm}, 1, "not a WebAssembly module: offset 0x0: bad magic"},
		{"minimize arity", []string{"minimize", malformed}, 2, "expected TARGET.wasm and one crash file"},
		{"merge no output", []string{"merge", malformed, tmp}, 2, "missing -o OUT_DIR"},
		{"merge unwritable", []string{"merge", "-o", unwritable, malformed, tmp}, 1, "output directory"},
		{"instrument no output", []string{"instrument", malformed}, 2, "missing -o OUT.wasm"},
		{"instrument missing file", []string{"instrument", "-o", filepath.Join(tmp, "x.wasm"), filepath.Join(tmp, "nope.wasm")}, 1, "no such file or directory"},
		{"instrument unwritable", []string{"instrument", "-o", filepath.Join(unwritable, "x.wasm"), malformed}, 1, "not a directory"},
		{"fuzz malformed module", []string{"fuzz", "-o", filepath.Join(tmp, "o1"), malformed}, 1, "section"},
		{"repro malformed module", []string{"repro", malformed, malformed}, 1, "malformed.wasm"},
		{"instrument malformed module", []string{"instrument", "-o", filepath.Join(tmp, "x.wasm"), malformed}, 1, "offset 0x9"},
		{"unknown generator", []string{"fuzz", "--generator", "nope", tlv}, 2, `--generator: expected one of`},
		{"unknown strategy", []string{"fuzz", "--strategy", "nope", tlv}, 2, `--strategy: expected one of`},
		{"bad skip pattern", []string{"fuzz", "-o", filepath.Join(tmp, "o6"), "--skip", "[", tlv}, 2, `--skip: bad pattern "["`},
		{"missing warm-up", []string{"fuzz", "-o", filepath.Join(tmp, "o7"), "--warm-up", filepath.Join(tmp, "nope"), tlv}, 1, "--warm-up: "},
		{"unknown harness", []string{"fuzz", "--harness", "nope", tlv}, 2, `--harness: expected libfuzzer, go or command`},
		{"wrong harness", []string{"fuzz", "-o", filepath.Join(tmp, "o2"), "--harness", "command", tlv}, 1, "no harness export"},
		{"bad dict", []string{"fuzz", "-o", filepath.Join(tmp, "o3"), "--dict", badDict, tlv}, 1, "-dict: "},
		{"missing dict", []string{"fuzz", "-o", filepath.Join(tmp, "o4"), "--dict", filepath.Join(tmp, "nope.dict"), tlv}, 1, "no such file"},
		{"missing corpus dir", []string{"fuzz", "-o", filepath.Join(tmp, "o5"), tlv, filepath.Join(tmp, "nope")}, 1, "no such file"},
		{"libfuzzer missing corpus dir", []string{tlv, filepath.Join(tmp, "nope"), "-runs=10"}, 1, "no such file"},
		{"merge missing input dir", []string{"merge", "-o", filepath.Join(tmp, "m"), tlv, filepath.Join(tmp, "nope")}, 1, "no such file"},
		{"minimize not crashing", []string{"minimize", tlv, validSeed}, 1, "does not crash or hang"},
		{"bad rss limit", []string{"fuzz", "--rss-limit-mb", "-5", tlv}, 2, "--rss-limit-mb"},
		{"help unknown", []string{"help", "nope"}, 2, `unknown command "nope"`},
		{"version args", []string{"version", "x"}, 2, "takes no arguments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := wafer(t, tmp, tc.args...)
			if r.code != tc.code {
				t.Errorf("exit code: expected %d, got %d (stderr %q)", tc.code, r.code, r.stderr)
			}
			// progress lines may come first: "INFO: compiling ..." when a
			// compile takes over a second (a loaded machine)
			var lines []string
			for _, l := range strings.Split(strings.TrimRight(r.stderr, "\n"), "\n") {
				if !strings.HasPrefix(l, "INFO: ") {
					lines = append(lines, l)
				}
			}
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "wafer: ") {
				t.Errorf("stderr: expected one line starting with \"wafer: \" (after INFO lines), got %q", r.stderr)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr: expected it to contain %q, got %q", tc.want, r.stderr)
			}
			if strings.Contains(strings.ToLower(r.stdout+r.stderr), "panic") {
				t.Errorf("output mentions a panic: %q %q", r.stdout, r.stderr)
			}
		})
	}
	// a module that does not load leaves no output directory behind
	if _, err := os.Stat(filepath.Join(tmp, "never")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("fuzz of a malformed module: expected no output directory, got %v", err)
	}
}

func TestHelp(t *testing.T) {
	for _, cmd := range []string{"fuzz", "repro", "minimize", "merge", "instrument", "version", "libfuzzer"} {
		t.Run(cmd, func(t *testing.T) {
			r := wafer(t, repoDir(t), "help", cmd)
			if r.code != 0 {
				t.Fatalf("exit code: expected 0, got %d (%s)", r.code, r.stderr)
			}
			if !strings.Contains(r.stdout, "usage: wafer") {
				t.Errorf("expected a usage line, got %q", r.stdout)
			}
			if cmd != "version" && !strings.Contains(r.stdout, "examples:") {
				t.Errorf("expected examples, got %q", r.stdout)
			}
		})
	}
	r := wafer(t, repoDir(t), "fuzz", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "--max-total-time") {
		t.Errorf("fuzz --help: expected exit 0 and the flag table, got %d %q", r.code, r.stdout)
	}
	r = wafer(t, repoDir(t), "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "wafer ") {
		t.Errorf("version: expected exit 0 and \"wafer ...\", got %d %q", r.code, r.stdout)
	}
}

// notLanded skips the test when the command reports that the package it
// needs has not been committed yet.
func notLanded(t *testing.T, r result) {
	t.Helper()
	if strings.Contains(r.stderr, "not available in this build yet") {
		t.Skipf("dependency not landed: %s", strings.TrimSpace(r.stderr))
	}
}

func exampleDir(t *testing.T, name string) string {
	t.Helper()
	return filepath.Join(repoDir(t), "examples", name)
}

func TestInstrumentCommand(t *testing.T) {
	tmp := t.TempDir()
	in := filepath.Join(exampleDir(t, "tlv"), "tlv.wasm")
	out := filepath.Join(tmp, "tlv.inst.wasm")
	sites := filepath.Join(tmp, "tlv.sites")
	r := wafer(t, tmp, "instrument", "--fuel", "--dirty", "--sitemap", sites, "-o", out, in)
	notLanded(t, r)
	if r.code != 0 {
		t.Fatalf("exit code: expected 0, got %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("\x00asm\x01\x00\x00\x00")) {
		t.Errorf("output: expected a wasm module, got % x", b[:min(8, len(b))])
	}
	orig, _ := os.ReadFile(in)
	if len(b) <= len(orig) {
		t.Errorf("output: expected an instrumented module larger than %d bytes, got %d", len(orig), len(b))
	}
	if st, err := os.Stat(sites); err != nil || st.Size() == 0 {
		t.Errorf("site map: expected a non-empty file, got %v", err)
	}
	if !strings.Contains(r.stdout, "branch sites") {
		t.Errorf("stdout: expected a summary line, got %q", r.stdout)
	}
	// The instrumented module is a wasm module wafer can fuzz again.
	r = wafer(t, tmp, "instrument", "-o", filepath.Join(tmp, "again.wasm"), filepath.Join(tmp, "nope.wasm"))
	if r.code != 1 {
		t.Errorf("missing input: expected exit 1, got %d", r.code)
	}
}

func TestRepro(t *testing.T) {
	tlv := exampleDir(t, "tlv")
	// testdata/heap allocates 4 MiB on "B": past a 3 MiB cap (a 1 MiB
	// input buffer and the 1 MiB heap reserve fit).
	big := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(big, []byte("B"), 0o644); err != nil {
		t.Fatal(err)
	}
	// testdata/heapguard writes 11 bytes into a 10-byte block on "O":
	// no trap in the module as it is, a crash with the heap guard.
	overflow := filepath.Join(t.TempDir(), "overflow")
	if err := os.WriteFile(overflow, []byte("O0123456789X"), 0o644); err != nil {
		t.Fatal(err)
	}
	guard := filepath.Join(repoDir(t), "testdata", "heapguard", "guard.wasm")
	// testdata/depth nested 320 levels deep: its stack, above the static
	// data, runs a little way into that data; the module as it is passes,
	// the stack check of a campaign's build stops it.
	nested := filepath.Join(t.TempDir(), "nested")
	if err := os.WriteFile(nested, []byte("<"+strings.Repeat("a><", 320)), 0o644); err != nil {
		t.Fatal(err)
	}
	nest := filepath.Join(repoDir(t), "testdata", "depth", "nest.wasm")
	tests := []struct {
		name  string
		args  []string
		code  int
		wants []string // substrings of stdout
	}{
		{"crash", []string{filepath.Join(tlv, "tlv.wasm"), filepath.Join(tlv, "testdata", "crash-divzero")}, 77,
			[]string{"crash", "divide", "parse_tlv", "tlv.c:"}},
		{"valid", []string{filepath.Join(tlv, "tlv.wasm"), filepath.Join(tlv, "seeds", "valid")}, 0,
			[]string{"valid"}},
		{"directory", []string{filepath.Join(tlv, "tlv.wasm"), filepath.Join(tlv, "testdata")}, 77,
			[]string{"crash-divzero", "crash-padded"}},
		{"go reactor", []string{filepath.Join(exampleDir(t, "gojson"), "gojson.wasm"), filepath.Join(exampleDir(t, "gojson"), "seeds")}, 0,
			[]string{"valid"}},
		{"go command", []string{"--harness", "command", "--invalid-exit-code", "1",
			filepath.Join(exampleDir(t, "gostdin"), "gostdin.wasm"), filepath.Join(exampleDir(t, "gostdin"), "seeds")}, 0,
			[]string{"valid"}},
		{"out of memory", []string{"--rss-limit-mb", "3", filepath.Join(repoDir(t), "testdata", "heap", "heap.wasm"), big}, 71,
			[]string{"crash", "out-of-memory"}},
		// the heap check finds the write as it happens, in memcpy
		{"heap overflow", []string{guard, overflow}, 77,
			[]string{"crash", "heap-buffer-overflow", "a 1-byte write", "memcpy", "overflow_write testdata/heapguard/guard.c:18"}},
		// the guard alone finds it when the block is freed
		{"heap overflow without the check", []string{"--heap-check", "0", guard, overflow}, 77,
			[]string{"crash", "heap-buffer-overflow", "10-byte", "free", "overflow_write"}},
		{"heap overflow without the guard", []string{"--heap-guard=false", guard, overflow}, 0,
			[]string{"valid"}},
		{"stack overflow into the static data", []string{nest, nested}, 77,
			[]string{"crash", "stack-exhausted", "left the stack", "element"}},
		{"go test fuzz v1 file", []string{filepath.Join(exampleDir(t, "cexpr"), "cexpr.wasm"),
			filepath.Join(exampleDir(t, "cexpr"), "testdata", "fuzz", "FuzzExpr")}, 0,
			[]string{"seed-paren: valid"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := wafer(t, t.TempDir(), append([]string{"repro"}, tc.args...)...)
			notLanded(t, r)
			if r.code != tc.code {
				t.Fatalf("exit code: expected %d, got %d\nstdout: %s\nstderr: %s", tc.code, r.code, r.stdout, r.stderr)
			}
			for _, w := range tc.wants {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout: expected %q in\n%s", w, r.stdout)
				}
			}
		})
	}
}

// TestNoNameSection: a module without a name section gets an INFO line
// saying what that costs; one with it does not.
func TestNoNameSection(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		wasm string
		info bool
	}{
		{filepath.Join(repoDir(t), "testdata", "cxxcommand", "stripped.wasm"), true},
		{filepath.Join(repoDir(t), "testdata", "cxxcommand", "command.wasm"), false},
	} {
		r := wafer(t, t.TempDir(), "repro", tc.wasm, in)
		notLanded(t, r)
		if got := strings.Contains(r.stderr, "has no name section"); got != tc.info {
			t.Errorf("%s: expected the INFO line %v, got stderr:\n%s", tc.wasm, tc.info, r.stderr)
		}
	}
}

// copyDir copies the regular files of src into a new directory under t's
// temp dir and returns it.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	des, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range des {
		if de.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, de.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// files lists the names of the regular, non-hidden files in dir.
func files(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	var names []string
	for _, de := range des {
		if !de.IsDir() && !strings.HasPrefix(de.Name(), ".") {
			names = append(names, de.Name())
		}
	}
	return names
}

// statLines are libFuzzer's -print_final_stats lines, in its order.
var statLines = []string{
	"stat::number_of_executed_units: ",
	"stat::average_exec_per_sec:     ",
	"stat::new_units_added:          ",
	"stat::slowest_unit_time_sec:    ",
	"stat::peak_rss_mb:              ",
}

func checkStatLines(t *testing.T, stderr string) {
	t.Helper()
	pos := 0
	for _, l := range statLines {
		i := strings.Index(stderr[pos:], "\n"+l)
		if i < 0 {
			t.Errorf("stderr: expected a line starting %q after offset %d in\n%s", l, pos, stderr)
			return
		}
		pos += i + 1
	}
}

// TestFuzzFindsSeededBug: campaigns on the examples with a planted bug
// find it, lay out their output directory, and the crash reproduces with
// the planted bug named: tlv's divide-by-zero in parse_tlv (C), rustini's
// panic (Rust, a cdylib whose exports wasm-ld wraps in constructor calls).
func TestFuzzFindsSeededBug(t *testing.T) {
	for _, tc := range []struct {
		example, budget, value, repro string
	}{
		{"tlv", "--max-total-time", "60", "parse_tlv"},
		{"rustini", "--runs", "2000000", "rust-panic: attempt to divide by zero (lib.rs:37:51)"},
	} {
		t.Run(tc.example, func(t *testing.T) {
			dir := exampleDir(t, tc.example)
			wasm := filepath.Join(dir, tc.example+".wasm")
			tmp := t.TempDir()
			out := filepath.Join(tmp, "out")
			r := wafer(t, tmp, "fuzz", tc.budget, tc.value, "--seed", "1", "-o", out, wasm, filepath.Join(dir, "seeds"))
			notLanded(t, r)
			if r.code != 77 {
				t.Fatalf("exit code: expected 77 (crash), got %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			crashes := files(t, filepath.Join(out, "crashes"))
			if len(crashes) == 0 {
				t.Fatalf("expected a file in %s/crashes", out)
			}
			for _, f := range []string{"fuzzer_stats", "plot_data", "queue"} {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Errorf("output layout: %v", err)
				}
			}
			r = wafer(t, tmp, "repro", wasm, filepath.Join(out, "crashes", crashes[0]))
			if r.code != 77 || !strings.Contains(r.stdout, tc.repro) {
				t.Errorf("repro: expected exit 77 and %q, got %d\n%s%s", tc.repro, r.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestFuzzHeapCheck: a campaign on a C target whose bugs are heap reads
// and writes that never trap in Wasm finds them, by kind, on the inputs
// it runs on the checked build (one in 8, the default: the compare build,
// or without comparisons the heap check's own), and each crash
// reproduces with wafer repro; the same campaign without the check finds
// only what the heap guard finds (writes past a block, at its free).
func TestFuzzHeapCheck(t *testing.T) {
	wasm := filepath.Join(repoDir(t), "testdata", "heapcheck", "check.wasm")
	tmp := t.TempDir()
	seeds := filepath.Join(tmp, "seeds")
	if err := os.MkdirAll(seeds, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(seeds, "none"), []byte("xxxx"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ check, useCmp string }{{"8", "1"}, {"8", "0"}, {"0", "1"}} {
		check := tc.check
		out := filepath.Join(tmp, "out"+check+tc.useCmp)
		r := wafer(t, tmp, "fuzz", "--keep-going", "--runs", "30000", "--seed", "1", "--heap-check", check, "--use-cmp", tc.useCmp, "-o", out, wasm, seeds)
		notLanded(t, r)
		crashes := files(t, filepath.Join(out, "crashes"))
		if check == "0" {
			// the heap guard alone finds the writes past a block that
			// is freed after, at the free; nothing else
			for _, c := range crashes {
				if rr := wafer(t, tmp, "repro", "--heap-check", "0", wasm, filepath.Join(out, "crashes", c)); !strings.Contains(rr.stdout, "found when it was freed") {
					t.Fatalf("without the check: expected only the guard's findings, got %s:\n%s", c, rr.stdout)
				}
			}
			continue
		}
		if r.code != 77 {
			t.Fatalf("exit code: expected 77 (crash), got %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
		}
		kinds := map[string]bool{}
		for _, c := range crashes {
			rr := wafer(t, tmp, "repro", wasm, filepath.Join(out, "crashes", c))
			if rr.code != 77 {
				t.Fatalf("repro %s: expected exit 77, got %d\n%s%s", c, rr.code, rr.stdout, rr.stderr)
			}
			for _, k := range []string{"heap-buffer-overflow", "heap-use-after-free"} {
				if strings.Contains(c, k) && strings.Contains(rr.stdout, "failure: "+k) {
					kinds[k] = true
				}
			}
		}
		if len(kinds) != 2 || len(crashes) < 5 {
			t.Fatalf("expected overflows and uses after free among at least 5 crashes, reproduced, got %v (%v)", crashes, kinds)
		}
	}
}

func TestFuzzNoFinding(t *testing.T) {
	cexpr := exampleDir(t, "cexpr")
	tmp := t.TempDir()
	out := filepath.Join(tmp, "out")
	r := wafer(t, tmp, "fuzz", "--runs", "2000", "--generator", "expr", "-o", out,
		filepath.Join(cexpr, "cexpr.wasm"), filepath.Join(cexpr, "seeds"), filepath.Join(cexpr, "testdata", "fuzz", "FuzzExpr"))
	notLanded(t, r)
	if r.code != 0 {
		t.Fatalf("exit code: expected 0, got %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if len(files(t, filepath.Join(out, "queue"))) == 0 {
		t.Errorf("expected queue entries in %s/queue", out)
	}
	if _, err := os.Stat(filepath.Join(out, "fuzzer_stats")); err != nil {
		t.Errorf("output layout: %v", err)
	}
}

// TestOutputLock: a second campaign on an output directory a running
// one holds (in this process) fails with exit 1 naming the directory and
// the lock, and the first is unaffected; a lock file left by a process
// that is gone is taken over, and released at the end.
func TestOutputLock(t *testing.T) {
	tlv := filepath.Join(exampleDir(t, "tlv"), "tlv.wasm")
	tmp := t.TempDir()
	t.Chdir(tmp)
	out := filepath.Join(tmp, "out")
	lock := filepath.Join(out, ".wafer", "lock")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var first syncBuffer
	firstCode := make(chan int, 1)
	go func() {
		firstCode <- doMain(ctx, []string{"fuzz", "--keep-going", "--no-fsync", "--max-total-time", "120", "-o", out, tlv}, io.Discard, &first)
	}()
	// The first holds the lock once its stats lines come.
	for !strings.Contains(first.String(), `"execs"`) {
		select {
		case code := <-firstCode:
			t.Fatalf("first campaign ended (%d) before the second started:\n%s", code, first.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	r := wafer(t, tmp, "fuzz", "--runs", "100", "-o", out, tlv)
	want := fmt.Sprintf("wafer: output directory %s is in use by another wafer campaign (process %d holds %s); use another -o, or stop that one\n", out, os.Getpid(), lock)
	if r.code != 1 || r.stderr != want {
		t.Fatalf("held: expected exit 1 and\n%qgot %d:\n%q", want, r.code, r.stderr)
	}
	cancel()
	// 77: tlv's planted crash, found and kept going
	if code := <-firstCode; (code != 0 && code != 77) || !strings.Contains(first.String(), `"final":true`) {
		t.Fatalf("first campaign: expected it to finish cleanly (0 or 77), got %d:\n%s", code, tail(first.String()))
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Errorf("expected the lock released at the end, got %v", err)
	}
	done := exec.Command("true")
	if err := done.Run(); err != nil {
		t.Skip("no true command to make a dead pid")
	}
	os.WriteFile(lock, []byte(strconv.Itoa(done.Process.Pid)), 0o644) // gone
	r = wafer(t, tmp, "fuzz", "--runs", "100", "-o", out, tlv)
	notLanded(t, r)
	if r.code != 0 && r.code != 77 {
		t.Fatalf("stale: expected the campaign to run, got %d:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Errorf("expected the lock released at the end, got %v", err)
	}
}

// TestResumeAfterCrash: a campaign that stopped at its first crash, run
// again on the same output directory, does not stop at that crash again.
func TestResumeAfterCrash(t *testing.T) {
	tlv := filepath.Join(exampleDir(t, "tlv"), "tlv.wasm")
	tmp := t.TempDir()
	out := filepath.Join(tmp, "out")
	if r := wafer(t, tmp, "fuzz", "--seed", "1", "--max-total-time", "60", "-o", out, tlv); r.code != 77 {
		t.Fatalf("first session: expected the planted crash (77), got %d\n%s", r.code, r.stderr)
	}
	r := wafer(t, tmp, "fuzz", "--seed", "1", "--runs", "50000", "-o", out, tlv)
	notLanded(t, r)
	if r.code != 0 || !strings.Contains(r.stdout, "stopped by --runs") {
		t.Fatalf("resumed: expected it to run its 50,000 executions (exit 0), got %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if n := len(crashFiles(t, filepath.Join(out, "crashes"))); n != 1 {
		t.Errorf("resumed: expected the one crash kept, got %d files", n)
	}
	if want := "1 bug (1 crash state, 0 new), hangs 0 (0 new)"; !strings.Contains(r.stdout, want) {
		t.Errorf("resumed: expected the summary to count the crash it holds, %q, in\n%s", want, r.stdout)
	}
}

// TestUnknownLibFuzzerFlags: as libFuzzer, a flag wafer does not know is
// warned about and the run goes on (runners pass flags of newer libFuzzer
// versions); ClusterFuzz's -merge_control_file is known and has no
// effect; short flags still work.
func TestUnknownLibFuzzerFlags(t *testing.T) {
	tlv := filepath.Join(exampleDir(t, "tlv"), "tlv.wasm")
	tmp := t.TempDir()
	r := wafer(t, tmp, tlv, "-runs=100", "-merge_control_file=/nonexistent/cf", "-shuffle=1", "-j", "1")
	notLanded(t, r)
	if r.code != 0 {
		t.Fatalf("expected exit 0, got %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"INFO: -merge_control_file has no effect", "WARNING: unrecognized flag '-shuffle=1'"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("expected %q in stderr:\n%s", want, r.stderr)
		}
	}
}

// TestResumeReplaysQueue: a resumed campaign replays the queue it finds
// before the seeds it is given. Its input buffer holds the longest queued
// input, here a 1.5 MB seed of the first session (over the 1 MiB
// default): the second session, given no seed, had stopped at once with
// "input of 1500011 bytes exceeds MaxInputLen". And --runs 0 runs the
// queue and then the seeds: the crashing seed of the third session is
// run, where the budget had been the number of seeds alone, spent on the
// queue.
func TestResumeReplaysQueue(t *testing.T) {
	tlv := filepath.Join(exampleDir(t, "tlv"), "tlv.wasm")
	tmp := t.TempDir()
	out := filepath.Join(tmp, "out")
	seedFile := func(name string, in []byte) string {
		dir := filepath.Join(tmp, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), in, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	big := append([]byte("WTLV\x01"), make([]byte, 1_500_006)...)
	if r := wafer(t, tmp, "fuzz", "--seed", "1", "--runs", "1", "-o", out, "-i", seedFile("big", big), tlv); r.code != 0 {
		t.Fatalf("first session: expected exit 0, got %d\n%s", r.code, r.stderr)
	}
	r := wafer(t, tmp, "fuzz", "--seed", "1", "--runs", "200", "-o", out, tlv)
	notLanded(t, r)
	if r.code != 0 || !strings.Contains(r.stdout, "stopped by --runs") {
		t.Fatalf("second session: expected it to run its 200 executions (exit 0), got %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	crash := seedFile("crash", []byte("WTLV\x01\x01\x01\x02\x02\x00\x00"))
	r = wafer(t, tmp, "fuzz", "--runs", "0", "-o", out, "-i", crash, tlv)
	notLanded(t, r)
	if r.code != 77 {
		t.Fatalf("--runs 0 on a resumed directory: expected the crashing seed run (77), got %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestFuzzLongSeed: a seed longer than --max-len runs whole, and the
// campaign says so, with the limit.
func TestFuzzLongSeed(t *testing.T) {
	cexpr := exampleDir(t, "cexpr")
	tmp := t.TempDir()
	seeds := filepath.Join(tmp, "seeds")
	if err := os.Mkdir(seeds, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]string{"short": "1+2", "long": "(1+2)*(3+4)*(5+6)"} {
		if err := os.WriteFile(filepath.Join(seeds, name), []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := wafer(t, tmp, "fuzz", "--runs", "500", "--max-len", "8", "-o", filepath.Join(tmp, "out"), filepath.Join(cexpr, "cexpr.wasm"), seeds)
	notLanded(t, r)
	if r.code != 0 {
		t.Fatalf("exit code: expected 0, got %d\nstderr: %s", r.code, r.stderr)
	}
	if want := "INFO: 1 seed inputs are longer than --max-len 8: they run whole, inputs made from them are cut to 8 bytes"; !strings.Contains(r.stderr, want) {
		t.Errorf("expected %q in stderr:\n%s", want, r.stderr)
	}
}

func TestMinimizeAndMerge(t *testing.T) {
	tlv := exampleDir(t, "tlv")
	tmp := t.TempDir()
	padded := filepath.Join(tlv, "testdata", "crash-padded")
	small := filepath.Join(tmp, "small")
	// what a minimize killed while writing its output leaves (atomicfile's
	// temporary file) goes at the next run; other hidden files stay
	leftover, other := filepath.Join(tmp, ".small.tmp123456"), filepath.Join(tmp, ".small.tmp-keep")
	os.WriteFile(leftover, []byte("half"), 0o644)
	os.WriteFile(other, []byte("mine"), 0o644)
	r := wafer(t, tmp, "minimize", "--runs", "3000", "-o", small, filepath.Join(tlv, "tlv.wasm"), padded)
	notLanded(t, r)
	if r.code != 0 {
		t.Fatalf("minimize: expected exit 0, got %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	orig, _ := os.ReadFile(padded)
	got, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) >= len(orig) {
		t.Errorf("minimize: expected fewer than %d bytes, got %d", len(orig), len(got))
	}
	if _, err := os.Stat(leftover); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("minimize: a killed run's temporary file %s is still there (%v)", leftover, err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("minimize removed %s, not its own: %v", other, err)
	}
	if r := wafer(t, tmp, "repro", filepath.Join(tlv, "tlv.wasm"), small); r.code != 77 {
		t.Errorf("minimised input: expected it to crash (77), got %d\n%s", r.code, r.stdout)
	}
	// Without -o the output goes next to the input (it went to the
	// working directory); -o naming a directory fails before any run.
	crashes := t.TempDir()
	crashFile := filepath.Join(crashes, "crash")
	if err := os.WriteFile(crashFile, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := wafer(t, tmp, "minimize", "--runs", "300", filepath.Join(tlv, "tlv.wasm"), crashFile); r.code != 0 {
		t.Fatalf("minimize without -o: expected exit 0, got %d\n%s", r.code, r.stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(crashes, "minimized-from-*")); len(m) != 1 {
		t.Errorf("minimize without -o: expected its output next to the input, got %v", m)
	}
	if r := wafer(t, tmp, "minimize", "-o", crashes, filepath.Join(tlv, "tlv.wasm"), crashFile); r.code == 0 || !strings.Contains(r.stderr, "expected a file, got a directory") {
		t.Errorf("minimize -o DIR: expected an error before running, got %d %q", r.code, r.stderr)
	}

	in := copyDir(t, filepath.Join(tlv, "seeds"))
	// Duplicates of the seed in another name add no coverage.
	b, _ := os.ReadFile(filepath.Join(in, "valid"))
	os.WriteFile(filepath.Join(in, "valid-copy"), b, 0o644)
	os.WriteFile(filepath.Join(in, "junk"), []byte("not tlv"), 0o644)
	// A crashing input is left out, whatever it covers (as libFuzzer).
	crash, _ := os.ReadFile(padded)
	os.WriteFile(filepath.Join(in, "crash"), crash, 0o644)
	merged := filepath.Join(tmp, "merged")
	// what a merge killed while writing leaves (corpus' temporary file)
	os.Mkdir(merged, 0o755)
	mergeLeft := filepath.Join(merged, ".tmp-"+corpus.SHA1([]byte("x"))+".3")
	os.WriteFile(mergeLeft, []byte("half"), 0o644)
	r = wafer(t, tmp, "merge", "-o", merged, filepath.Join(tlv, "tlv.wasm"), in)
	if r.code != 0 {
		t.Fatalf("merge: expected exit 0, got %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(mergeLeft); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("merge: a killed run's temporary file %s is still there (%v)", mergeLeft, err)
	}
	kept := files(t, merged)
	if len(kept) == 0 || len(kept) > 2 {
		t.Errorf("merge: expected 1 or 2 inputs kept of 4, got %v", kept)
	}
	for _, k := range kept {
		if b, _ := os.ReadFile(filepath.Join(merged, k)); string(b) == string(crash) {
			t.Errorf("merge: the crashing input was kept as %s", k)
		}
	}
	if !strings.Contains(r.stderr, "1 inputs crashed or hung and were left out") {
		t.Errorf("merge: expected a line about the crash left out, got:\n%s", r.stderr)
	}
}

// TestLibFuzzerCompat drives wafer as a libFuzzer runner would: flags in
// libFuzzer's -name=value form, its exit codes (FuzzerOptions.h:
// ErrorExitCode 77, TimeoutExitCode 70), artifacts named
// <artifact_prefix>crash-<sha1> / timeout-<sha1>, the "Test unit written
// to" line and the -print_final_stats lines.
func TestLibFuzzerCompat(t *testing.T) {
	tlv := exampleDir(t, "tlv")
	tlvWasm := filepath.Join(tlv, "tlv.wasm")

	// -runs=0 runs the corpus and stops, as libFuzzer does.
	t.Run("runs=0", func(t *testing.T) {
		corpusDir := copyDir(t, filepath.Join(tlv, "seeds"))
		n := len(files(t, corpusDir))
		// A killed write's temporary goes; one as young as a live write of
		// another campaign sharing the directory stays.
		stale, live := filepath.Join(corpusDir, ".tmp-stale.1"), filepath.Join(corpusDir, ".tmp-live.2")
		os.WriteFile(stale, []byte("half"), 0o644)
		os.WriteFile(live, []byte("half"), 0o644)
		old := time.Now().Add(-2 * corpus.StaleTemp)
		os.Chtimes(stale, old, old)
		r := wafer(t, t.TempDir(), tlvWasm, corpusDir, "-runs=0")
		notLanded(t, r)
		if want := fmt.Sprintf("Done %d runs", n); r.code != 0 || !strings.Contains(r.stderr, want) {
			t.Fatalf("expected exit 0 and %q, got %d:\n%s", want, r.code, r.stderr)
		}
		if _, err := os.Stat(stale); !os.IsNotExist(err) {
			t.Errorf("a stale temporary file stayed in the corpus: %v", err)
		}
		if _, err := os.Stat(live); err != nil {
			t.Errorf("a fresh temporary file was removed: %v", err)
		}
	})

	t.Run("crash", func(t *testing.T) {
		tmp := t.TempDir()
		corpusDir := copyDir(t, filepath.Join(tlv, "seeds"))
		art := filepath.Join(tmp, "art") + "/"
		os.Mkdir(art, 0o755)
		r := wafer(t, tmp, tlvWasm, corpusDir, "-seed=1", "-runs=1000000", "-max_total_time=60",
			"-artifact_prefix="+art, "-dict="+filepath.Join(tlv, "tlv.dict"), "-max_len=64", "-timeout=5", "-rss_limit_mb=512",
			"-workers=1", "-close_fd_mask=3", "-print_final_stats=1")
		notLanded(t, r)
		if r.code != 77 {
			t.Fatalf("exit code: expected 77, got %d\nstderr: %s", r.code, r.stderr)
		}
		arts := files(t, art)
		if len(arts) != 1 || !strings.HasPrefix(arts[0], "crash-") {
			t.Fatalf("artifacts: expected one crash-<sha1>, got %v", arts)
		}
		data, _ := os.ReadFile(filepath.Join(art, arts[0]))
		if want := fmt.Sprintf("crash-%x", sha1.Sum(data)); arts[0] != want {
			t.Errorf("artifact name: expected %s (sha1 of its content), got %s", want, arts[0])
		}
		if !strings.Contains(r.stderr, "Test unit written to "+art+arts[0]) {
			t.Errorf("stderr: expected the \"Test unit written to\" line, got\n%s", r.stderr)
		}
		checkStatLines(t, r.stderr)

		// Running the artifact as a file argument reproduces it.
		r = wafer(t, tmp, tlvWasm, filepath.Join(art, arts[0]))
		if r.code != 77 {
			t.Errorf("run artifact: expected exit 77, got %d\n%s", r.code, r.stderr)
		}
		// -error_exitcode changes the crash status.
		r = wafer(t, tmp, tlvWasm, "-error_exitcode=33", filepath.Join(art, arts[0]))
		if r.code != 33 {
			t.Errorf("-error_exitcode=33: expected exit 33, got %d\n%s", r.code, r.stderr)
		}
		// -minimize_crash=1 writes a smaller input that still crashes.
		min := filepath.Join(tmp, "min")
		r = wafer(t, tmp, tlvWasm, "-minimize_crash=1", "-runs=3000", "-exact_artifact_path="+min,
			filepath.Join(tlv, "testdata", "crash-padded"))
		if r.code != 0 {
			t.Fatalf("-minimize_crash=1: expected exit 0, got %d\n%s", r.code, r.stderr)
		}
		small, err := os.ReadFile(min)
		if err != nil {
			t.Fatal(err)
		}
		orig, _ := os.ReadFile(filepath.Join(tlv, "testdata", "crash-padded"))
		if len(small) >= len(orig) {
			t.Errorf("-minimize_crash=1: expected fewer than %d bytes, got %d", len(orig), len(small))
		}
	})

	t.Run("timeout", func(t *testing.T) {
		// Fuel that cannot cover one run makes every input a hang: the
		// deterministic way to get libFuzzer's timeout path.
		tmp := t.TempDir()
		corpusDir := copyDir(t, filepath.Join(tlv, "seeds"))
		r := wafer(t, tmp, tlvWasm, corpusDir, "-fuel=3", "-runs=10", "-artifact_prefix="+tmp+"/")
		notLanded(t, r)
		if r.code != 70 {
			t.Fatalf("exit code: expected 70, got %d\nstderr: %s", r.code, r.stderr)
		}
		arts := files(t, tmp)
		if len(arts) != 1 || !strings.HasPrefix(arts[0], "timeout-") {
			t.Errorf("artifacts: expected one timeout-<sha1>, got %v", arts)
		}
		checkStatLines(t, r.stderr)
	})

	t.Run("runs and corpus", func(t *testing.T) {
		tmp := t.TempDir()
		cexpr := exampleDir(t, "cexpr")
		corpusDir := copyDir(t, filepath.Join(cexpr, "seeds"))
		before := len(files(t, corpusDir))
		r := wafer(t, tmp, filepath.Join(cexpr, "cexpr.wasm"), corpusDir, "-runs=3000", "-seed=7",
			"-use_value_profile=1", "-jobs=1")
		notLanded(t, r)
		if r.code != 0 {
			t.Fatalf("exit code: expected 0, got %d\nstderr: %s", r.code, r.stderr)
		}
		checkStatLines(t, r.stderr)
		if !strings.Contains(r.stderr, "stat::number_of_executed_units: 3000\n") {
			t.Errorf("stderr: expected 3000 executed units, got\n%s", r.stderr)
		}
		if strings.Contains(r.stderr, "-use_value_profile has no effect") {
			t.Errorf("stderr: -use_value_profile reported ignored; it is --value-profile (TestLibFuzzerValueProfile)")
		}
		after := files(t, corpusDir)
		if len(after) <= before {
			t.Errorf("corpus dir: expected new units written to the first corpus dir, got %d files (had %d)", len(after), before)
		}
		for _, name := range after {
			b, _ := os.ReadFile(filepath.Join(corpusDir, name))
			if name != "mul" && name != fmt.Sprintf("%x", sha1.Sum(b)) {
				t.Errorf("corpus file %s: expected its sha1 as name", name)
			}
		}

		// -merge=1 OUT IN keeps a subset with the same coverage.
		merged := filepath.Join(tmp, "merged")
		os.Mkdir(merged, 0o755)
		r = wafer(t, tmp, filepath.Join(cexpr, "cexpr.wasm"), "-merge=1", merged, corpusDir)
		if r.code != 0 {
			t.Fatalf("-merge=1: expected exit 0, got %d\n%s", r.code, r.stderr)
		}
		if n := len(files(t, merged)); n == 0 || n > len(after) {
			t.Errorf("-merge=1: expected between 1 and %d files, got %d", len(after), n)
		}
	})
}

// TestFuzzFindsPlantedBug runs the README's campaign: from no seed at all,
// with the default seed, havoc finds the planted divide-by-zero in
// examples/tlv well within its minute (tens of thousands of executions).
func TestFuzzFindsPlantedBug(t *testing.T) {
	tmp := t.TempDir()
	out := filepath.Join(tmp, "tlv-out")
	r := wafer(t, tmp, "fuzz", "--max-total-time", "60", "-o", out, filepath.Join(exampleDir(t, "tlv"), "tlv.wasm"))
	notLanded(t, r)
	if r.code != 77 {
		t.Fatalf("exit code: expected 77 (crash), got %d\nstdout: %s\nstderr tail: %s", r.code, r.stdout, tail(r.stderr))
	}
	if !strings.Contains(r.stdout, "divide-by-zero") || !strings.Contains(r.stdout, "stopped by crash") {
		t.Errorf("stdout: expected the divide-by-zero finding and \"stopped by crash\", got %q", r.stdout)
	}
	crashes := crashFiles(t, filepath.Join(out, "crashes"))
	if len(crashes) != 1 {
		t.Fatalf("crashes: expected one unique crash, got %v", crashes)
	}
	if want := "wafer repro " + filepath.Join(exampleDir(t, "tlv"), "tlv.wasm") + " " + filepath.Join(out, "crashes", crashes[0]); !strings.Contains(r.stdout, want) {
		t.Errorf("stdout: expected the repro command %q, got %q", want, r.stdout)
	}
	// The saved reproducer is shrunk: header, flags and one TOTAL record.
	b, _ := os.ReadFile(filepath.Join(out, "crashes", crashes[0]))
	if len(b) > 16 {
		t.Errorf("crash input: expected a shrunk reproducer of at most 16 bytes, got %d: %q", len(b), b)
	}
	// The input as found stays beside it when shrinking replaced it.
	if orig, err := os.ReadFile(filepath.Join(out, "crashes", crashes[0]+corpus.OrigSuffix)); err == nil && len(orig) <= len(b) {
		t.Errorf("crash input: expected %s%s to be the longer input as found, got %d bytes beside %d", crashes[0], corpus.OrigSuffix, len(orig), len(b))
	}
}

// crashFiles lists the crash inputs in dir, the originals of replaced
// reproducers (corpus.OrigSuffix) left out.
func crashFiles(t *testing.T, dir string) []string {
	t.Helper()
	return slices.DeleteFunc(files(t, dir), func(n string) bool { return strings.HasSuffix(n, corpus.OrigSuffix) })
}

func TestFuzzResumeAndSync(t *testing.T) {
	cexpr := filepath.Join(exampleDir(t, "cexpr"), "cexpr.wasm")
	tmp := t.TempDir()
	a := filepath.Join(tmp, "sync", "a")
	for i := 0; i < 2; i++ {
		r := wafer(t, tmp, "fuzz", "--runs", "1000", "--no-fsync", "-o", a, cexpr)
		notLanded(t, r)
		if r.code != 0 {
			t.Fatalf("run %d: expected exit 0, got %d: %s", i, r.code, tail(r.stderr))
		}
	}
	stats, err := os.ReadFile(filepath.Join(a, "fuzzer_stats"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(stats), "execs_done        : 2000\n") {
		t.Errorf("resume: expected execs_done 2000 after two runs of 1000, got\n%s", stats)
	}
	r := wafer(t, tmp, "fuzz", "--sync", "--runs", "500", "--seed", "2", "-o", filepath.Join(tmp, "sync", "b"), cexpr)
	if r.code != 0 {
		t.Fatalf("sync: expected exit 0, got %d: %s", r.code, tail(r.stderr))
	}
	if !strings.Contains(r.stderr, "INFO: sync: ") || strings.Contains(r.stderr, "INFO: sync: 0 entries") {
		t.Errorf("sync: expected entries imported from sync/a, got %s", tail(r.stderr))
	}
}

// TestFuzzSyncNames: AFL's -M/-S NAME put the campaign in -o's NAME
// subdirectory with sync on (the second imports the first's queue); both
// at once, or a name that is a path, are usage errors.
func TestFuzzSyncNames(t *testing.T) {
	tlv := filepath.Join(exampleDir(t, "tlv"), "tlv.wasm")
	tmp := t.TempDir()
	par := filepath.Join(tmp, "par")
	r := wafer(t, tmp, "fuzz", "--runs", "300", "--keep-going", "--no-fsync", "-o", par, "-M", "main", tlv)
	if r.code != 0 && r.code != 77 {
		t.Fatalf("-M: expected exit 0 or 77, got %d: %s", r.code, tail(r.stderr))
	}
	if _, err := os.Stat(filepath.Join(par, "main", "queue")); err != nil {
		t.Fatalf("-M main: expected the campaign in %s/main: %v", par, err)
	}
	r = wafer(t, tmp, "fuzz", "--runs", "300", "--keep-going", "--no-fsync", "--seed", "2", "-o", par, "-S", "s1", tlv)
	if r.code != 0 && r.code != 77 {
		t.Fatalf("-S: expected exit 0 or 77, got %d: %s", r.code, tail(r.stderr))
	}
	if !strings.Contains(r.stderr, "INFO: sync: ") || strings.Contains(r.stderr, "INFO: sync: 0 entries") {
		t.Errorf("-S s1: expected entries imported from main, got %s", tail(r.stderr))
	}
	for _, args := range [][]string{{"-M", "a", "-S", "b"}, {"-S", "../x"}, {"-M", ".hidden"}} {
		r := wafer(t, tmp, append(append([]string{"fuzz", "--runs", "1", "-o", par}, args...), tlv)...)
		if r.code != 2 {
			t.Errorf("%q: expected exit 2 (usage), got %d: %s", args, r.code, tail(r.stderr))
		}
	}
}

// TestGeneratorExamples fuzzes every structured example with its
// generator for a few hundred executions. The Go targets take seconds to
// instrument and compile on a cold cache, so this runs with WAFER_FULL=1.
func TestGeneratorExamples(t *testing.T) {
	if os.Getenv("WAFER_FULL") == "" {
		t.Skip("set WAFER_FULL=1: compiling the instrumented Go examples takes about 20 s each on a cold cache")
	}
	tests := []struct {
		example, wasm, generator string
		extra                    []string
	}{
		{"cexpr", "cexpr.wasm", "expr", nil},
		{"gojson", "gojson.wasm", "json", nil},
		{"gopng", "gopng.wasm", "png", nil},
		{"goparser", "goparser.wasm", "raw", nil},
		{"gostdin", "gostdin.wasm", "xml", []string{"--harness", "command", "--invalid-exit-code", "1"}},
	}
	for _, tc := range tests {
		t.Run(tc.example, func(t *testing.T) {
			tmp := t.TempDir()
			out := filepath.Join(tmp, "out")
			args := append([]string{"fuzz", "--runs", "200", "--no-fsync", "--generator", tc.generator, "-o", out}, tc.extra...)
			args = append(args, filepath.Join(exampleDir(t, tc.example), tc.wasm))
			r := wafer(t, tmp, args...)
			notLanded(t, r)
			if r.code != 0 {
				t.Fatalf("exit code: expected 0, got %d\n%s%s", r.code, r.stdout, tail(r.stderr))
			}
			if len(files(t, filepath.Join(out, "queue"))) == 0 {
				t.Errorf("expected queue entries")
			}
			if !strings.Contains(r.stdout, "200 executions") {
				t.Errorf("stdout: expected 200 executions, got %q", r.stdout)
			}
		})
	}
}

// tail is the end of a long output, for failure messages.
func tail(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}

// TestDeterministicWorkers: two workers with --deterministic and the same
// seed save the same queue, byte for byte, in two runs.
func TestDeterministicWorkers(t *testing.T) {
	cexpr := filepath.Join(exampleDir(t, "cexpr"), "cexpr.wasm")
	tmp := t.TempDir()
	var queues [2]string
	for i := range queues {
		out := filepath.Join(tmp, fmt.Sprint("out", i))
		r := wafer(t, tmp, "fuzz", "-j", "2", "--deterministic", "--seed", "3", "--runs", "5000", "--no-fsync", "-o", out, cexpr)
		notLanded(t, r)
		if r.code != 0 {
			t.Fatalf("run %d: expected exit 0, got %d: %s", i, r.code, tail(r.stderr))
		}
		var b strings.Builder
		for _, name := range files(t, filepath.Join(out, "queue")) {
			data, _ := os.ReadFile(filepath.Join(out, "queue", name))
			fmt.Fprintf(&b, "%s %x\n", name, sha1.Sum(data))
		}
		queues[i] = b.String()
	}
	if queues[0] != queues[1] {
		t.Errorf("queues differ between two runs with the same seed:\n%s\n---\n%s", queues[0], queues[1])
	}
	if queues[0] == "" {
		t.Errorf("expected a non-empty queue")
	}
}

// buildWafer builds the wafer binary (CGO_ENABLED=0) into the test's
// temporary directory and returns its path, for the tests that run it as
// a process.
func buildWafer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bin", "wafer")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = repoRoot
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestInterrupt: SIGINT stops a campaign cleanly: 'wafer fuzz' saves the
// campaign and exits 0, the libFuzzer invocation exits 72 (libFuzzer's
// InterruptExitCode) after its final stats. The one end-to-end test: it
// builds the binary and signals its process.
func TestInterrupt(t *testing.T) {
	waferBin := buildWafer(t)
	cexpr := filepath.Join(exampleDir(t, "cexpr"), "cexpr.wasm")
	tmp := t.TempDir()
	out := filepath.Join(tmp, "out")
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"fuzz", []string{"fuzz", "--no-fsync", "-o", out, cexpr}, 0},
		{"libfuzzer", []string{cexpr, "-print_final_stats=1"}, 72},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(waferBin, tc.args...)
			cmd.Dir = tmp
			var stdout bytes.Buffer
			var stderr syncBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Interrupt once the campaign runs: its first stats line is out
			// (JSON, or libFuzzer's INITED line in the libFuzzer invocation).
			for deadline := time.Now().Add(60 * time.Second); !strings.Contains(stderr.String(), `"execs"`) && !strings.Contains(stderr.String(), "\tINITED "); {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("no stats line within 60 s: %s", tail(stderr.String()))
				}
				time.Sleep(50 * time.Millisecond)
			}
			time.Sleep(500 * time.Millisecond)
			cmd.Process.Signal(os.Interrupt)
			err := cmd.Wait()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			}
			if code != tc.code {
				t.Fatalf("exit code: expected %d, got %d\n%s", tc.code, code, tail(stderr.String()))
			}
			if tc.code == 72 {
				checkStatLines(t, stderr.String())
				return
			}
			if !strings.Contains(stdout.String(), "stopped by interrupt") {
				t.Errorf("stdout: expected \"stopped by interrupt\", got %q", stdout.String())
			}
			if _, err := os.Stat(filepath.Join(out, "fuzzer_stats")); err != nil {
				t.Errorf("expected fuzzer_stats after the interrupt: %v", err)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestImportedMemory: a target linked with --import-memory
// (testdata/clib/importmem.wasm) runs with a memory wafer defines, both
// as it is (repro) and instrumented (fuzz), with its traps classified.
func TestImportedMemory(t *testing.T) {
	tmp := t.TempDir()
	wasm := filepath.Join(repoDir(t), "testdata", "clib", "importmem.wasm")
	in := filepath.Join(tmp, "divide")
	if err := os.WriteFile(in, []byte("D\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := wafer(t, tmp, "repro", wasm, in)
	notLanded(t, r)
	if r.code != 77 || !strings.Contains(r.stdout, "divide-by-zero") {
		t.Fatalf("repro: expected exit 77 and divide-by-zero, got %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = wafer(t, tmp, "fuzz", "--runs", "3000", "--seed", "1", "-o", filepath.Join(tmp, "out"), wasm, in)
	notLanded(t, r)
	if r.code != 77 || !strings.Contains(r.stdout+r.stderr, "divide-by-zero") {
		t.Fatalf("fuzz: expected the seed's divide-by-zero (exit 77), got %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestFuzzUseCmp: the fuzz command wires input-to-state: engine's
// magic.wasm (a crash behind "WAFR", a 64-bit check value computed from it
// and memcmp with "zap!") crashes within 20,000 runs by default, and not
// with --use-cmp 0 (libFuzzer's spelling, -use_cmp=0).
func TestFuzzUseCmp(t *testing.T) {
	tmp := t.TempDir()
	seed := filepath.Join(tmp, "seed")
	if err := os.WriteFile(seed, []byte("................"), 0o644); err != nil {
		t.Fatal(err)
	}
	wasm, err := filepath.Abs(filepath.Join(repoRoot, "engine", "testdata", "magic.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flag string
		code int
	}{{"-use_cmp=1", 77}, {"-use_cmp=0", 0}} {
		r := wafer(t, tmp, "fuzz", tc.flag, "--runs", "20000", "--seed", "3", "-o", filepath.Join(tmp, tc.flag), wasm, seed)
		if r.code != tc.code {
			t.Errorf("%s: exit %d, want %d\n%s", tc.flag, r.code, tc.code, r.stderr)
		}
	}
}
