package cli

import (
	"archive/zip"
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
)

// The runners' parsers, as their source writes them (Python re, here in
// Go's syntax; re.match anchors at the start, hence the ^). The commits
// read: google/clusterfuzz 77584976 (2026-08-14), google/oss-fuzz
// 955c6866 (2026-08-20). ClusterFuzzLite is google/clusterfuzzlite's
// actions (actions/*/action.yml) running images built from oss-fuzz's
// infra/cifuzz, which drives ClusterFuzz's libFuzzer engine: its
// fuzz_target.py below is oss-fuzz's infra/cifuzz/fuzz_target.py.
var (
	// clusterfuzz src/clusterfuzz/_internal/bot/fuzzers/libfuzzer.py:53,
	// CRASH_TESTCASE_REGEX (LibFuzzerCommon.get_testcase_path).
	cfCrashTestcaseRE = regexp.MustCompile(`^.*Test unit written to\s*(.*(crash|oom|timeout|leak)-.*)`)
	// libfuzzer.py:1268, parse_log_stats; the value must be .isdigit().
	cfStatRE = regexp.MustCompile(`^stat::([A-Za-z_]+):\s*([^\s]+)`)
	// clusterfuzz src/clusterfuzz/stacktraces/constants.py:155,161 and
	// OUT_OF_MEMORY_REGEX's 'libFuzzer: out-of-memory \(' (:175).
	cfDeadlySignalRE = regexp.MustCompile(`^.*ERROR:\s*libFuzzer:\s*deadly signal`)
	cfTimeoutRE      = regexp.MustCompile(`^.*ERROR:\s*libFuzzer:\s*timeout`)
	// constants.py:227, SAN_STACK_FRAME_REGEX; SAN_STACK_FRAME_SPEC
	// (:743) takes the function from groups 7, 5, 23, the file from 12,
	// 16 and the line from 13, 17.
	cfSanFrameRE = regexp.MustCompile(`^\s*#(?P<frame_id>\d+)\s+([xX0-9a-fA-F]+)\s+((in\s*(((.*)\+([xX0-9a-fA-F]+))|(.*)) ((([^ ]+):(\d+):(\d+))|(([^ ]+):(\d+))|(\(([^+]+)(\+([xX0-9a-fA-F]+))?\))))|(in\s*(((.*)\+([xX0-9a-fA-F]+))|(.*)))|(\((((.*)\+([xX0-9a-fA-F]+))|(.*))\)))`)
	// clusterfuzz bot/fuzzers/libFuzzer/stats.py:47-59.
	cfLogEndRE        = regexp.MustCompile(`^Done\s+\d+\s+runs.*`)
	cfLogLineRE       = regexp.MustCompile(`^#\d+[\s]*(READ|INITED|NEW|pulse|REDUCE|RELOAD|DONE|:)\s.*`)
	cfMergeStatsRE    = regexp.MustCompile(`^MERGE-OUTER:\s+\d+\s+new files with\s+(\d+)\s+new features added;\s+(\d+)\s+new coverage edges.*`)
	cfModulesLoadedRE = regexp.MustCompile(`^INFO:\s+Loaded\s+\d+\s+(modules|PC tables)\s+\((\d+)\s+.*\).*`)
	// oss-fuzz infra/base-images/base-runner/bad_build_check:84 (grep -Po
	// with \K: the number after "): ") and :76, :147.
	ossEdgesRE           = regexp.MustCompile(`INFO: Loaded [0-9]+ module.*\(.*(counters|guards)\):\s+([0-9]+)`)
	ossNotInstrumentedRE = regexp.MustCompile(`ERROR: no interesting inputs were found. Is the code instrumented`)
)

