package engine

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/wafer-fuzz/wafer/instrument"
	"github.com/wafer-fuzz/wafer/runtime"
)

// applied returns every child the replacements make of input.
func applied(input []byte, rs []replacement) []string {
	var out []string
	for _, r := range rs {
		if c := r.apply(slices.Clone(input)); c != nil {
			out = append(out, string(c))
		}
	}
	return out
}

func TestInputToState(t *testing.T) {
	tests := []struct {
		name  string
		input string
		ops   []Operands
		want  []string // children that must be among the replacements
		not   []string // and children that must not
	}{
		{"32-bit little-endian", "xxABCDyy", []Operands{{Size: 4, A: 0x44434241, B: 0x52464157}},
			[]string{"xxWAFRyy"}, []string{"xxRFAWyy"}},
		{"plus and minus one, for an ordering comparison", "xx\x00\x00\x01\x00yy", []Operands{{Size: 4, A: 0x10000, B: 100100}},
			[]string{"xx\x04\x87\x01\x00yy", "xx\x05\x87\x01\x00yy", "xx\x03\x87\x01\x00yy"}, nil},
		{"32-bit big-endian", "xxABCDyy", []Operands{{Size: 4, A: 0x41424344, B: 0x57414652}},
			[]string{"xxWAFRyy"}, nil},
		{"the other operand is in the input", "xxABCDyy", []Operands{{Size: 4, A: 0x52464157, B: 0x44434241}},
			[]string{"xxWAFRyy"}, nil},
		{"narrowed to 2 bytes", "..\x34\x12..", []Operands{{Size: 8, A: 0x1234, B: 0xbeef}},
			[]string{"..\xef\xbe.."}, nil},
		{"sign-extended", "a\xfe\xffb", []Operands{{Size: 4, A: 0xfffffffe, B: 7}},
			[]string{"a\x07\x00b"}, nil},
		{"sign-extended from 64 bits", "a\xfe\xffb", []Operands{{Size: 8, A: 0xfffffffffffffffe, B: 7}},
			[]string{"a\x07\x00b"}, nil},
		{"a value that does not fit is not narrowed", "a\x01b", []Operands{{Size: 4, A: 1, B: 0x10000}},
			nil, []string{"a\x00b"}},
		{"a 3-byte value (_ExtInt(24), a 3-byte length field)", "ab\x01\x02\x03cd", []Operands{{Size: 4, A: 0x030201, B: 0x123456}},
			[]string{"ab\x56\x34\x12cd"}, nil},
		{"memory operands, different lengths", "key=dix;", []Operands{{MemA: []byte("dix"), MemB: []byte("divide")}},
			[]string{"key=divide;"}, nil},
		{"byte comparisons are havoc's", "a=b", []Operands{{Size: 4, A: '=', B: ':'}}, nil, []string{"a:b"}},
		{"equal operands teach nothing", "abcd", []Operands{{Size: 4, A: 0x64636261, B: 0x64636261}, {MemA: []byte("ab"), MemB: []byte("ab")}},
			nil, []string{"abcd"}},
		{"every occurrence up to the limit", "AAxAAxAAxAAxAA", []Operands{{MemA: []byte("AA"), MemB: []byte("BB")}},
			[]string{"BBxAAxAAxAAxAA", "AAxAAxAAxBBxAA"}, []string{"AAxAAxAAxAAxBB"}},
		{"case folded", "..QuIxOtIc..", []Operands{{MemA: []byte("quixotic"), MemB: []byte("jackdaws")}},
			[]string{"..jackdaws.."}, nil},
		{"plus k: the other operand minus k", "..abcd..", []Operands{{MemA: []byte("defg"), MemB: []byte("zeph")}},
			[]string{"..wbme.."}, nil},
		{"xor k", "..\x01\x02\x03..", []Operands{{MemA: []byte("\x21\x22\x23"), MemB: []byte("abc")}},
			[]string{"..ABC.."}, nil},
		{"a run of one byte value: plus k and xor k", "xxxx", []Operands{{MemA: []byte("\"\"\"\""), MemB: []byte("jack")}},
			[]string{string([]byte{'j' + 0x56, 'a' + 0x56, 'c' + 0x56, 'k' + 0x56}), string([]byte{'j' ^ 0x5a, 'a' ^ 0x5a, 'c' ^ 0x5a, 'k' ^ 0x5a})}, nil},
		{"a transformed integer (an inlined 8-byte memcmp)", "..abcdefgh..", []Operands{{Size: 8, A: 0x6968676665646362, B: 0x3837363534333231}},
			[]string{"..01234567.."}, nil},
		{"128 bits: halves of two comparisons joined, either order", "x0123456789abcdefy",
			[]Operands{{Size: 8, A: 0x3736353433323130, B: 0x4847464544434241}, {Size: 8, A: 0x6665646362613938, B: 0x5857565554535251}},
			[]string{"xABCDEFGHQRSTUVWXy"}, nil},
		{"128 bits: an exact half and a near one", "x0123456789abcdefy",
			[]Operands{{Size: 8, A: 0x3736353433323130, B: 0x4847464544434241}, {Size: 8, A: 0x6665646362613938, B: 0x5857565554535251}},
			[]string{"xBBCDEFGHQRSTUVWXy", "xABCDEFGHRRSTUVWXy"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := applied([]byte(tc.input), inputToState([]byte(tc.input), tc.ops, nil))
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("%q missing from %q", w, got)
				}
			}
			for _, n := range tc.not {
				if slices.Contains(got, n) {
					t.Errorf("%q among %q", n, got)
				}
			}
		})
	}
}

