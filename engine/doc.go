// Package engine is wafer's search loop: Zest's Algorithm 2
// (ALGORITHMS.md §1) with pluggable strategies, a coverage map with AFL
// hit-count buckets, unique traces, per-site hit counts, Hill numbers, live
// metrics (§6), failure deduplication (§7) and parallel workers.
//
// # Shape
//
// Fuzz runs a campaign. The calling goroutine is the coordinator: it alone
// owns the queue, the coverage (Coverage) and the stats, and asks the
// Strategy for work. Work goes out as Jobs (N children of one parent),
// grouped in batches of consecutive jobs (at least execs/64 children, one
// job at the start, about 256 children once the campaign has run 16k
// inputs; with several non-deterministic workers also at most ~20 ms of
// work at the measured cost per child, but never less than one job), to
// Config.Workers worker goroutines, each owning one Executor
// (one target instance) and one Mutator. A worker makes each child, runs it
// through the Generator (generator mode) and the Executor, scans the
// counters view (a zero 4 KiB block skipped with one comparison, then 32
// zero bytes at a time, then 8-byte words, no allocation per run) and
// zeroes it in the same pass (so the runtime does not clear the whole map
// again before the next run: Result.Counters), hashes the bucketed trace
// with xxhash, and checks it
// against a private coverage filter (a subset of what the worker sent:
// monotone in sites and buckets, forgetful in traces): only children that may be
// new (new (site, bucket) pair, new valid site, new trace) and failures are
// copied; the batch's survivors, its per-site hit counts and its sampled
// time shares (one child in 64 is timed) go back in one message. Since the
// coordinator merges a worker's results after everything that worker sent
// before, a child the filter drops can never be new globally, so the
// filter changes no decision. For the same reason a child the filter found
// new only in its trace (no new pair, no new valid site) has no coverage
// the coordinator lacks, and the coordinator does not look at its sites
// (childResult.covered; on csqlite, whose runs hit ~840 sites and are
// mostly new traces, that took the coordinator's merge from about 6 % to
// 1.7 % of the CPU profile of a one-worker loop). No lock is taken in the search loop, and
// there is one channel hand-off per batch, not per child or job. A stop on
// time or cancellation ends the batches in flight at their next child; so
// does a crash or an error, unless the campaign is reproducible (below),
// which then runs its issued batches to their end.
//
// Unique traces are exact up to 4 million per set: every run's trace is
// hashed and looked up, in an open-addressing set behind a 16 KiB
// direct-mapped cache of recent members (most runs repeat a recent trace),
// so Stats.UniqueTraces, Feedback.NewTrace and Coverage.Abundance count
// every distinct bucketed trace, not only those with new coverage as AFL's
// checksums do. Past 4 million (minutes to hours into a campaign: havoc on
// examples/cexpr met 1.85 million in its first minute, the process then at
// 210 MB), a fixed 64 MiB Bloom filter
// takes the rest, so memory stays bounded (128 MiB per set) and novelty is
// undercounted by its false positives (traceSet). The coordinator's sets
// decide; a worker's filter of what it sent holds at most 8 MiB and
// empties itself when full, so a trace it forgot is sent once more, never
// lost.
//
// Determinism: job j's mutations draw from PCG(Config.Seed, j), so the
// children of a job do not depend on which worker runs it. Workers pull
// batches from one queue; at most L = max(4, 2·Workers) batches are in
// flight, and after each merge the coordinator makes batches until L are
// in flight or none can be made (the budget is spent, the campaign is
// stopping, or the strategy waits for a dependent job, below). With
// Config.Deterministic a batch's size depends only on the merged state and
// results are merged strictly in issue order, so the batches made after
// merging batch m, and how many are in flight then, depend only on the
// state after merging batches 0..m (when the strategy never waits: batch
// m+L is made right after batch m is merged): the campaign (every input
// run, in (job, child) order) is a function of the seed and the worker
// count, whatever the scheduling; with L = 4 for one and two workers, the
// same for both. Without it results are merged as they arrive
// (a slow batch, e.g. one ending in a hang, never holds the others back).
// With one worker both modes are the same: reproducible. No wall clock
// enters any search decision of a reproducible campaign; time is read only
// for stats, the MaxTotalTime stop and, with several non-deterministic
// workers, the batch-size cap.
//
// # Strategies
//
// A Strategy picks parents (Next), decides what is saved (Save), learns
// from merged feedback (Learn, JobDone) and makes a Mutator per worker.
//
// Dependent runs: a strategy that must see results before it decides what
// to run next returns Dependent{Param} from Next: the children go out as
// one job, never cut, so one Mutator makes them in order, sees each one's
// outcome and trace (Observe) before making the next and may end the job
// early (Ender); its note reaches JobDone when the job is merged. Until
// then Next may return Wait, and the coordinator asks again after each
// merge while the jobs already out (other parents, other flights) keep the
// workers busy. All decisions stay on the coordinator, from merged results,
// so the determinism argument above holds unchanged. FairFuzz's trimming
// and mask probes are one dependent job per round; every Lévy batch is one.
//
// "fairfuzz" (fairfuzz.go, ALGORITHMS.md §3): rare-branch targeting
// (arms of conditionals, Config.Conditionals, by Coverage.Hits over every
// run), relaxed trimming and O/I/D mask probes, then masked havoc whose
// mask follows the bytes; on tlv, czstd and cexpr the mask raised the
// share of a round's children hitting its target from 3–15 % (the same
// rounds unmasked) to 63–67 %, on csqlite from 12 % to 28 %, and on
// csqlite fairfuzz covered 7 % more than AFL-stacked havoc on every seed
// (docs/EVALUATION.md). "levy" (levy.go, §4): Lévy flights over segment
// offsets and values with α-stable steps and α adapted to each batch's
// novelty against a FIFO history, one flight per worker.
// Built in: "zest" (geometric replacement of choice-sequence runs, valid
// coverage in the saving rule), "havoc" (AFL's havoc operators on raw bytes
// or on the choice sequence, dictionary tokens, splicing, 1 to 5 stacked per
// child as libFuzzer's mutation depth; coverage feedback only), "random"
// (fresh choices, no feedback), and the generator-mode techniques
// "bedivfuzz" (bedivfuzz.go: two streams, structural and value, mutated
// one at a time by per-parent scores; the "structure" saving rule on
// signatures of the generator's decisions, or "simple") and "spoton"
// (spoton.go: type-based targeted mutation of execution-indexed sequences
// towards the uncovered arms of half-covered conditionals, with types'
// distances learned from the runs instead of the paper's static analysis,
// and a parent's children bounded by fuel instead of time). Raw mode (no
// Generator) with havoc is the default. Mutators take a Rand, so tests
// script the randomness and assert exact children. A strategy may adapt
// the generator (generatorWrapper): BeDivFuzz's two-stream layout, SpotOn's
// call-site execution indexes.
//
// Zest against random on the same generator (issue 31): on gojson with the
// json generator, zest ran 0.36x random's executions per second (1,933
// against 5,325/s, 30,000 runs, seed 1, one worker), and the CPU profile
// puts 67 % (zest) and 42 % (random) of the time in the target's code:
// 386 against 125 µs a run. Zest's children are 126 bytes of JSON on
// average (p50 68, p99 750), random's 26 (p50 7): its parents are the
// queue's inputs, which grow to cover more, while a fresh sequence mostly
// makes a scalar or a small container. Inputs of equal length cost the same
// under both (a run grows from ~0.7 ms under 32 bytes to ~5 ms at 256-511
// bytes on the loaded machine, for either strategy). Mutation (0.1 %) and
// the generator (2.5 %) are not the cost, and the 10,240-byte cap is never
// reached (longest child 1,682 bytes), so nothing of wafer's was changed.
//
// Input-to-state (compares.go): with Deps.NewComparer in raw mode, each
// entry that covered a new branch when merged gets a stage job before
// its first strategy job: the worker runs the entry once on the target's
// comparison-logging build, finds where the operands of its comparisons
// appear in its bytes, and runs each replacement of one operand by the
// other as a child. The replacements are a function of the entry's input,
// so the campaign stays a function of the seed; the comparer's runs are
// not counted as executions.
//
// # Failures
//
// A crash or hang is never queued and its coverage is not merged. Failures
// are deduplicated by identity (Failure.Identity, which the executor sets:
// the engine never computes one; Failure.Site the crash site above it). A
// new crash is rerun once on a fresh executor before it is saved
// (verify.go): one that does not crash again is flaky (Stats.Flaky,
// FlakyStore), and a heap overflow the plain build's guard found at free
// takes the checked build's report (CheckedRunner). At the end
// of a campaign (unless canceled or Config.NoShrink) every unique crash is
// shrunk with corpus.ShrinkBytes (raw mode) or corpus.ShrinkChoices
// (generator mode) on one extra executor, and stored again in its smaller
// form.
//
// With a FuelExecutor, a mutated child first runs with a smaller fuel
// budget; one that exhausts it (a timeout) is rerun with the whole budget
// only if it reached a site no earlier timeout did, by the coordinator's
// set of such sites, so the rule does not depend on which worker ran it
// (timeouts.go).
//
// # Live sync
//
// With Deps.Importer (sync.go), other campaigns' inputs come in as AFL++'s
// sync brings them: the coordinator polls before the first execution and
// every Config.SyncInterval, the later polls on a goroutine of their own
// so a slow shared filesystem never holds up a merge; each polled input
// goes out, ahead of the strategy's jobs, as a replay job marked imported,
// and joins the queue only when it adds coverage here (a new branch or
// hit-count bucket: has_new_bits), under the importer's Op. The failure
// identities a poll brings join the known set, which is replaced, never
// written, once workers run (each batch carries the set it was made
// with): no lock on the search path. Importer.Commit is called only when
// every polled input has been merged after running, so a kill leaves the
// unrun ones to the next session. One path for the start and the live
// polls; without an Importer nothing of it runs, and the executions are
// those of a campaign without sync. With one, the course depends on what
// the peers wrote and when: not reproducible from the seed. Decision: a timer rather than a poll
// per merge or a file watch: AFL++'s, portable to NFS, and a poll costs a
// directory listing per peer. Figure (docs/EVALUATION.md): on czstd, two
// processes with live sync against one process with two workers and two
// without sync.
//
// # Wiring
//
// The engine runs targets only through the Executor and Comparer
// interfaces it declares; package campaign adapts runtime's Workers to
// them and chooses which build runs an input. FromGenerator adapts a
// generators.Generator (one Runner per worker), and NewCorpusStore adapts
// a corpus.Dir (queue/, crashes/, hangs/, fuzzer_stats, plot_data,
// checkpoints; resume replays the saved queue).
//
// # Cost
//
// Decision: one coordinator owns the coverage state and workers only scan,
// hash and send (no locks in the search loop); the counters are zeroed by
// the scan that reads them; what a batch sends (its children's choices,
// traces and inputs, their results) is one arena and one array per batch,
// and the coordinator copies what the queue and findings keep. Current
// figure (CPU-time execs/s, one worker, havoc, campaign's
// BenchmarkReactors: each target's bare module, the runtime's replay and
// the loop side by side on the same inputs, medians of 6 rounds on the
// loaded 2-core machine): the loop does 1.03M execs/s on tlv and 670k on
// cexpr, 0.30 and 0.28 of the runtime replaying the same inputs, and
// 10.9k on gojson and 36.1k on gopng, 0.66 and 0.68 of the replay (there
// the runtime's own gap to the bare module is the larger: replay at 0.29
// and 0.55 of bare). The engine's share per child on the C targets is
// ~0.3 µs of mutation and ~0.45 µs of scanning, hashing and the
// trace-set lookup; on gojson (153,234 counters, ~974 hit a run) the scan
// is ~60 % of the engine's part. The loop allocates 0.11 times per
// execution on cexpr (per job and per queue entry), 0.70 before the
// arena. On the Go reactors (CPU profiles of the loop) the engine is 14-21 %
// of an execution's CPU on gopng and 6-7 % on gojson, the workers' counter
// scan most of it (64-byte lines, 4 bytes of state per site: 1.8 and
// 2.8 µs a scan of recorded maps), the coordinator and the GC under 1 %
// each; the workers' executors are made concurrently, so a campaign's
// start is one instance's time, not one per worker. The measurements,
// their command and the earlier figures are in docs/PERFORMANCE.md
// ("engine: the loop").
//
// # What it does not do
//
// It does not instrument or run Wasm itself, and it does not lay out files.
// Every strategy of ALGORITHMS.md (§1–§5) is here; what a new one plugs
// into is: the Strategy/Mutator boundary
// (parent choice and a per-job Param from Next, the saving rule, every
// child's outcome and trace on the worker in Mutator.Observe, a per-job
// note from Mutator.Done handed back with each child's Feedback and to
// Strategy.JobDone), dependent jobs (Dependent, Wait, Ender), per-site hit counts of all runs (Coverage.Hits),
// abundance over unique traces (Coverage.Abundance, Coverage.Hill), and
// structured sequences with kinds, execution indexes and types (Entry.Seq,
// Feedback.Seq, IndexedMutator).
package engine