// TestWrapRunners writes a fuzz target with 'wafer wrap' and runs it with
// the argument lists OSS-Fuzz, ClusterFuzz and ClusterFuzzLite use (each
// quoted where it is built), checking the exit codes, the artifacts and
// the lines their parsers read, with their regexes. It builds the binary:
// the wrapper is a copy of it.
func TestWrapRunners(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the wafer binary and runs it about ten times: skipped with -short")
	}
	if goruntime.GOOS == "windows" {
		t.Skip("the runners drive Linux targets; a wrapper on Windows would need NAME.exe")
	}
	tmp := t.TempDir()
	waferBin := buildWafer(t)
	tlv := exampleDir(t, "tlv")
	out := filepath.Join(tmp, "out") // $OUT
	opts := filepath.Join(tmp, "in.options")
	os.WriteFile(opts, []byte("# tlv\n[libfuzzer]\nmax_len = 512\n\n[asan]\ndetect_leaks=0\n"), 0o644)
	wrap := exec.Command(waferBin, "wrap", "-o", filepath.Join(out, "tlv_fuzzer"), "--options", opts, "--option", "use_value_profile=1",
		"--dict", filepath.Join(tlv, "tlv.dict"), "--seed-corpus", filepath.Join(tlv, "seeds"), filepath.Join(tlv, "tlv.wasm"))
	if b, err := wrap.CombinedOutput(); err != nil {
		t.Fatalf("wafer wrap: %v\n%s", err, b)
	}
	target := filepath.Join(out, "tlv_fuzzer")
	checkWrapLayout(t, out, tlv)

	// run runs the wrapper in $OUT (run_fuzzer and ClusterFuzz run targets
	// from the build directory), stdin /dev/null, and returns its exit
	// status and combined output, as the runners capture it.
	run := func(t *testing.T, args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(target, args...)
		cmd.Dir = out
		b, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("%s %s: %v", target, strings.Join(args, " "), err)
		}
		return cmd.ProcessState.ExitCode(), string(b)
	}
	// The options and dictionary as run_fuzzer adds them: parse_options.py
	// prints the [libfuzzer] section as "-key=value" (parse_options.py:33),
	// run_fuzzer appends it and -dict=$FUZZER.dict after the corpus.
	custom := []string{"-max_len=512", "-use_value_profile=1"}
	runFuzzerArgs := func(middle ...string) []string {
		// run_fuzzer:198, CMD_LINE="$OUT/$FUZZER -- $FUZZER_ARGS $*", with
		// FUZZER_ARGS="-rss_limit_mb=2560 -timeout=25" (base-runner
		// Dockerfile:80); then the corpus (unless SKIP_SEED_CORPUS), the
		// custom options and -dict=$FUZZER.dict (run_fuzzer:199-211).
		args := append([]string{"--", "-rss_limit_mb=2560", "-timeout=25"}, middle...)
		return append(append(args, custom...), "-dict=tlv_fuzzer.dict")
	}

	t.Run("bad_build_check check_engine", func(t *testing.T) {
		// bad_build_check:75: $FUZZER -- -seed=1337 -runs=$MIN_NUMBER_OF_RUNS
		code, log := run(t, "--", "-seed=1337", "-runs=4")
		if code != 0 {
			t.Fatalf("exit %d, expected 0:\n%s", code, log)
		}
		if ossNotInstrumentedRE.MatchString(log) {
			t.Errorf("bad_build_check:76 would call it uninstrumented:\n%s", log)
		}
		m := ossEdgesRE.FindStringSubmatch(log)
		if m == nil {
			t.Fatalf("bad_build_check:84 finds no edge count in\n%s", log)
		}
		if n := atoi(t, m[2]); n < 100 { // THRESHOLD_FOR_NUMBER_OF_EDGES, bad_build_check:24
			t.Errorf("edges %d: bad_build_check would report partial instrumentation", n)
		}
	})

	t.Run("bad_build_check check_startup_crash", func(t *testing.T) {
		// bad_build_check:146: SKIP_SEED_CORPUS=1 run_fuzzer $FUZZER_NAME
		// -seed=1337 -runs=$MIN_NUMBER_OF_RUNS; then egrep "Done 4 runs".
		code, log := run(t, runFuzzerArgs("-seed=1337", "-runs=4")...)
		if code != 0 || !strings.Contains(log, "Done 4 runs") {
			t.Fatalf("exit %d, expected 0 and \"Done 4 runs\" (bad_build_check:147):\n%s", code, log)
		}
	})

	corpus := filepath.Join(tmp, "tlv_fuzzer_corpus")
	unzipFlat(t, filepath.Join(out, "tlv_fuzzer_seed_corpus.zip"), corpus) // run_fuzzer:96, unzip -o -d $CORPUS_DIR/ $SEED_CORPUS

	t.Run("bad_build_check check_seed_corpus", func(t *testing.T) {
		// bad_build_check:398: run_fuzzer $FUZZER_NAME -runs=0 (with the
		// seed corpus): a crashing seed is a bad build, exit != 0.
		code, log := run(t, runFuzzerArgs("-runs=0", corpus)...)
		if code != 0 {
			t.Fatalf("exit %d, expected 0:\n%s", code, log)
		}
	})

	t.Run("run_fuzzer", func(t *testing.T) {
		// run_fuzzer:198-211 with the unzipped seed corpus: the crash
		// goes to the working directory ($OUT).
		code, log := run(t, runFuzzerArgs("-max_total_time=60", corpus)...)
		if code != exitCrash {
			t.Fatalf("exit %d, expected %d:\n%s", code, exitCrash, log)
		}
		checkCrashArtifact(t, out, log)
	})

	arts := filepath.Join(tmp, "reproducers")
	os.Mkdir(arts, 0o755)
	var crash string
	t.Run("clusterfuzz fuzz", func(t *testing.T) {
		// ClusterFuzzLite's fuzz_target.py:184-209: engine.prepare's
		// arguments (fuzzer.py:32 get_arguments: the .options [libfuzzer]
		// section, -timeout=25 and -rss_limit_mb=2560 when absent,
		// constants.py:63,69; engine.py:160-172 -dict=NAME.dict),
		// LIBFUZZER_OPTIONS_CODE_CHANGE (fuzz_target.py:36: -len_control=0
		// -seed=1337), parallel fuzzing's -jobs=N -workers=N
		// (fuzz_target.py:60); then LibFuzzerCommon.fuzz (libfuzzer.py:
		// 141-154) adds -artifact_prefix=DIR/ -max_total_time=T
		// -print_final_stats=1 and the corpus directories last.
		code, log := run(t, "-max_len=512", "-use_value_profile=1", "-timeout=25", "-rss_limit_mb=2560",
			"-dict="+filepath.Join(out, "tlv_fuzzer.dict"), "-len_control=0", "-seed=1337", "-jobs=2", "-workers=2",
			"-artifact_prefix="+arts+"/", "-max_total_time=60", "-print_final_stats=1", corpus)
		// engine.py:323-327: a non-zero status outside NONCRASH_RETURN_CODES
		// (constants.py:83: -15, 0, 72) without a testcase is a startup crash.
		if code != exitCrash {
			t.Fatalf("exit %d, expected %d:\n%s", code, exitCrash, log)
		}
		crash = checkCrashArtifact(t, arts, log)
		checkStats(t, log, true)
	})

	t.Run("clusterfuzz fork", func(t *testing.T) {
		// libfuzzer.py:1352-1356 (pick_strategies): the fork strategy adds -fork=N; with
		// -ignore_crashes=1 libFuzzer's fork mode goes on past crashes:
		// wafer keeps going, so only the time budget stops it.
		code, log := run(t, "-timeout=25", "-rss_limit_mb=2560", "-fork=2", "-ignore_crashes=1",
			"-artifact_prefix="+t.TempDir()+"/", "-max_total_time=2", "-print_final_stats=1", corpus)
		if code != exitCrash && code != 0 { // 77: the crash it found (in a few ms), reported at the end
			t.Fatalf("exit %d, expected %d or 0:\n%s", code, exitCrash, log)
		}
		if m := regexp.MustCompile(`Done \d+ runs in (\d+) second`).FindStringSubmatch(log); m == nil || atoi(t, m[1]) < 2 {
			t.Errorf("expected the campaign to run its 2 s past the crash, got %v:\n%s", m, log)
		}
		checkStats(t, log, false)
	})
	if crash == "" {
		t.Fatal("no crash from the fuzzing run: the rest needs one")
	}

	t.Run("reproduce", func(t *testing.T) {
		// engine.py:379-405 reproduce: strip_fuzzing_arguments
		// (libfuzzer.py:1217: no -dict, -max_len, -runs), then -runs=100
		// (constants.py:78) and the testcase last (libfuzzer.py:225).
		// ClusterFuzzLite's is_reproducible (fuzz_target.py:323) takes a
		// non-zero status for "reproduces".
		code, log := run(t, "-use_value_profile=1", "-timeout=25", "-rss_limit_mb=2560", "-runs=100", crash)
		if code != exitCrash {
			t.Fatalf("exit %d, expected %d:\n%s", code, exitCrash, log)
		}
		checkStack(t, log)
	})

	t.Run("oss-fuzz reproduce", func(t *testing.T) {
		// infra/helper.py:1525-1527 runs base-runner's reproduce with
		// -runs=100, which runs "run_fuzzer $FUZZER $@ $TESTCASE" with
		// SKIP_SEED_CORPUS=1 (reproduce:32-34): the options and
		// dictionary land after the testcase (run_fuzzer:198-211).
		code, log := run(t, runFuzzerArgs("-runs=100", crash)...)
		if code != exitCrash {
			t.Fatalf("exit %d, expected %d:\n%s", code, exitCrash, log)
		}
		checkStack(t, log)
	})

	t.Run("minimize", func(t *testing.T) {
		// engine.py:550-582 minimize_testcase -> LibFuzzerCommon.
		// minimize_crash (libfuzzer.py:232-262): the arguments (none from
		// ClusterFuzzLite, fuzz_target.py:255), -max_total_time=T,
		// -exact_artifact_path=OUT, -minimize_crash=1, -artifact_prefix=
		// DIR/, the testcase last.
		padded := filepath.Join(tlv, "testdata", "crash-padded")
		min := filepath.Join(tmp, "minimized")
		code, log := run(t, "-max_total_time=10", "-exact_artifact_path="+min, "-minimize_crash=1",
			"-artifact_prefix="+t.TempDir()+"/", padded)
		if code != 0 {
			t.Fatalf("exit %d, expected 0:\n%s", code, log)
		}
		small, err := os.ReadFile(min)
		orig, _ := os.ReadFile(padded)
		if err != nil || len(small) >= len(orig) {
			t.Fatalf("-exact_artifact_path: expected fewer than %d bytes, got %d, %v", len(orig), len(small), err)
		}
		if code, log := run(t, "-runs=100", min); code != exitCrash {
			t.Errorf("the minimised input: exit %d, expected %d (it still crashes):\n%s", code, exitCrash, log)
		}
	})

	t.Run("merge", func(t *testing.T) {
		// engine.py:495-548 minimize_corpus -> LibFuzzerCommon.merge
		// (libfuzzer.py:161-204): the arguments, -merge=1, -artifact_prefix=
		// DIR/, -merge_control_file=F (the two-step merge, engine.py:443),
		// then the output directory and the input directories. Exit status
		// 0 is required (engine.py:538); the stats come from the last
		// MERGE-OUTER line (stats.py:291).
		pruned := filepath.Join(tmp, "pruned")
		os.Mkdir(pruned, 0o755)
		code, log := run(t, "-timeout=25", "-rss_limit_mb=2560", "-merge=1", "-artifact_prefix="+t.TempDir()+"/",
			"-merge_control_file="+filepath.Join(t.TempDir(), "MCF"), pruned, corpus)
		if code != 0 {
			t.Fatalf("exit %d, expected 0:\n%s", code, log)
		}
		var m []string
		for _, l := range strings.Split(log, "\n") {
			if mm := cfMergeStatsRE.FindStringSubmatch(l); mm != nil {
				m = mm
			}
		}
		if m == nil || atoi(t, m[2]) == 0 {
			t.Fatalf("expected a MERGE-OUTER line with new coverage edges (stats.py:55), got\n%s", log)
		}
		if n := len(files(t, pruned)); n == 0 || n > len(files(t, corpus)) {
			t.Errorf("merged corpus: expected 1..%d files, got %d", len(files(t, corpus)), n)
		}
	})

	t.Run("help", func(t *testing.T) {
		code, log := run(t, "-help=1")
		if code != 0 || !strings.Contains(log, "-max_total_time") {
			t.Errorf("-help=1: expected exit 0 and the flags, got %d:\n%s", code, log)
		}
	})
}

