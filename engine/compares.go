package engine

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"math/bits"
	"slices"
)

// Input-to-state mutation (Redqueen's; AFL++'s cmplog, libFuzzer's table
// of recent compares): many checks compare input bytes, barely
// transformed, with a value the target holds (a magic number, a keyword,
// a check value). A second build of the target logs the operands of its
// comparisons (instrument.Options.Compares); the engine runs a queue
// entry on it once, finds each operand among the entry's bytes (as 2, 4
// or 8-byte little or big-endian integers, or as the bytes memcmp and
// strcmp saw) and keeps "put the other operand there" as a replacement.
// The coordinator gives each entry that covered a new branch when it was
// merged (seeds included), the first time its strategy picks it, a stage
// job (Job.stage) before the strategy's: one child per replacement, each
// the entry with that replacement alone, as Redqueen's and AFL++'s
// input-to-state stage.
// Multi-byte magic values that coverage alone finds only by chance (1 in
// 2^32 for a 4-byte one) become one execution away.
//
// Havoc does not draw replacements as one more stacked operator (as
// libFuzzer uses its table of recent compares). That cost csqlite 1-4 %
// of its coverage in 30-second campaigns (seeds 1 and 3: 7,449 and 7,039
// edges, against 7,607 and 7,261 with the stage alone and 7,515 and
// 7,330 without input-to-state); rustini's planted bug took a median of
// 9.7k executions with it, 15k with the stage alone, 47k without (6
// seeds).
//
// Only raw mode: with a generator the input's bytes are not the choices.

// Comparer runs an input on the comparison-logging build of the target.
type Comparer interface {
	// Compare returns the comparisons the target made running input, and
	// the failure when the run crashed (nil otherwise). The result is a
	// function of input only; its slices are the caller's. The engine
	// runs each queue entry on it once, so a build with checks the
	// executors' build lacks (instrument.Options.HeapCheck) checks every
	// entry: a crash there that the entry did not have is a finding.
	Compare(ctx context.Context, input []byte) ([]Operands, *Failure, error)
}

// Operands are the two sides of one comparison.
type Operands struct {
	// Size is the width of integer operands in bytes (4 or 8); 0 for
	// memory comparisons.
	Size int
	// A and B are integer operands (zero-extended).
	A, B uint64
	// MemA and MemB are the bytes a memcmp/strcmp compared.
	MemA, MemB []byte
	// Site names the comparison in the build (its log entry: one
	// comparison instruction, a group of a switch's cases, or a
	// comparison function for all its calls), the same in every run.
	Site int
}

// Limits on an entry's replacements: a loop's comparison logs many pairs,
// and a 1-byte operand matches everywhere.
const (
	maxReplacements = 256
	// maxStage caps the children of a stage job: its first replacements,
	// the largest operands (a 2-byte operand often matches text by
	// chance). csqlite's staged entries have 21 on average, each a full
	// run.
	maxStage       = 16
	maxOccurrences = 4 // places one replacement is kept for
	minMemOperand  = 2 // shorter memory operands are not looked for
)

// opInputToState is the Op of queue entries and findings from a stage job.
const opInputToState = OpInputToState

// opChecked is the Op of a finding from a queue entry's run on the
// comparer (Comparer).
const opChecked = OpChecked

// replacement puts to at pos in place of from (the bytes there).
type replacement struct {
	pos      int32
	from, to []byte
	// le: the operand was found little-endian; joinHalves joins halves
	// found in one byte order
	le bool
	// nth: the replacement's place is the nth (from 0) its operand was
	// found at; all first places are tried before any second one (an
	// input of one byte value repeated holds a 2-byte operand at every
	// place, and a stage would try one comparison's places only).
	nth int32
	// near: to is the other operand plus or minus one, for an ordering
	// comparison the exact value does not pass (x <= 100100 || x >=
	// 100102 needs 100101), as AFL++'s cmplog tries too. Tried after every
	// exact replacement.
	near bool
	// closer: the operands' comparison had never been logged by the
	// worker's comparer runs, or never with so few differing bits (see
	// closest): the entry got nearer to passing it.
	closer bool
}

