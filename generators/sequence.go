package generators

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// DefaultMaxBytes caps the bytes a run records, per kind of draw (docs/ALGORITHMS.md
// §1: 10,240 bytes, impl.). See Options.MaxBytes.
const DefaultMaxBytes = 10240

// choice flags.
const (
	flagUnindexed uint8 = 1 << iota // no execution index: read in order by draws that miss
	flagVar                         // variable length (Raw): absorbs WithBytes' length changes
)

// choice is one recorded draw.
type choice struct {
	key   uint64 // execution index (hashed); 0 when unindexed
	off   uint32 // offset of its bytes in Sequence.data
	n     uint32 // number of bytes
	stack uint32 // type stack (index into Sequence.stacks)
	kind  Kind
	flags uint8
}

// stackNode is one level of an interned stack of type names: the stack
// whose top is types[name] and whose rest is stacks[parent]. Node 0 is the
// empty stack.
type stackNode struct{ parent, name uint32 }

// Sequence is a choice sequence: the draws of one generator run, in the
// order they were made, each with its bytes, kind, execution index and
// types. Bytes() is their concatenation, the view Zest mutates.
//
// The zero value is an empty sequence: running a generator on it draws
// everything from the extension PRNG. Reading methods, Run, Clone and
// WithBytes only read a Sequence, so one may serve several goroutines while
// nobody writes to it; its bytes may be modified in place (Bytes,
// SetKindBytes), the choice boundaries, kinds, indexes and types only by
// building a new one (WithBytes, Run).
type Sequence struct {
	data    []byte
	choices []choice
	types   []string
	stacks  []stackNode
	// sig is the hash of the structural decisions of the run that made
	// the sequence (hasSig); sequences not made by a run have none.
	sig    uint64
	hasSig bool
	// spans are the subtrees of the run that made the sequence
	// (Subtrees), in the order their frames were entered; immutable.
	spans []span
}

// FromStreams returns a sequence of two unindexed choices, the structural
// stream s and the value stream v (both copied): structural draws that miss
// read s in order, value draws v, each extended from the PRNG past its end
// and cut to what was read on its own. This is BeDivFuzz's (s, v) (docs/ALGORITHMS.md
// §2): a mutation of s does not shift the values, one of v not the
// structure. KindBytes(Structural) and KindBytes(Value) of the sequence a
// run returns are the s and v it consumed.
func FromStreams(s, v []byte) *Sequence {
	q := &Sequence{data: make([]byte, 0, len(s)+len(v))}
	q.data = append(append(q.data, s...), v...)
	q.choices = []choice{
		{n: uint32(len(s)), kind: Structural, flags: flagUnindexed},
		{off: uint32(len(s)), n: uint32(len(v)), kind: Value, flags: flagUnindexed | flagVar},
	}
	return q
}

// FromBytes returns a sequence holding b (copied) as one unindexed value
// choice. Draws read unindexed bytes in order when their execution index is
// not in the sequence, so FromBytes feeds a generator the way Zest feeds its
// untyped parameters, and Raw returns exactly b. FromBytes(nil) differs from
// the zero Sequence: Raw returns an empty input for it, not random bytes.
func FromBytes(b []byte) *Sequence {
	q := &Sequence{data: bytes.Clone(b)}
	if q.data == nil {
		q.data = []byte{}
	}
	q.choices = []choice{{n: uint32(len(b)), kind: Value, flags: flagUnindexed | flagVar}}
	return q
}

// Len returns the number of bytes in the sequence.
func (q *Sequence) Len() int { return len(q.data) }

// NumChoices returns the number of choices.
func (q *Sequence) NumChoices() int { return len(q.choices) }

// Bytes returns the concatenated bytes of all choices, in draw order. The
// slice aliases the sequence: writing to it (without changing its length)
// mutates the choices' values and keeps their boundaries, kinds, indexes and
// types. This is the view for Zest mutation and FairFuzz masks.
func (q *Sequence) Bytes() []byte { return q.data }

// Choice describes one choice of a sequence. Bytes aliases the sequence.
type Choice struct {
	Kind    Kind
	Index   uint64   // execution index key; 0 when unindexed
	Types   []string // type names of the frames at the draw, outermost first
	Offset  int      // position of Bytes in Sequence.Bytes()
	Bytes   []byte
	Indexed bool // false for bytes from FromBytes or WithBytes' excess
}

// Choice returns choice i (0 ≤ i < NumChoices()).
func (q *Sequence) Choice(i int) Choice {
	c := q.choices[i]
	return Choice{
		Kind:    c.kind,
		Index:   c.key,
		Types:   q.stackTypes(c.stack),
		Offset:  int(c.off),
		Bytes:   q.data[c.off : c.off+c.n : c.off+c.n],
		Indexed: c.flags&flagUnindexed == 0,
	}
}

