package engine

import (
	"math"
	"slices"

	"github.com/wafer-fuzz/wafer/internal/enumname"
)

// LevyQuality is the quality Lévy's α is computed from
// (docs/ALGORITHMS.md §4).
type LevyQuality uint8

const (
	// LevyRelative (the zero value, the default) rescales a batch's Ē by
	// the campaign's recent mean Ē̄: α_i = 2/(1+e^(b_i·(1 − Ē/Ē̄))), so a
	// batch as good as the recent ones gets α = 1 whatever the target's
	// rate of discovery (ours).
	LevyRelative LevyQuality = iota
	// LevyAbsolute is the paper's α_i = 2/(1+e^(b_i − Ē)).
	LevyAbsolute
)

var levyQualityNames = enumname.New[LevyQuality]("LevyQuality", "levy quality", "relative", "absolute")

// String returns the form's name: relative or absolute.
func (q LevyQuality) String() string { return levyQualityNames.String(q) }

// ParseLevyQuality reads "relative" or "absolute".
func ParseLevyQuality(s string) (LevyQuality, error) { return levyQualityNames.Parse(s) }

// Levy is Lévy-flight fuzzing with self-adaptive diffusivity
// (docs/ALGORITHMS.md §4, paper 003). A flight walks over one test case: an
// offset walk over its segments (m = LevyConfig.SegmentBits bits each)
// and a value walk over segment values, with steps drawn from a symmetric
// α-stable law (levyStep). Each child is the previous one with the segment
// at the current offset set to the value walk's next state, so a batch of
// k_gen children is a chain: it is one dependent job (see Dependent), and
// the flight's next batch waits for its results. From them the strategy
// computes the batch quality Ē (the mean number of sites a child executed
// that no test case of the history did, the history being the last k_max
// children of every flight) and sets α_i = 2/(1+e^(b_i − Ē)) for both
// walks (LevyAbsolute; by default, LevyRelative, Ē is first divided by
// the mean Ē of the recent batches and multiplied by b_i): a batch that
// found much moves on in short steps, one that found nothing jumps far.
// The walks' states and the last child carry over to the next batch. There is one flight per worker by default
// (LevyConfig.Flights): a worker then idles while its flight's batch goes
// through the coordinator, and levy ran at 0.45–0.66x random's execs/s
// (docs/EVALUATION.md); more flights fill those gaps. On tlv, czstd and
// cexpr the paper's absolute α stayed within 0.01 of its floor
// 2/(1+e^b): a one-segment walk rarely executes a site the last 4,096
// children did not, hence the relative form.
//
// No queue scheduling: a flight only ever continues from its own last
// child. Children that add coverage (a new branch or bucket, as havoc)
// still enter the queue, and failures are recorded as usual. The length
// of a test case never changes; a flight whose starting test case is
// shorter than one segment starts from FreshLen random bytes (ours).
type Levy struct {
	Base
	cfg     LevyConfig
	raw     bool
	flights []*levyFlight
	next    int // round-robin over idle flights
	hist    levyHistory
	seeded  bool // the seeds are in the history
	// recent is Ē̄, the mean Ē of the recent batches of every flight
	// (LevyRelative).
	recent float64
	// Batches counts the batches merged, NovelBatches those with Ē > 0,
	// FloorBatches those after which the offset walk's α was within 0.01
	// of its floor 2/(1+e^b_1), AlphaSum the sum of that α after each,
	// AlphaHist its histogram in bins of width 0.01 (tests, stats).
	Batches, NovelBatches, FloorBatches int
	AlphaSum                            float64
	AlphaHist                           [200]int
}

// levyRecent is the span in batches of Ē̄ (LevyRelative): the mean of
// the batches so far up to that many, then an exponential moving
// average with weight 1/levyRecent, as long as the default history
// (4,096 children) is in batches of 64 (ours).
const levyRecent = 64

