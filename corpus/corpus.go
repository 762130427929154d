package corpus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/wafer-fuzz/wafer/internal/failureid"
)

// Entry is one queue entry: an input and what wafer knows about it. The
// fields marked "set by Dir" are ignored by AddEntry and filled in by it.
type Entry struct {
	// Input is the raw input the target ran. Required (may be empty).
	Input []byte
	// Choices is the choice sequence that generated Input; nil in raw-byte
	// mode (Input is then its own choice sequence).
	Choices []byte
	// Kinds is the engine's choice-kind information, stored verbatim and
	// never interpreted here (nil: none).
	Kinds []byte
	// Parents are the ids of the entries this one was derived from: nil
	// for a seed or an input generated from scratch, two for a splice.
	Parents []int
	// Op names how the entry was found ("zest", "havoc", "seed",
	// "sync:<peer>"); "" is omitted from the name.
	Op string
	// NewCov is true when the entry covered a branch never seen before
	// (AFL's "+cov"), not only a new hit-count bucket.
	NewCov bool
	// Valid is true when the run was valid (the harness accepted it).
	Valid bool
	// Added lists the coverage features (engine-defined ids) this entry
	// added to the campaign (nil: none or unknown). Stored in the sidecar.
	Added []uint32
	// Coverage lists every feature the entry covers (nil: unknown). It is
	// stored in the zstd-compressed index cache, not in the sidecar, and
	// Open restores it when the cache has it; AddEntry writes it there
	// and keeps none in memory (Entries has it only for the entries Open
	// loaded).
	Coverage []uint32
	// Time is the campaign time when the entry was found (zero: unknown).
	Time time.Duration
	// Execs is the campaign's execution count when it was found.
	Execs uint64

	// ID is the entry's number in its directory (set by Dir).
	ID int
	// Name is the file name, e.g. "id:000042,src:000017,op:zest,+cov"
	// (set by Dir).
	Name string
	// Hash is the xxhash64 of Input (set by Dir).
	Hash uint64
}

// Failure is one failure: the failing input and the failure's identity
// parts, as plain strings from the engine.
type Failure struct {
	// Entry holds the input, choice sequence, parents, op and time found.
	Entry
	// Kind is the failure kind ("unreachable", "oob", "panic", "exit",
	// "hang", ...). Required: an empty Kind is stored as "unknown".
	Kind string
	// Hang stores the failure under hangs/ instead of crashes/.
	Hang bool
	// Message is the full error text; its first line, with numbers and
	// addresses replaced (internal/failureid.MessageClass), is part of the identity.
	Message string
	// Frames are the function names of the Wasm stack, innermost first;
	// the top Options.Frames of them are part of the identity.
	Frames []string
	// Repro is the command that reproduces the failure; "{input}" in it
	// is replaced with the path of the saved input file.
	Repro string
	// Site is the crash site (the failure's class, the innermost frame of
	// the target's code and its line): failures of several identities at
	// one site are one bug (CrashSites). "" when unknown: its own site.
	Site string
	// Shrunk is true once the input is the result of shrinking (crashes);
	// a crash saved before shrinking ended (a kill, SIGTERM, a campaign
	// with shrinking off) has it false, so a later session shrinks it.
	Shrunk bool

	// Identity is the deduplication key (set by Dir, see Identity).
	Identity string
	// Hits counts how often this identity was reported: set by Dir, one
	// more at each AddFailure of it, or the caller's count when that is
	// more (a caller that deduplicates itself passes its count).
	Hits uint64
}

// Options configures Open. The zero value is the safe default.
type Options struct {
	// FS is the file system; nil means OS.
	FS FS
	// NoSync skips fsync: faster, but a killed or crashed machine may
	// lose or truncate recent files. For tests and throw-away runs.
	NoSync bool
	// Frames is how many top stack frames form a failure's identity;
	// zero means 3.
	Frames int
	// Verify makes Open read and check every entry's files even when the
	// index cache holds a copy (slower; finds files damaged on disk
	// after they were written). False: trust the checksummed index for
	// entries it has, read the files of the others.
	Verify bool
	// CheckWritable makes Open first create and remove a file in every
	// directory it writes to, so a read-only one fails Open, naming it,
	// before anything is written. False: the first write fails.
	CheckWritable bool
}

// Checkpoint is the campaign state restored on resume.
type Checkpoint struct {
	// Execs is the number of executions so far.
	Execs uint64
	// Time is the campaign's fuzzing time so far (summed over resumes).
	Time time.Duration
	// State is opaque engine state (PRNG state, schedules); stored
	// zstd-compressed, nil means none.
	State []byte
}

