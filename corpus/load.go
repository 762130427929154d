package corpus

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/wafer-fuzz/wafer/internal/failureid"
)

// load reads the checkpoint, every subdirectory and the coverage cache.
// A checkpoint of a newer format fails it before anything is written.
func (d *Dir) load(ctx context.Context, sk *skips) error {
	cpPath := filepath.Join(d.path, waferDir, "checkpoint")
	var hits map[string]uint64
	if data, err := d.fs.ReadFile(cpPath); err == nil {
		var c Checkpoint
		c, hits, err = decodeCheckpoint(data, &d.z)
		var ve *VersionError
		switch {
		case errors.As(err, &ve):
			// Resuming would overwrite it in the older format.
			return fmt.Errorf("%s: %w", cpPath, err)
		case err != nil:
			sk.add(cpPath, err)
		default:
			d.resumed = c
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		sk.add(cpPath, err)
	}
	index := d.loadIndex()
	for _, sub := range []string{QueueDir, CrashesDir, HangsDir} {
		if err := d.loadSub(ctx, sub, sk, index); err != nil {
			return err
		}
	}
	d.removeTemps()
	for i := range d.failures {
		f := &d.failures[i]
		if h := hits[failDir(f.Hang)+"/"+f.Name]; h > f.Hits {
			f.Hits = h
		}
	}
	return nil
}

// removeTemps removes this package's temporary files from the
// directories that hold no entries (listNames cleans the others): the
// leftovers of a checkpoint, fuzzer_stats, plot_data, sync state or
// flaky/ write killed half-way.
func (d *Dir) removeTemps() {
	for _, sub := range []string{"", waferDir, filepath.Join(waferDir, "cache"), syncedDir, FlakyDir, filepath.Join(waferDir, "meta", FlakyDir)} {
		dir := filepath.Join(d.path, sub)
		des, err := d.fs.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, de := range des {
			if strings.HasPrefix(de.Name(), tmpPrefix) && !de.IsDir() {
				_ = d.fs.Remove(filepath.Join(dir, de.Name()))
			}
		}
	}
}

// listNames returns the entry names of a directory and removes this
// package's leftover temporary files.
func (d *Dir) listNames(dir string, sk *skips) []string {
	des, err := d.fs.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			sk.add(dir, err)
		}
		return nil
	}
	var names []string
	for _, de := range des {
		n := de.Name()
		if strings.HasPrefix(n, tmpPrefix) {
			_ = d.fs.Remove(filepath.Join(dir, n))
			continue
		}
		if n[0] == '.' || de.IsDir() {
			continue
		}
		names = append(names, n)
	}
	return names
}

