package engine

import (
	"context"
	"fmt"
	"maps"
	"time"
)

// Importer brings other campaigns' work into this one: live sync between
// campaigns that share a parent directory, as AFL++'s -M/-S (the campaign
// package implements it over corpus.Syncer). The coordinator calls it;
// never two calls at once, but not always from the coordinator goroutine
// (a poll runs beside the search loop so that reading a shared filesystem
// never holds up the merges).
type Importer interface {
	// Poll returns what the peers added since the last Poll: their new
	// queue entries (choice sequences with a Generator, inputs in raw
	// mode) and the identities of their failures. It returns an error only
	// when ctx is done or sync cannot go on; unreadable peer files are the
	// implementation's to report and skip.
	Poll(ctx context.Context) (Import, error)
	// Commit records that every input Poll has returned so far has run, so
	// that a resumed campaign does not import it again. The coordinator
	// calls it only when that is so.
	Commit(ctx context.Context) error
}

// Import is what one Importer.Poll found.
type Import struct {
	// Inputs are the peers' new entries, run once each, in order; only
	// those that add coverage join the queue (see mergeJob).
	Inputs []Imported
	// KnownFailures are failure identities (Finding.Identity) the peers
	// saved: met here, they are not new findings, like
	// Deps.KnownFailures.
	KnownFailures []string
}

// Imported is one input of another campaign.
type Imported struct {
	// Choices is the choice sequence (raw mode: the input).
	Choices []byte
	// Op is the Op its queue entry gets when it is kept ("sync:<peer>");
	// empty means OpSync.
	Op Op
}

// OpSync is the Op of an imported queue entry whose Imported.Op is empty.
const OpSync Op = "sync"

// syncState is the coordinator's side of live sync. The design: a timer
// in serve starts a poll on its own goroutine (never more than one); its
// result comes back on done and is merged by the coordinator, which
// queues the inputs as replay jobs marked imported (next) ahead of the
// strategy's jobs and adds the failure identities to a copy of its known
// set (the workers read the set of the batch they run, so it is never
// written while read). Commit is called, on the poll goroutine before the
// next Poll or at the end, only when every input polled so far was
// merged after running, so a kill at any moment leaves the unrun ones to
// the next session.
type syncState struct {
	imp     Importer
	every   time.Duration
	queue   []Imported // polled, not yet issued
	issued  int        // import jobs issued and not merged
	lost    bool       // an import job was merged without running: no Commit this session
	dirty   bool       // inputs polled since the last Commit
	polling bool
	done    chan syncResult
}

type syncResult struct {
	im  Import
	err error
}

// firstPoll is the poll before the first execution (newCoordinator): the
// same path as the later ones, run in line so a campaign started next to
// its peers replays their entries right after its own seeds.
func (c *coordinator) firstPoll(ctx context.Context) error {
	s := c.sync
	im, err := s.imp.Poll(ctx)
	if err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	c.absorb(im)
	return nil
}

// startPoll starts a poll on its own goroutine unless one is running or
// the campaign is stopping. It commits first when every input polled so
// far has been merged.
func (c *coordinator) startPoll(ctx, sctx context.Context) {
	s := c.sync
	if s.polling || c.stop != "" {
		return
	}
	s.polling = true
	commit := c.canCommit()
	if commit {
		s.dirty = false
	}
	go func() {
		var r syncResult
		if commit {
			if err := s.imp.Commit(sctx); err != nil {
				r.err = err
				s.done <- r
				return
			}
		}
		r.im, r.err = s.imp.Poll(ctx)
		s.done <- r
	}()
}

// canCommit reports whether every input polled so far ran and was merged.
func (c *coordinator) canCommit() bool {
	s := c.sync
	return s.dirty && !s.lost && s.issued == 0 && len(s.queue) == 0
}

// pollDone merges a finished poll.
func (c *coordinator) pollDone(ctx context.Context, r syncResult) {
	c.sync.polling = false
	if r.err != nil {
		if ctx.Err() == nil {
			c.setErr(fmt.Errorf("sync: %w", r.err))
		}
		return
	}
	c.absorb(r.im)
}

// absorb queues a poll's inputs and learns its failure identities.
func (c *coordinator) absorb(im Import) {
	s := c.sync
	s.queue = append(s.queue, im.Inputs...)
	s.dirty = true // the importer's watermarks moved, even without inputs
	fresh := 0
	for _, id := range im.KnownFailures {
		if !c.known[id] && c.failures[id] == nil {
			fresh++
		}
	}
	if fresh == 0 {
		return
	}
	// Copy on write: batches in flight hold the old set.
	known := make(map[string]bool, len(c.known)+fresh)
	maps.Copy(known, c.known)
	for _, id := range im.KnownFailures {
		if c.failures[id] == nil {
			known[id] = true
		}
	}
	c.known = known
}

// importing reports whether a polled input waits to be issued.
func (c *coordinator) importing() bool { return c.sync != nil && len(c.sync.queue) > 0 }

// takeImport makes j the replay of the next polled input (importing must
// be true).
func (c *coordinator) takeImport(j *Job) {
	s := c.sync
	in := s.queue[0]
	s.queue[0] = Imported{}
	s.queue = s.queue[1:]
	s.issued++
	op := in.Op
	if op == "" {
		op = OpSync
	}
	j.Parent = &Entry{ID: -1, Choices: in.Choices, Input: in.Choices}
	j.N, j.replay, j.imported, j.importOp = 1, true, true, op
}

// importMerged counts an import job's merge.
func (c *coordinator) importMerged(r *jobResult) {
	c.sync.issued--
	if r.execs == 0 {
		c.sync.lost = true // cut short by a stop: offered again next session
	}
}

// endSync waits for a poll in flight and commits if every polled input
// ran (finish).
func (c *coordinator) endSync(ctx context.Context) error {
	s := c.sync
	if s.polling {
		r := <-s.done
		s.polling = false
		if r.err == nil && len(r.im.Inputs) > 0 {
			s.lost = true // polled, never run
		}
	}
	if !c.canCommit() {
		return nil
	}
	s.dirty = false
	if err := s.imp.Commit(ctx); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	return nil
}
