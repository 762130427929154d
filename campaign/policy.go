package campaign

import "fmt"

// This file holds the campaign policy that a front end applies to what a
// campaign returns or is given: which seeds warm a Go reactor up, and how
// the saved failures group into bugs.

// The seed warm-up's bounds (SeedWarmUp).
const (
	MaxWarmUpSeeds = 16
	MaxWarmUpBytes = 1 << 20
)

// SeedWarmUp returns the indices of the seeds that should run as warm-up
// inputs (TargetOptions.WarmUp) on t: the first MaxWarmUpSeeds non-empty
// ones, MaxWarmUpBytes together at most. None unless t is a Go reactor
// whose runs start from a snapshot or share an instance (not ResetFresh)
// and whose options give no warm-up of their own. On a Go reactor a run
// from a cold snapshot redoes the first-use work of the runtime and the
// program (allocator caches, lazily built tables, sync.Once) every time;
// from the seeds' warm snapshot the loop runs gojson's inputs 1.35 and
// gopng's 1.55 times as fast per CPU second (docs/PERFORMANCE.md,
// "Warm-up before the snapshot"). Branches only a first use reaches are
// then not counted.
func (t *Target) SeedWarmUp(seeds [][]byte) []int {
	if len(t.opts.WarmUp) > 0 || t.opts.Reset == ResetFresh || t.Harness() != HarnessGo {
		return nil
	}
	var picked []int
	total := 0
	for i, s := range seeds {
		if len(s) == 0 || total+len(s) > MaxWarmUpBytes {
			continue
		}
		picked = append(picked, i)
		total += len(s)
		if len(picked) == MaxWarmUpSeeds {
			break
		}
	}
	return picked
}

// Bug is one crash site of a campaign directory with the saved failures
// (crash states) that share it; a hang is a bug of its own.
type Bug struct {
	// Site is the crash site (runtime.Result.CrashSite), or "identity X"
	// for a failure without one.
	Site string
	// States are the saved failures at Site, in the directory's order;
	// Hits in each is this session's runs of its identity.
	States []Saved
	// Hang is true when the first failure saved at Site is a hang.
	Hang bool
}

// Bugs groups the directory's saved failures (Summary.Saved) by crash
// site, in the order each site was first saved, with this session's hits
// of each identity (Finding.Hits) in the states' SessionHits.
func (s *Summary) Bugs() []Bug {
	hits := map[string]int64{}
	for _, fd := range s.Findings {
		hits[fd.Identity] += fd.Hits
	}
	var bugs []Bug
	index := map[string]int{}
	for _, cf := range s.Saved {
		site := cf.Site
		if site == "" {
			site = "identity " + cf.Identity
		}
		cf.SessionHits = hits[cf.findingIdentity()]
		i, ok := index[site]
		if !ok {
			i = len(bugs)
			index[site] = i
			bugs = append(bugs, Bug{Site: site, Hang: cf.Hang})
		}
		bugs[i].States = append(bugs[i].States, cf)
	}
	return bugs
}

// findingIdentity is the saved failure's identity as a Finding carries it
// (runtime.Result.Identity: the outcome, ": ", the directory's key), so a
// crash and a hang of the same key stay apart.
func (cf Saved) findingIdentity() string {
	o := Crash
	if cf.Hang {
		o = Hang
	}
	return o.String() + ": " + cf.Identity
}

// FoundLine is the summary's count of bugs, crash states and hangs: "1 bug
// (2 crash states), hangs 0", with this session's share when earlier
// sessions found some of them ("(…, 1 new), hangs 3 (0 new)").
func (s *Summary) FoundLine() string {
	var crashes, hangs, sites int
	for _, b := range s.Bugs() {
		if !b.Hang {
			sites++
		}
		for _, cf := range b.States {
			if cf.Hang {
				hangs++
			} else {
				crashes++
			}
		}
	}
	bugs := plural(sites, "bug", "bugs")
	states := plural(crashes, "crash state", "crash states")
	if crashes != s.Stats.Crashes || hangs != s.Stats.Hangs {
		return fmt.Sprintf("%s (%s, %d new), hangs %d (%d new)", bugs, states, s.Stats.Crashes, hangs, s.Stats.Hangs)
	}
	return fmt.Sprintf("%s (%s), hangs %d", bugs, states, hangs)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