func (d *Dir) loadSub(ctx context.Context, sub string, sk *skips, index map[int]indexRecord) error {
	inDir := filepath.Join(d.path, sub)
	metaDir := filepath.Join(d.path, waferDir, "meta", sub)
	inputs := d.listNames(inDir, sk)
	metas := d.listNames(metaDir, sk)
	next := 0
	haveInput := map[string]bool{}
	haveMeta := map[string]bool{}
	type item struct {
		id   int
		name string
	}
	var items []item
	for _, n := range inputs {
		if sub != QueueDir && strings.HasSuffix(n, OrigSuffix) {
			continue // a replaced reproducer's original (AddFailure)
		}
		id, ok := ParseID(n)
		if !ok {
			sk.add(filepath.Join(inDir, n), fmt.Errorf("expected an entry name \"id:NNNNNN,...\", got %q", n))
			continue
		}
		haveInput[n] = true
		items = append(items, item{id, n})
		next = max(next, id+1)
	}
	for _, n := range metas {
		haveMeta[n] = true
		if id, ok := ParseID(n); ok {
			next = max(next, id+1)
		}
		if !haveInput[n] {
			// The sidecar of a save that was interrupted before its
			// input was renamed into place: the Add call never returned.
			_ = d.fs.Remove(filepath.Join(metaDir, n))
		}
	}
	if sub == QueueDir {
		// Never reuse an id the index has a record of: an entry removed
		// since (by hand, or lost with NoSync) keeps its record, which
		// would be served for a new entry of the same id and name if the
		// process ended before the new record was flushed.
		for id := range index {
			next = max(next, id+1)
		}
	}
	d.nextID[sub] = next
	slices.SortFunc(items, func(a, b item) int { return a.id - b.id })
	// Reading is I/O bound (two small files per entry): read in parallel,
	// then apply the results in id order.
	res := make([]loaded, len(items))
	var next2 atomic.Int64
	var wg sync.WaitGroup
	for range loadWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next2.Add(1) - 1)
				if i >= len(items) || ctx.Err() != nil {
					return
				}
				it := items[i]
				if sub == QueueDir && !d.vfy && haveMeta[it.name] {
					if rec, ok := index[it.id]; ok {
						if r, ok := fromIndex(rec, it.id, it.name); ok {
							res[i] = r
							continue
						}
					}
				}
				res[i] = d.loadOne(sub, inDir, metaDir, it.id, it.name)
				if rec, ok := index[it.id]; ok && res[i].m != nil && sub == QueueDir {
					res[i].m.Coverage = rec.coverage
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, r := range res {
		if r.skipErr != nil {
			sk.add(r.skipPath, r.skipErr)
			if r.m == nil {
				continue
			}
		}
		if r.repair != nil {
			// A reproducer replacement was interrupted between the two
			// renames (or the input was damaged): the sidecar wins.
			if err := d.w.write(r.repairPath, r.repair); err != nil {
				sk.add(r.repairPath, err)
			}
		}
		if sub == QueueDir {
			e := r.m.Entry
			if _, dup := d.byHash[e.Hash]; !dup {
				d.byHash[e.Hash] = len(d.entries)
			}
			d.entries = append(d.entries, e)
			if r.sidecar != nil {
				// Read from its files: index it for the next resume.
				d.appendIndex(&e, r.sidecar)
			}
			continue
		}
		f := r.m.Failure
		if _, dup := d.byIdentity[f.Identity]; !dup {
			d.byIdentity[f.Identity] = len(d.failures)
		}
		d.failures = append(d.failures, f)
	}
	return nil
}

// loadWorkers is how many files Open reads at once.
const loadWorkers = 8

// loaded is the outcome of reading one entry.
type loaded struct {
	m          *meta
	sidecar    []byte // the sidecar read from disk (queue entries not from the index)
	skipPath   string // a file skipped (m is nil), or m's unreadable sidecar
	skipErr    error
	repairPath string
	repair     []byte
}

// fromIndex builds an entry from its index record, if the record is
// consistent with the listed name.
func fromIndex(rec indexRecord, id int, name string) (loaded, bool) {
	m, err := decodeMeta(rec.meta)
	if err != nil || m.failure || m.ID != id || m.Name != name || len(rec.input) != m.size || xxhash.Sum64(rec.input) != m.Hash {
		return loaded{}, false
	}
	m.Input = rec.input
	m.Coverage = rec.coverage
	return loaded{m: m}, true
}

// loadOne reads and checks one entry's sidecar and input. It only reads.
func (d *Dir) loadOne(sub, inDir, metaDir string, id int, name string) loaded {
	inPath := filepath.Join(inDir, name)
	metaPath := filepath.Join(metaDir, name)
	skip := func(p string, err error) loaded { return loaded{skipPath: p, skipErr: err} }
	mdata, merr := d.fs.ReadFile(metaPath)
	var m *meta
	if merr == nil {
		m, merr = decodeMeta(mdata)
	}
	var badMeta error
	if merr != nil && !errors.Is(merr, fs.ErrNotExist) {
		if sub != QueueDir {
			return skip(metaPath, merr)
		}
		// A queue entry's input is whole without its sidecar: it is
		// kept, as one with none, and the sidecar reported.
		badMeta, m, mdata = merr, nil, nil
	}
	input, err := d.fs.ReadFile(inPath)
	if err != nil {
		return skip(inPath, err)
	}
	if badMeta != nil {
		m = &meta{}
		m.ID, m.Name, m.Hash, m.size = id, name, xxhash.Sum64(input), len(input)
		m.Input = input
		return loaded{m: m, skipPath: metaPath, skipErr: badMeta}
	}
	if m == nil {
		// No sidecar (copied in by hand, or sidecar removed): the
		// bytes are intact, the metadata is unknown.
		if sub != QueueDir {
			return skip(metaPath, fmt.Errorf("expected a failure sidecar, got none"))
		}
		m = &meta{}
		m.ID, m.Name, m.Hash, m.size = id, name, xxhash.Sum64(input), len(input)
	}
	if m.ID != id || m.Name != name {
		return skip(metaPath, fmt.Errorf("expected sidecar of %q, got one of %q", name, m.Name))
	}
	if sub == QueueDir {
		if m.failure {
			return skip(metaPath, fmt.Errorf("expected a queue sidecar, got a failure sidecar"))
		}
		if h := xxhash.Sum64(input); len(input) != m.size || h != m.Hash {
			return skip(inPath, fmt.Errorf("expected %d bytes with hash %016x, got %d bytes with hash %016x", m.size, m.Hash, len(input), h))
		}
		m.Input = input
		return loaded{m: m, sidecar: mdata}
	}
	if !m.failure || !m.hasIn {
		return skip(metaPath, fmt.Errorf("expected a failure sidecar with its input, got a queue sidecar"))
	}
	if xxhash.Sum64(m.input) != m.Hash {
		return skip(metaPath, fmt.Errorf("expected input hash %016x, got %016x", m.Hash, xxhash.Sum64(m.input)))
	}
	r := loaded{m: m}
	if !bytes.Equal(input, m.input) {
		r.repairPath, r.repair = inPath, m.input
	}
	m.Input = m.input
	m.Identity = failureid.Key(m.Kind, m.Message, m.Frames, d.nfr)
	return r
}

