package cli

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wafer-fuzz/wafer/corpus"
)

// tlvCrash is the planted bug of examples/tlv: the MEAN flag and one
// TOTAL record, no sample (a division by zero).
var tlvCrash = []byte("WTLV\x01\x01\x01\x02\x02\x00\x05")

var summaryRE = regexp.MustCompile(`branches (\d+)/(\d+) \([^)]*\), (\d+) by valid inputs`)

// TestCovMatchesCampaign runs a small campaign on examples/tlv (DWARF,
// zest, whose queue keeps every input new in valid coverage), replays its
// output directory and a crashing input with wafer cov twice, and checks
// that the report's branch numbers are the campaign's final
// edges_found/total_edges/valid_edges, that the crash is listed and not
// fatal, that both replays wrote byte-identical files, and that genhtml
// reads the lcov tracefile without a warning.
func TestCovMatchesCampaign(t *testing.T) {
	tmp := t.TempDir()
	repo := repoDir(t)
	target := filepath.Join(exampleDir(t, "tlv"), "tlv.wasm")
	camp := filepath.Join(tmp, "camp")
	r := wafer(t, tmp, "fuzz", "--runs", "3000", "--seed", "1", "--strategy", "zest", "--keep-going", "-o", camp, target, filepath.Join(exampleDir(t, "tlv"), "seeds"))
	if r.code != 0 && r.code != 77 {
		t.Fatalf("fuzz: exit %d\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(camp, corpus.StatsFile))
	if err != nil {
		t.Fatal(err)
	}
	st, err := corpus.ParseStats(data)
	if err != nil {
		t.Fatal(err)
	}
	crashDir := filepath.Join(tmp, "crashing")
	os.Mkdir(crashDir, 0o755)
	if err := os.WriteFile(filepath.Join(crashDir, "mean-without-samples"), tlvCrash, 0o644); err != nil {
		t.Fatal(err)
	}
	var outs [2]string
	for i := range outs {
		outs[i] = filepath.Join(tmp, "report"+strconv.Itoa(i))
		r := wafer(t, repo, "cov", "--source-root", repo, "--lcov", outs[i]+".info", "-o", outs[i], target, camp, crashDir)
		if r.code != 0 {
			t.Fatalf("cov: exit %d\n%s", r.code, r.stderr)
		}
		m := summaryRE.FindStringSubmatch(r.stdout)
		if m == nil {
			t.Fatalf("cov: no summary line in %q", r.stdout)
		}
		if m[1] != strconv.Itoa(st.EdgesFound) || m[2] != strconv.Itoa(st.TotalEdges) || m[3] != strconv.Itoa(st.ValidEdges) {
			t.Errorf("cov: branches %s/%s, %s valid; the campaign's fuzzer_stats: %d/%d, %d valid", m[1], m[2], m[3], st.EdgesFound, st.TotalEdges, st.ValidEdges)
		}
		if !strings.Contains(r.stdout, "(1 crash, 0 hang)") {
			t.Errorf("cov: the crashing input is not counted as one: %q", r.stdout)
		}
	}
	index, err := os.ReadFile(filepath.Join(outs[0], "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(index, []byte("mean-without-samples</td><td>crash</td><td>divide-by-zero")) {
		t.Errorf("index.html does not list the crashing input with its failure")
	}
	if !bytes.Contains(index, []byte(`src="plot.svg"`)) {
		t.Errorf("index.html does not embed the campaign's plot")
	}
	a, b := files(t, outs[0]), files(t, outs[1])
	if strings.Join(a, ",") != strings.Join(b, ",") || len(a) < 3 {
		t.Fatalf("the two reports have different files: %v and %v", a, b)
	}
	for _, name := range a {
		x, _ := os.ReadFile(filepath.Join(outs[0], name))
		y, _ := os.ReadFile(filepath.Join(outs[1], name))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two replays of the same corpus", name)
		}
	}
	l0, _ := os.ReadFile(outs[0] + ".info")
	l1, _ := os.ReadFile(outs[1] + ".info")
	if !bytes.Equal(l0, l1) || !bytes.Contains(l0, []byte("SF:"+filepath.Join(repo, "examples/tlv/tlv.c")+"\n")) {
		t.Errorf("lcov files differ, or tlv.c's record is missing")
	}

	t.Run("genhtml", func(t *testing.T) {
		if _, err := exec.LookPath("genhtml"); err != nil {
			t.Skip("genhtml not installed (Debian: apt-get install lcov)")
		}
		// genhtml needs every SF readable: keep the records of sources
		// found (the libc's are not on this machine).
		var keep []string
		for _, rec := range strings.SplitAfter(string(l0), "end_of_record\n") {
			sf := regexp.MustCompile(`(?m)^SF:(.*)$`).FindStringSubmatch(rec)
			if sf == nil {
				continue
			}
			if _, err := os.Stat(sf[1]); err == nil {
				keep = append(keep, rec)
			}
		}
		if len(keep) == 0 {
			t.Fatal("no lcov record with a readable source")
		}
		info := filepath.Join(tmp, "found.info")
		os.WriteFile(info, []byte("TN:\n"+strings.Join(keep, "")), 0o644)
		cmd := exec.Command("genhtml", "--branch-coverage", "--function-coverage", "-o", filepath.Join(tmp, "genhtml"), info)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("genhtml: %v\n%s", err, out)
		}
		if bytes.Contains(bytes.ToLower(out), []byte("warning")) {
			t.Errorf("genhtml warned:\n%s", out)
		}
		if !bytes.Contains(out, []byte("branches...")) {
			t.Errorf("genhtml read no branches:\n%s", out)
		}
	})
}

var rowRE = regexp.MustCompile(`<tr id="L(\d+)" class="(\w+)"[^>]*>(.*?)</tr>`)

// TestCovBrowser opens the report of examples/tlv's seed corpus in
// headless Chromium and reads the rendered page: the harness's entry
// line is covered, and the NAME record's length check was reached but
// never rejected a length (its br_if never taken). It also refreshes
// docs/cov-tlv.png with a screenshot of the page.
func TestCovBrowser(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed (Debian: apt-get install chromium)")
	}
	tmp := t.TempDir()
	repo := repoDir(t)
	target := filepath.Join(exampleDir(t, "tlv"), "tlv.wasm")
	out := filepath.Join(tmp, "report")
	if r := wafer(t, repo, "cov", "-o", out, target, filepath.Join(exampleDir(t, "tlv"), "seeds")); r.code != 0 {
		t.Fatalf("cov: exit %d\n%s", r.code, r.stderr)
	}
	index, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<a href="(file-\d+\.html)">examples/tlv/tlv.c</a>`).FindSubmatch(index)
	if m == nil {
		t.Fatalf("index.html has no page for examples/tlv/tlv.c")
	}
	page := "file://" + filepath.Join(out, string(m[1]))
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + filepath.Join(tmp, "profile")}
	dom, err := exec.Command(chromium, append(args, "--dump-dom", page)...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	rows := map[string][2]string{}
	for _, r := range rowRE.FindAllStringSubmatch(string(dom), -1) {
		text := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(r[3], " ")
		rows[r[1]] = [2]string{r[2], text}
	}
	if got := rows["110"]; got[0] != "yes" || !strings.Contains(got[1], "LLVMFuzzerTestOneInput") {
		t.Errorf("line 110 rendered as %q, want the covered harness entry", got)
	}
	if got := rows["41"]; got[0] != "part" || !strings.Contains(got[1], "if (len == 0 || len &gt; 32)") || !strings.Contains(got[1], "missed: br_if taken") {
		t.Errorf("line 41 rendered as %q, want the NAME length check partly covered, its br_if never taken", got)
	}
	shot := filepath.Join(tmp, "shot.png")
	if err := exec.Command(chromium, append(args, "--window-size=1000,1300", "--hide-scrollbars", "--screenshot="+shot, page)...).Run(); err != nil {
		t.Fatalf("chromium --screenshot: %v", err)
	}
	checkPNG(t, shot, 1000, 1300)
	if os.Getenv("WAFER_UPDATE_DOCS") != "" {
		data, _ := os.ReadFile(shot)
		os.WriteFile(filepath.Join(repo, "docs", "cov-tlv.png"), data, 0o644)
	}
}

// checkPNG decodes a PNG and checks its size and that it is not one
// colour.
func checkPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("%s: %dx%d, want %dx%d", path, b.Dx(), b.Dy(), w, h)
	}
	colours := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			colours[[4]uint32{r, g, bl, a}] = true
		}
	}
	if len(colours) < 4 {
		t.Errorf("%s: %d colours: blank", path, len(colours))
	}
}
