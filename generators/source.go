package generators

import (
	"encoding/binary"
	"math/rand/v2"
	goruntime "runtime"
	"strings"
)

// Generator produces one input from the draws it makes on a Source. It must
// be deterministic in its draws: no other randomness, clock or global state.
// A Generator is an ordinary Go function; JSON, XML, PNG, Expr and Raw are
// Generators.
type Generator func(s *Source) []byte

// Options configure a run. The zero value works: no dictionary,
// DefaultMaxBytes.
type Options struct {
	// Dictionary holds the target's constants (docs/ALGORITHMS.md §5). String
	// draws take an entry (whose bytes all lie in the draw's alphabet) with
	// probability 0.5; integer draws over ranges wider than 16 take an
	// entry with probability 0.1, reading entries of 1, 2, 4 or 8 bytes as
	// little-endian integers (signed and unsigned) and decimal text as its
	// value. Nil or empty: no dictionary draws.
	Dictionary [][]byte
	// MaxBytes caps the recorded bytes per kind of draw (so a value
	// mutation never moves the point where structural draws hit the cap):
	// a draw that would exceed it reads zeros and is not recorded, and
	// combinators read zeros as "the smallest, the first alternative, stop".
	// 0 means DefaultMaxBytes.
	MaxBytes int
	// DictProb is the probability that a string draw takes a dictionary
	// entry (when one fits); integer draws over ranges wider than 16 take
	// one with DictProb/5. Zero means 0.5 (so 0.1 for integers, the
	// defaults above); negative means never: the papers' generator
	// baselines, which know no target constants.
	DictProb float64
	// IntBias is the probability that an integer draw over a range wider
	// than 16 takes a boundary of the range (lo, hi, lo+1, hi-1, and 0, 1,
	// -1 inside) instead of a uniform value, on top of the dictionary's
	// share when the dictionary has no integer in range. Zero means 16/256
	// (≈0.06); negative means never (uniform, as QuickCheck's and JQF's
	// integer generators).
	IntBias float64
	// CallSites keys each draw's execution index by its call site in the
	// generator (the function and the call's place in it, found on the Go
	// stack past the combinators) and the times that site drew in the
	// current frame, as SpotOn defines execution indexes, instead of by the
	// kind of draw (int, bool, pick, ...) and its occurrence: adding or
	// removing a draw at another site of a frame then never shifts the
	// indexes of later draws. It costs a stack walk per draw: the JSON
	// generator took 9.8 µs per input instead of 1.7 (BenchmarkCallSites),
	// against 100-400 µs of a gojson run; false keeps the kind-of-draw keys.
	CallSites bool
}

// thresholds converts the probabilities of o to selector-byte thresholds
// (out of 256): string dictionary, integer dictionary, integer boundary.
func (o Options) thresholds() (str, dictInt, bias int) {
	p := o.DictProb
	switch {
	case p == 0:
		p = 0.5
	case p < 0:
		p = 0
	}
	b := o.IntBias
	switch {
	case b == 0:
		b = 16.0 / 256
	case b < 0:
		b = 0
	}
	clamp := func(x float64) int { return min(256, max(0, int(x*256+0.5))) }
	return clamp(p), clamp(p / 5), clamp(b)
}

// Runner runs one generator over choice sequences, reusing its buffers and
// its prepared dictionary. Not safe for concurrent use: one per worker.
type Runner struct {
	gen Generator
	src Source
}

// NewRunner prepares a runner for g with opts.
func NewRunner(g Generator, opts Options) *Runner {
	r := &Runner{gen: g}
	r.src.dict = newDictionary(opts.Dictionary)
	r.src.max = opts.MaxBytes
	if opts.CallSites {
		r.src.sites = make(map[uintptr]uint64)
	}
	r.src.dictStr, r.src.dictInt, r.src.bias = opts.thresholds()
	if r.src.max <= 0 {
		r.src.max = DefaultMaxBytes
	}
	return r
}

