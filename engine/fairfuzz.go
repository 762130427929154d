package engine

import (
	"math/bits"
	"slices"
)

// FairFuzz targets rare branches with mutation masks (docs/ALGORITHMS.md §3,
// paper 002). numHits(b) is Coverage.Hits: every executed input, mask
// probes included. A branch is an arm of a conditional
// (State.Conditionals; every site when unknown); it is rare when its
// numHits is at most the cutoff 2^i with 2^(i−1) < min numHits ≤ 2^i
// (RarityCutoff). In its turn of the queue cycle an entry is fuzzed only
// when its rarest branch (fewest hits, ties: lowest id) is rare and not
// banned; that branch is the round's target. Every PlainEvery-th cycle,
// and the first PlainExecs executions, use the plain schedule instead
// (every entry, unmasked havoc).
//
// A targeted round has two steps, the first a dependent job (see
// Dependent): on one worker, relaxed trimming (AFL's trimming that keeps
// a cut when the target is still hit, not the whole trace; raw mode
// only), then the mask probes: for each position of the trimmed copy (at
// most MaskPositions, a uniform sample beyond, the rest fully mutable) the
// copy with that byte flipped (O), with a random byte inserted before it
// (I, also at the end) and with it deleted (D), the mask keeping which
// still hit the target. When that job is merged, the round's
// numCandidates children are masked havoc of the trimmed copy (which
// serves this round only), in ordinary jobs any worker runs: each stacked
// operation keeps its choice of kind and length m and draws its position
// k among those whose whole range [k, k+m) allows it, and is skipped when
// none does; within a child the mask follows the bytes (deleted entries
// go, inserted bytes and a splice's tail are fully mutable). A target no I
// or D probe kept is banned from later rounds. Up to ProbeRounds rounds
// probe at once, so other rounds' children keep the workers busy while one
// probes.
//
// In generator mode positions are those of the choice sequence, there is
// no trimming, the probes are O only (one run per position) and the
// children are Zest's mutation with each replaced run drawn among the
// positions O allows; nothing is banned (no I/D probe runs).
type FairFuzz struct {
	Cycle
	cfg    FairFuzzConfig
	havoc  HavocConfig
	raw    bool
	banned map[uint32]bool
	rounds []*fairRound // oldest first
	// probing is the number of rounds whose probe job is in flight.
	probing int
	// Rounds and Banned count targeted rounds started and targets banned
	// (tests, stats); TargetRuns and TargetHits the targeted rounds'
	// children and those that hit their round's target (the paper's
	// Table 2 measure).
	Rounds, Banned         int
	TargetRuns, TargetHits int64
}

// NewFairFuzz returns the fairfuzz strategy with o's knobs.
func NewFairFuzz(o StrategyOptions) *FairFuzz {
	return &FairFuzz{cfg: o.FairFuzz.withDefaults(), havoc: o.Havoc.withDefaults(), raw: o.Raw, banned: map[uint32]bool{}}
}

// fairRound is a targeted round in progress.
type fairRound struct {
	entry  *Entry
	target uint32
	n      int       // masked havoc children to make
	mask   *fairMask // nil until the probe job is merged
}

// fairProbe is a probe job's Param. Immutable.
type fairProbe struct {
	round    *fairRound
	target   uint32
	maxPos   int
	trim, id bool // trimming; I and D probes (raw mode)
}

// fairMask is a masked round's Param: the trimmed copy and its mask.
// Immutable.
type fairMask struct {
	target uint32
	x      []byte
	// mask[i] (len(x)+1 entries) is the set of operations allowed at
	// position i: maskO, maskI, maskD; the last entry is for insertions
	// at the end.
	mask []uint8
}

// Mask bits: overwrite, insert before, delete.
const (
	maskO   uint8 = 1
	maskI   uint8 = 2
	maskD   uint8 = 4
	maskAll       = maskO | maskI | maskD
)

// fairNote is a probe job's result.
type fairNote struct {
	x    []byte
	mask []uint8
	// keptID: some I or D probe still hit the target.
	keptID bool
}

// Save implements Strategy: a new branch or bucket (AFL's rule) in raw
// mode, ZestSave with a generator.
func (f *FairFuzz) Save(_ *State, fb *Feedback) bool {
	if f.raw {
		return fb.NewBranch || fb.NewBucket
	}
	return ZestSave(fb)
}

