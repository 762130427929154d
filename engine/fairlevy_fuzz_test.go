package engine

import (
	"bytes"
	"testing"
)

// bytesRand is a Rand drawing from fuzzer-chosen bytes (zeros once they
// run out), so `go test -fuzz` explores the mutators' random choices.
type bytesRand struct {
	b []byte
}

func (r *bytesRand) Uint64() uint64 {
	var v uint64
	for i := range 8 {
		if len(r.b) > 0 {
			v |= uint64(r.b[0]) << (8 * i)
			r.b = r.b[1:]
		}
	}
	return v
}

func (r *bytesRand) IntN(n int) int { return int(r.Uint64() % uint64(n)) }

// FuzzMaskedHavoc: for any parent, mask and random choices, a masked havoc
// child keeps every byte whose mask is 0 (nothing allowed) with its
// neighbours' order, and its mask has one entry per byte plus the end.
func FuzzMaskedHavoc(f *testing.F) {
	f.Add([]byte("0123456789FORBIDDEN!abc"), []byte{7, 7, 0, 1, 2, 4, 0, 7}, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{}, []byte{}, []byte{0})
	f.Fuzz(func(t *testing.T, parent, maskBytes, choices []byte) {
		if len(parent) > 256 {
			parent = parent[:256]
		}
		mask := fullMask(len(parent))
		for i := range mask {
			if len(maskBytes) > 0 {
				mask[i] = maskBytes[i%len(maskBytes)] & maskAll
			}
		}
		// the protected bytes: mask 0 (inserted bytes are fully mutable,
		// so the child's mask-0 bytes are the parent's, in order)
		var keep []byte
		for i := range parent {
			if mask[i] == 0 {
				keep = append(keep, parent[i])
			}
		}
		env := &MutatorEnv{MaxLen: 512, Raw: true, Dict: [][]byte{[]byte("tok")}}
		m := NewFairFuzz(StrategyOptions{Raw: true, Havoc: HavocConfig{StackPow2: 4}}).NewMutator(0, env).(*fairMutator)
		p := &Entry{ID: 0, Choices: parent}
		j := &Job{Parent: p, Queue: []*Entry{p, {ID: 1, Choices: []byte("donor bytes here")}}, Param: &fairMask{x: parent, mask: mask}}
		child := m.Mutate(nil, j, &bytesRand{b: choices})
		if len(m.mb) != len(child)+1 {
			t.Fatalf("mask of %d entries for a child of %d bytes", len(m.mb), len(child))
		}
		var got []byte
		for i := range child {
			if m.mb[i] == 0 {
				got = append(got, child[i])
			}
		}
		if len(child) < 512 && !bytes.Equal(got, keep) {
			t.Fatalf("protected bytes %q became %q (child %q)", keep, got, child)
		}
		if !bytes.Equal(p.Choices, parent) {
			t.Fatalf("the parent changed")
		}
	})
}

// FuzzLevyMutate: a flight's child keeps the length and differs from its
// predecessor in at most one whole segment (bytes past the last whole
// segment never change), for any test case and steps.
func FuzzLevyMutate(f *testing.F) {
	f.Add([]byte("0123456789abcdef"), []byte{1, 2, 3}, uint8(0), 1.0)
	f.Add([]byte{}, []byte{}, uint8(2), 0.1)
	f.Fuzz(func(t *testing.T, x, choices []byte, segSel uint8, alpha float64) {
		if !(alpha > 0 && alpha <= 2) {
			alpha = 1
		}
		seg := []int{1, 2, 4}[segSel%3]
		p := &levyParam{x: x, alpha1: alpha, alpha2: alpha, segBytes: seg, fresh: len(x) < seg, initV: true}
		m := &levyMutator{env: &MutatorEnv{FreshLen: 16, Raw: true}}
		j := &Job{Param: p}
		r := &bytesRand{b: choices}
		prev := m.Mutate(nil, j, r)
		for range 8 {
			child := m.Mutate(nil, j, r)
			if len(child) != len(prev) || len(child) < seg {
				t.Fatalf("length %d after %d (segments of %d)", len(child), len(prev), seg)
			}
			if tail := len(child) / seg * seg; !bytes.Equal(child[tail:], prev[tail:]) {
				t.Fatalf("the bytes past the last whole segment changed")
			}
			diff := 0
			for s := 0; s < len(child)/seg; s++ {
				if !bytes.Equal(child[s*seg:(s+1)*seg], prev[s*seg:(s+1)*seg]) {
					diff++
				}
			}
			if diff > 1 {
				t.Fatalf("%d segments changed in one step", diff)
			}
			prev = child
		}
	})
}

// FuzzLevyStep: steps are non-zero for every α in (0, 2] and any draws,
// and wrap into the range.
func FuzzLevyStep(f *testing.F) {
	f.Add(1.0, []byte{0, 0, 0, 0, 0, 0, 0, 0}, uint64(256))
	f.Add(0.01, []byte{255, 255, 255, 255, 255, 255, 255, 255}, uint64(7))
	f.Fuzz(func(t *testing.T, alpha float64, choices []byte, n uint64) {
		if !(alpha >= minAlpha && alpha <= 2) {
			alpha = 1.5
		}
		r := &bytesRand{b: choices}
		if s := levyStep(alpha, r); s == 0 {
			t.Fatalf("zero step")
		}
		if n == 0 {
			n = 1
		}
		if v := levyWalk(n-1, alpha, n, r); v >= n {
			t.Fatalf("walk left the range: %d of %d", v, n)
		}
	})
}
