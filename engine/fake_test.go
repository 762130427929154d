package engine

import (
	"context"
	"math/rand/v2"

	"github.com/cespare/xxhash/v2"

	"github.com/wafer-fuzz/wafer/runtime"
)

// fakeCov is the counter array a fake target writes.
type fakeCov []byte

func (c fakeCov) hit(site int) {
	if c[site] == 255 {
		c[site] = 1 // wraps to 1 (instrument saturates; the engine must cope with either)
	} else {
		c[site]++
	}
}

// fakeTarget is a target written in Go: it records its "coverage" in c.
type fakeTarget struct {
	sites int
	run   func(in []byte, c fakeCov) (Outcome, *Failure)
}

// fakeExec runs a fakeTarget; onRun, when set, sees every input.
type fakeExec struct {
	t     *fakeTarget
	c     fakeCov
	onRun func(in []byte)
}

func (f *fakeExec) Run(_ context.Context, in []byte) (Result, error) {
	clear(f.c)
	if f.onRun != nil {
		f.onRun(in)
	}
	o, fail := f.t.run(in, f.c)
	return Result{Outcome: o, Counters: f.c, Failure: fail}, nil
}

func (t *fakeTarget) executors(onRun func(w int) func([]byte)) func(context.Context, int) (Executor, error) {
	return func(_ context.Context, w int) (Executor, error) {
		e := &fakeExec{t: t, c: make(fakeCov, t.sites)}
		if onRun != nil {
			e.onRun = onRun(w)
		}
		return e, nil
	}
}

// magicTarget crashes on inputs starting with "FUZZ": four nested byte
// comparisons, each level its own then/else counters.
var magicTarget = &fakeTarget{sites: 16, run: func(in []byte, c fakeCov) (Outcome, *Failure) {
	c.hit(0)
	if len(in) < 4 {
		c.hit(1)
		return Invalid, nil
	}
	magic := "FUZZ"
	for i := range 4 {
		if in[i] != magic[i] {
			c.hit(2 + 2*i)
			return Valid, nil
		}
		c.hit(3 + 2*i)
	}
	return Crash, &Failure{Identity: "crash: panic|found FUZZ|check;main", Kind: runtime.KindGoPanic, Message: "found FUZZ", Frames: []string{"check", "main"}, Text: "panic: found FUZZ"}
}}

// progGen is a generator for progTarget: a program of 1..16 instructions
// (op, arg), ops 0..5, args 0..3, serialised as [n, op, arg, …, 0xff].
// Missing choices come from a PRNG seeded with the sequence's hash.
type progGen struct{}

type choiceReader struct {
	seq   []byte
	pos   int
	ext   *rand.Rand
	extra []byte
}

func (r *choiceReader) next() byte {
	if r.pos < len(r.seq) {
		r.pos++
		return r.seq[r.pos-1]
	}
	if r.ext == nil {
		r.ext = rand.New(rand.NewPCG(xxhash.Sum64(r.seq), 0))
	}
	b := byte(r.ext.Uint32())
	r.extra = append(r.extra, b)
	return b
}

func (r *choiceReader) used() []byte {
	if r.pos <= len(r.seq) {
		return append([]byte(nil), r.seq[:r.pos]...)
	}
	return append(append([]byte(nil), r.seq...), r.extra...)
}

func (progGen) Generate(ch []byte) ([]byte, []byte, error) {
	r := &choiceReader{seq: ch}
	n := 1 + int(r.next())%16
	out := []byte{byte(n)}
	for range n {
		out = append(out, r.next()%6, r.next()%4)
	}
	out = append(out, 0xff)
	return out, r.used(), nil
}

// progTarget checks syntax (sites 1..8), then semantics (9..19): op 0
// declares variable arg (not twice), ops 1..4 use a declared variable, op 5
// returns and must come last. Only valid programs reach the "execution"
// sites: one per (previous op, op) pair, one per triple of consecutive
// ops, one per (op, arg), one per length.
var progTarget = &fakeTarget{sites: 340, run: func(in []byte, c fakeCov) (Outcome, *Failure) {
	c.hit(0)
	if len(in) < 2 {
		c.hit(1)
		return Invalid, nil
	}
	n := int(in[0])
	if n < 1 || n > 16 {
		c.hit(2)
		return Invalid, nil
	}
	if len(in) != 2+2*n {
		c.hit(3)
		return Invalid, nil
	}
	if in[len(in)-1] != 0xff {
		c.hit(4)
		return Invalid, nil
	}
	for i := range n {
		if in[1+2*i] > 5 {
			c.hit(5)
			return Invalid, nil
		}
		if in[2+2*i] > 3 {
			c.hit(6)
			return Invalid, nil
		}
	}
	c.hit(7)
	var declared [4]bool
	for i := range n {
		op, arg := in[1+2*i], in[2+2*i]
		c.hit(9 + int(op))
		switch {
		case op == 0:
			if declared[arg] {
				c.hit(15)
				return Invalid, nil
			}
			declared[arg] = true
		case op == 5:
			if i != n-1 {
				c.hit(16)
				return Invalid, nil
			}
		default:
			if !declared[arg] {
				c.hit(17)
				return Invalid, nil
			}
		}
	}
	c.hit(18)
	prev, prev2 := 6, -1
	for i := range n {
		op, arg := int(in[1+2*i]), int(in[2+2*i])
		c.hit(20 + prev*6 + op) // 20..61
		if prev2 >= 0 {
			c.hit(70 + (prev2*6+prev)*6 + op) // 70..285
		}
		c.hit(290 + op*4 + arg) // 290..313
		prev2, prev = prev, op
		if prev2 == 6 {
			prev2 = -1
		}
	}
	c.hit(320 + n) // 321..336
	return Valid, nil
}}