// checkWrapLayout checks what 'wafer wrap' wrote against the runners'
// fuzz target detection: exactly one fuzz target, NAME, and the side files
// as they read them.
func checkWrapLayout(t *testing.T, out, tlv string) {
	t.Helper()
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, e := range entries {
		path := filepath.Join(out, e.Name())
		st, _ := os.Stat(path)
		b, _ := os.ReadFile(path)
		hasString := bytes.Contains(b, []byte("LLVMFuzzerTestOneInput"))
		// oss-fuzz infra/utils.py:138 is_fuzz_target_local: a name matching
		// VALID_TARGET_NAME_REGEX (:29) with an extension in ['', '.exe']
		// (:27), executable, and the string in it; test_all.py:70
		// find_fuzz_targets: executable, ELF or script, the string.
		name := e.Name()
		ext := filepath.Ext(name)
		ossLocal := targetNameRE.MatchString(strings.TrimSuffix(name, ext)) && (ext == "" || ext == ".exe") && st.Mode()&0o111 != 0 && hasString
		testAll := st.Mode()&0o111 != 0 && hasString
		// clusterfuzz bot/fuzzers/utils.py:36 is_fuzz_target: no
		// executable check; extensions '', '.exe', '.par' (:29).
		cf := (ext == "" || ext == ".exe" || ext == ".par") && hasString
		if ossLocal || testAll || cf {
			targets = append(targets, name)
		}
	}
	if len(targets) != 1 || targets[0] != "tlv_fuzzer" {
		t.Fatalf("fuzz targets the runners find in %s: expected [tlv_fuzzer], got %v", out, targets)
	}
	// parse_options.py:24-36: configparser, the [libfuzzer] section as
	// -key=value; --option adds to the file's section.
	b, _ := os.ReadFile(filepath.Join(out, "tlv_fuzzer.options"))
	ini, err := parseINI(b)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, kv := range ini.section("libfuzzer") {
		got = append(got, "-"+kv.key+"="+kv.value)
	}
	if strings.Join(got, " ") != "-max_len=512 -use_value_profile=1" || len(ini.section("asan")) != 1 {
		t.Errorf("tlv_fuzzer.options: expected [libfuzzer] -max_len=512 -use_value_profile=1 and the [asan] section, got %v in\n%s", got, b)
	}
	d1, _ := os.ReadFile(filepath.Join(out, "tlv_fuzzer.dict"))
	d2, _ := os.ReadFile(filepath.Join(tlv, "tlv.dict"))
	if !bytes.Equal(d1, d2) {
		t.Error("tlv_fuzzer.dict: expected a copy of the dictionary")
	}
	w1, _ := os.ReadFile(filepath.Join(out, "tlv_fuzzer.wasm"))
	w2, _ := os.ReadFile(filepath.Join(tlv, "tlv.wasm"))
	if !bytes.Equal(w1, w2) {
		t.Error("tlv_fuzzer.wasm: expected a copy of the module")
	}
}

