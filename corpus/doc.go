// Package corpus stores a fuzzing campaign on disk, in a layout an AFL++
// user knows:
//
//	OUT/queue/id:000042,src:000017,op:zest,+cov   raw input bytes
//	OUT/crashes/id:000003,kind:unreachable,src:000042,op:havoc
//	OUT/crashes/<name>.orig                       input first saved, once replaced
//	OUT/hangs/id:000001,kind:hang,src:000007,op:zest
//	OUT/fuzzer_stats, OUT/plot_data               AFL's formats
//	OUT/.wafer/meta/{queue,crashes,hangs}/<name>   sidecar ("wafer corpus v1")
//	OUT/.wafer/checkpoint                          counters and engine state
//	OUT/.wafer/cache/index.log, <name>.zst         resume index, blobs (zstd)
//	OUT/.synced/<peer>                             peer ids imported
//
// Input files hold exactly the input; what wafer knows about an entry
// (choice sequence and kinds, parents, operator, coverage, identity) lives
// in its sidecar. Queue entries are deduplicated by the xxhash64 of their
// bytes; failures by identity (internal/failureid.Key, docs/ALGORITHMS.md §7),
// each keeping its smallest reproducer and a hit count; Failure.Site groups
// identities into bugs; crashes that did not crash again go to flaky/.
// ShrinkBytes and ShrinkChoices keep a failure's identity while shrinking,
// Merge is greedy set cover, Dir.Syncer imports sibling campaigns' queues.
//
// Crash safety: every file is written to a dot-named temporary, synced,
// renamed and its directory synced, the sidecar before the input, so a
// campaign killed at any instant resumes with every entry whose Add
// returned. Corrupt files are reported by path in one error and skipped,
// never fatal (a queue entry whose sidecar is bad keeps its input), but a
// checkpoint of a newer format fails Open (*VersionError: a resume would
// overwrite it); a write error is a *WriteError naming the file. Open reads
// the entries the index log holds from it (Options.Verify reads every
// file); sync reads only renamed files, so it works on NFS.
//
// It does not run targets (shrinking and merging take the caller's run
// function; it imports no other wafer package), does not interpret choice
// kinds or coverage feature ids, and takes no locks across processes: two
// processes must not open one campaign directory for writing.
//
// Decisions: the index's zstd writer keeps a 1 MiB window (2 MB, not 16;
// docs/PERFORMANCE.md, "Peak memory of a campaign"), and AddEntry keeps no
// coverage in memory ("Queue entries keep no trace unless ...").
//
// Security: readers never panic on malformed files and cap what a file can
// make them allocate (zstd output at 1 GiB); a campaign directory is
// otherwise trusted; names are sanitised before they become file names.
package corpus