func TestInputToStateLimit(t *testing.T) {
	input := make([]byte, 512)
	for i := range input {
		input[i] = byte(i*i*7 + i>>3)
	}
	var ops []Operands
	for v := range uint64(300) {
		ops = append(ops, Operands{Size: 8, A: v % 9, B: v + 1000}, Operands{MemA: input[v : v+8], MemB: []byte("replaced")})
	}
	rs := inputToState(input, ops, nil)
	if len(rs) != maxReplacements {
		t.Fatalf("%d replacements, want the limit %d", len(rs), maxReplacements)
	}
	for i := 1; i < len(rs); i++ {
		if rs[i-1].near && !rs[i].near {
			t.Fatalf("replacement %d is exact, after a near one: exact ones must come first", i)
		}
		if rs[i-1].near == rs[i].near && len(rs[i].from) > len(rs[i-1].from) {
			t.Fatalf("replacement %d (%d bytes) after one of %d: larger operands must come first", i, len(rs[i].from), len(rs[i-1].from))
		}
	}
}

// TestInputToStateCloserFirst: among replacements of one length and
// place rank, those of a comparison the entry got closer to passing than
// the worker's earlier comparer runs (or that they never logged) come
// first, whatever the log's order.
func TestInputToStateCloserFirst(t *testing.T) {
	input := []byte("ABCD..WXYZ..QRST")
	far := Operands{Size: 4, A: 0x44434241, B: 0xbbbcbdbe, Site: 0}  // "ABCD", 32 bits apart
	near := Operands{Size: 4, A: 0x5a595857, B: 0x5a595856, Site: 1} // "WXYZ", 1 bit apart
	mid := Operands{Size: 4, A: 0x54535251, B: 0x545352a0, Site: 2}  // "QRST", 5 bits apart
	order := func(rs []replacement) []string {
		var out []string
		for _, r := range rs {
			if !r.near {
				out = append(out, string(input[r.pos:r.pos+4]))
			}
		}
		return out
	}

	var h closest
	inputToState(input, []Operands{far, near}, &h) // sites 0 and 1 recorded
	// Site 1 is no nearer than before, site 0 now is (31 bits, was 32),
	// and site 2 was never logged: both go before site 1.
	far.B ^= 1
	if got, want := order(inputToState(input, []Operands{near, far, mid}, &h)), []string{"ABCD", "QRST", "WXYZ"}; !slices.Equal(got, want) {
		t.Errorf("places attacked in the order %q, want %q (the comparisons that got closer first)", got, want)
	}
	// Site 2 as before (5 bits), site 0 closer again (30 bits).
	far.B ^= 2
	if got, want := order(inputToState(input, []Operands{mid, far}, &h)), []string{"ABCD", "QRST"}; !slices.Equal(got, want) {
		t.Errorf("places attacked in the order %q, want %q", got, want)
	}
	// Without a record nothing is closer: the log's order.
	if got, want := order(inputToState(input, []Operands{near, mid, far}, nil)), []string{"WXYZ", "QRST", "ABCD"}; !slices.Equal(got, want) {
		t.Errorf("without a record: places attacked in the order %q, want the log's %q", got, want)
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		op   Operands
		want uint8
	}{
		{Operands{Size: 4, A: 0xff, B: 0x0f}, 4},
		{Operands{Size: 8, A: 0, B: ^uint64(0)}, 64},
		{Operands{MemA: []byte("abc"), MemB: []byte("abd")}, 3},
		{Operands{MemA: []byte("ab"), MemB: []byte("abcd")}, 16},
		{Operands{MemA: make([]byte, 40), MemB: []byte{}}, 254},
	} {
		if got := distance(&tc.op); got != tc.want {
			t.Errorf("distance(%+v) = %d, want %d", tc.op, got, tc.want)
		}
	}
}