// unzipFlat extracts a seed corpus zip into dir, checking it is flat and
// holds each seed under its SHA-1.
func unzipFlat(t *testing.T, zipPath, dir string) {
	t.Helper()
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	os.MkdirAll(dir, 0o755)
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if strings.Contains(f.Name, "/") || f.Name != fmt.Sprintf("%x", sha1.Sum(b)) {
			t.Errorf("zip entry %q: expected a flat name, the SHA-1 of its content", f.Name)
		}
		os.WriteFile(filepath.Join(dir, f.Name), b, 0o644)
	}
	if len(zr.File) == 0 {
		t.Fatal("seed corpus zip: no files")
	}
}

// checkCrashArtifact finds the testcase as ClusterFuzz does (the first
// line matching CRASH_TESTCASE_REGEX), checks it is crash-<sha1> in dir
// and that the report above it is one the stack analyzer classifies as a
// fatal signal in parse_tlv. It returns the testcase path.
func checkCrashArtifact(t *testing.T, dir, log string) string {
	t.Helper()
	var path string
	for _, l := range strings.Split(log, "\n") {
		if m := cfCrashTestcaseRE.FindStringSubmatch(l); m != nil {
			path = m[1]
			break
		}
	}
	if path == "" {
		t.Fatalf("no line matches CRASH_TESTCASE_REGEX (libfuzzer.py:53) in\n%s", log)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path) // relative to the target's working directory
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("testcase %s: %v", path, err)
	}
	if want := filepath.Join(dir, fmt.Sprintf("crash-%x", sha1.Sum(b))); path != want {
		t.Errorf("testcase: expected %s (crash-<sha1> under the artifact prefix), got %s", want, path)
	}
	checkStack(t, log)
	return path
}