// Run runs the generator on seq (nil: the empty sequence) and returns the
// input and the sequence of the draws it made (fresh ones included, cut to
// what was consumed). Running used again gives the same input and an equal
// sequence. Panics of the generator propagate.
func (r *Runner) Run(seq *Sequence) (input []byte, used *Sequence) {
	s := &r.src
	s.reset(seq)
	input = r.gen(s)
	for len(s.open) > 0 { // frames a generator left open end with the run
		s.closeSpan()
	}
	used = s.out
	used.sig, used.hasSig = s.sig, true
	s.out = nil
	s.in = nil
	return input, used
}

// Run runs g once on seq with opts: NewRunner(g, opts).Run(seq).
func Run(g Generator, seq *Sequence, opts Options) (input []byte, used *Sequence) {
	return NewRunner(g, opts).Run(seq)
}

// frame is one generator frame on the execution-index stack.
type frame struct {
	key   uint64 // execution index of the frame
	stack uint32 // type stack node in out
	start int    // its label counters start here in Source.counts
	name  string // type name; "" for untyped frames
}

// labelCount counts the occurrences of one label in one frame.
type labelCount struct {
	label uint64
	n     uint32
}

// Source is what a generator draws from. It is only valid during the run
// that handed it to the generator. Not safe for concurrent use.
type Source struct {
	in     *Sequence
	cursor int              // the choice of in expected next
	index  map[uint64]int32 // key → first choice of in with it, built on the first miss
	built  bool             // index holds in's keys

	// stream[k] holds the unindexed bytes of in that draws of kind k read,
	// in order, when they miss; with one stream (split false) every kind
	// reads stream[Value], Zest's linear model; FromStreams splits them
	// (BeDivFuzz's s and v).
	stream    [2][]byte
	streamPos [2]int
	hasStream [2]bool
	split     bool

	// selector thresholds out of 256 (Options.thresholds)
	dictStr, dictInt, bias int
	// sig hashes the structural decisions of the run (decided)
	sig uint64
	// sites caches the label of each return address met on the stack
	// (Options.CallSites; nil: off): 0 for the combinators' own frames
	sites map[uintptr]uint64

	rng rand.PCG

	out    *Sequence
	frames []frame
	open   []int32 // out.spans of the typed frames on the stack, innermost last
	counts []labelCount
	used   [2]int // recorded bytes per kind
	max    int

	typeIDs  map[string]uint32
	stackIDs map[uint64]uint32

	dict *dictionary
}

// Labels of the built-in draws and untyped frames (hashed once).
var (
	lblDraw    = hashString("draw")
	lblRaw     = hashString("raw")
	lblInt     = hashString("int")
	lblBool    = hashString("bool")
	lblDecide  = hashString("decide")
	lblPick    = hashString("pick")
	lblLen     = hashString("len")
	lblStrHead = hashString("str.head")
	lblStrBody = hashString("str.body")
	lblDict    = hashString("dict")
	lblList    = hashString("list")
	lblElem    = hashString("elem")
	lblString  = hashString("string")
	rootKey    = hashString("root")
)

func (s *Source) reset(seq *Sequence) {
	if seq == nil {
		seq = &Sequence{}
	}
	s.in = seq
	s.cursor = 0
	s.built = false
	s.split = false
	for k := range s.stream {
		s.stream[k] = s.stream[k][:0]
		s.streamPos[k] = 0
		s.hasStream[k] = false
	}
	for _, c := range seq.choices {
		if c.flags&flagUnindexed != 0 && c.kind == Structural {
			s.split = true
		}
	}
	for _, c := range seq.choices {
		if c.flags&flagUnindexed != 0 {
			k := s.streamOf(c.kind)
			s.hasStream[k] = true
			s.stream[k] = append(s.stream[k], seq.data[c.off:c.off+c.n]...)
		}
	}
	s.sig = sigSeed
	h := seq.Hash()
	s.rng.Seed(h, fmix(h^mixK0))
	s.out = &Sequence{data: make([]byte, 0, len(seq.data)+64), stacks: []stackNode{{}}}
	s.frames = append(s.frames[:0], frame{key: rootKey})
	s.open = s.open[:0]
	s.counts = s.counts[:0]
	s.used = [2]int{}
	if s.typeIDs == nil {
		s.typeIDs = make(map[string]uint32)
		s.stackIDs = make(map[uint64]uint32)
	} else {
		clear(s.typeIDs)
		clear(s.stackIDs)
	}
}

