package generators

import (
	"math/bits"
	"slices"
	"strconv"
)

// Gen is a typed generator: a function over the source returning a T.
type Gen[T any] func(s *Source) T

// Alt is one weighted alternative of OneOf.
type Alt[T any] struct {
	Weight int
	Gen    Gen[T]
}

// le reads up to 8 bytes as a little-endian unsigned integer.
func le(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// bytesFor returns how many bytes hold values up to span (at least 1).
func bytesFor(span uint64) int {
	return max(1, (bits.Len64(span)+7)/8)
}

// below maps the little-endian integer in b to [0, n) (n > 0).
func below(b []byte, n uint64) uint64 { return le(b) % n }

// Int returns a value draw in [lo, hi] (inclusive; panics if lo > hi).
// Ranges wider than 16 values take one selector byte more: with probability
// 26/256 (≈0.1) a dictionary integer in the range, if there is one; with
// 16/256 (42/256 when the dictionary has none in range) a boundary (lo, hi,
// lo+1, hi-1, and 0, 1, -1 when strictly inside); otherwise uniform.
// Narrower ranges are uniform. All-zero bytes give lo.
func (s *Source) Int(lo, hi int) int { return int(s.Int64(int64(lo), int64(hi))) }

// Int64 is Int for int64.
func (s *Source) Int64(lo, hi int64) int64 {
	return s.int64(Value, lblInt, lo, hi)
}

func (s *Source) int64(kind Kind, label uint64, lo, hi int64) int64 {
	if lo > hi {
		panic("generators: Int with lo > hi")
	}
	span := uint64(hi) - uint64(lo)
	nb := bytesFor(span)
	if span < 16 {
		return lo + int64(below(s.draw(kind, label, nb), span+1))
	}
	b := s.draw(kind, label, 1+nb)
	sel, v := b[0], le(b[1:])
	if int(sel) < s.dictInt && s.dict != nil {
		if ints := s.dict.intsIn(lo, hi); len(ints) > 0 {
			return ints[v%uint64(len(ints))]
		}
	}
	if int(sel) < s.dictInt+s.bias {
		var cand [7]int64
		c := append(cand[:0], lo, hi, lo+1, hi-1)
		for _, x := range [...]int64{0, 1, -1} {
			if x > lo+1 && x < hi-1 {
				c = append(c, x)
			}
		}
		return c[v%uint64(len(c))]
	}
	if span == ^uint64(0) {
		return int64(v)
	}
	return int64(uint64(lo) + v%(span+1))
}

// Uint64 returns a value draw of 8 bytes.
func (s *Source) Uint64() uint64 { return le(s.draw(Value, lblInt, 8)) }

// Bool returns a value draw: a bit whose only effect is the leaf it fills.
// For a bool that decides what is drawn next, use Decide.
func (s *Source) Bool() bool { return s.draw(Value, lblBool, 1)[0]&1 == 1 }

// Decide returns a structural draw that is true with probability p
// (0 ≤ p ≤ 1, in steps of 1/256): whether to recurse, whether an optional
// part is present. A zero byte gives false unless p == 1.
func (s *Source) Decide(p float64) bool {
	t := int(p*256 + 0.5)
	d := int(s.draw(Structural, lblDecide, 1)[0]) >= 256-t
	s.decidedBool(d)
	return d
}

func (s *Source) decidedBool(d bool) {
	if d {
		s.decided(1)
	} else {
		s.decided(0)
	}
}

// Pick returns a structural draw uniform in [0, n) (n > 0). Zero bytes give 0.
func (s *Source) Pick(n int) int {
	if n <= 0 {
		panic("generators: Pick of no alternatives")
	}
	if n == 1 {
		return 0
	}
	x := below(s.draw(Structural, lblPick, bytesFor(uint64(n-1))), uint64(n))
	s.decided(x)
	return int(x)
}

// AppendPick appends the draw bytes from which Pick(n) returns i
// (0 ≤ i < n): none when n is 1. Inverses of generators (a seed parser)
// use it to write the choice a seed needs.
func AppendPick(dst []byte, n, i int) []byte {
	if n <= 1 {
		return dst
	}
	for range bytesFor(uint64(n - 1)) {
		dst = append(dst, byte(i))
		i >>= 8
	}
	return dst
}

// Weighted returns a structural draw of an index into weights, each taken
// with probability weight/sum (negative weights count as 0; panics when
// all are 0). Zero bytes give the first index with a positive weight.
func (s *Source) Weighted(weights ...int) int {
	total := 0
	for _, w := range weights {
		total += max(w, 0)
	}
	if total <= 0 {
		panic("generators: Weighted with no positive weight")
	}
	x := int(below(s.draw(Structural, lblPick, bytesFor(uint64(total-1))), uint64(total)))
	for i, w := range weights {
		if w <= 0 {
			continue
		}
		if x < w {
			s.decided(uint64(i))
			return i
		}
		x -= w
	}
	s.decided(uint64(len(weights) - 1))
	return len(weights) - 1
}

// logUniform maps b to [0, span], log-uniformly: a bit width w uniform in
// [0, bits(span)], then a value uniform below 2^w, wrapped into the range.
// Small sizes are common, large ones possible; zero bytes give 0.
func logUniform(b []byte, span uint64) uint64 {
	if span == 0 {
		return 0
	}
	nbits := uint64(bits.Len64(span))
	w := uint64(b[0]) % (nbits + 1)
	v := le(b[1:])
	if w < 64 {
		v &= 1<<w - 1
	}
	return v % (span + 1)
}

// Len returns a structural size draw in [min, max]: how many elements or
// repetitions follow. Sizes are log-uniform (a bit width uniform in
// [0, bits(max-min)], then uniform below it), so small sizes are common and
// the maximum stays reachable. Zero bytes give min.
func (s *Source) Len(min, max int) int {
	if min > max {
		panic("generators: Len with min > max")
	}
	span := uint64(max - min)
	if span == 0 {
		return min
	}
	n := min + int(logUniform(s.draw(Structural, lblLen, 1+bytesFor(span)), span))
	s.decided(uint64(n))
	return n
}

// valueLen is Len as a value draw inside a leaf (string or byte lengths).
func (s *Source) valueLen(label uint64, min, max int) int {
	span := uint64(max - min)
	if span == 0 {
		return min
	}
	return min + int(logUniform(s.draw(Value, label, 1+bytesFor(span)), span))
}

// String returns a value draw: a string of length in [min, max] over the
// bytes of alphabet (nonempty), in its own untyped frame. With probability
// 0.5 it is a dictionary entry whose bytes all lie in alphabet and whose
// length is in range, when there is one (docs/ALGORITHMS.md §5); otherwise the
// length is log-uniform and each byte uniform over the alphabet. The length
// is a value: a string is one leaf.
func (s *Source) String(alphabet string, min, max int) string {
	return string(s.appendString(nil, alphabet, min, max))
}

// appendString is String appending to dst.
func (s *Source) appendString(dst []byte, alphabet string, min, max int) []byte {
	if min < 0 || min > max {
		panic("generators: String with bad length range")
	}
	if alphabet == "" {
		panic("generators: String over an empty alphabet")
	}
	s.enter(lblString, "")
	defer s.Leave()
	head := s.draw(Value, lblStrHead, 3)
	if int(head[0]) >= 256-s.dictStr && s.dict != nil {
		if ents := s.dict.stringsIn(alphabet, min, max); len(ents) > 0 {
			return append(dst, s.dict.entries[ents[le(head[1:])%uint64(len(ents))]]...)
		}
	}
	n := s.valueLen(lblLen, min, max)
	body := s.draw(Value, lblStrBody, n)
	for _, b := range body {
		dst = append(dst, alphabet[int(b)%len(alphabet)])
	}
	return dst
}

// Bytes returns a value draw of length in [min, max] (log-uniform length,
// uniform bytes), in its own untyped frame. The slice is a fresh copy.
func (s *Source) Bytes(min, max int) []byte {
	if min < 0 || min > max {
		panic("generators: Bytes with bad length range")
	}
	s.enter(lblString, "")
	defer s.Leave()
	n := s.valueLen(lblLen, min, max)
	return slices.Clone(s.draw(Value, lblStrBody, n))
}

// Dict returns, with probability p, a dictionary entry (value draws; the
// slice must not be modified) and true; otherwise, or with an empty
// dictionary, nil and false. Its two draws are always made, so the result
// does not shift later indexes.
func (s *Source) Dict(p float64) ([]byte, bool) {
	b := s.draw(Value, lblDict, 4)
	if s.dict == nil || len(s.dict.entries) == 0 || int(b[0]) >= int(p*256+0.5) {
		return nil, false
	}
	return s.dict.entries[le(b[1:])%uint64(len(s.dict.entries))], true
}

// Dictionary returns the run's dictionary (nil when none); it must not be
// modified.
func (s *Source) Dictionary() [][]byte {
	if s.dict == nil {
		return nil
	}
	return s.dict.entries
}

// Call runs g in a frame for type name typ (Source.Enter/Leave): g's draws
// are annotated with typ and indexed under this call.
func Call[T any](s *Source, typ string, g Gen[T]) T {
	s.Enter(typ)
	defer s.Leave()
	return g(s)
}

// OneOf runs one of alts, chosen by a structural Weighted draw, in an
// untyped frame per alternative (so the alternatives' draws never share
// indexes).
func OneOf[T any](s *Source, alts ...Alt[T]) T {
	var wbuf [16]int
	w := wbuf[:0]
	for _, a := range alts {
		w = append(w, a.Weight)
	}
	i := s.Weighted(w...)
	s.enter(lblElem^uint64(i+1)<<48, "")
	defer s.Leave()
	return alts[i].Gen(s)
}

// List returns a list of a structural size in [min, max] (Len), each
// element generated by g in its own untyped frame, the whole list in one
// more: changing the draws of element i leaves the indexes, hence the
// choices, of elements i+1… unchanged.
func List[T any](s *Source, min, max int, g Gen[T]) []T {
	n := s.beginList(min, max)
	defer s.endList()
	out := make([]T, 0, n)
	for range n {
		s.elem()
		out = append(out, g(s))
		s.Leave()
	}
	return out
}

// Repeat calls f(s, i) for i in [0, n), n a structural size in [min, max]
// (Len), each call in its own untyped frame as in List. It returns n.
func Repeat(s *Source, min, max int, f func(s *Source, i int)) int {
	n := s.beginList(min, max)
	defer s.endList()
	for i := range n {
		s.elem()
		f(s, i)
		s.Leave()
	}
	return n
}

// Recurse runs, in a frame for type name typ, base when limit or more frames
// named typ are already on the stack, and otherwise base or step by a
// structural draw (step with probability 1/2). step may call Recurse with
// the same typ again; the depth limit ends the recursion.
func Recurse[T any](s *Source, typ string, limit int, base, step Gen[T]) T {
	deep := s.Depth(typ) >= limit
	s.Enter(typ)
	defer s.Leave()
	if deep || !s.Decide(0.5) {
		return base(s)
	}
	return step(s)
}

// dictionary is Options.Dictionary prepared for draws.
type dictionary struct {
	entries [][]byte
	ints    []int64 // sorted, distinct
	strs    map[strKey][]int
}

type strKey struct {
	alphabet string
	min, max int
}

func newDictionary(entries [][]byte) *dictionary {
	if len(entries) == 0 {
		return nil
	}
	d := &dictionary{strs: make(map[strKey][]int)}
	for _, e := range entries {
		if len(e) == 0 {
			continue
		}
		d.entries = append(d.entries, slices.Clone(e))
		switch len(e) {
		case 1:
			d.ints = append(d.ints, int64(e[0]), int64(int8(e[0])))
		case 2:
			v := uint16(le(e))
			d.ints = append(d.ints, int64(v), int64(int16(v)))
		case 4:
			v := uint32(le(e))
			d.ints = append(d.ints, int64(v), int64(int32(v)))
		case 8:
			d.ints = append(d.ints, int64(le(e)))
		}
		if v, err := strconv.ParseInt(string(e), 10, 64); err == nil {
			d.ints = append(d.ints, v)
		}
	}
	if len(d.entries) == 0 {
		return nil
	}
	slices.Sort(d.ints)
	d.ints = slices.Compact(d.ints)
	return d
}

// intsIn returns the dictionary integers in [lo, hi].
func (d *dictionary) intsIn(lo, hi int64) []int64 {
	i, _ := slices.BinarySearch(d.ints, lo)
	j, found := slices.BinarySearch(d.ints, hi)
	if found {
		j++
	}
	return d.ints[i:j]
}

// stringsIn returns the indexes of the entries over alphabet with a length
// in [min, max], cached per (alphabet, min, max).
func (d *dictionary) stringsIn(alphabet string, min, max int) []int {
	k := strKey{alphabet, min, max}
	if v, ok := d.strs[k]; ok {
		return v
	}
	var in [256]bool
	for i := 0; i < len(alphabet); i++ {
		in[alphabet[i]] = true
	}
	var out []int
next:
	for i, e := range d.entries {
		if len(e) < min || len(e) > max {
			continue
		}
		for _, b := range e {
			if !in[b] {
				continue next
			}
		}
		out = append(out, i)
	}
	d.strs[k] = out
	return out
}
