package corpus

import (
	"context"
	"sync"
)

// FlatWriter writes inputs into a Flat directory on several goroutines at
// once, for a campaign that finds inputs faster than one writer can fsync
// them. Concurrent fsyncs share the filesystem journal's commits: on this
// project's ext4 machine, 500 files took 1.35 s one at a time and 0.23 s
// four at a time. Write returns at once (it blocks only while Parallel
// writes are in flight); Wait waits for all of them. An input already
// written by this FlatWriter is not written again, so two writes never race
// for one name. The order in which files appear is not defined (their
// names are their hashes).
type FlatWriter struct {
	flat Flat
	sem  chan struct{}
	wg   sync.WaitGroup

	mu   sync.Mutex
	seen map[string]bool
	err  error // the first write error
}

// flatWriters is FlatWriter's default number of writes in flight.
const flatWriters = 8

// Writer returns a FlatWriter into f with at most parallel writes in
// flight; parallel ≤ 0 means 8.
func (f Flat) Writer(parallel int) *FlatWriter {
	if parallel <= 0 {
		parallel = flatWriters
	}
	return &FlatWriter{flat: f, sem: make(chan struct{}, parallel), seen: map[string]bool{}}
}

// Write queues a copy of data to be saved as Flat.Write(ctx, prefix, data)
// would. A write error is kept for Wait; after one, later writes are
// dropped.
func (w *FlatWriter) Write(ctx context.Context, prefix string, data []byte) {
	name := prefix + SHA1(data)
	w.mu.Lock()
	if w.err != nil || w.seen[name] {
		w.mu.Unlock()
		return
	}
	w.seen[name] = true
	w.mu.Unlock()
	data = append([]byte(nil), data...)
	w.sem <- struct{}{}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer func() { <-w.sem }()
		if _, err := w.flat.write(ctx, name, data); err != nil {
			w.mu.Lock()
			if w.err == nil {
				w.err = err
			}
			w.mu.Unlock()
		}
	}()
}

// Wait waits for every queued write and returns the first error.
func (w *FlatWriter) Wait() error {
	w.wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}
