package engine

import (
	"context"
	"sync"
)

// asyncStore runs a Store's writes on its own goroutine, in call order, so
// the coordinator never waits for the disk (an fsync per new queue entry
// would otherwise stall every worker early in a campaign). Arguments are
// copied when queued. The first write error is reported on errc and stops
// further writes; close waits for the queued writes and returns it.
type asyncStore struct {
	s    Store
	ops  chan func(context.Context) error
	errc chan error // receives the first error once
	done sync.WaitGroup
	err  error // first error, owned by the writer goroutine until done
}

// asyncDepth is how many writes may be queued before the coordinator
// waits (back pressure on a disk that cannot keep up).
const asyncDepth = 1 << 12

func newAsyncStore(ctx context.Context, s Store) *asyncStore {
	a := &asyncStore{s: s, ops: make(chan func(context.Context) error, asyncDepth), errc: make(chan error, 1)}
	a.done.Add(1)
	go func() {
		defer a.done.Done()
		for op := range a.ops {
			if a.err != nil {
				continue
			}
			if err := op(ctx); err != nil {
				a.err = err
				a.errc <- err
			}
		}
	}()
	return a
}

func (a *asyncStore) Load(ctx context.Context) ([][]byte, error) { return a.s.Load(ctx) }

func (a *asyncStore) AddEntry(_ context.Context, e *Entry) error {
	a.ops <- func(ctx context.Context) error { return a.s.AddEntry(ctx, e) }
	return nil
}

func (a *asyncStore) AddFailure(_ context.Context, f *Finding) error {
	c := *f
	a.ops <- func(ctx context.Context) error { return a.s.AddFailure(ctx, &c) }
	return nil
}

// RecordHits queues f for the Store when it is a HitStore.
func (a *asyncStore) RecordHits(_ context.Context, f *Finding) error {
	hs, ok := a.s.(HitStore)
	if !ok {
		return nil
	}
	c := *f
	a.ops <- func(ctx context.Context) error { return hs.RecordHits(ctx, &c) }
	return nil
}

// AddFlaky queues f for the Store when it is a FlakyStore.
func (a *asyncStore) AddFlaky(_ context.Context, f *Finding) error {
	fs, ok := a.s.(FlakyStore)
	if !ok {
		return nil
	}
	c := *f
	a.ops <- func(ctx context.Context) error { return fs.AddFlaky(ctx, &c) }
	return nil
}

func (a *asyncStore) WriteStats(_ context.Context, s *Stats) error {
	c := *s
	a.ops <- func(ctx context.Context) error { return a.s.WriteStats(ctx, &c) }
	return nil
}

// close waits for every queued write and returns the first error.
func (a *asyncStore) close() error {
	close(a.ops)
	a.done.Wait()
	return a.err
}
