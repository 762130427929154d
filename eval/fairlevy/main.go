// Command fairlevy is the evaluation "Raw-mode strategies: FairFuzz and
// Lévy flights" (docs/EVALUATION.md): havoc, havoc with AFL's stacking,
// fairfuzz, levy and random on raw-mode example targets, several seeds,
// equal execution budgets. It runs the campaigns through the engine
// directly (one instrumented, compiled target per example, shared by its
// campaigns) so that coverage can be read at exact execution counts, and
// writes one JSON line per campaign; -report turns such a file into the
// Markdown tables of docs/EVALUATION.md (medians with min/max, exact
// two-sided Mann-Whitney U p-values and Vargha-Delaney Â12 against havoc,
// from package evalstats).
//
//	go run ./eval/fairlevy -out /tmp/fairlevy.jsonl
//	go run ./eval/fairlevy -report /tmp/fairlevy.jsonl
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	wcampaign "github.com/wafer-fuzz/wafer/campaign"
	"github.com/wafer-fuzz/wafer/engine"
	"github.com/wafer-fuzz/wafer/evalstats"
	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/runtime"
)

// arm is one configuration under test.
type arm struct {
	name string
	cfg  func(*engine.Config)
}

var arms = []arm{
	{"havoc", func(c *engine.Config) { c.Strategy = "havoc" }},
	{"havoc-afl", func(c *engine.Config) { c.Strategy = "havoc"; c.Havoc.StackPow2 = 7 }},
	{"fairfuzz", func(c *engine.Config) { c.Strategy = "fairfuzz"; c.Havoc.StackPow2 = 7 }},
	{"fairfuzz-nomask", func(c *engine.Config) {
		c.Strategy = "fairfuzz"
		c.Havoc.StackPow2 = 7
		c.FairFuzz.NoMask = true
	}},
	// levy and levy-abs: the paper's absolute quality (levy's default
	// before issue 41, the levy lines of results.jsonl); levy-rel: the
	// relative quality, levy's default since
	{"levy", func(c *engine.Config) { c.Strategy = "levy"; c.Levy.Quality = engine.LevyAbsolute }},
	{"levy-abs", func(c *engine.Config) { c.Strategy = "levy"; c.Levy.Quality = engine.LevyAbsolute }},
	{"levy-rel", func(c *engine.Config) { c.Strategy = "levy"; c.Levy.Quality = engine.LevyRelative }},
	// an ablation outside the contract: b = 1 (α's floor 0.54 instead of
	// 0.095), absolute quality
	{"levy-b1", func(c *engine.Config) {
		c.Strategy = "levy"
		c.Levy.B1, c.Levy.B2 = 1, 1
		c.Levy.Quality = engine.LevyAbsolute
	}},
	{"random", func(c *engine.Config) { c.Strategy = "random" }},
}

// result is one campaign's line of output.
type result struct {
	Target, Arm string
	Seed        uint64
	Budget      int64
	Execs       int64
	Coverage    int
	Crashes     int
	ExecsPerSec float64
	// TargetRuns and TargetHits: fairfuzz's targeted children and those
	// that hit their round's target.
	TargetRuns, TargetHits int64
	// LevyBatches, LevyNovel and LevyMeanAlpha: levy's batches, those
	// with a positive quality Ē, and the offset walk's mean α.
	// LevyFloor is the batches after which α was within 0.01 of its
	// floor, LevyMedianAlpha the median of α after each batch (to 0.01).
	LevyBatches, LevyNovel, LevyFloor int
	LevyMeanAlpha, LevyMedianAlpha    float64
	// Curve is the coverage reported at each checkpoint (the first stats
	// report at or after it).
	Checkpoints []int64
	Curve       []int
}

