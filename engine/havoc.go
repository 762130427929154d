package engine

import (
	"encoding/binary"
	"slices"
)

// Havoc is the AFL-like raw-byte baseline (docs/ALGORITHMS.md §1): FidgetyAFL's
// havoc operators (no deterministic stage) over the queue schedule of
// Cycle, with coverage feedback only: a child is saved for a new branch or
// a new (branch, bucket) pair, never for validity. In raw mode it mutates
// the input; with a generator it mutates the choice sequence.
//
// Each child is its parent with 1 + IntN(Depth) stacked operations: 1 to
// 5 by default, mean 3, libFuzzer's depth (-mutate_depth=5: its children
// carry 1 to 5 stacked mutations), drawn anew for every child rather than
// through libFuzzer's chain of children (each its predecessor plus one
// mutation), so a child depends on its parent and the PRNG only. AFL++
// stacks 2^(1+IntN(HAVOC_STACK_POW2 = 4)): 2 to 16, mean 7.5, which costs
// small inputs ~0.3 µs a child, as much as the target's run; StackPow2 > 0
// selects that schedule. On the nested four-byte magic test (40 seeds) the
// executions to the crash were 18k (median; p90 63k) with depth 5, 22k
// (p90 71k) with AFL++'s stacking, 32k (p90 137k) with libFuzzer's chains.
// Config.Havoc (--havoc-depth, --havoc-stack-pow2) sets both; StackPow2 7
// is AFL's 2 to 128, the FairFuzz paper's baseline (docs/EVALUATION.md:
// on tlv, czstd and cexpr at 1M executions it covered as much as depth 5,
// at 0.24x to 0.9x the execs/s; on csqlite at 100k executions 7 % less,
// on every seed).
type Havoc struct {
	Cycle
	// Depth: a child stacks 1 + IntN(Depth) operations (zero: 5).
	Depth int
	// StackPow2 > 0: a child stacks 2^(1+IntN(StackPow2)) operations
	// instead (AFL++; 4 is its HAVOC_STACK_POW2, AFL's was 7).
	StackPow2 int
}

// Save implements Strategy: coverage only, no validity rule.
func (*Havoc) Save(_ *State, fb *Feedback) bool { return fb.NewBranch || fb.NewBucket }

// Learn implements Strategy.
func (*Havoc) Learn(*State, *Job, *Feedback) {}

// JobDone implements Strategy.
func (*Havoc) JobDone(*State, *Job, any) {}

// NewMutator implements Strategy.
func (h *Havoc) NewMutator(_ int, env *MutatorEnv) Mutator {
	d := h.Depth
	if d <= 0 {
		d = 5
	}
	return &havocMutator{env: env, stackPow2: h.StackPow2, depth: d}
}

type havocMutator struct {
	BaseMutator
	env       *MutatorEnv
	stackPow2 int
	depth     int
}

func (m *havocMutator) Mutate(dst []byte, j *Job, r Rand) []byte {
	if j.Parent == nil {
		return freshChoices(dst, m.env, r)
	}
	b := append(dst[:0], j.Parent.Choices...)
	var ops int
	if m.stackPow2 > 0 {
		ops = 1 << (1 + r.IntN(m.stackPow2))
	} else {
		ops = 1 + r.IntN(m.depth)
	}
	for range ops {
		b = havocOnce(b, r, m.env, j)
	}
	if m.env.MaxLen > 0 && len(b) > m.env.MaxLen {
		b = b[:m.env.MaxLen]
	}
	return b
}

// havocOp is one mutation; it returns the changed slice, or nil when it
// does not apply to b (then another is drawn).
type havocOp func(b []byte, r Rand, env *MutatorEnv, j *Job) []byte

// havocOps is the operation table; havocOnce draws uniformly from it.
var havocOps = [...]havocOp{
	opFlipBit,
	opInteresting8, opInteresting16, opInteresting32,
	opArith8, opArith16, opArith32,
	opRandomByte,
	opDeleteBlock, opInsertBlock, opOverwriteBlock,
	opInsertToken, opOverwriteToken,
	opSplice,
}

// havocOnce applies one applicable operation (up to 16 draws; b unchanged
// if none applied).
func havocOnce(b []byte, r Rand, env *MutatorEnv, j *Job) []byte {
	for range 16 {
		if c := havocOps[r.IntN(len(havocOps))](b, r, env, j); c != nil {
			return c
		}
	}
	return b
}

// Interesting values, as AFL's config.h.
var (
	interesting8  = [...]int8{-128, -1, 0, 1, 16, 32, 64, 100, 127}
	interesting16 = [...]int16{-32768, -129, 128, 255, 256, 512, 1000, 1024, 4096, 32767}
	interesting32 = [...]int32{-2147483648, -100663046, -32769, 32768, 65535, 65536, 100663045, 2147483647}
)