// occ returns the occurrence count of label in the current frame and
// increments it.
func (s *Source) occ(label uint64) uint32 {
	f := &s.frames[len(s.frames)-1]
	for i := f.start; i < len(s.counts); i++ {
		if s.counts[i].label == label {
			n := s.counts[i].n
			s.counts[i].n++
			return n
		}
	}
	s.counts = append(s.counts, labelCount{label, 1})
	return 0
}

// Enter pushes a generator frame for type name typ: the draws until the
// matching Leave are annotated with typ (and the types of the frames
// below), and indexed under this frame, so that the draws of one object do
// not shift the indexes of the objects after it. Prefer Call.
func (s *Source) Enter(typ string) { s.enter(hashString(typ), typ) }

// Leave pops the frame pushed by the last Enter.
func (s *Source) Leave() {
	if len(s.frames) <= 1 {
		panic("generators: Leave without Enter")
	}
	f := s.frames[len(s.frames)-1]
	s.counts = s.counts[:f.start]
	s.frames = s.frames[:len(s.frames)-1]
	if f.name != "" {
		s.closeSpan()
	}
}

// openSpan starts the subtree of the typed frame just entered.
func (s *Source) openSpan(stack uint32) {
	parent := int32(-1)
	if len(s.open) > 0 {
		parent = s.open[len(s.open)-1]
	}
	s.open = append(s.open, int32(len(s.out.spans)))
	s.out.spans = append(s.out.spans, span{start: uint32(len(s.out.choices)), parent: parent,
		depth: uint32(len(s.open) - 1), stack: stack})
}

// closeSpan ends the innermost open subtree; one that recorded no choice
// is dropped (it is the last span: its subtrees, as empty, went before).
func (s *Source) closeSpan() {
	i := s.open[len(s.open)-1]
	s.open = s.open[:len(s.open)-1]
	sp := &s.out.spans[i]
	sp.end = uint32(len(s.out.choices))
	if sp.end == sp.start && int(i) == len(s.out.spans)-1 {
		s.out.spans = s.out.spans[:i]
	}
}

// enter pushes a frame; name "" makes an untyped frame (indexing only).
func (s *Source) enter(label uint64, name string) {
	parent := s.frames[len(s.frames)-1]
	key := step(parent.key, label, s.occ(label))
	stack := parent.stack
	if name != "" {
		stack = s.internStack(parent.stack, name)
		s.openSpan(stack)
	}
	s.frames = append(s.frames, frame{key: key, stack: stack, start: len(s.counts), name: name})
}

func (s *Source) internStack(parent uint32, name string) uint32 {
	// Runs see few distinct types and stacks: scan while small, then map.
	id := uint32(len(s.out.types))
	if len(s.out.types) <= 16 {
		for i, t := range s.out.types {
			if t == name {
				id = uint32(i)
				break
			}
		}
	} else if v, ok := s.typeIDs[name]; ok {
		id = v
	}
	if id == uint32(len(s.out.types)) {
		s.out.types = append(s.out.types, name)
		if len(s.out.types) == 17 {
			for i, t := range s.out.types {
				s.typeIDs[t] = uint32(i)
			}
		} else if len(s.out.types) > 17 {
			s.typeIDs[name] = id
		}
	}
	node := stackNode{parent, id}
	if len(s.out.stacks) <= 32 {
		for i, n := range s.out.stacks[1:] {
			if n == node {
				return uint32(i + 1)
			}
		}
	} else if v, ok := s.stackIDs[uint64(parent)<<32|uint64(id)]; ok {
		return v
	}
	n := uint32(len(s.out.stacks))
	s.out.stacks = append(s.out.stacks, node)
	if len(s.out.stacks) == 33 {
		for i, x := range s.out.stacks[1:] {
			s.stackIDs[uint64(x.parent)<<32|uint64(x.name)] = uint32(i + 1)
		}
	} else if len(s.out.stacks) > 33 {
		s.stackIDs[uint64(parent)<<32|uint64(id)] = n
	}
	return n
}