// NewLevy returns the levy strategy with o's knobs.
func NewLevy(o StrategyOptions) *Levy {
	cfg := o.Levy.withDefaults(o.Workers)
	l := &Levy{cfg: cfg, raw: o.Raw}
	l.hist.max = cfg.History
	if cfg.Unbounded {
		l.hist.max = 0
	}
	for range cfg.Flights {
		l.flights = append(l.flights, &levyFlight{alpha1: cfg.Alpha0, alpha2: cfg.Alpha0})
	}
	return l
}

// levyFlight is one flight's state between batches (the paper's Last()).
type levyFlight struct {
	origin         *Entry // the queue entry it started from (children's parent)
	x              []byte // the last child
	q              int    // offset walk's state
	v              uint64 // value walk's state
	started        bool
	walked         bool // a batch was issued: v is the value walk's state
	busy           bool
	alpha1, alpha2 float64
	// quality is the last batch's Ē (tests, stats).
	quality float64
}

// levyParam is a batch's Job.Param: the flight's state when it was issued.
// Immutable.
type levyParam struct {
	flight         int
	x              []byte
	q              int
	v              uint64
	fresh          bool // x is too short: start from random bytes
	initV          bool // start the value walk at x's segment value at q
	alpha1, alpha2 float64
	segBytes       int
}

// levyNote is a batch's result: the walks' last states and each child's
// sites.
type levyNote struct {
	x     []byte
	q     int
	v     uint64
	sites [][]uint32
}

// Save implements Strategy: a new branch or bucket, as havoc.
func (*Levy) Save(_ *State, fb *Feedback) bool { return fb.NewBranch || fb.NewBucket }

// Next implements Strategy: the next idle flight's batch, or Wait while
// every flight has one in flight.
func (l *Levy) Next(s *State) (*Entry, int, any) {
	if len(s.Queue) == 0 && s.Execs == 0 {
		return nil, Wait, nil // the seeds are in flight
	}
	if !l.seeded {
		// X_all starts with the seeds X_0
		l.seeded = true
		for _, e := range s.Queue {
			l.hist.push(traceSites(e.Trace))
		}
	}
	for k := range l.flights {
		i := (l.next + k) % len(l.flights)
		f := l.flights[i]
		if f.busy {
			continue
		}
		l.next = i + 1
		if !f.started {
			// x0: the most recently added test case (none when every
			// seed failed: random bytes then)
			if len(s.Queue) > 0 {
				f.origin = s.Queue[len(s.Queue)-1]
				f.x = f.origin.Choices
			}
			f.started = true
		}
		seg := l.cfg.SegmentBits / 8
		p := &levyParam{flight: i, x: f.x, q: f.q, v: f.v, alpha1: f.alpha1, alpha2: f.alpha2, segBytes: seg}
		p.fresh = len(f.x) < seg
		// first batch: L2_0 is x0's segment value at q0
		p.initV = !f.walked
		f.walked = true
		f.busy = true
		return f.origin, l.cfg.Batch, Dependent{Param: p}
	}
	return nil, Wait, nil
}

// JobDone implements Strategy: the batch quality against the history, the
// new α of both walks, the walks' states; then the batch joins the
// history.
func (l *Levy) JobDone(_ *State, j *Job, note any) {
	p, ok := j.Param.(*levyParam)
	if !ok {
		return
	}
	f := l.flights[p.flight]
	f.busy = false
	n, ok := note.(*levyNote)
	if !ok || len(n.sites) == 0 {
		return // cut short before its first child (the campaign is ending)
	}
	f.x, f.q, f.v = n.x, n.q, n.v
	l.Batches++
	var sum int
	for _, s := range n.sites {
		sum += l.hist.novel(s)
	}
	e := float64(sum) / float64(len(n.sites))
	f.quality = e
	q1, q2 := e, e
	if l.cfg.Quality == LevyRelative {
		// Ē̄ includes this batch, so it is positive whenever Ē is, and
		// Ē/Ē̄ is at most levyRecent
		l.recent += (e - l.recent) / float64(min(l.Batches, levyRecent))
		rel := 0.0
		if e > 0 {
			rel = e / l.recent
		}
		q1, q2 = l.cfg.B1*rel, l.cfg.B2*rel
	}
	f.alpha1 = levyAlpha(l.cfg.B1, q1)
	f.alpha2 = levyAlpha(l.cfg.B2, q2)
	l.AlphaSum += f.alpha1
	l.AlphaHist[min(len(l.AlphaHist)-1, int(f.alpha1/2*float64(len(l.AlphaHist))))]++
	if f.alpha1 <= levyAlpha(l.cfg.B1, 0)+0.01 {
		l.FloorBatches++
	}
	if e > 0 {
		l.NovelBatches++
	}
	for _, s := range n.sites {
		l.hist.push(s)
	}
}

