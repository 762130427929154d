// Package wasip1 is wafer's own implementation of the WASI
// wasi_snapshot_preview1 host module for wazero: isolated, deterministic,
// and aware of the base offset of instrumented modules.
//
// # Why not wazero's
//
// An instrumented module keeps its memory shifted up by
// instrument.Layout.ReservedBytes(): target address a lives at real
// address a+base. WASI functions receive target addresses, both as
// parameters and inside the structures they read (iovec/ciovec buffers,
// subscriptions), so every guest pointer here has State.Base added before
// memory is touched; pointers written back for the guest (args_get's argv
// array) stay target addresses. With Base 0 an ordinary module runs
// unchanged.
//
// # Use
//
//	wasip1.Instantiate(ctx, r)                    // once per wazero.Runtime
//	st := &wasip1.State{Base: base, Args: ..., Stdin: input,
//	        Stdout: wasip1.NewTailBuffer(4096), Stderr: wasip1.NewTailBuffer(4096), Seed: 1}
//	runCtx := wasip1.WithState(ctx, st)           // per worker
//	mod, err := r.InstantiateModule(runCtx, compiled, cfg)  // _start runs with it
//	st.Reset(); st.Stdin = next                   // before each later run
//	_, err = fn.Call(runCtx, ...)
//
// The host module holds no state: each host function reads the *State
// from the context wazero passes it, so one instance serves every worker
// concurrently, each calling with its own State. A call without a State
// gets ENOSYS (proc_exit still exits). Instantiation runs start functions
// with the instantiation context, so put the State in that context too.
//
// # What the guest sees
//
//   - args_get, environ_get: State.Args, State.Env.
//   - clock_time_get: a fake clock. Every call advances it by ClockStep
//     (1 ms) and returns it; realtime = ClockEpoch (2024-01-01) + the
//     monotonic value; the CPU-time clocks read as monotonic.
//     clock_res_get reports ClockStep.
//   - random_get: a math/rand/v2 PCG stream seeded from State.Seed.
//   - fd 0 reads State.Stdin; fd 1 and 2 write to the State.Stdout and
//     State.Stderr TailBuffers (last N bytes and a total count kept).
//     Writing anywhere else is EBADF.
//   - fd 3 is the preopened directory "/" when State.Files is non-empty:
//     a read-only in-memory tree (keys are paths, directories implicit;
//     "a" and "/a" name the same file, keep keys distinct).
//     path_open, path_filestat_get, fd_read/fd_pread/fd_seek/fd_tell,
//     fd_filestat_get and fd_readdir work on it; anything that would
//     create, truncate or write is EROFS (EISDIR on a directory), a
//     missing path ENOENT. ".." never climbs above "/". There is no
//     access to the host file system at all: /etc/passwd is ENOENT unless
//     Files has "etc/passwd".
//   - fd_fdstat_get/fd_filestat_get describe stdio as character devices,
//     the preopen and opened directories as directories, files as regular
//     files; times are ClockEpoch. fd_fdstat_set_flags records NONBLOCK
//     (reads never block anyway) and any flag on stdout/stderr.
//   - Misuse answers as POSIX would: reading a directory EISDIR, seeking
//     stdio ESPIPE, a closed or unknown descriptor EBADF, an unknown clock
//     EINVAL.
//   - poll_oneoff never blocks: descriptor subscriptions are answered at
//     once; otherwise the earliest clock subscription fires and the fake
//     clock jumps to its deadline, so sleeps cost no time.
//   - proc_exit closes the calling module with the code and panics with
//     sys.NewExitError, as wazero's own WASI does: the caller's Call
//     returns a *sys.ExitError; State.Exited/ExitCode record it too.
//   - sched_yield succeeds; fd_advise, fd_sync, fd_datasync are valid
//     no-ops on open descriptors.
//   - Not provided (an errno, the host untouched): sockets (ENOTSUP),
//     path_create_directory, path_link, path_remove_directory,
//     path_rename, path_symlink, path_unlink_file, path_filestat_set_times,
//     fd_allocate, fd_filestat_set_size/_times (EROFS on the file system,
//     EBADF on stdio or a bad descriptor), fd_renumber and
//     fd_fdstat_set_rights (ENOTSUP), path_readlink (EINVAL: no links),
//     proc_raise (ENOSYS).
//
// Every function of wasi_snapshot_preview1 is exported with its exact
// signature, so any preview1 module links. The older "wasi_unstable"
// (preview0) module is not provided.
//
// # Security
//
// All guest memory goes through one bounds-checked accessor that adds
// Base, checks the whole range (including 32-bit wrap-around) against the
// current memory size, and makes the function return EFAULT otherwise. A
// hostile guest cannot make a host function panic, read outside its own
// memory, or reach the reserved region below Base (FuzzCalls checks both).
// Ranges are checked before anything is written where a function writes
// several results, and fd_write is all or nothing. Nothing is ever opened,
// created, read or written on the host, and there is no network.
//
// Not guarded against: CPU time spent on the guest's behalf (random_get of
// a whole memory, fd_readdir of a huge Files map) is bounded only by the
// guest's memory and the caller's fuel or timeout; a State used by two
// goroutines at once is a data race; Files contents and Stdin are shared
// with the caller, who must not modify them during a run. Open descriptors
// are capped at 1024 per run (EMFILE).
//
// # Cost
//
// fd_read of stdin, fd_write, clock_time_get, random_get and State.Reset do
// not allocate, neither in the host function nor end to end through
// wazero's compiler (TestZeroAlloc); path_open and fd_readdir allocate.
// Each host call captures the guest memory as one slice, so an access is a
// slice bounds check. On the shared 2-core CI machine (heavily loaded, so
// ±50%), the host side costs about 20-30 ns for clock_time_get and a
// 32-byte random_get, 30-70 ns for a 64-byte stdin fd_read and 80-200 ns
// for a 64-byte fd_write (BenchmarkHostFuncs); a whole call from Go into a
// guest that calls the import costs 250-600 ns, dominated by wazero's
// Go/Wasm transitions and in the same range as wazero's own WASI
// (BenchmarkHostCalls vs BenchmarkWazeroWASI).
//
// # Tests
//
// Fixtures live in testdata/ with their sources and are rebuilt by
// testdata/build.sh (wat2wasm, GOOS=wasip1 go build, clang-14 with
// wasi-libc, and testdata/instrumentgen, which runs instrument/ on the C
// program so its base-offset run can be checked against the original);
// tests embed the .wasm files and never run the tools.
package wasip1