// Depth returns how many frames named typ are on the stack.
func (s *Source) Depth(typ string) int {
	n := 0
	for i := range s.frames {
		if s.frames[i].name == typ {
			n++
		}
	}
	return n
}

// Types returns the type names of the frames on the stack, outermost first.
func (s *Source) Types() []string {
	var out []string
	for _, f := range s.frames {
		if f.name != "" {
			out = append(out, f.name)
		}
	}
	return out
}

// Draw makes a custom draw of n bytes of the stated kind and returns them;
// the slice must not be modified. Structural: later decisions about which or
// how many draws follow depend on it; Value: it only fills a leaf.
func (s *Source) Draw(kind Kind, n int) []byte {
	if kind > Structural {
		panic("generators: bad kind")
	}
	b := s.draw(kind, lblDraw, n)
	if kind == Structural {
		// a custom decision: its bytes are all the signature can know
		s.sig = mix64(s.sig, b)
	}
	return b
}

// lookup finds the choice of in with key, trying the expected next choice
// first.
func (s *Source) lookup(key uint64) (choice, bool) {
	in := s.in
	if s.cursor < len(in.choices) {
		if c := in.choices[s.cursor]; c.key == key && c.flags&flagUnindexed == 0 {
			s.cursor++
			return c, true
		}
	}
	if len(in.choices) == 0 {
		return choice{}, false
	}
	if !s.built {
		s.buildIndex()
	}
	i, ok := s.index[key]
	if !ok {
		return choice{}, false
	}
	s.cursor = int(i) + 1
	return in.choices[i], true
}

func (s *Source) buildIndex() {
	if s.index == nil {
		s.index = make(map[uint64]int32, len(s.in.choices))
	} else {
		clear(s.index)
	}
	for i := len(s.in.choices) - 1; i >= 0; i-- {
		if c := s.in.choices[i]; c.flags&flagUnindexed == 0 {
			s.index[c.key] = int32(i)
		}
	}
	s.built = true
}

// draw is the one place choices are made and recorded.
func (s *Source) draw(kind Kind, label uint64, n int) []byte {
	if n < 0 {
		panic("generators: negative draw size")
	}
	if s.sites != nil {
		label = s.callSite(label)
	}
	f := &s.frames[len(s.frames)-1]
	key := step(f.key, label^uint64(kind+1)<<56, s.occ(label))
	if s.used[kind]+n > s.max {
		return make([]byte, n)
	}
	s.used[kind] += n
	off := len(s.out.data)
	s.out.data = append(s.out.data, make([]byte, n)...)
	dst := s.out.data[off : off+n : off+n]
	filled := 0
	if c, ok := s.lookup(key); ok {
		filled = copy(dst, s.in.data[c.off:c.off+c.n])
	}
	if st := s.streamOf(kind); filled < n && s.streamPos[st] < len(s.stream[st]) {
		k := copy(dst[filled:], s.stream[st][s.streamPos[st]:])
		s.streamPos[st] += k
		filled += k
	}
	if filled < n {
		s.fill(dst[filled:])
	}
	s.out.choices = append(s.out.choices, choice{key: key, off: uint32(off), n: uint32(n), stack: f.stack, kind: kind})
	return dst
}

