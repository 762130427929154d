package corpus

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/wafer-fuzz/wafer/internal/failureid"
)

// Syncer imports the queue entries of the other campaigns that share this
// campaign's parent directory (OUT/<name>/queue for every <name>, wafer
// or AFL++), as AFL's -M/-S sync does. Peers need no coordination: they
// write with atomic renames, so a listed file is complete; a Syncer only
// reads them. It remembers per peer the ids imported (a watermark and the
// ids above it), in OUT/<self>/.synced/<peer> (Commit), so a resumed
// campaign does not import twice, and an entry that a listing missed
// while it was being renamed is picked up by the next Poll.
// A Syncer is not safe for concurrent use (one per campaign, called from
// the coordinator).
type Syncer struct {
	d       *Dir
	root    string
	self    string
	peers   map[string]*peerState
	unsaved map[string]bool // peers whose state Commit has not written
	// failSeen: the peers' failure files (peer/sub/name) Failures has
	// read or skipped.
	failSeen map[string]bool
}

// peerState is what a Syncer knows of one peer. A directory listing is not
// a snapshot: an entry renamed into place while the listing runs may be
// missed while a later one is seen. But a peer writes its ids in order,
// each rename done before the next id exists, so every id below the
// highest id of one listing exists (or never will) when the next listing
// starts. Hence: ids up to the previous listing's maximum are settled
// (watermark); above it, the imported ids are remembered one by one.
type peerState struct {
	watermark int          // every id <= watermark is imported or never existed
	imported  map[int]bool // imported ids above watermark
	prevMax   int          // highest id of the previous listing (-1: none)
}

// Syncer returns the Syncer of d: its peers are the sibling directories
// of d.Path().
func (d *Dir) Syncer() *Syncer {
	return &Syncer{
		d:        d,
		root:     filepath.Dir(filepath.Clean(d.path)),
		self:     filepath.Base(filepath.Clean(d.path)),
		peers:    map[string]*peerState{},
		unsaved:  map[string]bool{},
		failSeen: map[string]bool{},
	}
}

// Failures returns the failures the peers saved (crashes/ and hangs/ of
// every sibling directory) that an earlier call did not return: their
// kind, message and frames, so the caller can tell their identities, and
// their inputs. A failure file is listed only once renamed into place,
// after its sidecar (Dir.AddFailure's order), so a listed failure is
// complete; files without a wafer sidecar (an AFL++ peer's) carry no
// identity and are left out. skipped reports unreadable sidecars; err is
// non-nil only when ctx is done.
func (s *Syncer) Failures(ctx context.Context) (fails []Failure, skipped error, err error) {
	var sk skips
	des, err := s.d.fs.ReadDir(s.root)
	if err != nil {
		sk.add(s.root, err)
		return nil, sk.err(), nil
	}
	for _, de := range des {
		peer := de.Name()
		if peer == s.self || strings.HasPrefix(peer, ".") || !de.IsDir() {
			continue
		}
		for _, sub := range []string{CrashesDir, HangsDir} {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			dir := filepath.Join(s.root, peer, sub)
			names, err := s.d.fs.ReadDir(dir)
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					sk.add(dir, err)
				}
				continue
			}
			for _, n := range names {
				name := n.Name()
				key := peer + "/" + sub + "/" + name
				if strings.HasPrefix(name, ".") || strings.HasSuffix(name, OrigSuffix) || n.IsDir() || s.failSeen[key] {
					continue
				}
				if _, ok := ParseID(name); !ok {
					continue
				}
				s.failSeen[key] = true
				mpath := filepath.Join(s.root, peer, waferDir, "meta", sub, name)
				data, err := s.d.fs.ReadFile(mpath)
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				var m *meta
				if err == nil {
					m, err = decodeMeta(data)
				}
				if err == nil && !m.failure {
					err = errors.New("expected a failure sidecar, got a queue sidecar")
				}
				if err != nil {
					sk.add(mpath, err)
					continue
				}
				f := m.Failure
				f.Input = m.input
				f.Hang = sub == HangsDir
				f.Identity = failureid.Key(f.Kind, f.Message, f.Frames, s.d.nfr)
				fails = append(fails, f)
			}
		}
	}
	return fails, sk.err(), nil
}

