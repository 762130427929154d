package instrument

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
)

//go:embed testdata/datamerge.wasm
var dataMergeWasm []byte

//go:embed testdata/datamerge-init.wasm
var dataMergeInitWasm []byte

// dataRun instantiates wasm and performs calls (init_N with n, drop_N) in
// order: it returns the target memory (from base) after instantiation and
// a log of each call's trap and of the 8 bytes at target address 1000.
func dataRun(t *testing.T, wasm []byte, base uint64, calls []dataCall) ([]byte, []string) {
	t.Helper()
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	mod, err := r.Instantiate(ctx, wasm)
	if err != nil {
		t.Fatal(err)
	}
	mem := mod.ExportedMemory("mem")
	if mem == nil {
		mem = mod.ExportedMemory(MemoryExport)
	}
	view, _ := mem.Read(uint32(base), 65536)
	initial := bytes.Clone(view)
	var log []string
	for _, c := range calls {
		var err error
		if strings.HasPrefix(c.fn, "init") {
			_, err = mod.ExportedFunction(c.fn).Call(ctx, c.n)
		} else {
			_, err = mod.ExportedFunction(c.fn).Call(ctx)
		}
		log = append(log, fmt.Sprintf("%s(%d): trap %v, %q", c.fn, c.n, err != nil, view[1000:1008]))
	}
	return initial, log
}

type dataCall struct {
	fn string
	n  uint64
}

// TestMergeData: instrumenting datamerge merges segments 0 and 1 (6 zero
// bytes between them) and 8 and 9 (touching) and no other, leaves the
// constant dictionary as the separate segments give it, and leaves the
// target memory after instantiation as the original's; datamerge-init, whose code reads its
// segments with memory.init, keeps all of them, and every sequence of
// memory.init and data.drop calls gives the original's traps and memory.
func TestMergeData(t *testing.T) {
	segs := func(wasm []byte) []Data {
		m, err := Decode(wasm)
		if err != nil {
			t.Fatal(err)
		}
		return m.Data
	}
	out, sm, err := Instrument(dataMergeWasm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := segs(out); len(segs(dataMergeWasm)) != 10 || len(d) != 8 || string(d[0].Init) != "aaaa\x00\x00\x00\x00\x00\x00bbbb" || string(d[7].Init) != "abcdef" {
		t.Fatalf("expected 10 segments to become 8 with 0 and 1, 8 and 9 merged, got %d, first %q", len(d), d[0].Init)
	}
	dict := map[string]bool{}
	for _, w := range sm.Dictionary {
		dict[string(w)] = true
	}
	if !dict["abc"] || !dict["def"] || dict["abcdef"] {
		t.Fatalf("dictionary: expected the segments' strings as they were, got %q", sm.Dictionary)
	}
	m0, _ := dataRun(t, dataMergeWasm, 0, nil)
	m1, _ := dataRun(t, out, sm.Layout.ReservedBytes(), nil)
	if !bytes.Equal(m0, m1) {
		for i := range m0 {
			if m0[i] != m1[i] {
				t.Fatalf("target memory after instantiation differs at %d: %#x, original %#x", i, m1[i], m0[i])
			}
		}
	}
	if string(m0[150:160]) != "3333333333" || string(m0[170:175]) != "55555" {
		t.Fatalf("fixture: unexpected memory %q %q", m0[150:160], m0[170:175])
	}

	out, sm, err = Instrument(dataMergeInitWasm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(segs(out)); n != 8 {
		t.Fatalf("memory.init in the code: expected the 8 segments kept, got %d", n)
	}
	calls := []dataCall{{"init_6", 7}, {"init_0", 0}, {"init_0", 1}, {"init_1", 0}, {"init_1", 4}, {"init_5", 0}, {"init_5", 2},
		{"init_7", 0}, {"init_7", 2}, {"drop_1", 0}, {"init_1", 0}, {"init_1", 1}, {"drop_6", 0}, {"init_6", 0}, {"init_6", 3}}
	m0, log0 := dataRun(t, dataMergeInitWasm, 0, calls)
	m1, log1 := dataRun(t, out, sm.Layout.ReservedBytes(), calls)
	if !bytes.Equal(m0, m1) {
		t.Fatal("datamerge-init: target memory after instantiation differs")
	}
	for i := range log0 {
		if log0[i] != log1[i] {
			t.Fatalf("call %d: instrumented %s, original %s", i, log1[i], log0[i])
		}
	}
}

// TestMergeSpans: the sorted, disjoint span list the merge checks gaps
// against, on random inserts, answers overlap queries as a plain list of
// every inserted range does.
func TestMergeSpans(t *testing.T) {
	var spans []span
	var all [][2]uint64
	x := uint64(12345)
	next := func(n uint64) uint64 { x = x*6364136223846793005 + 1442695040888963407; return (x >> 33) % n }
	for range 3000 {
		lo := next(5000)
		hi := lo + next(50)
		spans = insertSpan(spans, lo, hi)
		if lo < hi {
			all = append(all, [2]uint64{lo, hi})
		}
		for k := 1; k < len(spans); k++ {
			if spans[k-1].end >= spans[k].start || spans[k].start >= spans[k].end {
				t.Fatalf("spans not sorted and disjoint: %v", spans[k-1:k+1])
			}
		}
		qlo := next(5100)
		qhi := qlo + next(60)
		want := false
		for _, a := range all {
			if a[0] < qhi && a[1] > qlo && qlo < qhi {
				want = true
			}
		}
		if got := overlaps(spans, qlo, qhi); got != want {
			t.Fatalf("overlaps(%d, %d) = %v, expected %v", qlo, qhi, got, want)
		}
	}
}