// closest is a worker's record, per comparison site (Operands.Site), of
// the fewest bits in which the operands its comparer runs logged there
// differed, plus one (0: never logged). It is what the value profile
// measures (instrument/valueprofile.go), taken from the log the stage
// reads anyway, so it costs nothing outside stages and needs no
// --value-profile. Each worker keeps its own: a one-worker campaign stays
// a function of its seed.
type closest []uint8

// maxSite bounds the sites closest records (the log has at most 2^17
// integer entries and one per comparison function).
const maxSite = 1 << 18

// closer reports whether d differing bits at site are fewer than any
// recorded there, or site has no record.
func (c closest) closer(site int, d uint8) bool {
	if site < 0 || site >= len(c) {
		return site >= 0 && site < maxSite
	}
	return c[site] == 0 || d < c[site]-1
}

// note records d differing bits at site.
func (c *closest) note(site int, d uint8) {
	if site < 0 || site >= maxSite {
		return
	}
	if site >= len(*c) {
		*c = append(*c, make([]uint8, site+1-len(*c))...)
	}
	if v := &(*c)[site]; *v == 0 || d < *v-1 {
		*v = d + 1
	}
}

// distance is the number of bits in which op's operands differ: integer
// ones, or memory ones over their common length plus 8 per byte the
// longer has more; at most 254.
func distance(op *Operands) uint8 {
	n := 0
	if op.Size != 0 {
		n = bits.OnesCount64(op.A ^ op.B)
	} else {
		a, b := op.MemA, op.MemB
		if len(a) > len(b) {
			a, b = b, a
		}
		n = 8 * (len(b) - len(a))
		for i := range a {
			n += bits.OnesCount8(a[i] ^ b[i])
		}
	}
	return uint8(min(n, 254))
}