// checkStack: the report's first line is LIBFUZZER_DEADLY_SIGNAL_REGEX's
// (crash type Fatal-signal, stacktraces/__init__.py:1137), and the frames
// after it parse with SAN_STACK_FRAME_REGEX into parse_tlv at tlv.c, then
// LLVMFuzzerTestOneInput.
func checkStack(t *testing.T, log string) {
	t.Helper()
	lines := strings.Split(log, "\n")
	start := -1
	for i, l := range lines {
		if cfDeadlySignalRE.MatchString(l) {
			start = i
			break
		}
	}
	if start < 0 {
		t.Fatalf("no line matches LIBFUZZER_DEADLY_SIGNAL_REGEX in\n%s", log)
	}
	if cfTimeoutRE.MatchString(lines[start]) {
		t.Errorf("a crash read as a timeout: %s", lines[start])
	}
	var funcs []string
	for _, l := range lines[start+1:] {
		m := cfSanFrameRE.FindStringSubmatch(l)
		if m == nil {
			break
		}
		fn := firstNonEmpty(m[7], m[5], m[23])
		file := firstNonEmpty(m[12], m[16])
		if len(funcs) == 0 && (fn != "parse_tlv" || !strings.HasSuffix(file, "tlv.c") || firstNonEmpty(m[13], m[17]) == "") {
			t.Errorf("frame #0: expected parse_tlv at tlv.c:LINE, got %q at %q (%s)", fn, file, l)
		}
		funcs = append(funcs, fn)
	}
	if len(funcs) < 2 || funcs[len(funcs)-1] != "LLVMFuzzerTestOneInput" {
		t.Errorf("frames after the ERROR line: expected parse_tlv ... LLVMFuzzerTestOneInput, got %v in\n%s", funcs, log)
	}
}

