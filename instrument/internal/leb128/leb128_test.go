package leb128

import (
	"errors"
	"testing"
)

func TestSigned(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		bits int
		want int64
		n    int
		err  error
	}{
		{"zero", []byte{0}, 32, 0, 1, nil},
		{"minus one", []byte{0x7f}, 32, -1, 1, nil},
		{"64", []byte{0xc0, 0x00}, 32, 64, 2, nil},
		{"minus 64", []byte{0x40}, 32, -64, 1, nil},
		{"max i32", []byte{0xff, 0xff, 0xff, 0xff, 0x07}, 32, 0x7fffffff, 5, nil},
		{"min i32", []byte{0x80, 0x80, 0x80, 0x80, 0x78}, 32, -0x80000000, 5, nil},
		{"i32 overflow", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, 32, 0, 5, ErrOverflow},
		{"i32 bad sign bits", []byte{0x80, 0x80, 0x80, 0x80, 0x70}, 32, 0, 5, ErrOverflow},
		{"i32 too long", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 32, 0, 5, ErrTooLong},
		{"truncated", []byte{0x80}, 32, 0, 1, ErrTruncated},
		{"min i64", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f}, 64, -1 << 63, 10, nil},
		{"i64 overflow", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 64, 0, 10, ErrOverflow},
		{"s33 max", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, 33, 0xffffffff, 5, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, n, err := signed(tc.in, tc.bits)
			if !errors.Is(err, tc.err) || n != tc.n || (err == nil && got != tc.want) {
				t.Fatalf("signed(%x, %d) = %d, %d, %v; want %d, %d, %v", tc.in, tc.bits, got, n, err, tc.want, tc.n, tc.err)
			}
		})
	}
}

func TestUnsignedRoundTrip(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 300, 1<<32 - 1, 1 << 35, 1<<64 - 1} {
		b := AppendUint64(nil, v)
		got, n, err := Uint64(b)
		if err != nil || got != v || n != len(b) {
			t.Errorf("Uint64(%x) = %d, %d, %v; want %d", b, got, n, err, v)
		}
		if v <= 1<<32-1 {
			got32, n, err := Uint32(b)
			if err != nil || uint64(got32) != v || n != len(b) {
				t.Errorf("Uint32(%x) = %d, %d, %v; want %d", b, got32, n, err, v)
			}
		}
	}
	if _, _, err := Uint32([]byte{0xff, 0xff, 0xff, 0xff, 0x1f}); !errors.Is(err, ErrOverflow) {
		t.Errorf("u32 overflow: got %v", err)
	}
	p := AppendPaddedUint32(nil, 300)
	if got, n, err := Uint32(p); got != 300 || n != 5 || err != nil {
		t.Errorf("padded: %d %d %v", got, n, err)
	}
}

func TestSignedRoundTrip(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 63, 64, -64, -65, 1 << 40, -1 << 63, 1<<63 - 1} {
		b := AppendInt64(nil, v)
		got, n, err := Int64(b)
		if err != nil || got != v || n != len(b) {
			t.Errorf("Int64(%x) = %d, %d, %v; want %d", b, got, n, err, v)
		}
	}
}

func TestZeroAlloc(t *testing.T) {
	buf := make([]byte, 0, 64)
	allocs := testing.AllocsPerRun(100, func() {
		b := AppendUint32(buf[:0], 624485)
		b = AppendInt64(b, -123456)
		v, n, _ := Uint32(b)
		w, _, _ := Int64(b[n:])
		if v != 624485 || w != -123456 {
			panic("bad")
		}
	})
	if allocs != 0 {
		t.Fatalf("allocs/op = %v, want 0", allocs)
	}
}

func FuzzUint32(f *testing.F) {
	f.Add([]byte{0xe5, 0x8e, 0x26})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, n, err := Uint32(b)
		if err != nil {
			return
		}
		got, m, err := Uint32(AppendUint32(nil, v))
		if err != nil || got != v || m > n {
			t.Fatalf("round trip of %x: %d %d %v", b[:n], got, m, err)
		}
	})
}