// SkippedFile is one file Open or ReadSeeds could not use.
type SkippedFile struct {
	Path string
	Err  error
}

// SkipError lists every file that was skipped because it is corrupt or
// unreadable. It is reported next to the good data, never instead of it.
type SkipError struct {
	Files []SkippedFile
}

func (e *SkipError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "corpus: skipped %d unreadable file(s)", len(e.Files))
	for _, f := range e.Files {
		fmt.Fprintf(&b, "\n\t%s: %v", f.Path, f.Err)
	}
	return b.String()
}

// Unwrap returns the per-file errors.
func (e *SkipError) Unwrap() []error {
	errs := make([]error, len(e.Files))
	for i, f := range e.Files {
		errs[i] = fmt.Errorf("%s: %w", f.Path, f.Err)
	}
	return errs
}

type skips struct{ files []SkippedFile }

func (s *skips) add(path string, err error) { s.files = append(s.files, SkippedFile{path, err}) }
func (s *skips) err() error {
	if len(s.files) == 0 {
		return nil
	}
	return &SkipError{Files: s.files}
}

// Subdirectories of a campaign directory.
const (
	QueueDir   = "queue"
	CrashesDir = "crashes"
	HangsDir   = "hangs"
	// FlakyDir holds crashes that did not crash again when rerun
	// (AddFlaky): not findings, kept for a look.
	FlakyDir  = "flaky"
	StatsFile = "fuzzer_stats"
	PlotFile  = "plot_data"
	waferDir  = ".wafer"
	syncedDir = ".synced"
)

// Dir is an open campaign directory. It is safe for concurrent use; writes
// are serialised by a mutex (the engine's coordinator is expected to be
// the only writer). Two Dirs must not write the same directory; other
// processes may read it (Syncer) at any time.
type Dir struct {
	path string
	fs   FS
	w    writer
	nfr  int
	vfy  bool

	mu         sync.Mutex
	entries    []Entry
	byHash     map[uint64]int // queue index
	failures   []Failure
	byIdentity map[string]int // failures index
	nextID     map[string]int // per subdirectory
	resumed    Checkpoint
	cov        covLog
	z          zcodec
	plotOpen   bool
	plotHeader string // plot_data's last header (AppendPlot)
}

// Path returns the campaign directory.
func (d *Dir) Path() string { return d.path }

// Open opens (creating it if needed) the campaign directory dir and loads
// every saved entry, failure and the last checkpoint. skipped lists the
// corrupt files that were left out (nil if none); err is non-nil only when
// the directory cannot be used at all (then d is nil).
func Open(ctx context.Context, dir string, opts Options) (d *Dir, skipped error, err error) {
	fsys := opts.FS
	if fsys == nil {
		fsys = OS{}
	}
	d = &Dir{
		path:       dir,
		fs:         fsys,
		w:          writer{fs: fsys, noSync: opts.NoSync},
		nfr:        opts.Frames,
		vfy:        opts.Verify,
		byHash:     map[uint64]int{},
		byIdentity: map[string]int{},
		nextID:     map[string]int{},
	}
	if d.nfr <= 0 {
		d.nfr = 3
	}
	subs := []string{
		QueueDir, CrashesDir, HangsDir, FlakyDir,
		filepath.Join(waferDir, "meta", QueueDir),
		filepath.Join(waferDir, "meta", FlakyDir),
		filepath.Join(waferDir, "meta", CrashesDir),
		filepath.Join(waferDir, "meta", HangsDir),
		filepath.Join(waferDir, "cache"),
	}
	for _, sub := range subs {
		if err := fsys.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, nil, &WriteError{Path: filepath.Join(dir, sub), Err: err}
		}
	}
	if opts.CheckWritable {
		for _, sub := range append([]string{"."}, subs...) {
			if err := probeWritable(fsys, filepath.Join(dir, sub)); err != nil {
				return nil, nil, err
			}
		}
	}
	var sk skips
	if err := d.load(ctx, &sk); err != nil {
		return nil, nil, err
	}
	return d, sk.err(), nil
}

// probeWritable creates and removes a file in dir (Options.CheckWritable).
// A probe left behind by a kill is a temporary file: Open removes it.
func probeWritable(fsys FS, dir string) error {
	f, err := fsys.Create(filepath.Join(dir, tmpPrefix+"probe"))
	if err == nil {
		err = f.Close()
		if rerr := fsys.Remove(filepath.Join(dir, tmpPrefix+"probe")); err == nil {
			err = rerr
		}
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("%s: not writable: %w", dir, err)
	}
	return nil
}