func main() {
	out := flag.String("out", "", "write one JSON line per campaign to `FILE`")
	report := flag.String("report", "", "print the Markdown tables of `FILE` (the -out of a run) and exit")
	targets := flag.String("targets", "tlv=2000000,czstd=600000,cexpr=600000", "comma-separated `NAME=EXECS`: examples/NAME/NAME.wasm with examples/NAME/seeds, and its budget")
	seeds := flag.Int("seeds", 5, "PRNG seeds 1..N per (target, arm)")
	armList := flag.String("arms", "havoc,havoc-afl,fairfuzz,fairfuzz-nomask,levy,random", "arms to run")
	parallel := flag.Int("parallel", 2, "campaigns at once (one worker each)")
	root := flag.String("root", ".", "repository root")
	prof := flag.String("cpuprofile", "", "write a CPU profile to `FILE`")
	flag.Parse()
	if *prof != "" {
		pf, err := os.Create(*prof)
		if err == nil {
			err = pprof.StartCPUProfile(pf)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if *report != "" {
		if err := printReport(os.Stdout, *report); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if *out == "" {
		fmt.Fprintln(os.Stderr, "fairlevy: -out or -report is required")
		os.Exit(2)
	}
	if err := runAll(*root, *out, *targets, *armList, *seeds, *parallel); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

type campaign struct {
	target string
	tgt    *runtime.Target
	sm     *instrument.SiteMap
	inputs [][]byte
	budget int64
	arm    arm
	seed   uint64
}

func runAll(root, out, targets, armList string, seeds, parallel int) error {
	ctx := context.Background()
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	var chosen []arm
	for _, n := range strings.Split(armList, ",") {
		i := slices.IndexFunc(arms, func(a arm) bool { return a.name == n })
		if i < 0 {
			return fmt.Errorf("-arms: unknown arm %q", n)
		}
		chosen = append(chosen, arms[i])
	}
	var todo []campaign
	for _, spec := range strings.Split(targets, ",") {
		name, b, ok := strings.Cut(spec, "=")
		budget, err := strconv.ParseInt(b, 10, 64)
		if !ok || err != nil || budget <= 0 {
			return fmt.Errorf("-targets: expected NAME=EXECS, got %q", spec)
		}
		tgt, sm, inputs, err := load(ctx, root, name)
		if err != nil {
			return err
		}
		defer tgt.Close(ctx)
		// seed-major, arm-minor: load drifts touch every arm alike
		for s := 1; s <= seeds; s++ {
			for _, a := range chosen {
				todo = append(todo, campaign{name, tgt, sm, inputs, budget, a, uint64(s)})
			}
		}
	}
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, c := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r, err := run(ctx, c)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			line, _ := json.Marshal(r)
			f.Write(append(line, '\n'))
			fmt.Fprintf(os.Stderr, "%s %s seed %d: coverage %d, crashes %d, %.0f execs/s\n", r.Target, r.Arm, r.Seed, r.Coverage, r.Crashes, r.ExecsPerSec)
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return f.Sync()
}

// load instruments and compiles examples/name/name.wasm (fuel and dirty
// pages, as engine's tests) and reads its seeds.
func load(ctx context.Context, root, name string) (*runtime.Target, *instrument.SiteMap, [][]byte, error) {
	dir := filepath.Join(root, "examples", name)
	wasm, err := os.ReadFile(filepath.Join(dir, name+".wasm"))
	if err != nil {
		return nil, nil, nil, err
	}
	wasm, sm, err := instrument.Instrument(wasm, instrument.Options{Fuel: true, DirtyPages: true})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	cache, err := os.MkdirTemp("", "fairlevy-cache")
	if err != nil {
		return nil, nil, nil, err
	}
	tgt, err := runtime.New(ctx, &instrument.Prepared{Wasm: wasm, SiteMap: sm}, runtime.Config{MaxInputLen: engine.DefaultMaxLen, CacheDir: cache})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	var inputs [][]byte
	err = filepath.WalkDir(filepath.Join(dir, "seeds"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		inputs = append(inputs, b)
		return err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return tgt, sm, inputs, nil
}

// curveStore is an engine.Store keeping only the stats reports.
type curveStore struct {
	execs []int64
	cov   []int
}

func (s *curveStore) Load(context.Context) ([][]byte, error)            { return nil, nil }
func (s *curveStore) AddEntry(context.Context, *engine.Entry) error     { return nil }
func (s *curveStore) AddFailure(context.Context, *engine.Finding) error { return nil }
func (s *curveStore) WriteStats(_ context.Context, st *engine.Stats) error {
	s.execs = append(s.execs, st.Execs)
	s.cov = append(s.cov, st.Coverage)
	return nil
}

func run(ctx context.Context, c campaign) (*result, error) {
	cfg := engine.Config{Search: engine.Search{Seed: c.seed, Runs: c.budget, Workers: 1, KeepGoing: true, NoShrink: true}, Conditionals: c.sm.Conditionals(), StatsInterval: 2 * time.Millisecond}
	c.arm.cfg(&cfg)
	st := &curveStore{}
	deps := engine.Deps{NewExecutor: wcampaign.Executors(c.tgt), Seeds: c.inputs, TargetDict: c.sm.Dictionary, Store: st}
	var sum *engine.Summary
	var err error
	var ff *engine.FairFuzz
	var lv *engine.Levy
	switch cfg.Strategy {
	case "fairfuzz":
		ff = engine.NewFairFuzz(engine.StrategyOptions{Raw: true, Havoc: cfg.Havoc, FairFuzz: cfg.FairFuzz})
		sum, err = engine.FuzzWith(ctx, cfg, deps, ff)
	case "levy":
		lv = engine.NewLevy(engine.StrategyOptions{Raw: true, Workers: cfg.Workers, Levy: cfg.Levy})
		sum, err = engine.FuzzWith(ctx, cfg, deps, lv)
	default:
		sum, err = engine.Fuzz(ctx, cfg, deps)
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s seed %d: %w", c.target, c.arm.name, c.seed, err)
	}
	r := &result{Target: c.target, Arm: c.arm.name, Seed: c.seed, Budget: c.budget, Execs: sum.Stats.Execs,
		Coverage: sum.Stats.Coverage, Crashes: sum.Stats.Crashes, ExecsPerSec: sum.Stats.ExecsPerSec}
	if ff != nil {
		r.TargetRuns, r.TargetHits = ff.TargetRuns, ff.TargetHits
	}
	if lv != nil && lv.Batches > 0 {
		r.LevyBatches, r.LevyNovel, r.LevyMeanAlpha = lv.Batches, lv.NovelBatches, lv.AlphaSum/float64(lv.Batches)
		r.LevyFloor = lv.FloorBatches
		n := 0
		for i, c := range lv.AlphaHist {
			if n += c; 2*n >= lv.Batches {
				r.LevyMedianAlpha = (float64(i) + 0.5) / 100
				break
			}
		}
	}
	for _, frac := range []int64{100, 20, 10, 4, 2, 1} {
		x := c.budget / frac
		i := sort.Search(len(st.execs), func(i int) bool { return st.execs[i] >= x })
		if i == len(st.execs) {
			i--
		}
		r.Checkpoints = append(r.Checkpoints, x)
		r.Curve = append(r.Curve, st.cov[i])
	}
	return r, nil
}

// printReport reads campaign lines and prints one table per target.
func printReport(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var rs []result
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		var r result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("%s:%d: expected a campaign's JSON line: %w", path, line, err)
		}
		rs = append(rs, r)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	var targets, armNames []string
	for _, r := range rs {
		if !slices.Contains(targets, r.Target) {
			targets = append(targets, r.Target)
		}
		if !slices.Contains(armNames, r.Arm) {
			armNames = append(armNames, r.Arm)
		}
	}
	// arms in the order of the arms table
	slices.SortStableFunc(armNames, func(a, b string) int {
		return slices.IndexFunc(arms, func(x arm) bool { return x.name == a }) - slices.IndexFunc(arms, func(x arm) bool { return x.name == b })
	})
	for _, t := range targets {
		sel := func(a string) []result {
			var out []result
			for _, r := range rs {
				if r.Target == t && r.Arm == a {
					out = append(out, r)
				}
			}
			return out
		}
		// against havoc, or the first arm when there is none
		baseName := "havoc"
		if len(sel(baseName)) == 0 {
			baseName = armNames[0]
		}
		base := sel(baseName)
		if len(base) == 0 {
			continue
		}
		cps := base[0].Checkpoints
		fmt.Fprintf(w, "\n#### %s (%d executions, %d seeds)\n\n", t, base[0].Budget, len(base))
		fmt.Fprint(w, "Branch coverage (sites) at fixed executions, median [min–max]:\n\n| arm |")
		for _, x := range cps {
			fmt.Fprintf(w, " %s |", human(x))
		}
		fmt.Fprint(w, "\n|---|")
		for range cps {
			fmt.Fprint(w, "---|")
		}
		fmt.Fprintln(w)
		for _, a := range armNames {
			g := sel(a)
			fmt.Fprintf(w, "| %s |", a)
			for i := range cps {
				fmt.Fprintf(w, " %s |", spread(ints(g, func(r result) float64 { return float64(r.Curve[i]) })))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "\nAt the end, against %s (and fairfuzz against havoc-afl, the paper's baseline): Â12 > 0.5 means the arm tends to cover more.\n\n", baseName)
		fmt.Fprintf(w, "| arm | coverage | Â12 vs %s | p (MWU) | unique crashes | execs/s | targeted children hitting the target |\n", baseName)
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
		cov := func(r result) float64 { return float64(r.Coverage) }
		for _, a := range armNames {
			g := sel(a)
			x := ints(g, cov)
			y := ints(base, cov)
			a12, p := "–", "–"
			if a != baseName {
				a12 = fmt.Sprintf("%.2f", evalstats.A12(x, y))
				p = fmt.Sprintf("%.3f", evalstats.MannWhitney(x, y).P)
			}
			if strings.HasPrefix(a, "fairfuzz") {
				if afl := sel("havoc-afl"); len(afl) > 0 {
					z := ints(afl, cov)
					a12 += fmt.Sprintf(" (%.2f vs havoc-afl)", evalstats.A12(x, z))
					p += fmt.Sprintf(" (%.3f)", evalstats.MannWhitney(x, z).P)
				}
			}
			hit := "–"
			if g[0].TargetRuns > 0 {
				hit = spread(ints(g, func(r result) float64 {
					return math.Round(1000*float64(r.TargetHits)/float64(max(r.TargetRuns, 1))) / 10
				})) + " %"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", a, spread(x), a12, p,
				spread(ints(g, func(r result) float64 { return float64(r.Crashes) })),
				spread(ints(g, func(r result) float64 { return math.Round(r.ExecsPerSec) })), hit)
		}
		for _, a := range armNames {
			g := sel(a)
			if !strings.HasPrefix(a, "levy") || len(g) == 0 || g[0].LevyBatches == 0 {
				continue
			}
			fmt.Fprintf(w, "\n%s: %s batches of 64, %s of them with Ē > 0 (a child executing a site the history of the last 4,096 children lacked); the offset walk's mean α %s", a,
				spread(ints(g, func(r result) float64 { return float64(r.LevyBatches) })),
				spread(ints(g, func(r result) float64 { return float64(r.LevyNovel) })),
				spread(ints(g, func(r result) float64 { return math.Round(1000*r.LevyMeanAlpha) / 1000 })))
			if g[0].LevyMedianAlpha > 0 {
				fmt.Fprintf(w, ", median α %s, %s %% of the batches at the floor",
					spread(ints(g, func(r result) float64 { return r.LevyMedianAlpha })),
					spread(ints(g, func(r result) float64 {
						return math.Round(1000*float64(r.LevyFloor)/float64(r.LevyBatches)) / 10
					})))
			}
			fmt.Fprintln(w, ".")
		}
	}
	return nil
}

func human(x int64) string {
	switch {
	case x >= 1_000_000 && x%100_000 == 0:
		return fmt.Sprintf("%gM", float64(x)/1e6)
	case x >= 1000 && x%100 == 0:
		return fmt.Sprintf("%gk", float64(x)/1e3)
	}
	return strconv.FormatInt(x, 10)
}

func ints(rs []result, f func(result) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

func spread(x []float64) string {
	if len(x) == 0 {
		return "–"
	}
	s := slices.Clone(x)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return fmt.Sprintf("%g [%g–%g]", med, s[0], s[len(s)-1])
}