// Span returns the position in Bytes() and the length of choice i
// (0 ≤ i < NumChoices()), without Choice's copy of its types.
func (q *Sequence) Span(i int) (off, n int) {
	c := q.choices[i]
	return int(c.off), int(c.n)
}

// stackTypes returns the type names of stack node i, outermost first.
func (q *Sequence) stackTypes(i uint32) []string {
	var out []string
	for i != 0 && int(i) < len(q.stacks) {
		n := q.stacks[i]
		out = append(out, q.types[n.name])
		i = n.parent
	}
	slices.Reverse(out)
	return out
}

// stackHas reports whether stack node i contains type name t.
func (q *Sequence) stackHas(i, t uint32) bool {
	for i != 0 && int(i) < len(q.stacks) {
		n := q.stacks[i]
		if n.name == t {
			return true
		}
		i = n.parent
	}
	return false
}

// Types returns the distinct type names that annotate at least one choice,
// sorted: the types a SpotOn targeted mutation can pick from.
func (q *Sequence) Types() []string {
	seen := make([]bool, len(q.types))
	done := make(map[uint32]bool)
	for _, c := range q.choices {
		for i := c.stack; i != 0 && !done[i] && int(i) < len(q.stacks); i = q.stacks[i].parent {
			done[i] = true
			seen[q.stacks[i].name] = true
		}
	}
	var out []string
	for i, ok := range seen {
		if ok {
			out = append(out, q.types[i])
		}
	}
	slices.Sort(out)
	return out
}

// typeID returns the index of type name t, or false when no choice can
// carry it.
func (q *Sequence) typeID(t string) (uint32, bool) {
	for i, n := range q.types {
		if n == t {
			return uint32(i), true
		}
	}
	return 0, false
}

// TypeChoices returns, in order, the indexes of the choices annotated with
// type t (a frame named t was on the stack at the draw).
func (q *Sequence) TypeChoices(t string) []int {
	id, ok := q.typeID(t)
	if !ok {
		return nil
	}
	var out []int
	for i, c := range q.choices {
		if q.stackHas(c.stack, id) {
			out = append(out, i)
		}
	}
	return out
}

// TypePositions returns, in order, the byte positions (in Bytes()) of the
// choices annotated with type t.
func (q *Sequence) TypePositions(t string) []int {
	var out []int
	for _, i := range q.TypeChoices(t) {
		c := q.choices[i]
		for p := c.off; p < c.off+c.n; p++ {
			out = append(out, int(p))
		}
	}
	return out
}

// KindPositions returns, in order, the byte positions (in Bytes()) of the
// choices of kind k. Mutating only these positions is BeDivFuzz's mutation
// of s (Structural) or v (Value).
func (q *Sequence) KindPositions(k Kind) []int {
	var out []int
	for _, c := range q.choices {
		if c.kind == k {
			for p := c.off; p < c.off+c.n; p++ {
				out = append(out, int(p))
			}
		}
	}
	return out
}

// KindLen returns the number of bytes in choices of kind k.
func (q *Sequence) KindLen(k Kind) int {
	n := 0
	for _, c := range q.choices {
		if c.kind == k {
			n += int(c.n)
		}
	}
	return n
}

// KindBytes returns a copy of the concatenated bytes of the choices of kind
// k: BeDivFuzz's s (Structural) or v (Value).
func (q *Sequence) KindBytes(k Kind) []byte {
	out := make([]byte, 0, q.KindLen(k))
	for _, c := range q.choices {
		if c.kind == k {
			out = append(out, q.data[c.off:c.off+c.n]...)
		}
	}
	return out
}

// SetKindBytes overwrites the bytes of the choices of kind k, in order, with
// b, which must have KindLen(k) bytes.
func (q *Sequence) SetKindBytes(k Kind, b []byte) error {
	if n := q.KindLen(k); n != len(b) {
		return fmt.Errorf("set %v bytes: expected %d bytes, got %d", k, n, len(b))
	}
	for _, c := range q.choices {
		if c.kind == k {
			b = b[copy(q.data[c.off:c.off+c.n], b):]
		}
	}
	return nil
}

// StructuralSignature identifies the sequence's abstract input
// (docs/ALGORITHMS.md §2). For a sequence a run returned it is the hash of the
// run's structural decisions, in draw order: the alternative each Pick,
// Weighted and Decide took, the size each Len drew, and the bytes of custom
// structural Draws, so two runs whose structural bytes differ but decode to
// the same decisions share it, whatever their values. For other sequences
// (FromBytes, WithBytes, decoded) it is the hash of the structural bytes.
func (q *Sequence) StructuralSignature() uint64 {
	if q.hasSig {
		return q.sig
	}
	const seed = 0x5354525543540001 // "STRUCT" v1
	return mix64(seed, q.KindBytes(Structural))
}