// Resumed returns the checkpoint loaded by Open (zero for a new campaign).
func (d *Dir) Resumed() Checkpoint {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.resumed
}

// Entries returns the queue entries in id order. The slice is a copy; the
// byte slices are shared and must not be modified. Entries added since
// Open have no Coverage (Entry.Coverage).
func (d *Dir) Entries() []Entry {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.entries)
}

// Failures returns the unique failures (crashes and hangs) in the order
// they were first found, each with its smallest reproducer and hit count.
func (d *Dir) Failures() []Failure {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.failures)
}

// Has reports whether an input with this content is already queued.
func (d *Dir) Has(input []byte) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.byHash[xxhash.Sum64(input)]
	return ok
}

// AddEntry saves e in queue/ and returns its file name. It copies e's
// slices, so the caller may reuse them. If an entry with
// the same input bytes exists, nothing is written and dup is true (name is
// the existing entry's). When AddEntry returns nil the entry survives a
// kill at any later instant. A *WriteError means the campaign should stop.
func (d *Dir) AddEntry(ctx context.Context, e Entry) (name string, dup bool, err error) {
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	h := xxhash.Sum64(e.Input)
	if i, ok := d.byHash[h]; ok {
		return d.entries[i].Name, true, nil
	}
	cov := e.Coverage
	e.Coverage = nil
	e = e.clone()
	e.ID = d.nextID[QueueDir]
	e.Hash = h
	e.Name = entryName(e.ID, "", e.Parents, e.Op, e.NewCov)
	meta, err := d.save(QueueDir, &e, nil)
	if err != nil {
		return "", false, err
	}
	d.nextID[QueueDir] = e.ID + 1
	// The coverage goes to the index, not into memory: nothing reads an
	// added entry's coverage before the next Open, and on a 40-second
	// csqlite campaign it was 14 MB of the heap.
	e.Coverage = cov
	d.appendIndex(&e, meta)
	e.Coverage = nil
	d.byHash[h] = len(d.entries)
	d.entries = append(d.entries, e)
	return e.Name, false, nil
}

// AddFailure records a failure. A new identity is saved in crashes/ (or
// hangs/) and isNew is true. A known identity only counts a hit, and if
// f's input is shorter than the saved reproducer (or as long and
// lexicographically smaller) the reproducer is replaced under the same
// name, the input first saved under it kept beside it as name+OrigSuffix
// (written before the replacement, never overwritten). name is the
// failure's file name either way. Hit counts are
// persisted by Checkpoint and whenever the reproducer is replaced.
func (d *Dir) AddFailure(ctx context.Context, f Failure) (name string, isNew bool, err error) {
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	if f.Kind == "" {
		f.Kind = "unknown"
	}
	f.Identity = failureid.Key(f.Kind, f.Message, f.Frames, d.nfr)
	f.Hash = xxhash.Sum64(f.Input)
	d.mu.Lock()
	defer d.mu.Unlock()
	if i, ok := d.byIdentity[f.Identity]; ok {
		old := &d.failures[i]
		if f.Shrunk {
			// the shrunk form of a failure already counted
			old.Hits = max(old.Hits, f.Hits)
		} else {
			old.Hits = max(old.Hits+1, f.Hits)
		}
		if !smaller(f.Input, old.Input) {
			if f.Shrunk && !old.Shrunk {
				// nothing smaller kept the failure: the saved input is
				// its shrunk form
				old.Shrunk = true
				if _, err := d.save(failDir(old.Hang), &old.Entry, old); err != nil {
					old.Shrunk = false
					return "", false, err
				}
			}
			return old.Name, false, nil
		}
		f.Entry = f.Entry.clone()
		f.Frames = slices.Clone(f.Frames)
		f.ID, f.Name, f.Hits, f.Hang = old.ID, old.Name, old.Hits, old.Hang
		if f.Shrunk {
			// when and how it was found stay the finding's
			f.Op, f.Parents, f.Time, f.Execs = old.Op, old.Parents, old.Time, old.Execs
		}
		if err := d.keepOriginal(failDir(old.Hang), old); err != nil {
			return "", false, err
		}
		if _, err := d.save(failDir(old.Hang), &f.Entry, &f); err != nil {
			return "", false, err
		}
		*old = f
		return f.Name, false, nil
	}
	sub := failDir(f.Hang)
	f.Entry = f.Entry.clone()
	f.Frames = slices.Clone(f.Frames)
	f.ID = d.nextID[sub]
	f.Hits = max(f.Hits, 1)
	f.Name = entryName(f.ID, f.Kind, f.Parents, f.Op, false)
	if _, err := d.save(sub, &f.Entry, &f); err != nil {
		return "", false, err
	}
	d.nextID[sub] = f.ID + 1
	d.byIdentity[f.Identity] = len(d.failures)
	d.failures = append(d.failures, f)
	return f.Name, true, nil
}

