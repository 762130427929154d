package corpus

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"syscall"
	"testing"
)

// TestFlatWriter: every distinct input written through the pool is read
// back whole, once, whatever the duplicates and the interleaving; the
// caller may reuse its buffer as soon as Write returns.
func TestFlatWriter(t *testing.T) {
	ctx := context.Background()
	m := newMemFS()
	w := Flat{Path: "corpus", FS: m}.Writer(4)
	var want [][]byte
	buf := make([]byte, 0, 64)
	for i := range 200 {
		buf = fmt.Appendf(buf[:0], "input %d", i%150) // 50 duplicates
		if i < 150 {
			want = append(want, slices.Clone(buf))
		}
		w.Write(ctx, "", buf)
		clear(buf[:cap(buf)]) // the writer must have copied it
	}
	if err := w.Wait(); err != nil {
		t.Fatal(err)
	}
	seeds, skipped, err := ReadSeeds(ctx, m, "corpus")
	if err != nil || skipped != nil {
		t.Fatalf("read back: %v %v", skipped, err)
	}
	var got [][]byte
	for _, s := range seeds {
		got = append(got, s.Data)
	}
	sortBytes := func(s [][]byte) { slices.SortFunc(s, func(a, b []byte) int { return slices.Compare(a, b) }) }
	sortBytes(got)
	sortBytes(want)
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("read back %d inputs, want the %d distinct ones written", len(got), len(want))
	}
}

// TestFlatWriterFull: a full disk is the error Wait returns, naming the
// file; the writes after it are dropped rather than retried.
func TestFlatWriterFull(t *testing.T) {
	ctx := context.Background()
	m := newMemFS()
	m.quota = 100
	w := Flat{Path: "corpus", FS: m}.Writer(2)
	for i := range 50 {
		w.Write(ctx, "", fmt.Appendf(nil, "a longer input number %d", i))
	}
	err := w.Wait()
	var we *WriteError
	if !errors.As(err, &we) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Wait: %v, want a WriteError with ENOSPC", err)
	}
	if m.used() > m.quota {
		t.Fatalf("%d bytes stored past a quota of %d", m.used(), m.quota)
	}
}