// callSite returns the label of the draw's call site: the first frame on
// the Go stack outside the Source's methods and the package's generic
// combinators, named by its function and the call's offset in it (stable
// across processes, unlike the address), mixed with the kind-of-draw label.
// Addresses are looked up once per Runner.
func (s *Source) callSite(label uint64) uint64 {
	// The walk costs per frame: look at the nearest few first (a
	// combinator calls draw within four frames), the whole stack only if
	// they are all combinators.
	var pcs [24]uintptr
	for _, max := range [...]int{6, len(pcs)} {
		n := goruntime.Callers(3, pcs[:max])
		for _, pc := range pcs[:n] {
			l, ok := s.sites[pc]
			if !ok {
				l = siteLabel(pc)
				s.sites[pc] = l
			}
			if l != 0 {
				return mixWord(label, l)
			}
		}
		if n < max {
			break
		}
	}
	return label
}

// siteLabel names the call at return address pc: 0 for the combinators'
// own frames, else a hash of the function name and the offset.
func siteLabel(pc uintptr) uint64 {
	f := goruntime.FuncForPC(pc - 1)
	if f == nil {
		return 0
	}
	name := f.Name()
	if isCombinator(name) {
		return 0
	}
	return mixWord(hashString(name), uint64(pc-f.Entry())) | 1
}

// isCombinator reports whether the function named name is part of the
// drawing machinery (a Source method or a generic combinator of this
// package) rather than a generator.
func isCombinator(name string) bool {
	const pkg = "github.com/wafer-fuzz/wafer/generators."
	rest, ok := strings.CutPrefix(name, pkg)
	if !ok {
		return false
	}
	if strings.HasPrefix(rest, "(*Source).") {
		return true
	}
	for _, c := range [...]string{"Call[", "OneOf[", "List[", "Repeat", "Recurse["} {
		if strings.HasPrefix(rest, c) {
			return true
		}
	}
	return false
}

// streamOf returns the stream that draws of kind k read when they miss.
func (s *Source) streamOf(k Kind) Kind {
	if s.split {
		return k
	}
	return Value
}

// sigSeed starts the hash of a run's structural decisions.
const sigSeed = 0x5354525543540002 // "STRUCT" v2

// decided records a structural decision (the alternative taken, the count
// drawn) in the run's structural signature: what the generator did with a
// structural draw, not the bytes behind it, so that two runs whose
// structural bytes differ but decode to the same decisions share it.
func (s *Source) decided(v uint64) { s.sig = mixWord(s.sig, v) }

// fill writes extension-PRNG bytes into b.
func (s *Source) fill(b []byte) {
	for len(b) >= 8 {
		binary.LittleEndian.PutUint64(b, s.rng.Uint64())
		b = b[8:]
	}
	if len(b) > 0 {
		v := s.rng.Uint64()
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
	}
}

// rest makes Raw's draw: a variable-length value choice holding the whole
// recorded choice at this index, else the rest of the unindexed bytes, else
// (the sequence has neither) 0–256 fresh bytes, log-uniformly distributed.
func (s *Source) rest() []byte {
	label := lblRaw
	if s.sites != nil {
		label = s.callSite(label)
	}
	f := &s.frames[len(s.frames)-1]
	key := step(f.key, label^uint64(Value+1)<<56, s.occ(label))
	var src []byte
	fresh := -1
	if c, ok := s.lookup(key); ok {
		src = s.in.data[c.off : c.off+c.n]
	} else if s.hasStream[Value] {
		src = s.stream[Value][s.streamPos[Value]:]
		s.streamPos[Value] = len(s.stream[Value])
	} else {
		v := s.rng.Uint64()
		fresh = int(v>>8) & (1<<(v%9) - 1)
	}
	n := len(src)
	if fresh >= 0 {
		n = fresh
	}
	if room := s.max - s.used[Value]; n > room {
		n = max(room, 0)
	}
	s.used[Value] += n
	off := len(s.out.data)
	if fresh >= 0 {
		s.out.data = append(s.out.data, make([]byte, n)...)
		s.fill(s.out.data[off:])
	} else {
		s.out.data = append(s.out.data, src[:n]...)
	}
	s.out.choices = append(s.out.choices, choice{key: key, off: uint32(off), n: uint32(n), stack: f.stack, kind: Value, flags: flagVar})
	return s.out.data[off : off+n : off+n]
}
