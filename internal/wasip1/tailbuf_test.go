package wasip1

import (
	"bytes"
	"strings"
	"testing"
)

func TestTailBuffer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limit  int
		writes []string
		want   string
		total  uint64
	}{
		{"empty", 4, nil, "", 0},
		{"fits", 8, []string{"abc", "de"}, "abcde", 5},
		{"exactly full", 4, []string{"ab", "cd"}, "abcd", 4},
		{"wraps", 4, []string{"abc", "def"}, "cdef", 6},
		{"wraps twice", 5, []string{"abcd", "efgh", "ij"}, "fghij", 10},
		{"one big write", 3, []string{"abcdefg"}, "efg", 7},
		{"big after wrap", 3, []string{"ab", "cd", "wxyz"}, "xyz", 8},
		{"empty writes", 3, []string{"", "a", ""}, "a", 1},
		{"limit zero counts", 0, []string{"abc"}, "", 3},
		{"byte by byte", 3, []string{"a", "b", "c", "d", "e"}, "cde", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewTailBuffer(tc.limit)
			for _, w := range tc.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write: expected (%d, nil), got (%d, %v)", len(w), n, err)
				}
			}
			if got := b.String(); got != tc.want {
				t.Errorf("expected %q, got %q", tc.want, got)
			}
			if b.Total() != tc.total || b.Len() != len(tc.want) || b.Truncated() != (tc.total > uint64(len(tc.want))) {
				t.Errorf("expected total %d len %d, got %d %d truncated=%v", tc.total, len(tc.want), b.Total(), b.Len(), b.Truncated())
			}
			if got := b.AppendTo([]byte(">")); string(got) != ">"+tc.want {
				t.Errorf("AppendTo: expected %q, got %q", ">"+tc.want, got)
			}
			b.Reset()
			if b.Len() != 0 || b.Total() != 0 || b.Limit() != max(tc.limit, 0) {
				t.Errorf("Reset: expected empty with limit %d, got len %d total %d limit %d", tc.limit, b.Len(), b.Total(), b.Limit())
			}
		})
	}
	var nilBuf *TailBuffer
	nilBuf.Reset()
	if nilBuf.Len() != 0 || nilBuf.Total() != 0 || nilBuf.Bytes() != nil {
		t.Error("nil TailBuffer is not empty")
	}
	var zero TailBuffer
	zero.Write([]byte("xyz"))
	if zero.Len() != 0 || zero.Total() != 3 {
		t.Errorf("zero value: expected to count 3 and keep 0, got %d %d", zero.Total(), zero.Len())
	}
}

// FuzzTailBuffer checks the ring against a plain slice model: the
// retained bytes are always the last Limit() bytes written.
func FuzzTailBuffer(f *testing.F) {
	f.Add(uint8(4), []byte("abcdefghij"), []byte{3, 1, 4, 1, 5})
	f.Add(uint8(1), []byte("xy"), []byte{0, 2})
	f.Add(uint8(0), []byte("q"), []byte{1})
	f.Add(uint8(8), []byte("zz\nab cd\nq xyz\nxyzzy and more"), []byte{4, 1, 1, 9, 30})
	marks := []string{"ab", "xyz"}
	f.Fuzz(func(t *testing.T, limit uint8, data, cuts []byte) {
		b := NewTailBuffer(int(limit))
		b.CaptureFrom(marks...)
		var model []byte
		for _, c := range cuts {
			n := min(int(c), len(data))
			b.Write(data[:n])
			model = append(model, data[:n]...)
			data = data[n:]
			want := model[max(0, len(model)-int(limit)):]
			if got := b.Bytes(); !bytes.Equal(got, want) && len(want)+len(got) > 0 {
				t.Fatalf("expected %q, got %q", want, got)
			}
			if b.Total() != uint64(len(model)) {
				t.Fatalf("total: expected %d, got %d", len(model), b.Total())
			}
			if limit >= 3 { // the capture holds at least the longest mark
				if got, want := b.Mark(), markModel(model, marks, int(limit)); !bytes.Equal(got, want) {
					t.Fatalf("mark: expected %q, got %q", want, got)
				}
			}
		}
	})
}

// markModel is CaptureFrom's specification: from the last line of model
// that starts with a mark, at most limit bytes; nil without one.
func markModel(model []byte, marks []string, limit int) []byte {
	var got []byte
	for i := 0; i < len(model); i++ {
		if i > 0 && model[i-1] != '\n' {
			continue
		}
		for _, m := range marks {
			if bytes.HasPrefix(model[i:], []byte(m)) {
				got = model[i:min(len(model), i+limit)]
				break
			}
		}
	}
	return got
}

// TestTailBufferMark: the capture starts at the last line that begins with
// a mark, even written in pieces, keeps Limit() bytes from there whatever
// follows, and ignores a mark that does not start its line.
func TestTailBufferMark(t *testing.T) {
	b := NewTailBuffer(64)
	b.CaptureFrom("panic: ", "fatal error: ")
	if b.Mark() != nil {
		t.Fatal("expected no mark before any write")
	}
	for _, p := range []string{"log: starting\n", "\tpanic: not at a line start\n", "pan", "ic: boom", "\n\ngoroutine 1 [running]:\n"} {
		b.Write([]byte(p))
	}
	b.Write(bytes.Repeat([]byte("main.f()\n\tmain.go:3 +0x1\n"), 100)) // a deep trace
	got := string(b.Mark())
	if !strings.HasPrefix(got, "panic: boom\n\ngoroutine 1 [running]:\nmain.f()") || len(got) != 64 {
		t.Fatalf("expected 64 bytes from the panic line, got %q", got)
	}
	if strings.Contains(b.String(), "panic: boom") {
		t.Fatal("the tail was expected to have lost the panic line (the case the mark is for)")
	}
	b.Write([]byte("fatal error: later\n"))
	if got := string(b.Mark()); got != "fatal error: later\n" {
		t.Fatalf("expected the capture to restart at the last mark, got %q", got)
	}
	b.Reset()
	if b.Mark() != nil {
		t.Fatal("expected Reset to drop the mark")
	}
	if allocs := testing.AllocsPerRun(100, func() { b.Write([]byte("panic: x\nmore\n")) }); allocs != 0 {
		t.Fatalf("expected Write not to allocate, got %v", allocs)
	}
}
