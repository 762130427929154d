package generators

import (
	"encoding/binary"
	"math/bits"
)

// mix64 constants: odd 64-bit multipliers (from the golden ratio and two
// well-known mixing primes); the function is ours and fixed forever, since
// structural signatures and PRNG seeds derived from it are stored in corpora.
const (
	mixK0 = 0x9e3779b97f4a7c15
	mixK1 = 0xbf58476d1ce4e5b9
	mixK2 = 0x94d049bb133111eb
)

// fmix finalises a 64-bit state (the splitmix64 finaliser).
func fmix(x uint64) uint64 {
	x ^= x >> 30
	x *= mixK1
	x ^= x >> 27
	x *= mixK2
	x ^= x >> 31
	return x
}

// mixWord folds one 64-bit word into h.
func mixWord(h, w uint64) uint64 {
	hi, lo := bits.Mul64(h^w, mixK0)
	return hi ^ lo ^ bits.RotateLeft64(h, 23)
}

// mix64 hashes b, starting from seed: 8-byte little-endian words folded by
// mixWord, the tail zero-padded into one word, the length folded last, then
// fmix.
func mix64(seed uint64, b []byte) uint64 {
	h := seed ^ mixK2
	n := len(b)
	for len(b) >= 8 {
		h = mixWord(h, binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	if len(b) > 0 {
		var t [8]byte
		copy(t[:], b)
		h = mixWord(h, binary.LittleEndian.Uint64(t[:]))
	}
	return fmix(mixWord(h, uint64(n)))
}

// hashString hashes a label or type name.
func hashString(s string) uint64 {
	h := uint64(mixK1) ^ uint64(len(s))
	for len(s) >= 8 {
		h = mixWord(h, uint64(s[0])|uint64(s[1])<<8|uint64(s[2])<<16|uint64(s[3])<<24|
			uint64(s[4])<<32|uint64(s[5])<<40|uint64(s[6])<<48|uint64(s[7])<<56)
		s = s[8:]
	}
	var w uint64
	for i := 0; i < len(s); i++ {
		w |= uint64(s[i]) << (8 * i)
	}
	return fmix(mixWord(h, w))
}

// step derives the key of a child node of an execution index: the parent's
// key, the label of the call site, and its occurrence count.
func step(parent, label uint64, occ uint32) uint64 {
	return fmix(mixWord(mixWord(parent, label), uint64(occ)+1))
}