// checkStats: the stat:: lines parse_log_stats reads, each a number, the
// log lines stats.py counts, the end line and the modules line.
func checkStats(t *testing.T, log string, wantExecs bool) {
	t.Helper()
	stats := map[string]string{}
	var logLines, end, loaded int
	for _, l := range strings.Split(log, "\n") {
		if m := cfStatRE.FindStringSubmatch(l); m != nil {
			stats[m[1]] = m[2]
		}
		if cfLogLineRE.MatchString(l) {
			logLines++
		}
		if cfLogEndRE.MatchString(l) {
			end++
		}
		if m := cfModulesLoadedRE.FindStringSubmatch(l); m != nil && atoi(t, m[2]) > 0 {
			loaded++
		}
	}
	for _, k := range []string{"number_of_executed_units", "average_exec_per_sec", "new_units_added", "slowest_unit_time_sec", "peak_rss_mb"} {
		v, ok := stats[k]
		if !ok || strings.Trim(v, "0123456789") != "" {
			t.Errorf("stat::%s: expected a number (libfuzzer.py:1275 isdigit), got %q", k, v)
		}
	}
	if wantExecs && stats["number_of_executed_units"] == "0" {
		t.Error("stat::number_of_executed_units: expected executions")
	}
	if logLines == 0 || end != 1 || loaded != 1 {
		t.Errorf("expected libFuzzer's #N lines, one Done line and one Loaded line (stats.py:47-59), got %d, %d, %d in\n%s", logLines, end, loaded, log)
	}
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return n
}

// TestWrapBadInvocation: names the runners would not take, unknown
// options, a bad dictionary or options file and an empty seed corpus are
// refused with the reason, and nothing is written.
func TestWrapBadInvocation(t *testing.T) {
	tlv := exampleDir(t, "tlv")
	wasm := filepath.Join(tlv, "tlv.wasm")
	tmp := t.TempDir()
	badDict := filepath.Join(tmp, "bad.dict")
	os.WriteFile(badDict, []byte("kw=\"unterminated\n"), 0o644)
	badOpts := filepath.Join(tmp, "bad.options")
	os.WriteFile(badOpts, []byte("max_len = 5\n"), 0o644)
	empty := filepath.Join(tmp, "empty")
	os.Mkdir(empty, 0o755)
	out := filepath.Join(tmp, "out")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"extension", []string{"-o", filepath.Join(out, "tlv.fuzzer"), wasm}, 2, "no extension"},
		{"afl prefix", []string{"-o", filepath.Join(out, "afl-tlv"), wasm}, 2, "runners skip"},
		{"unknown option", []string{"-o", filepath.Join(out, "t"), "--option", "no_such_flag=1", wasm}, 2, "wafer has no flag -no_such_flag"},
		{"option without value", []string{"-o", filepath.Join(out, "t"), "--option", "max_len", wasm}, 2, "expected KEY=VALUE"},
		{"bad options file", []string{"-o", filepath.Join(out, "t"), "--options", badOpts, wasm}, 1, badOpts + ":1: expected a [section] header"},
		{"bad dict", []string{"-o", filepath.Join(out, "t"), "--dict", badDict, wasm}, 1, badDict},
		{"empty seeds", []string{"-o", filepath.Join(out, "t"), "--seed-corpus", empty, wasm}, 1, "no files in"},
		{"not a module", []string{"-o", filepath.Join(out, "t"), badDict}, 1, "not a WebAssembly module: offset 0x0: bad magic"},
		{"no -o", []string{wasm}, 2, "missing -o"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := wafer(t, tmp, append([]string{"wrap"}, tc.args...)...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("expected exit %d and %q, got %d: %s", tc.code, tc.want, r.code, r.stderr)
			}
		})
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s: expected nothing written by refused invocations", out)
	}
}