const checkpointVersion = "wafer checkpoint v1"

func encodeCheckpoint(c Checkpoint, hits map[string]uint64, z *zcodec) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(checkpointVersion + "\n")
	fmt.Fprintf(&b, "execs: %d\n", c.Execs)
	fmt.Fprintf(&b, "time: %d\n", int64(c.Time))
	keys := make([]string, 0, len(hits))
	for k := range hits {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "hits: %d %s\n", hits[k], strconv.Quote(k))
	}
	if c.State != nil {
		zs, err := z.compress(c.State)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "state: %s\n", hex.EncodeToString(zs))
	}
	b.WriteString("end\n")
	return b.Bytes(), nil
}

// DecodeCheckpoint parses a checkpoint file ("wafer checkpoint v1"); the
// map holds the failure hit counts by "crashes/<name>" or "hangs/<name>".
func DecodeCheckpoint(data []byte) (Checkpoint, map[string]uint64, error) {
	var z zcodec
	defer z.close()
	return decodeCheckpoint(data, &z)
}

func decodeCheckpoint(data []byte, z *zcodec) (Checkpoint, map[string]uint64, error) {
	var c Checkpoint
	hits := map[string]uint64{}
	rest, err := cutVersion(data, checkpointVersion)
	if err != nil {
		return c, nil, err
	}
	ended := false
	for lineNo := 2; len(rest) > 0; lineNo++ {
		line, r, found := bytes.Cut(rest, []byte("\n"))
		rest = r
		if !found {
			return c, nil, fmt.Errorf("line %d: expected newline, got end of file (truncated)", lineNo)
		}
		if ended {
			return c, nil, fmt.Errorf("line %d: expected end of file after \"end\", got %.40q", lineNo, line)
		}
		if string(line) == "end" {
			ended = true
			continue
		}
		k, v, ok := strings.Cut(string(line), ": ")
		if !ok {
			return c, nil, fmt.Errorf("line %d: expected \"key: value\", got %.40q", lineNo, line)
		}
		var err error
		switch k {
		case "execs":
			c.Execs, err = strconv.ParseUint(v, 10, 64)
		case "time":
			var n int64
			n, err = strconv.ParseInt(v, 10, 64)
			c.Time = time.Duration(n)
		case "hits":
			ns, q, ok := strings.Cut(v, " ")
			if !ok {
				return c, nil, fmt.Errorf("line %d: hits: expected \"count name\", got %.40q", lineNo, v)
			}
			var n uint64
			if n, err = strconv.ParseUint(ns, 10, 64); err == nil {
				var name string
				if name, err = strconv.Unquote(q); err == nil {
					hits[name] = n
				}
			}
		case "state":
			var zs []byte
			if zs, err = hex.DecodeString(v); err == nil {
				c.State, err = z.decompress(zs)
			}
		}
		if err != nil {
			return c, nil, fmt.Errorf("line %d: %s: %w", lineNo, k, err)
		}
	}
	if !ended {
		return c, nil, errors.New("expected \"end\" line, got end of file (truncated)")
	}
	return c, hits, nil
}
