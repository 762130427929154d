// Package corpus stores a fuzzing campaign on disk: the queue of
// interesting inputs, the unique failures, the statistics files and the
// caches, in a layout an AFL++ user knows.
//
// # Layout
//
//	OUT/queue/id:000042,src:000017,op:zest,+cov   raw input bytes
//	OUT/crashes/id:000003,kind:unreachable,src:000042,op:havoc
//	OUT/hangs/id:000001,kind:hang,src:000007,op:zest
//	OUT/fuzzer_stats                               AFL "key : value" lines
//	OUT/plot_data                                  AFL header + CSV rows
//	OUT/.wafer/meta/{queue,crashes,hangs}/<name>   metadata sidecar ("wafer corpus v1")
//	OUT/.wafer/checkpoint                          executions, time, hit counts, engine state
//	OUT/.wafer/cache/index.log                     zstd records: sidecar + input + coverage per entry
//	OUT/.wafer/cache/<name>.zst                    zstd-compressed blobs (PutBlob: SiteMaps, ...)
//	OUT/.synced/<peer>                             peer ids imported (sync)
//
// Input files hold exactly the input bytes, so afl-showmap, libFuzzer or a
// hex editor read them directly; everything wafer knows about an entry
// (choice sequence and choice kinds, parents, operator, coverage added,
// failure identity, time found) lives in the sidecar, outside queue/ so
// tools that read every file of queue/ see only inputs.
//
// # Crash safety
//
// Every file is written to a temporary file in the same directory
// (a dot-name, which every reader here skips), synced, renamed over its
// final name, and the directory is synced. The sidecar is written before
// the input, so an input file that exists always has its metadata; a
// sidecar whose input is missing is an interrupted write and is removed on
// the next Open. A campaign killed at any instant resumes with every entry
// whose Add call returned, and with the counters of the last Checkpoint.
// Files that are corrupt (a sidecar that does not parse, an input whose
// hash differs from its sidecar) are reported by path in one error value
// and skipped; they never stop Open. Write errors (full disk, permission)
// are returned as a *WriteError naming the file; nothing written before is
// touched.
//
// To resume fast, each saved queue entry is also appended (buffered,
// flushed at Checkpoint and Close) to a checksummed index log; Open takes
// the entries the index has from it and reads the files of the others
// only. Options.Verify reads and checks every file instead, which also
// finds files damaged on disk after they were written (with the index,
// such an entry is served from its intact copy).
//
// # Deduplication and identity
//
// Queue entries are deduplicated by the xxhash64 of their input bytes
// (AddEntry reports a duplicate instead of writing). Failures are
// deduplicated by identity (internal/failureid.Key, the computation behind
// runtime.Result.Identity), a crash state as ClusterFuzz builds one: the
// class (one out-of-memory class however it was noticed), the class of
// the message, and the top Options.Frames frames of the target's own code
// (language runtimes, allocators, libc's memory and string functions,
// wafer's wrappers and the harness glue skipped) in the canonical form
// runtime.FrameKey gives (ALGORITHMS.md §7); each identity keeps its
// smallest reproducer (shorter, then bytewise smaller) and a hit count.
// Failure.Site groups identities by crash site, the bugs (CrashSites,
// fuzzer_stats' crash_sites). Crashes that did not crash again when rerun
// go to flaky/ (AddFlaky), not to crashes/. SHA1 names libFuzzer-style
// flat files (Flat, "crash-<sha1>").
//
// # Shrinking and merging
//
// ShrinkChoices (generator mode: a choice sequence plus opaque per-byte
// kinds) and ShrinkBytes (raw mode) shrink a failing input while a
// caller-supplied RunFunc keeps returning the same identity; both are
// deterministic and bounded by a run budget. Merge is greedy set cover
// over coverage features from a CoverFunc (libFuzzer -merge=1, afl-cmin).
//
// # Sync
//
// Campaigns that share a parent directory (OUT/<name>/) import each
// other's queue entries with Dir.Syncer: lock-free, through atomic
// renames, remembering per peer what was imported in OUT/<name>/.synced/.
// Syncer.Poll reads only entries renamed into place (temporary names
// start with a dot and are skipped; a sidecar is renamed before its
// input), so on NFS, where rename is the only atomic operation, a peer
// killed mid-write leaves nothing half-read. Syncer.Failures returns the
// peers' saved failures, each once, so their identities count as known.
// When to poll is the engine's decision (engine.Importer).
//
// # What it does not do
//
// It does not run targets: shrinking and merging take a run function
// from the caller, so this package imports no other wafer package. It does
// not interpret choice kinds (they are opaque bytes from the engine) or
// coverage feature ids (opaque uint32s). It takes no locks across
// processes: syncing relies on atomic renames only. Two processes must not
// open the same campaign directory for writing.
//
// # Security
//
// Readers never panic on malformed files and cap what a file can make
// them allocate (zstd output is capped at 1 GiB; lengths read from files
// are checked against the bytes present), but a campaign directory is
// trusted input otherwise: a hostile directory can make Open read every
// file in it. Entry and failure names are sanitised before they become
// file names; cache blob names must be plain names.
package corpus