// levyAlpha is α = 2/(1+e^(b−Ē)), kept in [minAlpha, 2].
func levyAlpha(b, quality float64) float64 {
	return max(minAlpha, min(2, 2/(1+math.Exp(b-quality))))
}

// minAlpha bounds α away from 0, where the stable law has no finite scale
// (α = 2/(1+e^b) ≈ 0.095 at quality 0 with b = 3; a b of 10 would give
// 9e-5).
const minAlpha = 0.01

// Alphas returns flight i's current α1 and α2 and its last batch
// quality (tests and stats).
func (l *Levy) Alphas(i int) (alpha1, alpha2, quality float64) {
	f := l.flights[i]
	return f.alpha1, f.alpha2, f.quality
}

// NewMutator implements Strategy.
func (l *Levy) NewMutator(_ int, env *MutatorEnv) Mutator { return &levyMutator{env: env} }

// levyMutator makes a batch's chain of children and collects their sites.
type levyMutator struct {
	env   *MutatorEnv
	job   *Job
	x     []byte
	q     int
	v     uint64
	sites [][]uint32
}

// Mutate implements Mutator: x_{t+1} = x_t with the segment at L1_t set to
// L2_{t+1}; then the offset walk steps.
func (m *levyMutator) Mutate(dst []byte, j *Job, r Rand) []byte {
	p := j.Param.(*levyParam)
	if m.job != j {
		m.job = j
		m.x = append(m.x[:0], p.x...)
		if p.fresh {
			m.x = freshChoices(m.x[:0], &MutatorEnv{FreshLen: max(m.env.FreshLen, p.segBytes), MaxLen: m.env.MaxLen}, r)
			m.x = m.x[:len(m.x)/p.segBytes*p.segBytes]
			for len(m.x) < p.segBytes {
				m.x = append(m.x, byte(r.Uint64()))
			}
		}
		n := len(m.x) / p.segBytes
		m.q, m.v = p.q%n, p.v
		if p.initV {
			m.v = segment(m.x, m.q, p.segBytes)
		}
		m.sites = m.sites[:0]
	}
	n := len(m.x) / p.segBytes
	m.v = levyWalk(m.v, p.alpha2, uint64(1)<<(8*p.segBytes), r)
	setSegment(m.x, m.q, p.segBytes, m.v)
	m.q = int(levyWalk(uint64(m.q), p.alpha1, uint64(n), r))
	return append(dst[:0], m.x...)
}

// Observe implements Mutator: the child's sites, for the batch quality.
func (m *levyMutator) Observe(_ *Job, l Local) {
	m.sites = append(m.sites, traceSites(l.Trace))
}

// traceSites returns the sites of a sparse trace.
func traceSites(tr []byte) []uint32 {
	s := make([]uint32, len(tr)/traceEntry)
	for i := range s {
		s[i], _ = traceSite(tr, i)
	}
	return s
}

// Done implements Mutator.
func (m *levyMutator) Done(j *Job) any {
	if m.job != j {
		return nil
	}
	m.job = nil
	return &levyNote{x: slices.Clone(m.x), q: m.q, v: m.v, sites: slices.Clone(m.sites)}
}

// segment reads segment i (size bytes, little-endian) of x.
func segment(x []byte, i, size int) uint64 {
	var v uint64
	for k := range size {
		v |= uint64(x[i*size+k]) << (8 * k)
	}
	return v
}