// TestWrapTrailer: a file ending in the trailer is a wrapper of the module
// named after it; one without, or with the trailer elsewhere, is not; and
// wrapperBinary appends it once to a binary that has it already.
func TestWrapTrailer(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		content string
		want    bool
	}{
		{"ELF...", false},
		{"ELF..." + wrapTrailer, true},
		{wrapTrailer + "ELF...", false},
		{wrapTrailer[1:], false},
		{"", false},
	} {
		p := filepath.Join(dir, "x_fuzzer")
		os.WriteFile(p, []byte(tc.content), 0o755)
		mod, ok := hasWrapTrailer(p)
		if ok != tc.want || (ok && mod != p+".wasm") {
			t.Errorf("%q: got %q, %v; expected %v", tc.content, mod, ok, tc.want)
		}
	}
	b, err := wrapperBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(b, []byte(wrapTrailer)) || bytes.HasSuffix(b[:len(b)-len(wrapTrailer)], []byte(wrapTrailer)) {
		t.Error("wrapperBinary: expected the trailer exactly once at the end")
	}
}

// TestLibFuzzerReportWords: each artifact kind's report starts with the
// line ClusterFuzz's stack analyzer classifies it by (constants.py:155,
// 161, and OUT_OF_MEMORY_REGEX's "libFuzzer: out-of-memory \(" at :175),
// and its SUMMARY line names the same thing; a hang in the libFuzzer
// invocation gives the timeout report, a timeout-<sha1> testcase and exit
// 70.
func TestLibFuzzerReportWords(t *testing.T) {
	cfOOMRE := regexp.MustCompile(`^.*(?:libFuzzer: out-of-memory \().*`)
	for _, tc := range []struct {
		art string
		re  *regexp.Regexp
	}{
		{"crash", cfDeadlySignalRE},
		{"timeout", cfTimeoutRE},
		{"oom", cfOOMRE},
	} {
		var b bytes.Buffer
		printLibFuzzerFailure(&b, tc.art, nil, tc.art+": identity", "")
		first, _, _ := strings.Cut(b.String(), "\n")
		if !tc.re.MatchString(first) {
			t.Errorf("%s: first line %q does not match %s", tc.art, first, tc.re)
		}
		for _, other := range []*regexp.Regexp{cfDeadlySignalRE, cfTimeoutRE, cfOOMRE} {
			if other != tc.re && other.MatchString(b.String()) {
				t.Errorf("%s: the report also matches %s:\n%s", tc.art, other, b.String())
			}
		}
		if want := "SUMMARY: libFuzzer: " + libFuzzerWhat(tc.art, nil) + "\n"; !strings.Contains(b.String(), want) {
			t.Errorf("%s: expected %q in\n%s", tc.art, want, b.String())
		}
	}

	tlv := exampleDir(t, "tlv")
	tmp := t.TempDir()
	corpusDir := copyDir(t, filepath.Join(tlv, "seeds"))
	r := wafer(t, tmp, filepath.Join(tlv, "tlv.wasm"), corpusDir, "-fuel=3", "-runs=10", "-artifact_prefix="+tmp+"/")
	if r.code != exitTimeout {
		t.Fatalf("exit %d, expected %d:\n%s", r.code, exitTimeout, r.stderr)
	}
	var testcase string
	timeoutLine := false
	for _, l := range strings.Split(r.stderr, "\n") {
		if m := cfCrashTestcaseRE.FindStringSubmatch(l); m != nil && testcase == "" {
			testcase = m[1]
		}
		timeoutLine = timeoutLine || cfTimeoutRE.MatchString(l)
	}
	if !timeoutLine || !strings.HasPrefix(testcase, filepath.Join(tmp, "timeout-")) {
		t.Errorf("expected a LIBFUZZER_TIMEOUT_REGEX line and a timeout-<sha1> testcase, got %v, %q in\n%s", timeoutLine, testcase, r.stderr)
	}

	// A bad dictionary: exit 1 (libFuzzer's error status, constants.py:75)
	// with the line ClusterFuzz's DICT_PARSING_FAILED_REGEX
	// (libFuzzer/engine.py:37) reads the line number from.
	bad := filepath.Join(tmp, "bad.dict")
	os.WriteFile(bad, []byte("# ok\nkw=\"x\"\nkw2=\"unterminated\n"), 0o644)
	r = wafer(t, tmp, filepath.Join(tlv, "tlv.wasm"), "-dict="+bad, "-runs=1")
	m := regexp.MustCompile(`ParseDictionaryFile: error in line (\d+)`).FindStringSubmatch(r.stderr)
	if r.code != exitError || m == nil || m[1] != "3" {
		t.Errorf("bad dictionary: expected exit 1 and \"error in line 3\", got %d, %v:\n%s", r.code, m, r.stderr)
	}
}