// arithMax is AFL's ARITH_MAX: deltas are 1..35.
const arithMax = 35

func opFlipBit(b []byte, r Rand, _ *MutatorEnv, _ *Job) []byte {
	if len(b) == 0 {
		return nil
	}
	bit := r.IntN(len(b) * 8)
	b[bit>>3] ^= 1 << (bit & 7)
	return b
}

func opInteresting8(b []byte, r Rand, _ *MutatorEnv, _ *Job) []byte {
	if len(b) == 0 {
		return nil
	}
	pos := r.IntN(len(b))
	b[pos] = byte(interesting8[r.IntN(len(interesting8))])
	return b
}

// byteOrder picks the byte order of a multi-byte operation: a coin.
func byteOrder(r Rand) binary.ByteOrder {
	if r.IntN(2) == 1 {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

func opInteresting16(b []byte, r Rand, _ *MutatorEnv, _ *Job) []byte {
	if len(b) < 2 {
		return nil
	}
	pos := r.IntN(len(b) - 1)
	v := uint16(interesting16[r.IntN(len(interesting16))])
	byteOrder(r).PutUint16(b[pos:], v)
	return b
}

func opInteresting32(b []byte, r Rand, _ *MutatorEnv, _ *Job) []byte {
	if len(b) < 4 {
		return nil
	}
	pos := r.IntN(len(b) - 3)
	v := uint32(interesting32[r.IntN(len(interesting32))])
	byteOrder(r).PutUint32(b[pos:], v)
	return b
}

// delta draws ±(1..arithMax).
func delta(r Rand) int {
	d := 1 + r.IntN(arithMax)
	if r.IntN(2) == 1 {
		d = -d
	}
	return d
}

func opArith8(b []byte, r Rand, _ *MutatorEnv, _ *Job) []byte {
	if len(b) == 0 {
		return nil
	}
	pos := r.IntN(len(b))
	b[pos] = byte(int(b[pos]) + delta(r))
	return b
}

func opArith16(b []byte, r Rand, _ *MutatorEnv, _ *Job) []byte {
	if len(b) < 2 {
		return nil
	}
	pos := r.IntN(len(b) - 1)
	d := delta(r)
	order := byteOrder(r)
	order.PutUint16(b[pos:], uint16(int(order.Uint16(b[pos:]))+d))
	return b
}

func opArith32(b []byte, r Rand, _ *MutatorEnv, _ *Job) []byte {
	if len(b) < 4 {
		return nil
	}
	pos := r.IntN(len(b) - 3)
	d := delta(r)
	order := byteOrder(r)
	order.PutUint32(b[pos:], uint32(int64(order.Uint32(b[pos:]))+int64(d)))
	return b
}

func opRandomByte(b []byte, r Rand, _ *MutatorEnv, _ *Job) []byte {
	if len(b) == 0 {
		return nil
	}
	pos := r.IntN(len(b))
	b[pos] ^= byte(1 + r.IntN(255))
	return b
}

// blockLen draws a block length in [1, limit] (limit ≥ 1): small (≤ 32)
// 6 times in 10, medium (≤ 128) 3 in 10, large (≤ 1500) 1 in 10, as AFL's
// choose_block_len after the first cycles.
func blockLen(r Rand, limit int) int {
	hi := 32
	switch c := r.IntN(10); {
	case c >= 9:
		hi = 1500
	case c >= 6:
		hi = 128
	}
	return 1 + r.IntN(min(hi, limit))
}

// blkXL is AFL++'s HAVOC_BLK_XL: the longest run of one byte havoc inserts.
const blkXL = 32768

// repeatLen draws the length of a run of one repeated byte, in [1, limit]
// (limit ≥ 1): blockLen's lengths up to 128 (libFuzzer's
// InsertRepeatedBytes stops there), and 1 time in 50 a long run of 129 to
// blkXL bytes, uniform, as AFL++'s XL blocks. Runs of thousands of one
// byte are how havoc reaches a parser's unbounded recursion ("[[[[...":
// the Rust toml and ron crates overflow their stack at 5,000-8,000 and
// 2,000-4,000 levels), which steps of at most 128 cannot: each step is
// kept only for new coverage, and hit counts stop counting at 128.
func repeatLen(r Rand, limit int) int {
	if limit > 128 && r.IntN(50) == 0 {
		return 129 + r.IntN(min(blkXL, limit)-128)
	}
	return blockLen(r, min(128, limit))
}

func opDeleteBlock(b []byte, r Rand, _ *MutatorEnv, _ *Job) []byte {
	if len(b) < 2 {
		return nil
	}
	l := blockLen(r, len(b)-1)
	pos := r.IntN(len(b) - l + 1)
	// Not slices.Delete: it also zeroes the l bytes past the new end,
	// which the child buffer does not need.
	return append(b[:pos], b[pos+l:]...)
}

// room is how many bytes may be added to b.
func room(b []byte, env *MutatorEnv) int {
	if env.MaxLen <= 0 {
		return 1 << 20
	}
	return env.MaxLen - len(b)
}

// opInsertBlock inserts a clone of a block of b (3 in 4, needs b non-empty)
// or a block of one repeated byte, random or taken from b.
func opInsertBlock(b []byte, r Rand, env *MutatorEnv, _ *Job) []byte {
	space := room(b, env)
	if space <= 0 {
		return nil
	}
	to := r.IntN(len(b) + 1)
	if len(b) > 0 && r.IntN(4) != 0 {
		l := blockLen(r, min(len(b), space))
		from := r.IntN(len(b) - l + 1)
		// Insert a copy: grow, shifting the tail by l, then copy the block
		// from where its bytes are now: the part before the insertion
		// point stayed, the rest moved up by l (never inside [to, to+l)).
		b = insertSpace(b, to, l)
		mid := min(max(from, to), from+l) // first block byte at or after to
		copy(b[to:], b[from:mid])
		copy(b[to+mid-from:to+l], b[mid+l:])
		return b
	}
	b, _ = insertRepeat(b, r, to, space)
	return b
}

// fill sets every byte of b to v, doubling a copied prefix (a few memmoves
// instead of a loop per byte).
func fill(b []byte, v byte) {
	if len(b) == 0 {
		return
	}
	b[0] = v
	for n := 1; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}

// opOverwriteBlock copies a block of b over another (3 in 4) or sets a
// block to one repeated byte.
func opOverwriteBlock(b []byte, r Rand, _ *MutatorEnv, _ *Job) []byte {
	if len(b) < 2 {
		return nil
	}
	l := blockLen(r, len(b)-1)
	to := r.IntN(len(b) - l + 1)
	if r.IntN(4) != 0 {
		from := r.IntN(len(b) - l + 1)
		if from == to {
			return nil
		}
		copy(b[to:to+l], b[from:from+l])
		return b
	}
	v := byte(r.IntN(256))
	if r.IntN(2) == 0 {
		v = b[r.IntN(len(b))]
	}
	fill(b[to:to+l], v)
	return b
}

func opInsertToken(b []byte, r Rand, env *MutatorEnv, _ *Job) []byte {
	if len(env.Dict) == 0 {
		return nil
	}
	tok := env.Dict[r.IntN(len(env.Dict))]
	if len(tok) == 0 || len(tok) > room(b, env) {
		return nil
	}
	pos := r.IntN(len(b) + 1)
	return slices.Insert(b, pos, tok...)
}

func opOverwriteToken(b []byte, r Rand, env *MutatorEnv, _ *Job) []byte {
	if len(env.Dict) == 0 {
		return nil
	}
	tok := env.Dict[r.IntN(len(env.Dict))]
	if len(tok) == 0 || len(tok) > len(b) {
		return nil
	}
	pos := r.IntN(len(b) - len(tok) + 1)
	copy(b[pos:], tok)
	return b
}

// opSplice crosses b with another queue entry: b's head up to a random
// point in [1, min(len(b), len(donor)-1)], then the donor's tail from the
// same point (AFL's splice, with a uniform split point).
func opSplice(b []byte, r Rand, env *MutatorEnv, j *Job) []byte {
	donor := spliceDonor(b, r, j)
	if donor == nil {
		return nil
	}
	at := 1 + r.IntN(min(len(b), len(donor)-1))
	out := append(b[:at], donor[at:]...)
	if env.MaxLen > 0 && len(out) > env.MaxLen {
		out = out[:env.MaxLen]
	}
	return out
}

// spliceDonor draws a queue entry to splice b with and returns its
// choices; nil when the draw is j's parent, the queue has one entry, or
// either side is too short to split.
func spliceDonor(b []byte, r Rand, j *Job) []byte {
	if len(j.Queue) < 2 {
		return nil
	}
	k := r.IntN(len(j.Queue))
	if j.Queue[k] == j.Parent {
		return nil
	}
	donor := j.donor(k)
	if len(donor) < 2 || len(b) == 0 {
		return nil
	}
	return donor
}

// insertRepeat inserts at position at a run of up to space copies of one
// byte (random, or one of b's) and returns b and the run's length.
func insertRepeat(b []byte, r Rand, at, space int) ([]byte, int) {
	l := repeatLen(r, space)
	v := byte(r.IntN(256))
	if len(b) > 0 && r.IntN(2) == 0 {
		v = b[r.IntN(len(b))]
	}
	b = insertSpace(b, at, l)
	fill(b[at:at+l], v)
	return b, l
}

// insertSpace opens n bytes at position at (their content is stale) and
// grows b's storage only when needed.
func insertSpace(b []byte, at, n int) []byte {
	b = slices.Grow(b, n)
	b = b[:len(b)+n]
	copy(b[at+n:], b[at:len(b)-n])
	return b
}