// setSegment writes v into segment i (size bytes, little-endian) of x.
func setSegment(x []byte, i, size int, v uint64) {
	for k := range size {
		x[i*size+k] = byte(v >> (8 * k))
	}
}

// levyWalk moves a walk on {0..n-1} one step of α-stable length.
func levyWalk(state uint64, alpha float64, n uint64, r Rand) uint64 {
	if n <= 1 {
		return 0
	}
	return wrapStep(state, levyStep(alpha, r), n)
}

// wrapStep returns (state + step) mod n for a signed step of any size.
func wrapStep(state uint64, step int64, n uint64) uint64 {
	m := int64(n)
	d := step % m
	if d < 0 {
		d += m
	}
	return (state + uint64(d)) % n
}

// maxStep caps a step's magnitude before wrapping: the stable law's tail
// reaches past int64 for small α.
const maxStep = 1 << 62

// levyStep draws a symmetric α-stable variate (unit scale) by the
// Chambers–Mallows–Stuck method and rounds it away from zero to a non-zero
// integer: sign(X)·⌈|X|⌉, so that steps keep the law's tail
// P(|l| > x) ~ x^−α.
func levyStep(alpha float64, r Rand) int64 {
	x := stableSymmetric(alpha, r)
	a := math.Ceil(math.Abs(x))
	if !(a < maxStep) { // also NaN
		a = maxStep
	}
	if a < 1 {
		a = 1
	}
	if x < 0 {
		return -int64(a)
	}
	return int64(a)
}

// stableSymmetric draws from the symmetric α-stable law S(α, 0, 1, 0)
// (Chambers, Mallows and Stuck 1976): V uniform on (−π/2, π/2), W
// exponential with mean 1,
//
//	X = sin(αV)/cos(V)^(1/α) · (cos(V−αV)/W)^((1−α)/α)   (α ≠ 1)
//	X = tan(V)                                          (α = 1)
func stableSymmetric(alpha float64, r Rand) float64 {
	u := unitOpen(r)
	v := math.Pi * (u - 0.5)
	if alpha == 1 {
		return math.Tan(v)
	}
	w := -math.Log(unitOpen(r))
	return math.Sin(alpha*v) / math.Pow(math.Cos(v), 1/alpha) *
		math.Pow(math.Cos(v-alpha*v)/w, (1-alpha)/alpha)
}

// unitOpen returns a uniform float64 in (0, 1).
func unitOpen(r Rand) float64 {
	return (float64(r.Uint64()>>11) + 0.5) / (1 << 53)
}

// levyHistory is the FIFO history of the last max test cases (0: all),
// kept as per-site reference counts: a test case's novelty, the sites it
// executed that no test case of the history did, costs O(its sites).
type levyHistory struct {
	max   int
	refs  []uint32
	fifo  [][]uint32
	first int // index of the oldest in fifo
}

// novel counts the sites of s no test case of the history executed.
func (h *levyHistory) novel(s []uint32) int {
	n := 0
	for _, x := range s {
		if int(x) >= len(h.refs) || h.refs[x] == 0 {
			n++
		}
	}
	return n
}

// push appends a test case and drops the oldest beyond max.
func (h *levyHistory) push(s []uint32) {
	for _, x := range s {
		if int(x) >= len(h.refs) {
			h.refs = append(h.refs, make([]uint32, int(x)+1-len(h.refs))...)
		}
		h.refs[x]++
	}
	if h.max == 0 {
		return // unbounded: nothing is ever dropped, nor kept
	}
	h.fifo = append(h.fifo, s)
	if len(h.fifo)-h.first > h.max {
		for _, x := range h.fifo[h.first] {
			h.refs[x]--
		}
		h.fifo[h.first] = nil
		h.first++
		if h.first > h.max {
			h.fifo = append(h.fifo[:0], h.fifo[h.first:]...)
			h.first = 0
		}
	}
}
