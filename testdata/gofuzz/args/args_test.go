package args

import "testing"

// FuzzAll fails with its arguments printed when s is "show".
func FuzzAll(f *testing.F) {
	f.Add([]byte("b\x00"), "seed", true, byte(7), 'λ', -1, int8(-8), int16(-16), int32(-32), int64(-64),
		uint(1), uint8(8), uint16(16), uint32(32), uint64(1<<63), float32(1.5), -2.25)
	f.Fuzz(func(t *testing.T, data []byte, s string, b bool, by byte, r rune, i int, i8 int8, i16 int16, i32 int32, i64 int64,
		u uint, u8 uint8, u16 uint16, u32 uint32, u64 uint64, f32 float32, f64 float64) {
		if s == "show" {
			t.Fatalf("values: %s", Format(data, s, b, by, r, i, i8, i16, i32, i64, u, u8, u16, u32, u64, f32, f64))
		}
	})
}

// FuzzNamed passes a named function to f.Fuzz: its arguments are decoded
// through reflection and have no names.
func FuzzNamed(f *testing.F) {
	f.Fuzz(named)
}

func named(t *testing.T, n uint16, s string, data []byte) {
	if s == "show" {
		t.Fatalf("values: %s", Format(n, s, data))
	}
}