// Learn implements Strategy: numHits is Coverage.Hits, nothing else to
// learn.
func (*FairFuzz) Learn(*State, *Job, *Feedback) {}

// RarityCutoff is FairFuzz's cutoff for the lowest numHits of any hit
// branch: 2^i with 2^(i−1) < min ≤ 2^i (0 for 0).
func RarityCutoff(minHits uint64) uint64 {
	if minHits <= 1 {
		return minHits
	}
	return 1 << bits.Len64(minHits-1)
}

// isArm reports whether site is an arm of a conditional.
func isArm(s *State, site uint32) bool {
	return s.Conditionals == nil || (int(site) < len(s.Conditionals) && s.Conditionals[site] >= 0)
}

// cutoff is the current rarity cutoff over hit arms (0: none hit).
func (f *FairFuzz) cutoff(s *State) uint64 {
	var least uint64
	for site, h := range s.Cov.Hits {
		if h > 0 && (least == 0 || h < least) && isArm(s, uint32(site)) {
			least = h
		}
	}
	return RarityCutoff(least)
}

// rarest returns e's rarest branch: the arm it hits with the fewest
// hits, ties to the lowest id; false when it hits no arm.
func rarest(s *State, e *Entry) (uint32, uint64, bool) {
	var best uint32
	var hits uint64
	found := false
	for i := range len(e.Trace) / traceEntry {
		site, _ := traceSite(e.Trace, i)
		if !isArm(s, site) || int(site) >= len(s.Cov.Hits) {
			continue
		}
		if h := s.Cov.Hits[site]; !found || h < hits {
			best, hits, found = site, h, true
		}
	}
	return best, hits, found
}

// plain reports whether the schedule is plain now.
func (f *FairFuzz) plain(s *State) bool {
	if s.Execs < f.cfg.PlainExecs {
		return true
	}
	return f.cfg.PlainEvery > 0 && f.Cycles%f.cfg.PlainEvery == f.cfg.PlainEvery-1
}

// Next implements Strategy: a round whose mask is ready first, else the
// next entry of the cycle (plain, or a new targeted round while fewer
// than ProbeRounds probe), else Wait.
func (f *FairFuzz) Next(s *State) (*Entry, int, any) {
	for i, r := range f.rounds {
		if r.mask != nil {
			f.rounds = slices.Delete(f.rounds, i, i+1)
			return r.entry, r.n, r.mask
		}
	}
	if len(s.Queue) == 0 {
		return f.Cycle.Next(s)
	}
	if f.probing >= f.cfg.ProbeRounds {
		return nil, Wait, nil
	}
	cut := f.cutoff(s)
	var e *Entry
	var n int
	for range len(s.Queue) {
		e, n, _ = f.Cycle.Next(s)
		if f.plain(s) {
			return e, n, nil
		}
		b, hits, ok := rarest(s, e)
		if !ok || hits > cut || f.banned[b] {
			continue
		}
		r := &fairRound{entry: e, target: b, n: n}
		f.rounds = append(f.rounds, r)
		f.Rounds++
		if f.cfg.NoMask {
			// the round's children are unmasked havoc of the entry
			r.mask = &fairMask{target: b, x: e.Choices, mask: fullMask(len(e.Choices))}
			return f.Next(s)
		}
		f.probing++
		p := &fairProbe{round: r, target: b, maxPos: f.cfg.MaskPositions, trim: f.raw && !f.cfg.NoTrim, id: f.raw}
		return e, p.runs(len(e.Choices)), Dependent{Param: p}
	}
	// no entry of a whole pass qualified: the last one, plain
	return e, n, nil
}

// runs bounds the probe job's children for a parent of length l.
func (p *fairProbe) runs(l int) int {
	n := 0
	if p.trim {
		n = trimRuns(l)
	}
	pos := min(l, p.maxPos)
	if p.id {
		return n + 3*pos + 1
	}
	return n + max(pos, 1)
}

// JobDone implements Strategy: a probe job's mask readies its round; a
// masked job's note counts its children that hit the target.
func (f *FairFuzz) JobDone(_ *State, j *Job, note any) {
	if h, ok := note.(fairHits); ok {
		f.TargetRuns += h.runs
		f.TargetHits += h.hits
		return
	}
	p, ok := j.Param.(*fairProbe)
	if !ok {
		return
	}
	f.probing--
	r := p.round
	n, _ := note.(*fairNote)
	if n == nil { // cut short before its first child
		n = &fairNote{x: r.entry.Choices, mask: fullMask(len(r.entry.Choices)), keptID: true}
	}
	if p.id && !n.keptID && !f.banned[p.target] {
		f.banned[p.target] = true
		f.Banned++
	}
	r.mask = &fairMask{target: p.target, x: n.x, mask: n.mask}
}

