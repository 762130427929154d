// Package engine is wafer's search loop: Zest's Algorithm 2
// (docs/ALGORITHMS.md §1) with pluggable strategies, a coverage map with AFL
// hit-count buckets, unique traces, per-site hit counts, Hill numbers, live
// metrics (§6), failure deduplication (§7) and parallel workers.
//
// Fuzz runs a campaign. The calling goroutine is the coordinator: it alone
// owns the queue, the Coverage and the stats, and asks the Strategy for
// Jobs (children of one parent), sent in batches to Config.Workers
// goroutines, each owning one Executor and one Mutator. A worker runs each
// child, scans and zeroes the counters, hashes the bucketed trace and sends
// back only children that may be new, and failures: its filter holds only
// what it sent, merged before the job it runs now, so a child it drops is
// never new globally and the filter changes no decision. A Strategy picks
// parents, decides what is saved and learns from merged feedback; one that
// must see results first runs a Dependent job. Built in: zest, havoc (the
// raw-mode default), random, fairfuzz (§3), levy (§4), bedivfuzz, spoton,
// and auto, a portfolio of them (§13); with a Comparer, input-to-state
// stages (compares.go). Zest, bedivfuzz and spoton also draw tree
// mutations of a generator's subtrees (§12, tree.go). With an Importer,
// other campaigns' inputs come in on a timer (sync.go).
//
// Determinism: job j draws from PCG(Config.Seed, j), so a child does not
// depend on the worker. With one worker, or Config.Deterministic, results
// are merged in issue order and the campaign is a function of the seed and
// the worker count; otherwise as they arrive. No wall clock enters a search
// decision of a reproducible campaign. A crash or hang is never queued;
// failures are deduplicated by the Identity the executor sets, rerun once
// before they are saved (flaky otherwise) and shrunk at the end.
//
// It does not run Wasm (campaign adapts runtime to the Executor and
// Comparer it declares), lay out files (NewCorpusStore adapts a
// corpus.Dir) or compute failure identities.
//
// Decisions (measured in docs/PERFORMANCE.md, the section in quotes):
//
//   - One coordinator, no lock in the loop, one hand-off per batch, batch
//     arenas reused: 0.11 allocations a run on cexpr ("The loop ...").
//   - The scan zeroes what it reads, 64-byte lines, 4 bytes of state a
//     site: 1.8-2.8 µs a Go reactor's scan ("The counter scan").
//   - Trace sets exact to 2^18 hashes, then a 16 MiB Bloom filter; worker
//     filters forget at 2 MiB ("Unique traces and the workers' filters").
//   - Only fairfuzz and levy keep queued traces; havoc stacks 1-5
//     operations, 138 ns a child ("Queue entries ...", "Havoc stacks ...").
//   - Two deterministic workers run 1.87-1.99x one ("Two workers").
package engine
