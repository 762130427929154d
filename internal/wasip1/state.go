package wasip1

import (
	"context"
	"math/rand/v2"
)

// Defaults for the deterministic clock (see State.ClockEpoch, ClockStep).
const (
	// DefaultClockEpoch is the realtime clock's start, in nanoseconds since
	// the Unix epoch: 2024-01-01T00:00:00Z.
	DefaultClockEpoch uint64 = 1704067200 * 1e9
	// DefaultClockStep is how far both clocks advance per clock_time_get.
	DefaultClockStep uint64 = 1e6 // 1 ms
)

// Fixed file descriptors.
const (
	fdStdin   = 0
	fdStdout  = 1
	fdStderr  = 2
	fdPreopen = 3 // the "/" preopen, present when State.Files is non-empty
	fdFirst   = 4 // first descriptor path_open hands out
)

// State is everything one run of one module instance sees through WASI.
// The host module keeps no state of its own: each host call reads the
// *State from its context (WithState), so a single instantiated host
// module serves any number of guest instances concurrently as long as each
// goroutine calls with its own State.
//
// The exported fields are configuration; set them before a run. The
// unexported fields (stdin position, clock, random stream, open files,
// exit status) are run state, cleared by Reset. A State whose run state was
// never reset is reset implicitly on its first host call, so the zero value
// is usable: no args, no environment, empty stdin, no files (no preopen),
// output discarded, seed 0, default clock.
//
// A State is not safe for concurrent use: one per worker goroutine.
type State struct {
	// Base is added to every guest pointer before memory is touched: the
	// instrumented module's instrument.Layout.ReservedBytes(), 0 for an
	// uninstrumented module.
	Base uint64
	// DirtyOffset and DirtyLen locate the instrumented module's dirty-page
	// map in the same memory (real address and length in bytes:
	// instrument.Layout.DirtyOffset/DirtyPages), one byte per block of
	// 1<<DirtyShift target bytes (instrument.Layout.DirtyShift(); 0 means
	// 16, one byte per 64 KiB page). When DirtyLen is non-zero, every guest
	// range a host call touches is marked there, so a host that restores
	// only dirty blocks also restores what WASI wrote (fd_read buffers,
	// clock and random results). Ranges that are only read are marked too:
	// a superset costs a block copy, never a wrong restore. DirtyLen 0 marks
	// nothing.
	DirtyOffset uint64
	DirtyLen    uint64
	DirtyShift  uint8
	// Args is argv, Args[0] being the program name. Env holds "KEY=value"
	// strings. Both are copied into guest memory as given.
	Args []string
	Env  []string
	// Stdin is what fd 0 reads; the read position is run state.
	Stdin []byte
	// Files is a read-only in-memory file system mounted as the preopened
	// directory "/" (fd 3), present only when Files is non-empty. Keys are
	// slash-separated paths relative to the root ("input", "dir/a.txt"; a
	// leading "/" is ignored); directories exist implicitly as key
	// prefixes. Contents are never modified.
	Files map[string][]byte
	// Stdout and Stderr capture fd 1 and fd 2; nil discards (writes still
	// succeed).
	Stdout, Stderr *TailBuffer
	// Seed selects the random_get stream (math/rand/v2 PCG).
	Seed uint64
	// ClockEpoch is the realtime clock's value before the first read, in
	// ns since the Unix epoch; 0 means DefaultClockEpoch. The monotonic
	// clock starts at 0. Both advance by ClockStep ns (0 means
	// DefaultClockStep) at every clock_time_get and by the timeout of a
	// clock subscription that poll_oneoff reports.
	ClockEpoch uint64
	ClockStep  uint64

	// Exited and ExitCode record a proc_exit of the current run.
	Exited   bool
	ExitCode uint32

	ready    bool     // run state initialised
	stdinPos uint64   // next byte of Stdin fd 0 reads
	now      uint64   // monotonic clock, ns
	rng      rand.PCG // random_get stream
	std      [4]fdInfo
	files    []openFile // fd fdFirst+i
}

// fdInfo is the mutable status of fds 0..3.
type fdInfo struct {
	closed bool
	flags  uint16
}

// openFile is a descriptor handed out by path_open.
type openFile struct {
	used  bool
	dir   bool
	path  string // cleaned, relative to the root, "" is the root
	data  []byte
	pos   uint64
	flags uint16
}

// Reset clears the run state: stdin position, clocks, the random stream
// (reseeded from Seed), descriptors opened by the guest (fds 0-3 reopen),
// the exit status, and the Stdout/Stderr buffers. Configuration fields are
// kept. Reset does not allocate.
func (s *State) Reset() {
	s.ready = true
	s.stdinPos = 0
	s.now = 0
	s.rng.Seed(s.Seed, s.Seed^0x9e3779b97f4a7c15)
	s.std = [4]fdInfo{}
	clear(s.files)
	s.files = s.files[:0]
	s.Exited, s.ExitCode = false, 0
	s.Stdout.Reset()
	s.Stderr.Reset()
}

func (s *State) epoch() uint64 {
	if s.ClockEpoch == 0 {
		return DefaultClockEpoch
	}
	return s.ClockEpoch
}

func (s *State) step() uint64 {
	if s.ClockStep == 0 {
		return DefaultClockStep
	}
	return s.ClockStep
}

// hasPreopen reports whether fd 3 is the "/" preopen.
func (s *State) hasPreopen() bool { return len(s.Files) > 0 }

type stateKey struct{}

// WithState returns a context carrying s; pass it to every call into (and
// to the instantiation of) a guest that imports wasi_snapshot_preview1.
func WithState(ctx context.Context, s *State) context.Context {
	return context.WithValue(ctx, stateKey{}, s)
}

// StateFrom returns the State in ctx, or nil.
func StateFrom(ctx context.Context) *State {
	s, _ := ctx.Value(stateKey{}).(*State)
	return s
}
