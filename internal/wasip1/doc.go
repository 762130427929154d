// Package wasip1 is wafer's own wasi_snapshot_preview1 host module for
// wazero: isolated, deterministic, and aware of the base offset of
// instrumented modules (every guest pointer gets State.Base added; with
// Base 0 an ordinary module runs unchanged).
//
//	wasip1.Instantiate(ctx, r)                  // once per wazero.Runtime
//	st := &wasip1.State{Base: base, Args: ..., Stdin: input, Seed: 1,
//	        Stdout: wasip1.NewTailBuffer(4096), Stderr: wasip1.NewTailBuffer(4096)}
//	runCtx := wasip1.WithState(ctx, st)         // per worker; also for instantiation
//	st.Reset(); st.Stdin = next                 // before each later run
//
// The host module holds no state: each function reads the *State from its
// context, so one instance serves every worker (no State: ENOSYS). The
// guest sees State.Args and Env; a fake clock advancing ClockStep (1 ms)
// per read from ClockEpoch (2024-01-01); random_get from a PCG seeded by
// State.Seed; stdin from State.Stdin and stdout/stderr into bounded
// TailBuffers; with State.Files, a read-only in-memory tree preopened as
// "/" (writes EROFS, missing paths ENOENT, ".." never above "/");
// poll_oneoff that never blocks (sleeps jump the clock); proc_exit as
// wazero's (*sys.ExitError). Misuse answers as POSIX would. Every preview1
// function is exported with its signature; sockets, links, renames and
// directory changes answer an errno and touch nothing. The older
// "wasi_unstable" module is not provided.
//
// Security: all guest memory goes through one accessor that adds Base and
// checks the whole range, wrap-around included, against the memory's
// size (EFAULT otherwise), so a guest cannot make a host function panic,
// read outside its memory or reach the reserved pages below Base
// (FuzzCalls). Nothing on the host is opened, read or written; there is
// no network. Not guarded: CPU spent on the guest's behalf is bounded only
// by its memory and fuel; a State used by two goroutines is a data race;
// Files and Stdin must not change during a run; 1024 open descriptors.
//
// Decision: the hot calls (stdin fd_read, fd_write, clock_time_get,
// random_get, State.Reset) do not allocate (TestZeroAlloc); a call from Go
// into a guest calling an import costs 250-600 ns, as with wazero's own
// WASI (BenchmarkHostCalls, BenchmarkWazeroWASI). Fixtures are rebuilt by
// testdata/build.sh; tests never run the tools.
package wasip1