func TestReplacementApply(t *testing.T) {
	r := replacement{pos: 2, from: []byte("cd"), to: []byte("XYZ")}
	if got := r.apply([]byte("abcdef")); string(got) != "abXYZef" {
		t.Errorf("grow: %q", got)
	}
	r = replacement{pos: 2, from: []byte("cde"), to: []byte("X")}
	if got := r.apply([]byte("abcdef")); string(got) != "abXf" {
		t.Errorf("shrink: %q", got)
	}
	// The bytes moved (an earlier operation changed them): no child.
	if got := r.apply([]byte("abXdef")); got != nil {
		t.Errorf("stale position applied: %q", got)
	}
	if got := r.apply([]byte("abc")); got != nil {
		t.Errorf("past the end applied: %q", got)
	}
}

func FuzzInputToState(f *testing.F) {
	f.Add([]byte("xxABCDyy"), uint64(0x44434241), uint64(0x52464157), []byte("dix"), []byte("divide"))
	f.Fuzz(func(t *testing.T, input []byte, a, b uint64, ma, mb []byte) {
		for _, size := range []int{4, 8} {
			rs := inputToState(input, []Operands{{Size: size, A: a, B: b}, {MemA: ma, MemB: mb}}, nil)
			if len(rs) > maxReplacements {
				t.Fatalf("%d replacements", len(rs))
			}
			for _, r := range rs {
				c := r.apply(slices.Clone(input))
				if c == nil {
					t.Fatalf("replacement %+v does not apply to its own input", r)
				}
				if len(c) != len(input)-len(r.from)+len(r.to) || !bytes.Equal(c[int(r.pos):int(r.pos)+len(r.to)], r.to) {
					t.Fatalf("replacement %+v made %q of %q", r, c, input)
				}
			}
		}
	})
}

// loadMagic loads testdata/magic.wasm built for coverage and built to log
// comparisons.
func loadMagic(t *testing.T) (tgt *runtime.Target, sm *instrument.SiteMap, cmpTgt *runtime.Target) {
	t.Helper()
	wasm, err := os.ReadFile("testdata/magic.wasm")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	load := func(opts instrument.Options) (*runtime.Target, *instrument.SiteMap) {
		cfg := runtime.Config{MaxInputLen: DefaultMaxLen}
		s, err := instrument.Summarize(wasm)
		if err != nil {
			t.Fatal(err)
		}
		b := runtime.Preparation(s, cfg) // as a campaign does
		b.Instrument = &opts
		p, err := instrument.Prepare(wasm, b)
		if err != nil {
			t.Fatal(err)
		}
		sm := p.SiteMap
		tg, err := runtime.New(ctx, p, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close(ctx) })
		return tg, sm
	}
	tgt, sm = load(instrument.Options{Fuel: true, DirtyPages: true})
	cmpTgt, _ = load(instrument.Options{Fuel: true, DirtyPages: true, Compares: true})
	return tgt, sm, cmpTgt
}

// TestInputToStateFindsMagic: magic.wasm crashes only on "WAFR", a 64-bit
// check value computed from it and memcmp(…, "zap!", 4). Havoc with a
// comparer finds it from a seed of 16 dots; the same campaign without one
// does not (its constant dictionary has "WAFR" and "zap!", but not the
// check value).
func TestInputToStateFindsMagic(t *testing.T) {
	ctx := context.Background()
	tgt, sm, cmpTgt := loadMagic(t)
	const runs = 20_000
	for _, withCmp := range []bool{true, false} {
		t.Run(fmt.Sprintf("comparer=%v", withCmp), func(t *testing.T) {
			deps := Deps{NewExecutor: runtimeExecutors(tgt), Seeds: [][]byte{[]byte("................")}, TargetDict: sm.Dictionary}
			if withCmp {
				deps.NewComparer = runtimeComparers(cmpTgt)
			}
			sum, err := Fuzz(ctx, Config{Search: Search{Seed: 3, Runs: runs, NoShrink: true}}, deps)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("stop %s after %d runs, queue %d", sum.Stop, sum.Stats.Execs, sum.Stats.Queue)
			found := sum.Stop == "crash"
			if found != withCmp {
				t.Errorf("crash found: %v, want %v (within %d runs)", found, withCmp, runs)
			}
			if found && !bytes.HasPrefix(sum.Failures[0].Input, []byte("WAFR\x23\x80\x8f\xd3\x78\x21\x41\x8ezap!")) {
				t.Errorf("crashing input %q", sum.Failures[0].Input)
			}
		})
	}
}

