// Package leb128 reads and appends the LEB128 integers of the WebAssembly
// binary format (spec 5.2.2). Readers work on a byte slice and report how
// many bytes they consumed; they never allocate.
package leb128

import "errors"

// Errors returned by the readers. They are sentinels so the caller can
// phrase its own message with the position it knows.
var (
	// ErrTruncated: the input ended inside the integer.
	ErrTruncated = errors.New("unexpected end of LEB128 integer")
	// ErrTooLong: more bytes than the type allows (ceil(N/7)).
	ErrTooLong = errors.New("LEB128 integer representation too long")
	// ErrOverflow: the last byte has bits set beyond the type's width.
	ErrOverflow = errors.New("LEB128 integer too large")
)

// Uint32 decodes an unsigned 32-bit LEB128 integer from the start of b.
func Uint32(b []byte) (uint32, int, error) {
	var v uint32
	for i := 0; i < 5; i++ {
		if i >= len(b) {
			return 0, i, ErrTruncated
		}
		c := b[i]
		if i == 4 {
			if c&0x80 != 0 {
				return 0, i + 1, ErrTooLong
			}
			if c&0x70 != 0 {
				return 0, i + 1, ErrOverflow
			}
		}
		v |= uint32(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, i + 1, nil
		}
	}
	return 0, 5, ErrTooLong
}

// Uint64 decodes an unsigned 64-bit LEB128 integer from the start of b.
func Uint64(b []byte) (uint64, int, error) {
	var v uint64
	for i := 0; i < 10; i++ {
		if i >= len(b) {
			return 0, i, ErrTruncated
		}
		c := b[i]
		if i == 9 {
			if c&0x80 != 0 {
				return 0, i + 1, ErrTooLong
			}
			if c&0x7e != 0 {
				return 0, i + 1, ErrOverflow
			}
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, i + 1, nil
		}
	}
	return 0, 10, ErrTooLong
}

// Int32 decodes a signed 32-bit LEB128 integer from the start of b.
func Int32(b []byte) (int32, int, error) {
	v, n, err := signed(b, 32)
	return int32(v), n, err
}

// Int33 decodes a signed 33-bit LEB128 integer (block types, heap types).
func Int33(b []byte) (int64, int, error) { return signed(b, 33) }

// Int64 decodes a signed 64-bit LEB128 integer from the start of b.
func Int64(b []byte) (int64, int, error) { return signed(b, 64) }

func signed(b []byte, bits int) (int64, int, error) {
	max := (bits + 6) / 7
	var v int64
	var shift int
	for i := 0; i < max; i++ {
		if i >= len(b) {
			return 0, i, ErrTruncated
		}
		c := b[i]
		if i == max-1 {
			if c&0x80 != 0 {
				return 0, i + 1, ErrTooLong
			}
			// The unused high bits of the last byte must all equal the sign bit.
			used := bits - 7*i // value bits carried by this byte, sign included
			if used < 7 {
				rest := int8(c<<1) >> used
				if rest != 0 && rest != -1 {
					return 0, i + 1, ErrOverflow
				}
			}
		}
		v |= int64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v, i + 1, nil
		}
	}
	return 0, max, ErrTooLong
}

// AppendUint64 appends the shortest LEB128 encoding of v.
func AppendUint64(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// AppendUint32 appends the shortest LEB128 encoding of v.
func AppendUint32(b []byte, v uint32) []byte {
	if v < 0x80 {
		return append(b, byte(v))
	}
	return AppendUint64(b, uint64(v))
}

// AppendInt64 appends the shortest signed LEB128 encoding of v.
func AppendInt64(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// AppendPaddedUint32 appends v as exactly 5 bytes (for sizes patched later).
func AppendPaddedUint32(b []byte, v uint32) []byte {
	return append(b, byte(v)|0x80, byte(v>>7)|0x80, byte(v>>14)|0x80, byte(v>>21)|0x80, byte(v>>28))
}

// PutPaddedUint32 writes v as exactly 5 bytes at b[0:5].
func PutPaddedUint32(b []byte, v uint32) {
	b[0] = byte(v) | 0x80
	b[1] = byte(v>>7) | 0x80
	b[2] = byte(v>>14) | 0x80
	b[3] = byte(v>>21) | 0x80
	b[4] = byte(v >> 28)
}
