package corpus

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// Syncer imports the queue entries of the other campaigns that share this
// campaign's parent directory (OUT/<name>/queue for every <name>, wafer
// or AFL++), as AFL's -M/-S sync does. Peers need no coordination: they
// write with atomic renames, so a listed file is complete; a Syncer only
// reads them. It remembers per peer the highest id imported, in
// OUT/<self>/.synced/<peer>, so a resumed campaign does not import twice.
// A Syncer is not safe for concurrent use (one per campaign, called from
// the coordinator).
type Syncer struct {
	d    *Dir
	root string
	self string
	last map[string]int // highest id imported per peer, -1 for none
}

// Syncer returns the Syncer of d: its peers are the sibling directories
// of d.Path().
func (d *Dir) Syncer() *Syncer {
	return &Syncer{
		d:    d,
		root: filepath.Dir(filepath.Clean(d.path)),
		self: filepath.Base(filepath.Clean(d.path)),
		last: map[string]int{},
	}
}

// Poll returns the peers' queue entries added since the last Poll, in peer
// name then id order, without inputs d already has or that an earlier
// peer in this Poll returned. Each has Op "sync:<peer>", and Choices,
// Kinds and Valid from the peer's sidecar when it has one; Parents is nil.
// The engine runs them and adds the interesting ones with AddEntry.
// skipped reports unreadable peer files (they are not retried); err is
// non-nil only when ctx is done or the .synced record cannot be written.
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

func (s *Syncer) lastSeen(peer string) int {
	if n, ok := s.last[peer]; ok {
		return n
	}
	n := -1
	if data, err := s.d.fs.ReadFile(filepath.Join(s.d.path, syncedDir, peer)); err == nil {
		if v, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && v >= -1 {
			n = v
		}
	}
	s.last[peer] = n
	return n
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
	last := s.lastSeen(peer)
	type item struct {
		id   int
		name string
	}
	var items []item
	for _, de := range des {
		n := de.Name()
		if strings.HasPrefix(n, ".") || de.IsDir() {
			continue
		}
		if id, ok := ParseID(n); ok && id > last {
			items = append(items, item{id, n})
		}
	}
	if len(items) == 0 {
		return nil, nil
	}
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
	newLast := items[len(items)-1].id
	if err := s.d.fs.MkdirAll(filepath.Join(s.d.path, syncedDir), 0o755); err != nil {
		return nil, &WriteError{Path: filepath.Join(s.d.path, syncedDir), Err: err}
	}
	if err := s.d.w.write(filepath.Join(s.d.path, syncedDir, peer), []byte(strconv.Itoa(newLast)+"\n")); err != nil {
		return nil, err
	}
	s.last[peer] = newLast
	return out, nil
}