// Hash returns a hash of the whole sequence: every choice's index, kind and
// bytes. It seeds the extension PRNG of a run over the sequence.
func (q *Sequence) Hash() uint64 {
	h := uint64(0x5345510000000001) // "SEQ" v1
	for _, c := range q.choices {
		h = mixWord(h, c.key)
		h = mixWord(h, uint64(c.kind)|uint64(c.flags)<<8|uint64(c.n)<<16)
	}
	return mix64(h, q.data)
}

// Clone returns a deep copy of the bytes and choices; the immutable type
// tables are shared.
func (q *Sequence) Clone() *Sequence {
	return &Sequence{
		data:    bytes.Clone(q.data),
		choices: slices.Clone(q.choices),
		types:   q.types,
		stacks:  q.stacks,
		sig:     q.sig,
		hasSig:  q.hasSig,
		spans:   q.spans,
	}
}

// Equal reports whether q and o hold the same choices with the same bytes,
// kinds, indexes and types.
func (q *Sequence) Equal(o *Sequence) bool {
	if !bytes.Equal(q.data, o.data) || len(q.choices) != len(o.choices) {
		return false
	}
	for i, c := range q.choices {
		d := o.choices[i]
		if c.key != d.key || c.off != d.off || c.n != d.n || c.kind != d.kind || c.flags != d.flags {
			return false
		}
		if !slices.Equal(q.stackTypes(c.stack), o.stackTypes(d.stack)) {
			return false
		}
	}
	return true
}

// WithBytes returns a new sequence with the choices of q and the bytes b:
// each choice in order takes as many bytes as it had. When b is shorter, the
// choice it ends in is cut and the choices after it are dropped. When b is
// longer, the excess goes to the last choice if it has variable length (as
// Raw's), otherwise it is appended as one unindexed value choice (read in
// order by draws that miss). If the last choice has variable length it also
// absorbs a shortfall. FairFuzz insert/delete probes and havoc on raw inputs
// use this.
func (q *Sequence) WithBytes(b []byte) *Sequence {
	out := &Sequence{data: bytes.Clone(b), types: q.types, stacks: q.stacks}
	if out.data == nil {
		out.data = []byte{}
	}
	off := uint32(0)
	left := uint32(len(b))
	for i, c := range q.choices {
		last := i == len(q.choices)-1
		n := c.n
		if last && c.flags&flagVar != 0 {
			n = left
		}
		if n > left {
			n = left
		}
		if n == 0 && c.n != 0 && !(last && c.flags&flagVar != 0) {
			break
		}
		c.off, c.n = off, n
		out.choices = append(out.choices, c)
		off += n
		left -= n
	}
	if left > 0 {
		out.choices = append(out.choices, choice{off: off, n: left, kind: Value, flags: flagUnindexed})
	}
	return out
}

// Encoding (version 2), all integers unsigned LEB128 unless said:
//
//	magic "wafer-seq" 0x02 (version 1, 0x01, is read too: it has no
//	signature)
//	ntypes, then each: len, bytes
//	nstacks (node 0 excluded), then each: parent (< its own index), name
//	nchoices, then each: kind byte, flags byte, key (8 bytes LE, only when
//	indexed), stack, n, n bytes
//	signature: 0x00 (none), or 0x01 and 8 bytes LE (StructuralSignature
//	of a run's sequence)
const (
	seqMagic   = "wafer-seq\x02"
	seqMagicV1 = "wafer-seq\x01"
)

// ErrFormat is wrapped by every UnmarshalBinary error.
var ErrFormat = errors.New("bad choice sequence")

// MarshalBinary encodes the sequence (format version 1, see seqMagic).
func (q *Sequence) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, len(seqMagic)+len(q.data)+8*len(q.choices)+16)
	b = append(b, seqMagic...)
	b = binary.AppendUvarint(b, uint64(len(q.types)))
	for _, t := range q.types {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
	}
	ns := len(q.stacks)
	if ns > 0 {
		ns--
	}
	b = binary.AppendUvarint(b, uint64(ns))
	for i := 1; i < len(q.stacks); i++ {
		b = binary.AppendUvarint(b, uint64(q.stacks[i].parent))
		b = binary.AppendUvarint(b, uint64(q.stacks[i].name))
	}
	b = binary.AppendUvarint(b, uint64(len(q.choices)))
	for _, c := range q.choices {
		b = append(b, byte(c.kind), c.flags)
		if c.flags&flagUnindexed == 0 {
			b = binary.LittleEndian.AppendUint64(b, c.key)
		}
		b = binary.AppendUvarint(b, uint64(c.stack))
		b = binary.AppendUvarint(b, uint64(c.n))
		b = append(b, q.data[c.off:c.off+c.n]...)
	}
	if q.hasSig {
		b = append(b, 1)
		b = binary.LittleEndian.AppendUint64(b, q.sig)
	} else {
		b = append(b, 0)
	}
	return b, nil
}

