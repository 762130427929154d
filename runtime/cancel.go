package runtime

import (
	"context"
	goruntime "runtime"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero/api"
)

// Cancelling a run in flight. A module with fuel runs without wazero's
// context checks (they make loops 3-6x slower: Config.Timeout), so a
// canceled ctx would otherwise wait for the run to spend its fuel: over a
// minute on an input that allocates in a loop, which held up a SIGTERM
// during shrinking. Instead, once the ctx of a call in flight is done, a
// watcher sets the fuel global to 0, every millisecond until the call
// returns (the target's own decrement, a get and a set, may overwrite one
// store): the next fuel check of a function entry or an outer loop header
// traps, and RunFuel returns ctx's error. A leaf loop counts down a local
// copy of the fuel, so it stops at its exit or when that copy runs out.
//
// The watcher and the worker hand the global over through callState:
// the worker's goroutine touches it only while no call is marked, the
// watcher only while it holds the call's mark (callPoking), so the two
// never access it at once.

// callState is the word the worker and its watcher share: the generation
// of the call's ctx times 4 plus the phase. Each ctx watched gets a
// generation of its own, from 1; a call under a ctx that is not watched
// (one that is never done, or a module without fuel) has generation 0, so
// no watcher ever touches it.
type callState struct {
	word atomic.Uint64
	gen  uint64          // the watched ctx's generation (worker's goroutine only)
	cur  uint64          // the running call's generation
	ctx  context.Context // the watched ctx
	stop func() bool     // unregisters the watcher of ctx
	// pokes counts the watchers' stores into the fuel global, so that a
	// test can wait for one instead of for time to pass.
	pokes atomic.Uint64
}

const (
	callIdle    = 0
	callRunning = 1
	callPoking  = 2
)

// enterCall marks a call about to run under ctx, watching ctx when the
// module has fuel, and reports whether ctx is still live; when it is not,
// the mark is already removed.
func (w *Worker) enterCall(ctx context.Context) bool {
	c := &w.calls
	if w.fuel != nil && ctx.Done() != nil && c.ctx != ctx {
		if c.stop != nil {
			c.stop()
		}
		c.gen++
		gen := c.gen
		c.ctx = ctx
		c.stop = context.AfterFunc(ctx, func() { w.pokeFuel(gen) })
	}
	c.cur = 0
	if c.ctx == ctx && ctx.Done() != nil {
		c.cur = c.gen
	}
	c.word.Store(c.cur<<2 | callRunning)
	if ctx.Err() != nil {
		w.leaveCall()
		return false
	}
	return true
}

// leaveCall removes the mark once the call returned, waiting for a
// watcher that is storing into the fuel global.
func (w *Worker) leaveCall() {
	c := &w.calls
	for !c.word.CompareAndSwap(c.cur<<2|callRunning, c.cur<<2|callIdle) {
		goruntime.Gosched()
	}
}

// pokeFuel is the watcher of generation gen (see above): it runs once
// that ctx is done and ends when no call of its generation is in flight
// (no later call under that ctx starts: enterCall).
func (w *Worker) pokeFuel(gen uint64) {
	c := &w.calls
	for {
		switch {
		case c.word.CompareAndSwap(gen<<2|callRunning, gen<<2|callPoking):
			w.fuel.(api.MutableGlobal).Set(0)
			c.pokes.Add(1)
			c.word.Store(gen<<2 | callRunning)
		case c.word.Load() != gen<<2|callRunning:
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// unwatch unregisters the watcher (Close).
func (w *Worker) unwatch() {
	if w.calls.stop != nil {
		w.calls.stop()
		w.calls.stop, w.calls.ctx = nil, nil
	}
}