// inputToState finds the operands of ops in input and returns the
// replacements, exact ones before near ones, larger operands first, then
// each replacement's first place before its later ones, then those of
// comparisons that got closer than before (h; nil: none did), at most
// maxReplacements; it records ops' distances in h. Integer operands are
// looked for as 2, 4 and 8-byte values of either byte order, and as 3, 5,
// 6 or 7-byte ones when one operand needs that many bytes; comparisons of two values below 256 (a byte against a character) are
// left to havoc's byte operators, as AFL++'s cmplog ignores comparisons
// narrower than 16 bits: in a text input each would match everywhere.
func inputToState(input []byte, ops []Operands, h *closest) []replacement {
	var out []replacement
	closer := false // what put adds
	type key struct {
		pos      int
		from, to string
	}
	seen := map[key]bool{}
	near := false // what add adds
	le := false
	put := func(pos int, from, to []byte, nth int) {
		if bytes.Equal(from, to) {
			return
		}
		if k := (key{pos, string(from), string(to)}); !seen[k] {
			seen[k] = true
			out = append(out, replacement{pos: int32(pos), from: bytes.Clone(from), to: bytes.Clone(to), near: near, le: le, nth: int32(nth), closer: closer})
		}
	}
	add := func(from, to []byte) {
		if len(from) == 0 || bytes.Equal(from, to) || len(from) > len(input) {
			return
		}
		n := 0
		for i := 0; n < maxOccurrences; n++ {
			k := bytes.Index(input[i:], from)
			if k < 0 {
				break
			}
			pos := i + k
			put(pos, from, to, n)
			i = pos + 1
		}
	}
	type pair struct {
		size int
		a, b uint64
		ma   string
		mb   string
	}
	done := map[pair]bool{}
	for i := range ops {
		op := &ops[i]
		closer = h != nil && h.closer(op.Site, distance(op))
		p := pair{op.Size, op.A, op.B, string(op.MemA), string(op.MemB)}
		if done[p] {
			continue
		}
		done[p] = true
		if op.Size == 0 {
			if len(op.MemA) < minMemOperand && len(op.MemB) < minMemOperand {
				continue
			}
			for _, ft := range [2][2][]byte{{op.MemA, op.MemB}, {op.MemB, op.MemA}} {
				n := len(out)
				add(ft[0], ft[1])
				if len(out) == n && len(ft[0]) >= minTransformed && !bytes.Equal(ft[0], ft[1]) && !baseStage {
					for _, r := range transformed(input, ft[0], ft[1]) {
						put(int(r.pos), r.from, r.to, int(r.nth))
					}
				}
			}
			continue
		}
		if op.A < 256 && op.B < 256 {
			continue
		}
		var la, lb, ba, bb [8]byte
		// swap puts a's bytes in place of b's and b's in place of a's,
		// the replacements' values d away from the other operand.
		swap := func(w int, a, b uint64, d uint64) {
			binary.LittleEndian.PutUint64(la[:], a)
			binary.LittleEndian.PutUint64(lb[:], b+d)
			binary.BigEndian.PutUint64(ba[:], a)
			binary.BigEndian.PutUint64(bb[:], b+d)
			le = true
			add(la[:w], lb[:w])
			le = false
			add(ba[8-w:], bb[8-w:])
			binary.LittleEndian.PutUint64(la[:], a+d)
			binary.LittleEndian.PutUint64(lb[:], b)
			binary.BigEndian.PutUint64(ba[:], a+d)
			binary.BigEndian.PutUint64(bb[:], b)
			le = true
			add(lb[:w], la[:w])
			le = false
			add(bb[8-w:], ba[8-w:])
		}
		for _, w := range [...]int{8, 7, 6, 5, 4, 3, 2} {
			if w > op.Size {
				continue
			}
			if w&(w-1) != 0 && byteLen(op.A) != w && byteLen(op.B) != w {
				// an odd width only for a value of that many bytes
				// (_ExtInt(24), a 3-byte length field)
				continue
			}
			a, aok := narrow(op.A, op.Size, w)
			b, bok := narrow(op.B, op.Size, w)
			if !aok || !bok {
				continue
			}
			near = false
			n := len(out)
			swap(w, a, b, 0)
			if len(out) == n && w == op.Size && w >= 4 && !baseStage {
				// neither operand in the input: through a transform,
				// in either byte order
				binary.LittleEndian.PutUint64(la[:], a)
				binary.LittleEndian.PutUint64(lb[:], b)
				binary.BigEndian.PutUint64(ba[:], a)
				binary.BigEndian.PutUint64(bb[:], b)
				for _, ft := range [...][2][]byte{{la[:w], lb[:w]}, {lb[:w], la[:w]}, {ba[8-w:], bb[8-w:]}, {bb[8-w:], ba[8-w:]}} {
					for _, r := range transformed(input, ft[0], ft[1]) {
						put(int(r.pos), r.from, r.to, int(r.nth))
					}
				}
			}
			near = true
			swap(w, a, b, 1)
			swap(w, a, b, ^uint64(0)) // minus one
		}
		near = false
	}
	if h != nil {
		for i := range ops {
			h.note(ops[i].Site, distance(&ops[i]))
		}
	}
	if !baseStage {
		out = append(out, joinHalves(input, out)...)
	}
	slices.SortStableFunc(out, func(x, y replacement) int {
		if x.near != y.near {
			if y.near {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(len(y.from), len(x.from)); c != 0 || baseStage {
			return c
		}
		if c := cmp.Compare(x.nth, y.nth); c != 0 || !nearestFirst {
			return c
		}
		if x.closer != y.closer {
			if x.closer {
				return -1
			}
			return 1
		}
		return 0
	})
	if len(out) > maxReplacements {
		out = out[:maxReplacements]
	}
	return slices.Clip(out)
}

// maxJoined caps the 16-byte replacements joinHalves adds, and
// maxHalves the 8-byte ones it joins.
const (
	maxJoined = 32
	maxHalves = 64
)

// joinHalves returns the 128-bit replacements of rs: a comparison of
// 128-bit integers is two of 8 bytes in wasm (an i64 pair; the xor idiom
// of instrument's log), and a child with one half replaced passes
// neither, so two 8-byte replacements side by side in the input (either
// order of halves: either byte order, the same for both) make one of 16
// bytes too, near when either is.
func joinHalves(input []byte, rs []replacement) []replacement {
	var halves []int
	for i, r := range rs {
		if len(r.from) == 8 && len(r.to) == 8 && len(halves) < maxHalves {
			halves = append(halves, i)
		}
	}
	type key struct {
		pos    int32
		lo, hi string
	}
	type pairing struct{ lo, hi string }
	seen := map[key]bool{}
	ranks := map[pairing]int{}
	var out []replacement
	for _, i := range halves {
		r := rs[i]
		p := int(r.pos) + 8
		if p+8 > len(input) {
			continue
		}
		for _, j := range halves {
			s := rs[j]
			// s's operand (the other half's) follows r's in the input
			if s.le != r.le || r.near && s.near || !bytes.Equal(input[p:p+8], s.from) ||
				bytes.Equal(r.from, s.from) && bytes.Equal(r.to, s.to) || bytes.Equal(r.from, s.to) && bytes.Equal(r.to, s.from) {
				// (one comparison's replacement twice, or both ways)
				continue
			}
			k := key{r.pos, string(r.to), string(s.to)}
			if seen[k] {
				continue
			}
			seen[k] = true
			pg := pairing{string(r.to), string(s.to)}
			out = append(out, replacement{pos: r.pos, from: bytes.Clone(input[r.pos : p+8]), to: slices.Concat(r.to, s.to), near: r.near || s.near, nth: int32(ranks[pg]),
				closer: r.closer || s.closer})
			ranks[pg]++
		}
	}
	// exact joins first, and each pairing's first place before any
	// pairing's second (nth)
	slices.SortStableFunc(out, func(x, y replacement) int {
		if x.near != y.near {
			if y.near {
				return -1
			}
			return 1
		}
		return cmp.Compare(x.nth, y.nth)
	})
	return out[:min(len(out), maxJoined)]
}

// minTransformed is the shortest memory operand looked for through a
// transform.
const minTransformed = 3

// transformed finds from in input through a byte-wise transform the
// target applied before comparing (AFL++'s cmplog "transform" level):
// case folding (to as it is), adding a constant
// k and xoring a constant k (to through the inverse: minus k, xor k). It
// returns one replacement per place found, at most maxOccurrences, each
// (the input's bytes, what to write).
func transformed(input, from, to []byte) []replacement {
	n := len(from)
	var out []replacement
	places := 0
	for p := 0; p+n <= len(input) && places < maxOccurrences; p++ {
		w := input[p : p+n]
		var backs []func(byte) byte
		if bytes.EqualFold(w, from) {
			backs = append(backs, func(c byte) byte { return c })
		}
		if sameDelta(w, from, func(a, b byte) byte { return b - a }) {
			k := from[0] - w[0]
			backs = append(backs, func(c byte) byte { return c - k })
		}
		if sameDelta(w, from, func(a, b byte) byte { return b ^ a }) {
			k := from[0] ^ w[0]
			backs = append(backs, func(c byte) byte { return c ^ k })
		}
		if backs != nil {
			places++
		}
		// (a run of one byte value fits more than one transform)
		for _, back := range backs {
			t := make([]byte, len(to))
			for i, c := range to {
				t[i] = back(c)
			}
			out = append(out, replacement{pos: int32(p), from: bytes.Clone(w), to: t, nth: int32(places - 1)})
		}
	}
	return out
}

// sameDelta reports whether d(w[i], from[i]) is one non-zero value for
// every i.
func sameDelta(w, from []byte, d func(a, b byte) byte) bool {
	k := d(w[0], from[0])
	if k == 0 {
		return false
	}
	for i := range w {
		if d(w[i], from[i]) != k {
			return false
		}
	}
	return true
}

// byteLen is the number of bytes v needs (1 for 0).
func byteLen(v uint64) int { return max(1, (bits.Len64(v)+7)/8) }

// narrow returns v, an operand of size bytes, as a w-byte value when it
// fits: zero-extended, or sign-extended from w bytes.
func narrow(v uint64, size, w int) (uint64, bool) {
	if w >= size {
		return v, true
	}
	nb := uint(8 * w)
	lo := v & (1<<nb - 1)
	if v == lo {
		return lo, true
	}
	mask := uint64(1)<<uint(8*size) - 1         // all ones for size 8: the shift gives 0
	if lo>>(nb-1) == 1 && v|(1<<nb-1) == mask { // sign-extended
		return lo, true
	}
	return 0, false
}

// apply returns b with r applied when b still holds r.from at r.pos (nil
// otherwise).
func (r *replacement) apply(b []byte) []byte {
	p := int(r.pos)
	if p+len(r.from) > len(b) || !bytes.Equal(b[p:p+len(r.from)], r.from) {
		return nil
	}
	if len(r.to) == len(r.from) {
		copy(b[p:], r.to)
		return b
	}
	return slices.Replace(b, p, p+len(r.from), r.to...)
}
