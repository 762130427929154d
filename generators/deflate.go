package generators

import (
	"encoding/binary"
	"hash/adler32"
	"math/bits"
)

// zlibStored returns raw as a zlib stream (RFC 1950) of stored deflate
// blocks (RFC 1951 §3.2.4).
func zlibStored(raw []byte) []byte {
	sum := adler32.Checksum(raw)
	z := make([]byte, 0, len(raw)+len(raw)/65535*5+11)
	z = append(z, 0x78, 0x01)
	for first := true; first || len(raw) > 0; first = false {
		n := min(len(raw), 65535)
		final := byte(0)
		if n == len(raw) {
			final = 1
		}
		z = append(z, final, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
		z = append(z, raw[:n]...)
		raw = raw[n:]
	}
	return binary.BigEndian.AppendUint32(z, sum)
}

// bitWriter writes deflate's LSB-first bit stream.
type bitWriter struct {
	out   []byte
	acc   uint64
	nbits uint
}

func (w *bitWriter) bits(v uint64, n uint) {
	w.acc |= v << w.nbits
	w.nbits += n
	for w.nbits >= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.nbits -= 8
	}
}

// code writes a Huffman code, which deflate packs most significant bit
// first.
func (w *bitWriter) code(c uint64, n uint) {
	w.bits(bits.Reverse64(c)>>(64-n), n)
}

func (w *bitWriter) flush() []byte {
	if w.nbits > 0 {
		w.out = append(w.out, byte(w.acc))
	}
	w.acc, w.nbits = 0, 0
	return w.out
}

// fixedLit writes literal/length symbol sym with the fixed Huffman code
// (RFC 1951 §3.2.6).
func (w *bitWriter) fixedLit(sym int) {
	switch {
	case sym < 144:
		w.code(uint64(0x30+sym), 8)
	case sym < 256:
		w.code(uint64(0x190+sym-144), 9)
	case sym < 280:
		w.code(uint64(sym-256), 7)
	default:
		w.code(uint64(0xc0+sym-280), 8)
	}
}

// Length symbols 257…285: base length and extra bits (RFC 1951 §3.2.5).
var (
	lenBase  = [...]int{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lenExtra = [...]uint{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
)

// zlibFixed returns raw as a zlib stream of one fixed-Huffman deflate block
// that codes runs of a repeated byte as matches at distance 1 (a real, if
// simple, compressor).
func zlibFixed(raw []byte) []byte {
	w := bitWriter{out: make([]byte, 0, len(raw)+len(raw)/8+16)}
	w.out = append(w.out, 0x78, 0x01)
	w.bits(1, 1) // BFINAL
	w.bits(1, 2) // BTYPE = 01, fixed Huffman
	for i := 0; i < len(raw); {
		w.fixedLit(int(raw[i]))
		run := 0
		for i+1+run < len(raw) && raw[i+1+run] == raw[i] && run < 258 {
			run++
		}
		i++
		if run < 3 {
			continue
		}
		// Match of length run at distance 1.
		sym := len(lenBase) - 1
		for lenBase[sym] > run {
			sym--
		}
		if sym == len(lenBase)-1 && run != 258 {
			sym--
		}
		w.fixedLit(257 + sym)
		w.bits(uint64(run-lenBase[sym]), lenExtra[sym])
		w.code(0, 5) // distance code 0: distance 1
		i += run
	}
	w.fixedLit(256)
	return binary.BigEndian.AppendUint32(w.flush(), adler32.Checksum(raw))
}