// seqReader is a cursor with a sticky error.
type seqReader struct {
	b   []byte
	off int
	err error
}

func (r *seqReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: offset 0x%x: %s", ErrFormat, r.off, fmt.Sprintf(format, args...))
	}
}

func (r *seqReader) uvarint(what string, max uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail("%s: expected uvarint, got %s", what, describeBad(n))
		return 0
	}
	if v > max {
		r.fail("%s: expected at most %d, got %d", what, max, v)
		return 0
	}
	r.off += n
	return v
}

func describeBad(n int) string {
	if n == 0 {
		return "end of data"
	}
	return "overflow"
}

func (r *seqReader) bytes(what string, n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)-r.off) {
		r.fail("%s: expected %d bytes, got %d", what, n, len(r.b)-r.off)
		return nil
	}
	out := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return out
}

func (r *seqReader) left() uint64 { return uint64(len(r.b) - r.off) }

// UnmarshalBinary decodes a sequence written by MarshalBinary. Errors wrap
// ErrFormat and give the offset.
func (q *Sequence) UnmarshalBinary(b []byte) error {
	r := &seqReader{b: b}
	m := r.bytes("magic", uint64(len(seqMagic)))
	v1 := r.err == nil && string(m) == seqMagicV1
	if r.err == nil && string(m) != seqMagic && !v1 {
		r.off = 0
		r.fail("expected magic %q, got %q", seqMagic, m)
	}
	nt := r.uvarint("type count", r.left())
	types := make([]string, 0, nt)
	for i := uint64(0); i < nt && r.err == nil; i++ {
		l := r.uvarint("type name length", r.left())
		types = append(types, string(r.bytes("type name", l)))
	}
	ns := r.uvarint("stack count", r.left()/2)
	stacks := make([]stackNode, 1, ns+1)
	for i := uint64(1); i <= ns && r.err == nil; i++ {
		p := r.uvarint("stack parent", i-1)
		var name uint64
		if len(types) == 0 {
			r.fail("stack name: expected a type, got none")
		} else {
			name = r.uvarint("stack name", uint64(len(types)-1))
		}
		stacks = append(stacks, stackNode{uint32(p), uint32(name)})
	}
	nc := r.uvarint("choice count", r.left()/4)
	choices := make([]choice, 0, nc)
	var data []byte
	for i := uint64(0); i < nc && r.err == nil; i++ {
		h := r.bytes("choice header", 2)
		if r.err != nil {
			break
		}
		c := choice{kind: Kind(h[0]), flags: h[1]}
		if c.kind > Structural {
			r.fail("choice kind: expected 0 or 1, got %d", h[0])
		}
		if c.flags&^(flagUnindexed|flagVar) != 0 {
			r.fail("choice flags: expected bits 0x%x, got 0x%x", flagUnindexed|flagVar, h[1])
		}
		if c.flags&flagUnindexed == 0 {
			k := r.bytes("choice index", 8)
			if r.err == nil {
				c.key = binary.LittleEndian.Uint64(k)
			}
		}
		c.stack = uint32(r.uvarint("choice stack", uint64(len(stacks)-1)))
		n := r.uvarint("choice length", r.left())
		v := r.bytes("choice bytes", n)
		c.off, c.n = uint32(len(data)), uint32(n)
		data = append(data, v...)
		choices = append(choices, c)
	}
	var sig uint64
	hasSig := false
	if !v1 && r.err == nil {
		switch f := r.bytes("signature flag", 1); {
		case r.err != nil:
		case f[0] == 1:
			if k := r.bytes("signature", 8); r.err == nil {
				sig, hasSig = binary.LittleEndian.Uint64(k), true
			}
		case f[0] != 0:
			r.off--
			r.fail("signature flag: expected 0 or 1, got %d", f[0])
		}
	}
	if r.err == nil && r.off != len(b) {
		r.fail("expected end of data, got %d more bytes", len(b)-r.off)
	}
	if r.err != nil {
		return r.err
	}
	if data == nil {
		data = []byte{}
	}
	*q = Sequence{data: data, choices: choices, types: types, stacks: stacks, sig: sig, hasSig: hasSig}
	return nil
}