// TestLibFuzzerStatus: the JSON status lines become libFuzzer's INITED,
// pulse and DONE lines, whatever the writes' boundaries, and other lines
// pass unchanged.
func TestLibFuzzerStatus(t *testing.T) {
	in := `{"execs":10,"coverage":5,"queue":2,"execs_per_sec":100.5}` + "\n" +
		"INFO: something\n" +
		`{"execs":20,"coverage":6,"queue":3,"execs_per_sec":200}` + "\n" +
		`{"execs":30,"coverage":7,"queue":4,"execs_per_sec":300,"final":true}` + "\n"
	for _, chunk := range []int{1, 7, len(in)} {
		var b bytes.Buffer
		s := &libFuzzerStatus{w: &b}
		for i := 0; i < len(in); i += chunk {
			s.Write([]byte(in[i:min(i+chunk, len(in))]))
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		want := []string{"#10\tINITED cov: 5 corp: 2 exec/s: 100 rss: ", "INFO: something", "#20\tpulse  cov: 6 corp: 3 exec/s: 200 rss: ", "#30\tDONE   cov: 7 corp: 4 exec/s: 300 rss: "}
		if len(lines) != len(want) {
			t.Fatalf("chunk %d: got %q", chunk, lines)
		}
		for i := range want {
			if !strings.HasPrefix(lines[i], want[i]) {
				t.Errorf("chunk %d line %d: got %q, expected it to start %q", chunk, i, lines[i], want[i])
			}
			if strings.HasPrefix(want[i], "#") && !cfLogLineRE.MatchString(lines[i]) {
				t.Errorf("line %q does not match LIBFUZZER_LOG_LINE_REGEX", lines[i])
			}
		}
	}
}

// TestSeedZip: the zip is flat, one entry per distinct content (nested
// directories and plain files included) named by its SHA-1, and the same
// seeds give the same bytes.
func TestSeedZip(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a", "deep"), 0o755)
	os.WriteFile(filepath.Join(dir, "a", "one"), []byte("1"), 0o644)
	os.WriteFile(filepath.Join(dir, "a", "deep", "two"), []byte("22"), 0o644)
	os.WriteFile(filepath.Join(dir, "a", "dup"), []byte("1"), 0o644)
	os.WriteFile(filepath.Join(dir, "three"), []byte("333"), 0o644)
	paths := []string{filepath.Join(dir, "a"), filepath.Join(dir, "three")}
	z1, n, err := seedZip(t.Context(), paths)
	if err != nil {
		t.Fatal(err)
	}
	z2, _, _ := seedZip(t.Context(), paths)
	if !bytes.Equal(z1, z2) {
		t.Error("two zips of the same seeds differ")
	}
	zr, err := zip.NewReader(bytes.NewReader(z1), int64(len(z1)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		if f.Name != fmt.Sprintf("%x", sha1.Sum(b)) {
			t.Errorf("entry %q: expected the SHA-1 of %q", f.Name, b)
		}
		got = append(got, string(b))
	}
	slices.Sort(got)
	if n != 3 || strings.Join(got, ",") != "1,22,333" {
		t.Errorf("expected 3 entries 1,22,333, got %d: %v", n, got)
	}
	if _, _, err := seedZip(t.Context(), []string{filepath.Join(dir, "missing")}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing path: expected an error naming it, got %v", err)
	}
}
