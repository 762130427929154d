package runtime

import (
	"errors"
	"sync"

	"github.com/tetratelabs/wazero/experimental"
)

// errMemoryCap ends a run whose memory.grow would pass the cap.
var errMemoryCap = errors.New("memory.grow past the memory cap")

// errMallocLimit ends a run whose memory.grow asks more than
// Config.MallocLimit at once.
var errMallocLimit = errors.New("memory.grow past the malloc limit")

// cappedAllocator backs instance memories and enforces the memory cap
// itself: wazero's WithMemoryLimitPages makes memory.grow fail silently,
// while this allocator records that the target asked for more than the
// cap and ends the run there (a panic wazero recovers, with the stack of
// the grow), so the run is a KindOutOfMemory crash with a stack.
//
// Memories are regions (region.go): on Linux, address space for the cap
// reserved outside Go's heap, committed as the memory grows, so growing
// never copies and pages never written take no resident memory.
//
// It also recycles: the buffer of a closed instance (Free) backs the next
// one, zeroed, so a worker that instantiates per run (Fresh, commands,
// re-instantiation after a crash) does not allocate megabytes per run
// for the garbage collector to sweep. Memory views of a closed instance
// (a Result's Counters) stay readable until the next instantiation.
type cappedAllocator struct {
	limit uint64 // bytes, reserved pages included
	fixed bool   // allocate min(max, limit) up front: the buffer never moves (shared memory)
	hit   bool   // a grow past limit was refused since the flag was cleared
	// single is Config.MallocLimit (0: none); singleHit the size of a
	// grow refused since the flag was cleared for asking more than it.
	single, singleHit uint64
	gen               uint64 // calls of Allocate and Reallocate: memory views older than this are stale
	// seq numbers the memories Allocate makes: the newest has seq.
	seq uint64
	// keep asks the next Allocate to hand over the spare unzeroed if it is
	// the memory numbered keepSeq, at least keep bytes long: its first
	// keep bytes are the caller's to restore (see recycle.go). reused
	// reports whether it did, with the spare's length.
	keep, keepSeq uint64
	reused        bool
	reusedLen     uint64
	// spare is the region freed last (its length the memory's), numbered
	// spareSeq: its bytes from spareStale on are zero (spareStale >= len:
	// a recycled buffer's instance may not have exposed all its stale
	// bytes). Guarded by mu: wazero's backstop closes (and frees) a module
	// from its own goroutine. closed: the worker is closed, a memory freed
	// now is released at once.
	mu         sync.Mutex
	spare      region
	spareSeq   uint64
	spareStale uint64
	closed     bool
}

func (a *cappedAllocator) Allocate(capacity, maximum uint64) experimental.LinearMemory {
	a.gen++
	a.seq++
	reserve := min(maximum, a.limit)
	if a.fixed {
		capacity = maximum
	}
	capacity = min(capacity, a.limit)
	reserve = max(reserve, capacity)
	a.mu.Lock()
	sp, spSeq, spStale := a.spare, a.spareSeq, a.spareStale
	a.spare = region{}
	a.closed = false
	a.mu.Unlock()
	keep := a.keep
	a.keep, a.reused = 0, false
	m := &cappedMemory{a: a, seq: a.seq}
	switch {
	case sp.b == nil || uint64(cap(sp.b)) < capacity || (sp.mapped && uint64(cap(sp.b)) < reserve) || a.fixed:
		sp.release()
		m.reg = newRegion(capacity, reserve)
		m.buf = m.reg.b
	case keep > 0 && spSeq == a.keepSeq && uint64(len(sp.b)) >= keep:
		a.reused, a.reusedLen = true, uint64(len(sp.b))
		if sp.mapped && spStale > keep {
			// What the last instance grew past the snapshot goes back to
			// the OS (zero again), not kept resident until a run grows
			// as far.
			sp.zero(keep, min(spStale, sp.committed))
			spStale = keep
		}
		m.reg = sp
		m.buf, m.stale, m.keep = sp.b[:0], spStale, keep
	default:
		sp.zero(0, min(spStale, sp.committed))
		m.reg = sp
		m.buf = sp.b[:0]
	}
	return m
}

// close releases the spare: the worker is closing, no view of its
// memories is read again.
func (a *cappedAllocator) close() {
	a.mu.Lock()
	sp := a.spare
	a.spare, a.closed = region{}, true
	a.mu.Unlock()
	sp.release()
}

type cappedMemory struct {
	a       *cappedAllocator
	seq     uint64
	reg     region // buf's region: buf is reg.b[:len(buf)]
	buf     []byte
	started bool
	// Bytes of buf[:cap] from stale on are zero; below keep they are the
	// worker's to restore, so growing does not zero them.
	stale, keep uint64
}

func (m *cappedMemory) Reallocate(size uint64) []byte {
	m.a.gen++
	if m.started && m.a.single > 0 && size > uint64(len(m.buf)) && size-uint64(len(m.buf)) > m.a.single {
		// one allocation larger than the malloc limit (libFuzzer's
		// -malloc_limit_mb): a finding where it was asked for, before
		// the cap is reached
		m.a.singleHit = size - uint64(len(m.buf))
		panic(errMallocLimit)
	}
	if m.started && size > m.a.limit {
		// The run is an out-of-memory crash whatever the target would
		// do with a failed grow: end it here, where wazero's stack trace
		// (it recovers the panic) shows who asked for the memory.
		m.a.hit = true
		panic(errMemoryCap)
	}
	if size <= uint64(cap(m.buf)) {
		if !m.reg.commit(size) {
			return nil // the OS refused the pages: a failed grow
		}
		// Bytes between the old length and cap were never exposed by this
		// memory: zero, but for a recycled buffer's stale bytes.
		m.started = true
		if lo, hi := max(uint64(len(m.buf)), m.keep), min(size, m.stale); lo < hi {
			m.reg.zero(lo, hi)
		}
		m.buf = m.buf[:size]
		m.reg.b = m.buf
		return m.buf
	}
	if (m.a.fixed || m.reg.mapped) && m.started {
		return nil // cannot move: refuse (wazero reports the failed grow)
	}
	m.started = true
	c := max(size, min(2*uint64(cap(m.buf)), m.a.limit))
	nb := make([]byte, size, c)
	copy(nb, m.buf)
	if uint64(len(m.buf)) < m.keep {
		m.a.reused = false // the recycled bytes not yet exposed are lost
	}
	m.reg.release()
	m.reg = region{b: nb, committed: c}
	m.buf, m.stale, m.keep = nb, 0, 0
	return nb
}

func (m *cappedMemory) Free() {
	if m.buf == nil {
		return
	}
	reg := m.reg
	reg.b = m.buf
	m.buf, m.reg = nil, region{}
	m.a.mu.Lock()
	var old region
	if m.a.closed {
		old = reg
	} else {
		old = m.a.spare
		m.a.spare, m.a.spareSeq, m.a.spareStale = reg, m.seq, max(uint64(len(reg.b)), m.stale)
	}
	m.a.mu.Unlock()
	old.release()
}