// TestInputToStateDeterministic: with a comparer, a deterministic campaign
// runs the same children on one worker and on two (an entry's stage and
// strategy jobs may run on different workers), exactly Runs of
// them (stage jobs give back the budget they do not use), and stage jobs
// save entries.
func TestInputToStateDeterministic(t *testing.T) {
	ctx := context.Background()
	tgt, _, cmpTgt := loadMagic(t)
	seed := []byte("................")
	runs := func(workers int) map[[2]uint64]string {
		var mu sync.Mutex
		got := map[[2]uint64]string{}
		sum, err := Fuzz(ctx, Config{Search: Search{Seed: 5, Runs: 5000, Workers: workers, Deterministic: true, KeepGoing: true, NoShrink: true}},
			Deps{NewExecutor: runtimeExecutors(tgt), NewComparer: runtimeComparers(cmpTgt), Seeds: [][]byte{seed},
				OnRun: func(job uint64, child int, in []byte) {
					mu.Lock()
					got[[2]uint64{job, uint64(child)}] = string(in)
					mu.Unlock()
				}})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Stats.Execs != 5000 || len(got) != 5000 {
			t.Errorf("%d workers: %d executions, %d children run, want 5000", workers, sum.Stats.Execs, len(got))
		}
		staged := 0
		for _, e := range sum.Queue {
			if e.Op == opInputToState {
				staged++
			}
		}
		if staged == 0 {
			t.Errorf("%d workers: no queue entry from input-to-state in %d", workers, len(sum.Queue))
		}
		return got
	}
	one, two := runs(1), runs(2)
	if !maps.Equal(one, two) {
		t.Fatalf("1 worker ran %d children, 2 workers %d, not the same", len(one), len(two))
	}
}

// fakeComparer reports the same comparisons for every input.
type fakeComparer []Operands

func (f fakeComparer) Compare(context.Context, []byte) ([]Operands, *Failure, error) {
	return f, nil, nil
}

// TestStageMaxLen: a replacement longer than what it replaces never takes
// a child past Config.MaxLen.
func TestStageMaxLen(t *testing.T) {
	const maxLen = 8
	var longest int
	var mu sync.Mutex
	deps := Deps{
		NewExecutor: magicTarget.executors(func(int) func([]byte) {
			return func(in []byte) {
				mu.Lock()
				longest = max(longest, len(in))
				mu.Unlock()
			}
		}),
		NewComparer: func(context.Context, int) (Comparer, error) {
			return fakeComparer{{MemA: []byte("FU"), MemB: []byte("FUZZFUZZ")}}, nil
		},
		Seeds: [][]byte{[]byte("FUxxxxxx")},
	}
	sum, err := Fuzz(context.Background(), Config{Search: Search{Seed: 1, Runs: 2000, MaxLen: maxLen}}, deps)
	if err != nil {
		t.Fatal(err)
	}
	if longest > maxLen {
		t.Errorf("an input of %d bytes ran, MaxLen %d", longest, maxLen)
	}
	if sum.Stop != "crash" || sum.Failures[0].Op != opInputToState {
		t.Errorf("stop %q; want the crash FUZZ… from input-to-state", sum.Stop)
	}
}

// TestStageSavesNewBranchesOnly: a replacement that only changes a loop's
// hit count (a length set to the limit it is checked against) does not
// join the queue from the stage.
func TestStageSavesNewBranchesOnly(t *testing.T) {
	loopTarget := &fakeTarget{sites: 4, run: func(in []byte, c fakeCov) (Outcome, *Failure) {
		c.hit(0)
		if len(in) < 2 {
			return Invalid, nil
		}
		n := int(in[0]) | int(in[1])<<8
		if n > 1000 {
			c.hit(1)
			return Invalid, nil
		}
		for range n {
			c.hit(2)
		}
		return Valid, nil
	}}
	deps := Deps{
		NewExecutor: loopTarget.executors(nil),
		NewComparer: func(context.Context, int) (Comparer, error) {
			return comparerFunc(func(in []byte) []Operands {
				if len(in) < 2 {
					return nil
				}
				return []Operands{{Size: 4, A: uint64(in[0]) | uint64(in[1])<<8, B: 1000}}
			}), nil
		},
		Seeds: [][]byte{{3, 1}},
	}
	sum, err := Fuzz(context.Background(), Config{Search: Search{Seed: 1, Runs: 3000, Strategy: "havoc"}}, deps)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range sum.Queue {
		if e.Op == opInputToState {
			t.Errorf("entry %d (%v) saved from the stage without a new branch", e.ID, e.Input)
		}
	}
}

// comparerFunc computes the comparisons from the input.
type comparerFunc func([]byte) []Operands

func (f comparerFunc) Compare(_ context.Context, in []byte) ([]Operands, *Failure, error) {
	return f(in), nil, nil
}
