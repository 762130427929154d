package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/engine"
	"github.com/wafer-fuzz/wafer/generators"
	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/runtime"
)

// This file turns flags into the packages' configurations and connects
// them: instrument → runtime → engine → corpus. The search, running,
// shrinking and merging are done by those packages.

// instrumentModule runs instrument.Instrument and serialises its site map.
func instrumentModule(wasm []byte, fuel, dirty bool, skip []string) (out, sitemap []byte, sm *instrument.SiteMap, err error) {
	out, sm, err = instrument.Instrument(wasm, instrument.Options{Fuel: fuel, DirtyPages: dirty, Skip: skip})
	if err != nil {
		return nil, nil, nil, err
	}
	sitemap, err = sm.MarshalBinary()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("site map: %w", err)
	}
	return out, sitemap, sm, nil
}

// runtimeConfig maps the target flags onto runtime.Config.
func (t *targetFlags) runtimeConfig(maxInput int) (runtime.Config, error) {
	var cfg runtime.Config
	if t.harness != "" {
		h, ok := runtime.ParseHarness(t.harness)
		if !ok {
			return cfg, usagef("--harness: expected libfuzzer, go or command, got %q", t.harness)
		}
		cfg.Harness = h
	}
	if t.reset != "" {
		r, ok := runtime.ParseReset(t.reset)
		if !ok {
			return cfg, usagef("--reset: expected restore, fresh or persistent, got %q", t.reset)
		}
		cfg.Reset = r
	}
	for _, p := range t.skip {
		if _, err := path.Match(p, ""); err != nil {
			return cfg, usagef("--skip: bad pattern %q: %v", p, err)
		}
	}
	cfg.Malloc = t.malloc
	cfg.Args = t.args
	for _, c := range t.invalidExit {
		cfg.InvalidExitCodes = append(cfg.InvalidExitCodes, uint32(c))
	}
	cfg.Fuel = t.fuel
	cfg.Timeout = time.Duration(t.timeout)
	if t.rssLimitMB < 0 {
		return cfg, usagef("--rss-limit-mb: expected a size >= 0, got %d", t.rssLimitMB)
	}
	cfg.MaxMemoryPages = uint32(min(t.rssLimitMB*16, 65536)) // 16 pages of 64 KiB per MiB
	if t.rssLimitMB == 0 {
		cfg.MaxMemoryPages = 65536 // libFuzzer's 0, no limit: all a 32-bit memory can have
	}
	switch {
	case t.heapMB < 0 || t.heapMB > 2047:
		return cfg, usagef("--heap-reserve-mb: expected 0 to 2047, got %d", t.heapMB)
	case t.heapMB == 0:
		cfg.HeapReserve = -1
	default:
		cfg.HeapReserve = t.heapMB << 20
	}
	cfg.MaxInputLen = max(maxInput, runtime.DefaultMaxInputLen)
	cfg.NoSourceLines = t.noSourceLines
	return cfg, nil
}

// build says how loadTarget instruments a module.
type build int

const (
	buildPlain    build = iota // as it is
	buildCounters              // counters, fuel, and dirty pages when runs restore memory
	buildCompares              // buildCounters plus comparison logging (input-to-state), and the heap check when --heap-check asks for it: it runs every queue entry once
	buildChecked               // buildCounters plus the heap check
)

// loadAside starts loadTarget of build b on another goroutine, with its
// own copy of wasm (compiling is one core's work), and returns a function
// that waits for it and one that cancels it if unfinished and closes the
// target: the caller defers the latter.
func loadAside(ctx context.Context, path string, wasm []byte, t *targetFlags, b build, maxInput int) (wait func() (*runtime.Target, *instrument.SiteMap, error), done func()) {
	cctx, cancel := context.WithCancel(ctx)
	own := bytes.Clone(wasm) // nothing is shared with the main build
	var tgt *runtime.Target
	var sm *instrument.SiteMap
	var err error
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tgt, sm, err = loadTarget(cctx, path, own, t, b, maxInput)
	}()
	wait = func() (*runtime.Target, *instrument.SiteMap, error) {
		<-finished
		return tgt, sm, err
	}
	done = func() {
		cancel() // an early return need not wait for the whole compile
		if t, _, _ := wait(); t != nil {
			t.Close(context.WithoutCancel(ctx))
		}
	}
	return wait, done
}

