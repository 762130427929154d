package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/wafer-fuzz/wafer/corpus"
	"github.com/wafer-fuzz/wafer/covreport"
	"github.com/wafer-fuzz/wafer/instrument"
)

// TestCovRegions replays the seeds of examples/tlv and examples/cexpr
// (C with DWARF) and checks the site maps' code regions against the runs
// and the reports: every region lies in the function its site counts,
// after the conditional whose arm it is; in every run, a hit region's
// function was entered; a line the report marks reached has a hit region
// or site on it and a line marked not covered has none; with regions,
// more lines are marked than with the sites alone; and building the
// report twice gives the same lcov.
func TestCovRegions(t *testing.T) {
	for _, name := range []string{"tlv", "cexpr"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir := exampleDir(t, name)
			target := filepath.Join(dir, name+".wasm")
			wasm, err := os.ReadFile(target)
			if err != nil {
				t.Fatal(err)
			}
			c := &cli{stdout: io.Discard, stderr: io.Discard}
			seeds, err := c.readSeeds(ctx, []string{filepath.Join(dir, "seeds")})
			if err != nil || len(seeds) == 0 {
				t.Fatalf("seeds: %d, %v", len(seeds), err)
			}
			f := newCovFlags()
			tg, err := f.target.loadTarget(ctx, target, wasm)
			if err != nil {
				t.Fatal(err)
			}
			rp, err := tg.NewReplayer(ctx, maxSeedLen(seeds))
			if err != nil {
				t.Fatal(err)
			}
			defer rp.Close()
			sm := rp.SiteMap()
			if len(sm.Regions) == 0 || len(sm.LineTable) == 0 {
				t.Fatalf("%d regions, %d line table entries: want both", len(sm.Regions), len(sm.LineTable))
			}
			// static: each region in its site's function, after its arm's
			// conditional
			ends := map[uint32]uint32{}
			var starts []uint32
			for _, fn := range sm.Funcs {
				if fn.Offset != 0 {
					starts = append(starts, fn.Offset)
				}
			}
			sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
			for i, s := range starts {
				ends[s] = ^uint32(0)
				if i+1 < len(starts) {
					ends[s] = starts[i+1]
				}
			}
			entry := map[uint32]int{}
			for id, s := range sm.Sites {
				if s.Kind == instrument.FuncEntry {
					entry[s.Func] = id
				}
			}
			for _, r := range sm.Regions {
				if r.Site == instrument.NoRegion {
					continue
				}
				s := sm.Sites[r.Site]
				fo := sm.Funcs[s.Func].Offset
				if r.Offset < fo || r.Offset >= ends[fo] {
					t.Errorf("region %+v of %s lies outside its function's body %#x..%#x", r, sm.Describe(int(r.Site)), fo, ends[fo])
				}
				if s.Kind != instrument.FuncEntry && r.Offset <= s.Offset {
					t.Errorf("region %+v of %s starts before its conditional", r, sm.Describe(int(r.Site)))
				}
			}
			// dynamic: per run, a hit region's function was entered; the
			// seeds and 60 fixed mutants of them (bytes changed, cut,
			// doubled)
			rng := rand.New(rand.NewPCG(1, 2))
			inputs := seeds
			for i := range 60 {
				d := bytes.Clone(seeds[i%len(seeds)].Data)
				switch i % 3 {
				case 0:
					for range 1 + rng.IntN(4) {
						if len(d) > 0 {
							d[rng.IntN(len(d))] = byte(rng.IntN(256))
						}
					}
				case 1:
					d = d[:rng.IntN(len(d)+1)]
				default:
					d = append(d, d[rng.IntN(len(d)+1):]...)
				}
				inputs = append(inputs, corpus.Seed{Path: fmt.Sprintf("mutant-%d", i), Data: d})
			}
			cov := covreport.NewCoverage(sm)
			for _, seed := range inputs {
				res, err := rp.Run(ctx, seed.Data)
				if err != nil {
					t.Fatal(err)
				}
				ctr := make([]byte, len(sm.Sites))
				copy(ctr, res.Counters)
				sm.FillDerived(ctr)
				for _, r := range sm.Regions {
					if r.Site != instrument.NoRegion && ctr[r.Site] > 0 && ctr[entry[sm.Sites[r.Site].Func]] == 0 {
						t.Errorf("%s: region of %s hit, its function not entered", seed.Path, sm.Describe(int(r.Site)))
					}
				}
				in := covreport.Input{Path: seed.Path, Outcome: covreport.Valid}
				if res.Failure != nil {
					in.Outcome = covreport.Crash
				}
				if err := cov.Add(in, res.Counters); err != nil {
					t.Fatal(err)
				}
			}
			// the report's lines against the regions and sites, recomputed
			reached := map[[2]uint32]bool{}
			hasCode := map[[2]uint32]bool{}
			for i, le := range sm.LineTable {
				end := ^uint32(0)
				if i+1 < len(sm.LineTable) {
					end = sm.LineTable[i+1].Offset
				}
				for j, r := range sm.Regions {
					rEnd := ^uint32(0)
					if j+1 < len(sm.Regions) {
						rEnd = sm.Regions[j+1].Offset
					}
					if r.Site == instrument.NoRegion || rEnd <= le.Offset || r.Offset >= end || le.Line == 0 {
						continue
					}
					k := [2]uint32{le.File, le.Line}
					hasCode[k] = true
					reached[k] = reached[k] || cov.Inputs[r.Site] > 0
				}
			}
			for id, l := range sm.Lines {
				if l.Line != 0 && cov.Inputs[id] > 0 {
					reached[[2]uint32{l.File, l.Line}] = true
				}
			}
			fileIdx := map[string]uint32{}
			for i, p := range sm.Files {
				fileIdx[p] = uint32(i)
			}
			for i, fn := range sm.Funcs { // a function's own line, marked by its entry
				if id, ok := entry[uint32(i)]; ok && fn.File != "" && fn.Line != 0 && cov.Inputs[id] > 0 {
					reached[[2]uint32{fileIdx[fn.File], fn.Line}] = true
				}
			}
			rep := covreport.Build(cov, covreport.Options{})
			marked := 0
			for _, fl := range rep.Files {
				for _, l := range fl.Lines {
					k := [2]uint32{fileIdx[fl.Path], l.Number}
					switch l.State {
					case covreport.Covered, covreport.PartCovered:
						if !reached[k] {
							t.Errorf("%s:%d marked %v, no hit region or site on it", fl.Path, l.Number, l.State)
						}
					case covreport.NotCovered:
						if reached[k] {
							t.Errorf("%s:%d marked not covered, a region or site on it was hit", fl.Path, l.Number)
						}
					}
					if hasCode[k] {
						marked++
					}
				}
			}
			if marked != len(hasCode) {
				t.Errorf("%d of the %d lines with code in a region are marked", marked, len(hasCode))
			}
			old := *sm
			old.Regions = nil
			oc := covreport.NewCoverage(&old)
			copy(oc.Inputs, cov.Inputs)
			oldRep := covreport.Build(oc, covreport.Options{})
			if oldRep.Lines >= rep.Lines {
				t.Errorf("%d lines marked with regions, %d without: want more with", rep.Lines, oldRep.Lines)
			}
			t.Logf("%d inputs: %d lines marked (%d reached), %d without regions; %d regions", len(inputs), rep.Lines, rep.LinesHit, oldRep.Lines, len(sm.Regions))
			if a, b := rep.LCOV(), covreport.Build(cov, covreport.Options{}).LCOV(); !bytes.Equal(a, b) {
				t.Error("two builds of the same coverage give different lcov")
			}
		})
	}
}
