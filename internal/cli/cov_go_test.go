package cli

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestCovGoModule runs wafer cov on testdata/goxhtml (a Go reactor of
// its own module fuzzing golang.org/x/net/html) with its two seeds, as a
// new user would, and checks the report: the module's own functions are
// the program, with Go names and their lines from Go's line table
// (tree.go's error returns and panic never reached, the code before them
// reached); x/net's are the dependencies, with Go names, none filed as
// the standard library; the runtime's helpers are not in the program.
func TestCovGoModule(t *testing.T) {
	tmp := t.TempDir()
	repo := repoDir(t)
	fix := filepath.Join(repo, "testdata", "goxhtml")
	out := filepath.Join(tmp, "report")
	r := wafer(t, tmp, "cov", "--source-root", fix, "--lcov", out+".info", "-o", out, filepath.Join(fix, "goxhtml.wasm"), filepath.Join(fix, "seeds"))
	if r.code != 0 {
		t.Fatalf("cov: exit %d\n%s", r.code, r.stderr)
	}
	if m := regexp.MustCompile(`lines (\d+)/(\d+)`).FindStringSubmatch(r.stdout); m == nil || m[1] == "0" {
		t.Fatalf("expected lines marked and reached in the summary, got %q", r.stdout)
	}
	page, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	parts := strings.Split(string(page), "<h2>")
	for _, p := range parts[1:] {
		name, body, _ := strings.Cut(p, "</h2>")
		sections[name] = html.UnescapeString(body)
	}
	program, deps, std := sections["program"], sections["dependencies"], sections["Go runtime and standard library"]
	if program == "" || deps == "" || std == "" {
		t.Fatalf("expected the sections program, dependencies and Go runtime and standard library, got %v", keys(sections))
	}
	for _, want := range []string{"example.com/wafer.fix/goxhtml/tree.shape", "example.com/wafer.fix/goxhtml/tree.RoundTrip", "main.fuzz", "example.com/wafer.fix/goxhtml/tree/tree.go:42"} {
		if !strings.Contains(program, want) {
			t.Errorf("the program section does not hold %s", want)
		}
	}
	for _, not := range []string{"golang.org/x/net", "golang.org_x", "memcmp", "gcWriteBarrier", "wasm_pc_f_loop", "runtime.", "strings/builder.go"} {
		if strings.Contains(program, not) {
			t.Errorf("the program section holds %s", not)
		}
	}
	for _, want := range []string{"golang.org/x/net/html.(*Tokenizer).Next", "golang.org/x/net@v0.62.0/html/parse.go"} {
		if !strings.Contains(deps, want) {
			t.Errorf("the dependencies section does not hold %s", want)
		}
	}
	if strings.Contains(std, "golang.org/x/net") || strings.Contains(string(page), "golang.org_x") {
		t.Error("x/net filed with the standard library, or under the name section's spelling")
	}
	if !strings.Contains(std, "memcmp") || !strings.Contains(std, "strings/builder.go") {
		t.Error("the runtime's memcmp or the standard library's strings/builder.go is not with the runtime and standard library")
	}
	// tree.go's lines in lcov: the function and its path as the module has them
	lcov, err := os.ReadFile(out + ".info")
	if err != nil {
		t.Fatal(err)
	}
	tree := lcovFile(string(lcov), "testdata/goxhtml/tree/tree.go")
	if tree == nil {
		t.Fatalf("lcov has no record of tree.go (read under --source-root)")
	}
	for line, reached := range map[int]bool{16: true, 17: true, 19: false, 21: true, 23: false, 25: true, 27: false, 42: true, 44: false, 47: true} {
		hits, ok := tree[line]
		if !ok || (hits > 0) != reached {
			t.Errorf("tree.go line %d: expected reached %v, got DA %d (marked %v)", line, reached, hits, ok)
		}
	}
	if parse := lcovFile(string(lcov), "golang.org/x/net@v0.62.0/html/parse.go"); len(parse) == 0 {
		t.Error("lcov has no lines of x/net's parse.go")
	}
}

// lcovFile returns the DA lines (line → count) of the record whose SF
// ends in suffix, nil for none.
func lcovFile(lcov, suffix string) map[int]int {
	for rec := range strings.SplitSeq(lcov, "end_of_record\n") {
		sf, _, _ := strings.Cut(strings.TrimPrefix(rec, "TN:\n"), "\n")
		if !strings.HasPrefix(sf, "SF:") || !strings.HasSuffix(filepath.ToSlash(sf), suffix) {
			continue
		}
		da := map[int]int{}
		for l := range strings.SplitSeq(rec, "\n") {
			if n, c, ok := strings.Cut(strings.TrimPrefix(l, "DA:"), ","); ok && strings.HasPrefix(l, "DA:") {
				line, _ := strconv.Atoi(n)
				hits, _ := strconv.Atoi(c)
				da[line] = hits
			}
		}
		return da
	}
	return nil
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