// loadTarget compiles the module for running, built as b.
func loadTarget(ctx context.Context, path string, wasm []byte, t *targetFlags, b build, maxInput int) (*runtime.Target, *instrument.SiteMap, error) {
	cfg, err := t.runtimeConfig(maxInput)
	if err != nil {
		return nil, nil, err
	}
	if instrument.IsInstrumented(wasm) {
		// run as it is, it would misread every input (pointers are moved
		// by the reserved pages)
		return nil, nil, fmt.Errorf("%s: %w", path, instrument.ErrInstrumented)
	}
	if len(t.warmUp) > 0 {
		for _, p := range t.warmUp {
			if _, err := os.Stat(p); err != nil {
				return nil, nil, fmt.Errorf("--warm-up: %w", fileError(p, err))
			}
		}
		seeds, _, err := corpus.ReadSeeds(ctx, nil, t.warmUp...)
		if err != nil {
			return nil, nil, err
		}
		for _, s := range seeds {
			cfg.WarmUp = append(cfg.WarmUp, s.Data)
			cfg.MaxInputLen = max(cfg.MaxInputLen, len(s.Data))
		}
	}
	if wasm, _, err = instrument.OwnMemory(wasm); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if wasm, _, err = runtime.AsReactor(wasm, cfg); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	var sm *instrument.SiteMap
	if b != buildPlain {
		opts := instrument.Options{Fuel: true, DirtyPages: runtime.RestoresMemory(wasm, cfg), Skip: t.skip, Compares: b == buildCompares, HeapGuard: t.heapGuard, HeapCheck: b == buildChecked || (b == buildCompares && t.checkedBuild() == buildChecked), StackCheck: true, StackDepth: t.stackDepth, CallPairs: t.callPairs}
		wasm, sm, err = instrument.Instrument(wasm, opts)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	tgt, err := runtime.New(ctx, wasm, sm, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return tgt, sm, nil
}

// readSeeds reads seed inputs (raw files, corpus directories, AFL/wafer
// output directories, Go testdata/fuzz files) and reports unreadable ones
// as INFO lines.
func (c *cli) readSeeds(ctx context.Context, paths []string) ([]corpus.Seed, error) {
	seeds, skipped, err := corpus.ReadSeeds(ctx, nil, paths...)
	if err != nil {
		return nil, err
	}
	var se *corpus.SkipError
	if errors.As(skipped, &se) {
		for _, f := range se.Files {
			fmt.Fprintf(c.stderr, "INFO: skipped seed %s: %v\n", f.Path, f.Err)
		}
	}
	return seeds, nil
}

func maxSeedLen(seeds []corpus.Seed) int {
	n := 0
	for _, s := range seeds {
		n = max(n, len(s.Data))
	}
	return n
}

// findingKind is a failure's libFuzzer artifact kind and exit status.
func (f *fuzzFlags) findingKind(o engine.Outcome, kind string) (string, int) {
	switch {
	case o == engine.Hang:
		return "timeout", f.timeoutExitcode
	case kind == runtime.KindOutOfMemory.String():
		return "oom", exitOOM
	}
	return "crash", f.errorExitcode
}

// reproCommand is the command stored with each finding.
func reproCommand(target string, t *targetFlags, hang bool) string {
	args := []string{"wafer", "repro"}
	if t.harness != "" {
		args = append(args, "--harness", t.harness)
	}
	if t.malloc != "" {
		args = append(args, "--malloc", t.malloc)
	}
	if t.heapMB != runtime.DefaultHeapReserve>>20 {
		args = append(args, "--heap-reserve-mb", strconv.Itoa(t.heapMB))
	}
	switch {
	case t.fuel != 0:
		args = append(args, "--fuel", strconv.FormatUint(t.fuel, 10))
	case hang:
		// repro runs the plain module unless given fuel: a fuel hang
		// needs the campaign's budget to end as one, with its stack.
		args = append(args, "--fuel", strconv.FormatUint(runtime.DefaultFuel, 10))
	}
	if t.rssLimitMB != defaultRSSLimitMB {
		args = append(args, "--rss-limit-mb", strconv.Itoa(t.rssLimitMB))
	}
	if !t.heapGuard {
		args = append(args, "--heap-guard=false")
	}
	if t.heapCheck != defaultHeapCheck {
		args = append(args, "--heap-check", strconv.Itoa(t.heapCheck))
	}
	for _, p := range t.warmUp {
		args = append(args, "--warm-up", p)
	}
	for _, a := range t.args {
		args = append(args, "--arg", a)
	}
	for _, c := range t.invalidExit {
		args = append(args, "--invalid-exit-code", strconv.FormatUint(uint64(c), 10))
	}
	args = append(args, target, "{input}")
	for i, a := range args {
		if strings.ContainsAny(a, " \t'\"$\\*?") {
			args[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(args, " ")
}

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// campaign runs 'wafer fuzz' and the libFuzzer invocation (lf): seeds,
// instrumented target, generator, dictionaries and store into engine.Fuzz,
// then the report, artifacts and exit status.
func (c *cli) campaign(ctx context.Context, f *fuzzFlags, wasm []byte, corpusDirs []string, out string, lf bool) error {
	target := f.fs.Arg(0)
	seeds, err := c.readSeeds(ctx, append(append([]string(nil), f.input...), corpusDirs...))
	if err != nil {
		return err
	}
	dict, err := readDicts(f.dict)
	if err != nil {
		return err
	}
	if lf && f.target.timeout != 0 {
		// Runners pass -timeout=25 to every libFuzzer binary; a per-run
		// wall-clock deadline halves wazero's speed, and fuel already
		// catches hangs deterministically.
		fmt.Fprintf(c.stderr, "INFO: -timeout=%s: hangs are found by fuel; no per-input wall-clock backstop while fuzzing\n", &f.target.timeout)
		f.target.timeout = 0
	}
	gen, useGen := generators.Lookup(f.generator)
	useGen = useGen && f.generator != "raw"
	// The output directory first: the input buffer must hold every input
	// the campaign replays (seeds, the resumed queue, peers' queues).
	var dir *corpus.Dir
	var peers [][]byte
	var syncer *corpus.Syncer
	if out != "" {
		unlock, err := lockOutput(out)
		if err != nil {
			return err
		}
		defer unlock()
		if dir, peers, syncer, err = c.openOutput(ctx, f, out, useGen); err != nil {
			return err
		}
		defer dir.Close()
	}
	var resumed []corpus.Entry // the queue the engine replays first
	if dir != nil {
		resumed = dir.Entries()
	}
	maxIn := max(f.maxLen, maxSeedLen(seeds))
	for _, e := range resumed {
		maxIn = max(maxIn, len(e.Input))
	}
	for _, p := range peers {
		maxIn = max(maxIn, len(p))
	}
	// Input-to-state mutation (raw mode): a second build logs comparisons.
	// It compiles on another goroutine meanwhile (compiling is one core's
	// work: on gojson, 2.5 s of a cold start).
	var cmpTarget func() (*runtime.Target, *instrument.SiteMap, error) // waits for the compare build
	if !useGen && f.useCmp != 0 {
		var done func()
		cmpTarget, done = loadAside(ctx, target, wasm, &f.target, buildCompares, maxIn)
		defer done()
	}
	// A first campaign on a module waits seconds for wazero to compile it
	// (a later one reads the compilation cache): say so when it is slow.
	slow := time.AfterFunc(time.Second, func() {
		fmt.Fprintf(c.stderr, "INFO: compiling %s (%d bytes) with wazero; later campaigns read it from the compilation cache\n", filepath.Base(target), len(wasm))
	})
	// The heap check's build (--heap-check) compiles meanwhile too.
	checkedTarget := func() (*runtime.Target, *instrument.SiteMap, error) { return nil, nil, nil }
	if f.target.checkedBuild() == buildChecked && f.target.heapCheck > 1 {
		var done func()
		checkedTarget, done = loadAside(ctx, target, wasm, &f.target, buildChecked, maxIn)
		defer done()
	}
	b := buildCounters
	if f.target.heapCheck == 1 {
		b = f.target.checkedBuild() // every input checked: the one build
	}
	tgt, sm, err := loadTarget(ctx, target, wasm, &f.target, b, maxIn)
	slow.Stop()
	if err != nil {
		return err
	}
	checked, checkedMap, err := checkedTarget()
	if err != nil {
		return err
	}
	fmt.Fprint(c.stderr, noNamesInfo(target, wasm))
	defer tgt.Close(context.WithoutCancel(ctx))
	cfg := engine.Config{
		Strategy:      f.strategy,
		Workers:       f.workers,
		Deterministic: f.deterministic,
		NoShrink:      f.noShrink,
		Seed:          f.seed,
		MaxTotalTime:  f.budget(),
		KeepGoing:     f.keepGoing,
		MaxLen:        f.maxLen,
		Dict:          dict,
		Conditionals:  sm.Conditionals(),
		Havoc:         f.havoc,
		FairFuzz:      f.fair,
		Levy:          f.levy,
	}
	if f.runs > 0 {
		cfg.Runs = f.runs
	}
	newExec := engine.RuntimeExecutors(tgt)
	if checked != nil && checkedMap.Layout.ShadowBytes > 0 {
		if len(checkedMap.Sites) != len(sm.Sites) {
			// both builds' counters feed one coverage map
			return fmt.Errorf("%s: internal error: the heap check's build has %d sites, the campaign's %d", target, len(checkedMap.Sites), len(sm.Sites))
		}
		newExec = engine.SampledExecutors(tgt, checked, f.target.heapCheck, f.workers)
	}
	deps := engine.Deps{
		NewExecutor: newExec,
		TargetDict:  sm.Dictionary,
		Status:      c.stderr,
		StatusTTY:   isTerminal(c.stderr),
	}
	if useGen {
		deps.Generator = engine.FromGenerator(gen, generators.Options{Dictionary: sm.Dictionary})
		if len(seeds) > 0 {
			fmt.Fprintf(c.stderr, "INFO: --generator %s: %d seed inputs not used (a generator starts from choice sequences)\n", f.generator, len(seeds))
		}
	} else {
		long, maxLen := 0, cfg.MaxLen
		if maxLen <= 0 {
			maxLen = engine.DefaultMaxLen
		}
		for _, s := range seeds {
			deps.Seeds = append(deps.Seeds, s.Data)
			if len(s.Data) > maxLen {
				long++
			}
		}
		if long > 0 {
			fmt.Fprintf(c.stderr, "INFO: %d seed inputs are longer than --max-len %d: they run whole, inputs made from them are cut to %d bytes\n", long, maxLen, maxLen)
		}
		if cmpTarget != nil {
			// The campaign does not need it: without it, say why and go on.
			switch ct, _, err := cmpTarget(); {
			case err != nil && ctx.Err() != nil:
				return err
			case err != nil:
				fmt.Fprintf(c.stderr, "INFO: --use-cmp: no input-to-state mutation: %v\n", err)
			default:
				deps.NewComparer = engine.RuntimeComparers(ct)
			}
		}
	}
	switch {
	case dir != nil:
		deps.Seeds = append(deps.Seeds, peers...)
		deps.Store = c.newStore(f, dir, target, sm, &deps)
	case lf && len(corpusDirs) > 0:
		deps.Store = flatStore{dir: corpus.Flat{Path: corpusDirs[0]}}
	}
	// The engine replays the resumed queue, then the seeds and peers'
	// entries, before it mutates anything.
	replays := int64(len(resumed) + len(deps.Seeds))
	if f.runs == 0 {
		// libFuzzer's -runs=0: run the corpus, nothing more (the empty
		// input when there is none).
		cfg.Runs = max(1, replays)
	}
	if lf {
		fmt.Fprintf(c.stderr, "INFO: Seed: %d\n", f.seed)
		fmt.Fprintf(c.stderr, "INFO: Loaded 1 modules   (%d inline 8-bit counters)\n", sm.Counted())
	}
	start := time.Now()
	sum, err := engine.Fuzz(ctx, cfg, deps)
	if err != nil {
		if sum != nil {
			// What was found before the error is still reported (and
			// written as artifacts in libFuzzer mode).
			c.reportFindings(f, sum, lf)
		}
		return fmt.Errorf("campaign: %w", err)
	}
	elapsed := time.Since(start)
	if syncer != nil && sum.Stats.Execs >= replays {
		// The peers' entries have run: not imported again on resume.
		if err := syncer.Commit(); err != nil {
			return fmt.Errorf("sync: %w", err)
		}
	}

	newUnits := 0
	for _, e := range sum.Queue {
		if e.Op != "seed" {
			newUnits++
		}
	}
	if lf && out != "" && len(corpusDirs) > 0 {
		// With -o the store is the campaign directory; libFuzzer's corpus
		// directory still gets the new inputs.
		flat := corpus.Flat{Path: corpusDirs[0]}
		for _, e := range sum.Queue {
			if e.Op == "seed" {
				continue
			}
			if _, err := flat.Write(context.WithoutCancel(ctx), "", e.Input); err != nil {
				return fmt.Errorf("corpus: %w", err)
			}
		}
	}
	code, err := c.reportFindings(f, sum, lf)
	if err != nil {
		return err
	}
	if !lf && dir != nil {
		c.printSummary(f, target, out, sum, dir)
	}
	if lf {
		if sum.Stop == "canceled" {
			fmt.Fprintf(c.stderr, "==%d== libFuzzer: run interrupted; exiting\n", os.Getpid())
			if code == exitOK {
				code = exitInterrupted
			}
		} else {
			fmt.Fprintf(c.stderr, "Done %d runs in %d second(s)\n", sum.Stats.Execs, int64(elapsed/time.Second))
		}
	}
	if (lf && f.printFinalStats != 0) || (!lf && f.fs.Changed("print-final-stats") && f.printFinalStats != 0) {
		printFinalStats(c.stderr, finalStats{execs: uint64(sum.Stats.Execs), elapsed: elapsed, newUnits: uint64(newUnits)})
	}
	if code != exitOK {
		return &exitCodeError{code: code}
	}
	return nil
}

// readDicts reads AFL/libFuzzer dictionary files.
func readDicts(paths []string) ([][]byte, error) {
	var dict [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("-dict: %w", fileError(p, err))
		}
		toks, err := engine.ParseDict(b)
		if err != nil {
			return nil, fmt.Errorf("-dict: %s: %w", p, err)
		}
		dict = append(dict, toks...)
	}
	return dict, nil
}

// openOutput opens the campaign directory out and, with --sync, reads
// the sibling campaigns' queues: their inputs, or in generator mode their
// choice sequences (entries without one are left out). The Syncer's
// Commit records them as imported once they have run.
func (c *cli) openOutput(ctx context.Context, f *fuzzFlags, out string, useGen bool) (*corpus.Dir, [][]byte, *corpus.Syncer, error) {
	dir, skipped, err := corpus.Open(ctx, out, corpus.Options{NoSync: f.noSync})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("output directory: %w", err)
	}
	c.reportSkipped("", skipped)
	if !f.sync {
		return dir, nil, nil, nil
	}
	syncer := dir.Syncer()
	entries, skipped, err := syncer.Poll(ctx)
	if err != nil {
		dir.Close()
		return nil, nil, nil, fmt.Errorf("sync: %w", err)
	}
	c.reportSkipped("sync: ", skipped)
	var peers [][]byte
	for _, e := range entries {
		switch {
		case !useGen:
			peers = append(peers, e.Input)
		case e.Choices != nil:
			peers = append(peers, e.Choices)
		}
	}
	fmt.Fprintf(c.stderr, "INFO: sync: %d entries from peer campaigns next to %s\n", len(peers), out)
	return dir, peers, syncer, nil
}

// newStore makes the campaign directory the engine's store, and tells the
// engine which failures it already holds.
func (c *cli) newStore(f *fuzzFlags, dir *corpus.Dir, target string, sm *instrument.SiteMap, deps *engine.Deps) *engine.CorpusStore {
	for _, fl := range dir.Failures() {
		deps.KnownFailures = append(deps.KnownFailures, fl.Identity)
	}
	store := engine.NewCorpusStore(dir, deps.Generator == nil)
	store.Repro = reproCommand(target, &f.target, false)
	store.HangRepro = reproCommand(target, &f.target, true)
	store.TotalEdges = sm.Counted()
	store.Banner = filepath.Base(target)
	store.CommandLine = strings.Join(os.Args, " ")
	return store
}

func (c *cli) reportSkipped(prefix string, skipped error) {
	var se *corpus.SkipError
	if errors.As(skipped, &se) {
		for _, sf := range se.Files {
			fmt.Fprintf(c.stderr, "INFO: %sskipped %s: %v\n", prefix, sf.Path, sf.Err)
		}
	}
}

// reportFindings prints each unique failure (libFuzzer's ERROR/SUMMARY
// lines in lf mode), writes libFuzzer artifacts when asked, and returns the
// exit status: crash beats out-of-memory beats hang.
func (c *cli) reportFindings(f *fuzzFlags, sum *engine.Summary, lf bool) (int, error) {
	code := exitOK
	for _, fd := range sum.Failures {
		kind := ""
		if fd.Failure != nil {
			kind = fd.Failure.Kind
		}
		art, status := f.findingKind(fd.Outcome, kind)
		if lf {
			what := map[string]string{"crash": "deadly signal", "timeout": "timeout", "oom": "out-of-memory"}[art]
			fmt.Fprintf(c.stderr, "==%d== ERROR: libFuzzer: %s (wafer: %s)\n", os.Getpid(), what, fd.Identity)
			if fd.Failure != nil && fd.Failure.Text != "" {
				fmt.Fprint(c.stderr, indent(fd.Failure.Text))
			}
			fmt.Fprintf(c.stderr, "SUMMARY: libFuzzer: %s\n", what)
		} else {
			fmt.Fprintf(c.stdout, "found %s: %s\n", fd.Outcome, fd.Identity)
		}
		if lf || f.artifactPrefix != "" || f.exactArtifactPath != "" {
			if _, err := writeArtifact(c.stderr, f.artifactPrefix, f.exactArtifactPath, art, fd.Input); err != nil {
				return 0, err
			}
		}
		if code == exitOK || (code == f.timeoutExitcode && status != f.timeoutExitcode) || (code == exitOOM && status == f.errorExitcode) {
			code = status
		}
	}
	return code, nil
}

// printSummary prints the campaign's last lines: counts, why it stopped,
// and where each unique failure of the directory is with its repro command.
func (c *cli) printSummary(f *fuzzFlags, target, out string, sum *engine.Summary, dir *corpus.Dir) {
	stop := map[string]string{"runs": "--runs", "time": "--max-total-time", "crash": "crash", "canceled": "interrupt"}[sum.Stop]
	if stop == "" {
		stop = sum.Stop
	}
	// The directory's failures, with this session's share when earlier
	// sessions found some of them.
	var crashes, hangs int
	for _, cf := range dir.Failures() {
		if cf.Hang {
			hangs++
		} else {
			crashes++
		}
	}
	found := fmt.Sprintf("unique crashes %d, hangs %d", crashes, hangs)
	if crashes != sum.Stats.Crashes || hangs != sum.Stats.Hangs {
		found = fmt.Sprintf("unique crashes %d (%d new), hangs %d (%d new)", crashes, sum.Stats.Crashes, hangs, sum.Stats.Hangs)
	}
	// The search's time, as the final stats give it; shrinking after it
	// apart.
	took := sum.Stats.Elapsed.Round(time.Millisecond).String()
	if st := sum.Stats.ShrinkTime.Round(time.Millisecond); st > 0 {
		took += fmt.Sprintf(" (then %s shrinking)", st)
	}
	fmt.Fprintf(c.stdout, "%s: %d executions in %s, stopped by %s; queue %d, %s; output in %s\n",
		filepath.Base(target), sum.Stats.Execs, took, stop, sum.Stats.Queue, found, out)
	for _, cf := range dir.Failures() {
		repro := reproCommand(target, &f.target, cf.Hang)
		sub := "crashes"
		if cf.Hang {
			sub = "hangs"
		}
		path := filepath.Join(out, sub, cf.Name)
		fmt.Fprintf(c.stdout, "  %s: %s\n    %s\n", cf.Kind, path, strings.ReplaceAll(repro, "{input}", path))
	}
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// foundByChecks reports whether a failure of kind k can come from the
// checks a campaign's build adds (the heap guard, the stack check) where
// the plain module runs on.
func foundByChecks(k runtime.Kind) bool {
	return k == runtime.KindHeapOverflow || k == runtime.KindDoubleFree || k == runtime.KindUseAfterFree || k == runtime.KindNullDeref || k == runtime.KindStackExhausted
}

// runOnce runs seeds one by one on the module as it is (fresh instance per
// input, as runtime.Repro) and prints each outcome; failures get the full
// report. It returns the exit status: crash beats out of memory beats hang
// beats 0 (the statuses a campaign exits with for them).
func (c *cli) runOnce(ctx context.Context, target string, wasm []byte, t *targetFlags, seeds []corpus.Seed, errorCode, timeoutCode int, showOutput bool) (int, error) {
	tf := *t
	if tf.reset == "" {
		tf.reset = "fresh"
	}
	// With an explicit --fuel, run instrumented so a fuel hang reproduces
	// exactly; otherwise run the module unchanged (exact file:line stacks).
	b := buildPlain
	if t.fuel != 0 {
		b = buildCounters
	}
	// Inputs run without wazero's DWARF source lines (milliseconds per
	// trap or exit on a large module: a command rejects inputs by
	// exiting); a crash runs again on a build with them, for its report.
	fast := tf
	fast.noSourceLines = b == buildPlain
	var closers []func()
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	newWorker := func(t *targetFlags, b build) (*runtime.Worker, *instrument.SiteMap, error) {
		tgt, sm, err := loadTarget(ctx, target, wasm, t, b, maxSeedLen(seeds))
		if err != nil {
			return nil, nil, err
		}
		w, err := tgt.NewWorker(ctx)
		if err != nil {
			tgt.Close(context.WithoutCancel(ctx))
			return nil, nil, fmt.Errorf("%s: %w", target, err)
		}
		closers = append(closers, func() {
			w.Close(context.WithoutCancel(ctx))
			tgt.Close(context.WithoutCancel(ctx))
		})
		return w, sm, nil
	}
	w, _, err := newWorker(&fast, b)
	if err != nil {
		return 0, err
	}
	// The plain module has no heap guard and no stack check: an input it
	// passes runs again on the instrumented one, which has them (made for
	// the first such input; nil when the module has neither a heap to
	// guard nor an LLVM stack to check). An overflow of a stack above the
	// static data may pass on the plain module, having written over data
	// it never reads again.
	var guarded *runtime.Worker
	lookAgain := b == buildPlain
	fmt.Fprint(c.stderr, noNamesInfo(target, wasm))
	var withLines *runtime.Worker // made for the first crash
	code := exitOK
	for _, s := range seeds {
		start := time.Now()
		r, err := w.Run(ctx, s.Data)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", s.Path, err)
		}
		took := time.Since(start)
		if r.Outcome == runtime.Crash && len(r.Failure.Stack) > 0 && fast.noSourceLines {
			if withLines == nil {
				if withLines, _, err = newWorker(&tf, b); err != nil {
					return 0, err
				}
			}
			if again, err := withLines.Run(ctx, s.Data); err == nil && again.Outcome == runtime.Crash {
				r = again
			}
		}
		if lookAgain && (r.Outcome == runtime.Valid || r.Outcome == runtime.Invalid) {
			if guarded == nil {
				var sm *instrument.SiteMap
				if guarded, sm, err = newWorker(&tf, tf.checkedBuild()); err != nil {
					return 0, err
				}
				lookAgain = sm.Layout.HeapExport != "" || sm.Layout.StackPointerExport != ""
			}
			if lookAgain {
				if again, err := guarded.Run(ctx, s.Data); err == nil && again.Outcome == runtime.Crash && foundByChecks(again.Failure.Kind) {
					r = again
				}
			}
		}
		fmt.Fprintf(c.stdout, "%s: %s (%d bytes, %s)\n", s.Path, r.Outcome, len(s.Data), took.Round(time.Microsecond))
		if r.Failure != nil || showOutput {
			if !showOutput {
				r.Stdout = nil
			}
			fmt.Fprint(c.stdout, indent(runtime.Report(r)))
		}
		switch {
		case r.Outcome == runtime.Crash && r.Failure.Kind == runtime.KindOutOfMemory:
			if code != errorCode {
				code = exitOOM
			}
		case r.Outcome == runtime.Crash:
			code = errorCode
		case r.Outcome == runtime.Hang && code == exitOK:
			code = timeoutCode
		}
	}
	return code, nil
}

// runInputs is libFuzzer's "run these files" mode.
func (c *cli) runInputs(ctx context.Context, f *fuzzFlags, wasm []byte, paths []string) error {
	seeds, err := c.readSeeds(ctx, paths)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "INFO: Seed: %d\n", f.seed)
	fmt.Fprintf(c.stderr, "Running %d inputs 1 time(s) each.\n", len(seeds))
	code, err := c.runOnce(ctx, f.fs.Arg(0), wasm, &f.target, seeds, f.errorExitcode, f.timeoutExitcode, f.closeFDMask == 0)
	if err != nil {
		return err
	}
	if code != exitOK {
		return &exitCodeError{code: code}
	}
	return nil
}

func (c *cli) reproInputs(ctx context.Context, f *reproFlags, wasm []byte, inputs []string) error {
	for _, p := range inputs {
		if _, err := os.Stat(p); err != nil {
			return fileError(p, err)
		}
	}
	seeds, err := c.readSeeds(ctx, inputs)
	if err != nil {
		return err
	}
	if len(seeds) == 0 {
		return fmt.Errorf("no inputs found in %s", strings.Join(inputs, ", "))
	}
	code, err := c.runOnce(ctx, f.fs.Arg(0), wasm, &f.target, seeds, exitCrash, exitTimeout, f.output)
	if err != nil {
		return err
	}
	if code != exitOK {
		return &exitCodeError{code: code}
	}
	return nil
}

// identityRunner runs candidates on an instrumented worker and returns the
// failure identity the campaign would give them ("" when they pass).
func identityRunner(w *runtime.Worker) corpus.RunFunc {
	return func(ctx context.Context, cand []byte) (string, error) {
		r, err := w.Run(ctx, cand)
		if err != nil {
			return "", err
		}
		if r.Outcome != runtime.Crash && r.Outcome != runtime.Hang {
			return "", nil
		}
		return r.Outcome.String() + ": " + engine.FailureOf(r).Identity(), nil
	}
}

// shrink minimises the failing input at path and returns the original, the
// result and the identity kept.
func (c *cli) shrink(ctx context.Context, target string, wasm []byte, t *targetFlags, path string, runs int64) (orig []byte, sh corpus.Shrunk, identity string, err error) {
	seeds, err := c.readSeeds(ctx, []string{path})
	if err != nil {
		return nil, sh, "", err
	}
	if len(seeds) != 1 {
		return nil, sh, "", fmt.Errorf("%s: expected one input file", path)
	}
	orig = seeds[0].Data
	tgt, _, err := loadTarget(ctx, target, wasm, t, t.checkedBuild(), len(orig))
	if err != nil {
		return nil, sh, "", err
	}
	defer tgt.Close(context.WithoutCancel(ctx))
	w, err := tgt.NewWorker(ctx)
	if err != nil {
		return nil, sh, "", fmt.Errorf("%s: %w", target, err)
	}
	defer w.Close(context.WithoutCancel(ctx))
	run := identityRunner(w)
	identity, err = run(ctx, orig)
	if err != nil {
		return nil, sh, "", err
	}
	if identity == "" {
		return nil, sh, "", fmt.Errorf("%s: does not crash or hang: nothing to minimise", path)
	}
	fmt.Fprintf(c.stderr, "INFO: minimising %s (%d bytes): %s\n", path, len(orig), identity)
	budget := 0
	if runs > 0 {
		budget = int(min(runs, 1<<30))
	}
	sh, err = corpus.ShrinkBytes(ctx, orig, identity, run, corpus.ShrinkOptions{Budget: budget})
	if err != nil && ctx.Err() == nil {
		return nil, sh, "", fmt.Errorf("minimise: %w", err)
	}
	if sh.Data == nil {
		sh.Data = orig
	}
	return orig, sh, identity, nil
}

func (c *cli) runMinimize(ctx context.Context, f *fuzzFlags, wasm []byte, crash string) error {
	if d := f.budget(); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	orig, sh, _, err := c.shrink(ctx, f.fs.Arg(0), wasm, &f.target, crash, f.runs)
	if err != nil {
		return err
	}
	out := f.exactArtifactPath
	if out == "" {
		out = artifactName(f.artifactPrefix, "minimized-from", orig)
	}
	if err := os.WriteFile(out, sh.Data, 0o644); err != nil {
		return fileError(out, err)
	}
	fmt.Fprintf(c.stderr, "CRASH_MIN: minimized %d bytes to %d in %d runs; written to %s\n", len(orig), len(sh.Data), sh.Runs, out)
	return nil
}

func (c *cli) minimizeInput(ctx context.Context, f *minimizeFlags, wasm []byte, crash string) error {
	if d := time.Duration(f.maxTotalTime); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	if f.out != "" {
		if err := ensureWritableFile(f.out); err != nil {
			return err
		}
	}
	orig, sh, identity, err := c.shrink(ctx, f.fs.Arg(0), wasm, &f.target, crash, f.runs)
	if err != nil {
		return err
	}
	out := f.out
	if out == "" {
		out = filepath.Join(filepath.Dir(crash), artifactName("", "minimized-from", orig)) // next to the input, as the help says
	}
	if err := os.WriteFile(out, sh.Data, 0o644); err != nil {
		return fileError(out, err)
	}
	state := "local minimum"
	if !sh.Done {
		state = "budget spent"
	}
	fmt.Fprintf(c.stdout, "%s: %d -> %d bytes in %d runs (%s), same failure: %s\nwritten to %s\n",
		crash, len(orig), len(sh.Data), sh.Runs, state, identity, out)
	return nil
}

func (c *cli) runMerge(ctx context.Context, f *fuzzFlags, wasm []byte, dirs []string) error {
	if len(dirs) < 2 {
		return usagef("-merge=1: expected OUT_DIR and at least one IN_DIR, got %d directories", len(dirs))
	}
	if err := ensureWritableDir(dirs[0]); err != nil {
		return err
	}
	return c.mergeDirs(ctx, dirs[0], &f.target, f.fs.Arg(0), wasm, dirs[1:])
}

func (c *cli) mergeDirs(ctx context.Context, out string, t *targetFlags, target string, wasm []byte, in []string) error {
	for _, p := range in {
		if _, err := os.Stat(p); err != nil {
			return fileError(p, err)
		}
	}
	base, err := c.readSeeds(ctx, []string{out})
	if err != nil {
		return err
	}
	cands, err := c.readSeeds(ctx, in)
	if err != nil {
		return err
	}
	tgt, _, err := loadTarget(ctx, target, wasm, t, buildCounters, max(maxSeedLen(base), maxSeedLen(cands)))
	if err != nil {
		return err
	}
	defer tgt.Close(context.WithoutCancel(ctx))
	w, err := tgt.NewWorker(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", target, err)
	}
	defer w.Close(context.WithoutCancel(ctx))
	failed := 0
	cover := func(ctx context.Context, input []byte) ([]uint32, error) {
		r, err := w.Run(ctx, input)
		if err != nil {
			return nil, err
		}
		if r.Outcome.Failed() {
			// a crash or hang covers nothing a corpus should keep (as
			// libFuzzer's merge, which leaves them out)
			failed++
			return nil, nil
		}
		return engine.CountersFeatures(r.Counters), nil
	}
	fmt.Fprintf(c.stderr, "MERGE-OUTER: %d files, %d in the initial corpus\n", len(base)+len(cands), len(base))
	res, err := corpus.Merge(ctx, base, cands, cover)
	if failed > 0 {
		fmt.Fprintf(c.stderr, "INFO: %d inputs crashed or hung and were left out (wafer repro shows them)\n", failed)
	}
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	flat := corpus.Flat{Path: out}
	for _, s := range res.Keep {
		if _, err := flat.Write(ctx, "", s.Data); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
	}
	fmt.Fprintf(c.stderr, "MERGE-OUTER: %d new files with %d new features added; %d features in the initial corpus\n",
		len(res.Keep), res.NewFeatures, res.BaseFeatures)
	return nil
}