// fairHits is a masked job's note: its children, and those that hit the
// round's target.
type fairHits struct{ runs, hits int64 }

func fullMask(l int) []uint8 {
	m := make([]uint8, l+1)
	for i := range m {
		m[i] = maskAll
	}
	return m
}

// Trimming, as AFL's trim_case: cuts of next_pow2(len)/16 bytes down to
// next_pow2(len)/1024, at least 4, inputs of at least 5 bytes.
const (
	trimStartSteps = 16
	trimEndSteps   = 1024
	trimMinBytes   = 4
)

func nextPow2(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

// trimRuns bounds the trimming runs of an input of length l: each run
// either drops a cut or moves past it, so a pass with cut c runs at most
// ⌈l/c⌉ times.
func trimRuns(l int) int {
	if l < trimMinBytes+1 {
		return 0
	}
	p := nextPow2(l)
	end := max(p/trimEndSteps, trimMinBytes)
	n := 0
	for c := max(p/trimStartSteps, trimMinBytes); c >= end; c /= 2 {
		n += (l + c - 1) / c
	}
	return n
}

// NewMutator implements Strategy.
func (f *FairFuzz) NewMutator(_ int, env *MutatorEnv) Mutator {
	return &fairMutator{env: env, havoc: &havocMutator{env: env, stackPow2: f.havoc.StackPow2, depth: f.havoc.Depth}}
}

// fairMutator makes a probe job's trimming and probe runs, a masked
// round's children and plain children.
type fairMutator struct {
	env   *MutatorEnv
	havoc *havocMutator
	mb    []uint8 // a masked child's mask, following its bytes
	// hits counts the current masked job's children and target hits.
	hits    fairHits
	hitsJob *Job

	// the probe job in progress
	job    *Job
	probe  *fairProbe
	phase  int
	x      []byte // the trimmed copy
	cand   []byte // the last trimming candidate
	cut    int    // trimming: cut length, position, last cut length
	pos    int
	endCut int
	mask   []uint8
	sample []int // positions probed
	pi, op int   // next probe: sample[pi], operation op (0 O, 1 I, 2 D)
	keptID bool
}

// Probe job phases.
const (
	phaseTrim = iota
	phaseSample
	phaseProbe
	phaseDone
)

// Mutate implements Mutator.
func (m *fairMutator) Mutate(dst []byte, j *Job, r Rand) []byte {
	switch p := j.Param.(type) {
	case *fairProbe:
		return m.probeChild(dst, j, p, r)
	case *fairMask:
		if m.env.Raw {
			return m.maskedHavoc(dst, p, j, r)
		}
		return maskedZest(append(dst[:0], p.x...), p.mask, r)
	}
	if !m.env.Raw && j.Parent != nil {
		return zestMutate(append(dst[:0], j.Parent.Choices...), r, 4, 4)
	}
	return m.havoc.Mutate(dst, j, r)
}

// probeChild returns the probe job's next run: a trimming candidate or a
// probe.
func (m *fairMutator) probeChild(dst []byte, j *Job, p *fairProbe, r Rand) []byte {
	if m.job != j {
		m.startProbe(j, p)
	}
	if m.phase == phaseTrim {
		end := min(m.pos+m.cut, len(m.x))
		m.cand = append(append(m.cand[:0], m.x[:m.pos]...), m.x[end:]...)
		return append(dst[:0], m.cand...)
	}
	if m.phase == phaseSample {
		m.startSample(p, r)
	}
	if m.phase == phaseDone {
		// the job's bound was loose (Ender ends it first): rerun the copy
		return append(dst[:0], m.x...)
	}
	i := m.sample[m.pi]
	b := append(dst[:0], m.x...)
	switch m.op {
	case 0:
		b[i] ^= 0xFF
	case 1:
		b = slices.Insert(b, i, byte(r.Uint64()))
	default:
		b = slices.Delete(b, i, i+1)
	}
	return b
}

func (m *fairMutator) startProbe(j *Job, p *fairProbe) {
	m.job, m.probe = j, p
	m.x = append(m.x[:0], j.Parent.Choices...)
	m.keptID = false
	m.phase = phaseSample
	if p.trim && len(m.x) > trimMinBytes {
		pw := nextPow2(len(m.x))
		m.cut = max(pw/trimStartSteps, trimMinBytes)
		m.endCut = max(pw/trimEndSteps, trimMinBytes)
		m.pos = 0
		m.phase = phaseTrim
	}
}

// startSample picks the positions to probe: all of them (and the end, for
// I) up to maxPos, else a uniform sample of maxPos, in order.
func (m *fairMutator) startSample(p *fairProbe, r Rand) {
	l := len(m.x)
	m.mask = append(m.mask[:0], fullMask(l)...)
	m.sample = m.sample[:0]
	if l <= p.maxPos {
		for i := range l {
			m.sample = append(m.sample, i)
		}
	} else {
		// partial Fisher–Yates over 0..l-1
		perm := make([]int, l)
		for i := range perm {
			perm[i] = i
		}
		for i := range p.maxPos {
			k := i + r.IntN(l-i)
			perm[i], perm[k] = perm[k], perm[i]
		}
		m.sample = append(m.sample, perm[:p.maxPos]...)
		slices.Sort(m.sample)
	}
	if p.id {
		m.sample = append(m.sample, l) // I at the end
	}
	for _, i := range m.sample {
		m.mask[i] = 0
	}
	m.pi, m.op = 0, 0
	m.phase = phaseProbe
	if len(m.sample) == 0 {
		m.phase = phaseDone
	} else if m.sample[0] == l {
		m.op = 1
	}
}

// Observe implements Mutator: the trimming and probe verdicts, and
// whether a masked round's child hit the target.
func (m *fairMutator) Observe(j *Job, l Local) {
	if p, ok := j.Param.(*fairMask); ok {
		if m.hitsJob != j {
			m.hitsJob, m.hits = j, fairHits{}
		}
		m.hits.runs++
		if Hits(l.Trace, p.target) {
			m.hits.hits++
		}
		return
	}
	if m.job != j {
		return
	}
	hit := Hits(l.Trace, m.probe.target)
	switch m.phase {
	case phaseTrim:
		if hit {
			m.x, m.cand = m.cand, m.x
		} else {
			m.pos += m.cut
		}
		if m.pos >= len(m.x) {
			m.cut /= 2
			m.pos = 0
			if m.cut < m.endCut || len(m.x) <= trimMinBytes {
				m.phase = phaseSample
			}
		}
	case phaseProbe:
		i := m.sample[m.pi]
		if hit {
			m.mask[i] |= 1 << m.op
			m.keptID = m.keptID || m.op > 0
		}
		m.nextProbe()
	}
}

// nextProbe moves to the next (position, operation): O, then I and D in
// raw mode; only I at the end.
func (m *fairMutator) nextProbe() {
	last := 0
	if m.probe.id {
		last = 2
	}
	m.op++
	if m.op > last || m.sample[m.pi] == len(m.x) {
		m.op = 0
		m.pi++
		if m.pi == len(m.sample) {
			m.phase = phaseDone
			return
		}
		if m.sample[m.pi] == len(m.x) {
			m.op = 1
		}
	}
}

// More implements Ender: a probe job ends once every probe ran.
func (m *fairMutator) More(j *Job) bool {
	return m.job != j || m.phase != phaseDone
}

// Done implements Mutator: a probe job's trimmed copy and mask, a masked
// job's target hits.
func (m *fairMutator) Done(j *Job) any {
	if m.hitsJob == j {
		m.hitsJob = nil
		return m.hits
	}
	if m.job != j {
		return nil
	}
	m.job = nil
	if m.phase == phaseTrim || m.phase == phaseSample {
		// cut short: the mask is unknown
		m.mask = append(m.mask[:0], fullMask(len(m.x))...)
		m.keptID = true
	}
	return &fairNote{x: slices.Clone(m.x), mask: slices.Clone(m.mask), keptID: m.keptID}
}

// maskPick draws k uniformly among the positions in [0, limit] whose
// range [k, k+n) allows c (mask[i]&c != 0 for each i); -1 when none does.
// Rejection first (a uniform k, kept when its range is allowed: most
// masks allow most positions), then, after pickTries rejections, a count
// of the allowed positions and a uniform draw among them: each way gives
// a uniform allowed k, so their mixture does too. (The scan alone was 60 %
// of fairfuzz's CPU time on tlv, whose children grow to kilobytes.)
func maskPick(mask []uint8, c uint8, n, limit int, r Rand) int {
	if limit < 0 || n < 1 {
		return -1
	}
	for range pickTries {
		k := r.IntN(limit + 1)
		ok := true
		for _, m := range mask[k : k+n] {
			if m&c == 0 {
				ok = false
				break
			}
		}
		if ok {
			return k
		}
	}
	count, run := 0, 0
	for i := 0; i < len(mask) && i-n+1 <= limit; i++ {
		if mask[i]&c != 0 {
			run++
		} else {
			run = 0
		}
		if run >= n {
			count++
		}
	}
	if count == 0 {
		return -1
	}
	want := r.IntN(count)
	run = 0
	for i := 0; i < len(mask); i++ {
		if mask[i]&c != 0 {
			run++
		} else {
			run = 0
		}
		if run >= n {
			if want == 0 {
				return i - n + 1
			}
			want--
		}
	}
	return -1
}

// pickTries is how many uniform draws maskPick tries before it scans.
const pickTries = 8

// maskInsert opens n fully mutable entries at k.
func maskInsert(mask []uint8, k, n int) []uint8 {
	mask = slices.Insert(mask, k, make([]uint8, n)...)
	fillMask(mask[k : k+n])
	return mask
}

func fillMask(m []uint8) {
	for i := range m {
		m[i] = maskAll
	}
}

// maskedHavoc is the round's child: the trimmed copy with stacked masked
// havoc operations (the same table, count and lengths as havoc).
func (m *fairMutator) maskedHavoc(dst []byte, p *fairMask, j *Job, r Rand) []byte {
	b := append(dst[:0], p.x...)
	m.mb = append(m.mb[:0], p.mask...)
	var ops int
	if m.havoc.stackPow2 > 0 {
		ops = 1 << (1 + r.IntN(m.havoc.stackPow2))
	} else {
		ops = 1 + r.IntN(m.havoc.depth)
	}
	for range ops {
		b = m.maskedOnce(b, r, j)
	}
	if m.env.MaxLen > 0 && len(b) > m.env.MaxLen {
		b = b[:m.env.MaxLen]
		m.mb = m.mb[:len(b)+1]
	}
	return b
}

// maskedOnce applies one masked operation: up to 16 draws for one that
// applies to b's length, then its position among the allowed ones (no
// change when none is).
func (m *fairMutator) maskedOnce(b []byte, r Rand, j *Job) []byte {
	for range 16 {
		if c := m.maskedOp(r.IntN(len(havocOps)), b, r, j); c != nil {
			return c
		}
	}
	return b
}

// maskedOp is havocOps[op] with its position drawn among the allowed
// ones: nil when the operation does not apply to b's length (another is
// drawn), b unchanged when no position allows it.
func (m *fairMutator) maskedOp(op int, b []byte, r Rand, j *Job) []byte {
	env := m.env
	pick := func(c uint8, n, limit int) int { return maskPick(m.mb, c, n, limit, r) }
	switch op {
	case 0: // flip a bit
		if len(b) == 0 {
			return nil
		}
		if k := pick(maskO, 1, len(b)-1); k >= 0 {
			b[k] ^= 1 << r.IntN(8)
		}
	case 1, 2, 3: // interesting values
		w := 1 << (op - 1)
		if len(b) < w {
			return nil
		}
		k := pick(maskO, w, len(b)-w)
		if k < 0 {
			return b
		}
		switch w {
		case 1:
			b[k] = byte(interesting8[r.IntN(len(interesting8))])
		case 2:
			byteOrder(r).PutUint16(b[k:], uint16(interesting16[r.IntN(len(interesting16))]))
		default:
			byteOrder(r).PutUint32(b[k:], uint32(interesting32[r.IntN(len(interesting32))]))
		}
	case 4, 5, 6: // arithmetic
		w := 1 << (op - 4)
		if len(b) < w {
			return nil
		}
		k := pick(maskO, w, len(b)-w)
		if k < 0 {
			return b
		}
		d := delta(r)
		switch w {
		case 1:
			b[k] = byte(int(b[k]) + d)
		case 2:
			o := byteOrder(r)
			o.PutUint16(b[k:], uint16(int(o.Uint16(b[k:]))+d))
		default:
			o := byteOrder(r)
			o.PutUint32(b[k:], uint32(int64(o.Uint32(b[k:]))+int64(d)))
		}
	case 7: // random byte
		if len(b) == 0 {
			return nil
		}
		if k := pick(maskO, 1, len(b)-1); k >= 0 {
			b[k] ^= byte(1 + r.IntN(255))
		}
	case 8: // delete a block
		if len(b) < 2 {
			return nil
		}
		l := blockLen(r, len(b)-1)
		if k := pick(maskD, l, len(b)-l); k >= 0 {
			b = append(b[:k], b[k+l:]...)
			m.mb = append(m.mb[:k], m.mb[k+l:]...)
		}
	case 9: // insert a block
		space := room(b, env)
		if space <= 0 {
			return nil
		}
		k := pick(maskI, 1, len(b))
		if k < 0 {
			return b
		}
		if len(b) > 0 && r.IntN(4) != 0 {
			l := blockLen(r, min(len(b), space))
			from := r.IntN(len(b) - l + 1)
			blk := slices.Clone(b[from : from+l])
			b = slices.Insert(b, k, blk...)
			m.mb = maskInsert(m.mb, k, l)
			return b
		}
		var l int
		b, l = insertRepeat(b, r, k, space)
		m.mb = maskInsert(m.mb, k, l)
	case 10: // overwrite a block
		if len(b) < 2 {
			return nil
		}
		l := blockLen(r, len(b)-1)
		to := pick(maskO, l, len(b)-l)
		if to < 0 {
			return b
		}
		if r.IntN(4) != 0 {
			from := r.IntN(len(b) - l + 1)
			copy(b[to:to+l], b[from:from+l])
			return b
		}
		v := byte(r.IntN(256))
		if r.IntN(2) == 0 {
			v = b[r.IntN(len(b))]
		}
		fill(b[to:to+l], v)
	case 11: // insert a token
		if len(env.Dict) == 0 {
			return nil
		}
		tok := env.Dict[r.IntN(len(env.Dict))]
		if len(tok) == 0 || len(tok) > room(b, env) {
			return nil
		}
		if k := pick(maskI, 1, len(b)); k >= 0 {
			b = slices.Insert(b, k, tok...)
			m.mb = maskInsert(m.mb, k, len(tok))
		}
	case 12: // overwrite with a token
		if len(env.Dict) == 0 {
			return nil
		}
		tok := env.Dict[r.IntN(len(env.Dict))]
		if len(tok) == 0 || len(tok) > len(b) {
			return nil
		}
		if k := pick(maskO, len(tok), len(b)-len(tok)); k >= 0 {
			copy(b[k:], tok)
		}
	default: // splice
		return m.maskedSplice(b, r, j)
	}
	return b
}

// maskedSplice is opSplice with the split point drawn among the allowed
// ones: b's bytes from the split up to the donor's length are
// overwritten (O), b's bytes past the donor's end deleted (D), and bytes
// past b's end appended (I at the end). The tail is fully mutable.
func (m *fairMutator) maskedSplice(b []byte, r Rand, j *Job) []byte {
	donor := spliceDonor(b, r, j)
	if donor == nil {
		return nil
	}
	lb, ld := len(b), len(donor)
	for i := ld; i < lb; i++ {
		if m.mb[i]&maskD == 0 {
			return b
		}
	}
	if ld > lb && m.mb[lb]&maskI == 0 {
		return b
	}
	hi := min(lb, ld-1)
	lo := min(lb, ld) // the first split point with every overwritten byte O
	for lo > 1 && m.mb[lo-1]&maskO != 0 {
		lo--
	}
	lo = max(lo, 1)
	if lo > hi {
		return b
	}
	at := lo + r.IntN(hi-lo+1)
	out := append(b[:at], donor[at:]...)
	if m.env.MaxLen > 0 && len(out) > m.env.MaxLen {
		out = out[:m.env.MaxLen]
	}
	m.mb = append(m.mb[:at], make([]uint8, len(out)+1-at)...)
	fillMask(m.mb[at:])
	return out
}

// maskedZest is Zest's mutation (docs/ALGORITHMS.md §1) where each replaced run
// [k, k+l) is drawn among the runs O allows (skipped when none does).
func maskedZest(b []byte, mask []uint8, r Rand) []byte {
	if len(b) == 0 {
		return zestMutate(b, r, 4, 4)
	}
	n := geometric(r, 4)
	for range n {
		l := min(geometric(r, 4), len(b))
		if k := maskPick(mask, maskO, l, len(b)-l, r); k >= 0 {
			fillRandom(b[k:k+l], r)
		}
	}
	return b
}