// Poll returns the peers' queue entries added since the last Poll, in peer
// name then id order, without inputs d already has or that an earlier
// peer in this Poll returned. Each has Op "sync:<peer>", and Choices,
// Kinds and Valid from the peer's sidecar when it has one; Parents is nil.
// The engine runs them and adds the interesting ones with AddEntry.
// skipped reports unreadable peer files (they are not retried); err is
// non-nil only when ctx is done. A later Poll of the same Syncer does not
// return them again; a later session's does unless Commit recorded them.
func (s *Syncer) Poll(ctx context.Context) (entries []Entry, skipped error, err error) {
	var sk skips
	des, err := s.d.fs.ReadDir(s.root)
	if err != nil {
		sk.add(s.root, err)
		return nil, sk.err(), nil
	}
	seen := map[uint64]bool{}
	for _, de := range des {
		peer := de.Name()
		if peer == s.self || strings.HasPrefix(peer, ".") || !de.IsDir() {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		got, err := s.pollPeer(ctx, peer, seen, &sk)
		if err != nil {
			return nil, nil, err
		}
		entries = append(entries, got...)
	}
	return entries, sk.err(), nil
}

// state returns the peer's state, loading OUT/<self>/.synced/<peer>
// ("watermark id id ...") the first time.
func (s *Syncer) state(peer string) *peerState {
	if st, ok := s.peers[peer]; ok {
		return st
	}
	st := &peerState{watermark: -1, imported: map[int]bool{}, prevMax: -1}
	if data, err := s.d.fs.ReadFile(filepath.Join(s.d.path, syncedDir, peer)); err == nil {
		for i, f := range strings.Fields(string(data)) {
			v, err := strconv.Atoi(f)
			if err != nil || v < -1 {
				break
			}
			if i == 0 {
				st.watermark = v
			} else if v > st.watermark {
				st.imported[v] = true
			}
		}
	}
	// After a restart the previous listing is unknown: treat the
	// watermark as its maximum.
	st.prevMax = st.watermark
	s.peers[peer] = st
	return st
}

func (st *peerState) encode() []byte {
	ids := make([]int, 0, len(st.imported))
	for id := range st.imported {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	b := strconv.AppendInt(nil, int64(st.watermark), 10)
	for _, id := range ids {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(id), 10)
	}
	return append(b, '\n')
}

func (s *Syncer) pollPeer(ctx context.Context, peer string, seen map[uint64]bool, sk *skips) ([]Entry, error) {
	qdir := filepath.Join(s.root, peer, QueueDir)
	des, err := s.d.fs.ReadDir(qdir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			sk.add(qdir, err)
		}
		return nil, nil
	}
	st := s.state(peer)
	type item struct {
		id   int
		name string
	}
	var items []item
	listMax := st.prevMax
	for _, de := range des {
		n := de.Name()
		if strings.HasPrefix(n, ".") || de.IsDir() {
			continue
		}
		id, ok := ParseID(n)
		if !ok {
			continue
		}
		listMax = max(listMax, id)
		if id > st.watermark && !st.imported[id] {
			items = append(items, item{id, n})
		}
	}
	changed := len(items) > 0
	slices.SortFunc(items, func(a, b item) int { return a.id - b.id })
	var out []Entry
	for _, it := range items {
		input, err := s.d.fs.ReadFile(filepath.Join(qdir, it.name))
		if err != nil {
			sk.add(filepath.Join(qdir, it.name), err)
			continue
		}
		h := xxhash.Sum64(input)
		if seen[h] || s.d.Has(input) {
			continue
		}
		seen[h] = true
		e := Entry{Input: input, Op: "sync:" + peer}
		if mdata, err := s.d.fs.ReadFile(filepath.Join(s.root, peer, waferDir, "meta", QueueDir, it.name)); err == nil {
			if m, err := decodeMeta(mdata); err == nil && m.Hash == h {
				e.Choices, e.Kinds, e.Valid = m.Choices, m.Kinds, m.Valid
			}
		}
		out = append(out, e)
	}
	for _, it := range items {
		st.imported[it.id] = true
	}
	// Everything up to the previous listing's maximum is settled now.
	if st.prevMax > st.watermark {
		st.watermark = st.prevMax
		changed = true
	}
	for st.imported[st.watermark+1] {
		st.watermark++
	}
	for id := range st.imported {
		if id <= st.watermark {
			delete(st.imported, id)
		}
	}
	st.prevMax = listMax
	if changed {
		s.unsaved[peer] = true
	}
	return out, nil
}

// Commit records, per peer, what Poll has returned, so that a resumed
// campaign does not import it again. Call it once the entries have been
// run: entries polled but never committed (the campaign was killed, or
// failed to start, before running them) are offered again by the next
// session's Poll.
func (s *Syncer) Commit() error {
	if len(s.unsaved) == 0 {
		return nil
	}
	dir := filepath.Join(s.d.path, syncedDir)
	if err := s.d.fs.MkdirAll(dir, 0o755); err != nil {
		return &WriteError{Path: dir, Err: err}
	}
	peers := slices.Sorted(maps.Keys(s.unsaved))
	for _, peer := range peers {
		if err := s.d.w.write(filepath.Join(dir, peer), s.peers[peer].encode()); err != nil {
			return err
		}
		delete(s.unsaved, peer)
	}
	return nil
}