// AddFlaky saves a crash that did not crash again when rerun under
// flaky/, named by its kind and the hash of its input (so a resumed
// campaign adds to the list without renumbering it), with its sidecar.
// It is not a failure of the campaign: Failures and the stats' crashes
// leave it out.
func (d *Dir) AddFlaky(ctx context.Context, f Failure) (name string, err error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if f.Kind == "" {
		f.Kind = "unknown"
	}
	f.Identity = failureid.Key(f.Kind, f.Message, f.Frames, d.nfr)
	f.Hash = xxhash.Sum64(f.Input)
	f.Entry = f.Entry.clone()
	f.Hits = 1
	f.Name = fmt.Sprintf("kind:%s,hash:%016x", sanitize(f.Kind, 32), f.Hash)
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, err := d.save(FlakyDir, &f.Entry, &f); err != nil {
		return "", err
	}
	return f.Name, nil
}

// CrashSites counts the distinct crash sites (Failure.Site) of the saved
// crashes, hangs left out: the bugs found, each of one or more
// identities.
func (d *Dir) CrashSites() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	sites := map[string]bool{}
	for _, f := range d.failures {
		if f.Hang {
			continue
		}
		site := f.Site
		if site == "" {
			site = "identity " + f.Identity
		}
		sites[site] = true
	}
	return len(sites)
}

// clone copies the slices the caller may reuse after Add returns.
func (e Entry) clone() Entry {
	e.Input = bytes.Clone(e.Input)
	if e.Input == nil {
		e.Input = []byte{}
	}
	e.Choices = bytes.Clone(e.Choices)
	e.Kinds = bytes.Clone(e.Kinds)
	e.Parents = slices.Clone(e.Parents)
	e.Added = slices.Clone(e.Added)
	e.Coverage = slices.Clone(e.Coverage)
	return e
}

func failDir(hang bool) string {
	if hang {
		return HangsDir
	}
	return CrashesDir
}

// smaller orders reproducers: shorter first, then bytewise.
func smaller(a, b []byte) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return string(a) < string(b)
}

// OrigSuffix ends the name of the file that keeps a failure's input as
// first saved, beside the smaller reproducer that replaced it
// ("crashes/id:000003,kind:oob,op:havoc.orig"). Open and Syncer skip
// these files: the failure is the one without the suffix.
const OrigSuffix = ".orig"

// keepOriginal saves the input of old, a failure about to be replaced,
// as its original, unless an earlier replacement saved one.
func (d *Dir) keepOriginal(sub string, old *Failure) error {
	path := filepath.Join(d.path, sub, old.Name+OrigSuffix)
	if _, err := d.fs.ReadFile(path); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return &WriteError{Path: path, Err: err}
	}
	return d.w.write(path, old.Input)
}

// save writes the sidecar, then the input (see the package doc for why
// this order) and returns the sidecar.
func (d *Dir) save(sub string, e *Entry, f *Failure) ([]byte, error) {
	if f != nil {
		f.Repro = strings.ReplaceAll(f.Repro, "{input}", filepath.Join(d.path, sub, e.Name))
	}
	meta := encodeMeta(e, f)
	if err := d.w.write(filepath.Join(d.path, waferDir, "meta", sub, e.Name), meta); err != nil {
		return nil, err
	}
	return meta, d.w.write(filepath.Join(d.path, sub, e.Name), e.Input)
}

// Checkpoint saves c, the failure hit counts and the index cache, so a
// resume continues from here. Call it periodically (e.g. every few
// seconds) and on shutdown.
func (d *Dir) Checkpoint(ctx context.Context, c Checkpoint) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.syncCoverage(); err != nil {
		return err
	}
	hits := map[string]uint64{}
	for _, f := range d.failures {
		hits[failDir(f.Hang)+"/"+f.Name] = f.Hits
	}
	data, err := encodeCheckpoint(c, hits, &d.z)
	if err != nil {
		return err
	}
	return d.w.write(filepath.Join(d.path, waferDir, "checkpoint"), data)
}

// Close flushes the index cache. It does not write a checkpoint.
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	err := d.syncCoverage()
	d.z.close()
	return err
}
