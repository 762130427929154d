package generators

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
)

// PNG types (frame names).
var (
	tPNGImage   = newType("png.Image")
	tPNGHeader  = newType("png.IHDR")
	tPNGPalette = newType("png.PLTE")
	tPNGTrans   = newType("png.tRNS")
	tPNGText    = newType("png.tEXt")
	tPNGAnc     = newType("png.Ancillary")
	tPNGPixels  = newType("png.Pixels")
	tPNGRow     = newType("png.Row")
	tPNGZlib    = newType("png.Zlib")
)

// pngDepths lists the allowed bit depths per color type (PNG spec §11.2.2).
var pngDepths = [...]struct {
	colorType, channels int
	depths              []int
}{
	{0, 1, []int{1, 2, 4, 8, 16}},
	{2, 3, []int{8, 16}},
	{3, 1, []int{1, 2, 4, 8}},
	{4, 2, []int{8, 16}},
	{6, 4, []int{8, 16}},
}

// adam7 lists the Adam7 passes: x0, y0, dx, dy.
var adam7 = [7][4]int{
	{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4},
	{0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2},
}

// PNG generates a PNG image (PNG spec, 2nd ed.): every color type and bit
// depth, 1–32 pixels a side, optional Adam7 interlacing, palettes and
// transparency, tEXt/gAMA/pHYs chunks, all five row filter types, the pixel
// stream in zlib (stored blocks or fixed-Huffman blocks written here, or
// compress/zlib) split over 1–4 IDAT chunks, and a valid CRC on every chunk.
func PNG(s *Source) []byte {
	s.enterT(tPNGImage)
	defer s.Leave()
	b := make([]byte, 0, 256)
	b = append(b, "\x89PNG\r\n\x1a\n"...)

	s.enterT(tPNGHeader)
	w, h := s.Len(1, 32), s.Len(1, 32)
	ct := pngDepths[s.Pick(len(pngDepths))]
	depth := ct.depths[s.Pick(len(ct.depths))]
	interlace := s.Pick(2)
	s.Leave()
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9], ihdr[12] = byte(depth), byte(ct.colorType), byte(interlace)
	b = pngChunk(b, "IHDR", ihdr[:])

	nanc := s.beginList(0, 2)
	for range nanc {
		s.elem()
		b = pngAncillary(s, b)
		s.Leave()
	}
	s.endList()

	np := 0
	if ct.colorType == 3 || (ct.colorType&2 != 0 && s.Decide(0.2)) {
		s.enterT(tPNGPalette)
		np = s.Len(1, min(256, 1<<depth))
		b = pngChunk(b, "PLTE", s.draw(Value, lblDraw, 3*np))
		s.Leave()
	}
	if ct.colorType != 4 && ct.colorType != 6 && s.Decide(0.3) {
		s.enterT(tPNGTrans)
		switch ct.colorType {
		case 0:
			b = pngChunk(b, "tRNS", s.draw(Value, lblDraw, 2))
		case 2:
			b = pngChunk(b, "tRNS", s.draw(Value, lblDraw, 6))
		default:
			b = pngChunk(b, "tRNS", s.draw(Value, lblDraw, s.Len(1, np)))
		}
		s.Leave()
	}

	// Filtered scanlines: one value draw per row, the filter type a value.
	s.enterT(tPNGPixels)
	bpp := ct.channels * depth
	raw := make([]byte, 0, 64)
	for p := range 7 {
		pw, ph := w, h
		if interlace == 1 {
			a := adam7[p]
			pw = (w - a[0] + a[2] - 1) / a[2]
			ph = (h - a[1] + a[3] - 1) / a[3]
		} else if p > 0 {
			break
		}
		if pw <= 0 || ph <= 0 {
			continue
		}
		rowBytes := (pw*bpp + 7) / 8
		s.enter(lblList, "")
		for range ph {
			s.enterT(tPNGRow)
			raw = append(raw, byte(s.Int(0, 4)))
			raw = append(raw, s.draw(Value, lblDraw, rowBytes)...)
			s.Leave()
		}
		s.Leave()
	}
	s.Leave()

	s.enterT(tPNGZlib)
	z := pngZlib(raw, int(below(s.draw(Value, lblInt, 1), 32))) // uniform, no boundary bias
	parts := s.Len(1, 4)
	s.Leave()
	for i := range parts {
		lo, hi := len(z)*i/parts, len(z)*(i+1)/parts
		b = pngChunk(b, "IDAT", z[lo:hi])
	}
	return pngChunk(b, "IEND", nil)
}

// pngAncillary appends one of tEXt, gAMA, pHYs.
func pngAncillary(s *Source, b []byte) []byte {
	s.enterT(tPNGAnc)
	defer s.Leave()
	switch s.Pick(3) {
	case 0:
		s.enterT(tPNGText)
		var kb [96]byte
		d := s.appendString(kb[:0], xmlNameRest+" ", 1, 79)
		d = append(d, 0)
		d = s.appendString(d, xmlText, 0, 40)
		s.Leave()
		return pngChunk(b, "tEXt", d)
	case 1:
		return pngChunk(b, "gAMA", s.draw(Value, lblDraw, 4))
	default:
		d := s.draw(Value, lblDraw, 9)
		var p [9]byte
		copy(p[:], d)
		p[8] &= 1 // unit: 0 or 1
		return pngChunk(b, "pHYs", p[:])
	}
}

// pngChunk appends a chunk with its length and CRC.
func pngChunk(b []byte, typ string, data []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	start := len(b)
	b = append(b, typ...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// pngZlib compresses raw as a zlib stream (RFC 1950) by mode (0–31): 0–11
// stored deflate blocks, 12–29 one fixed-Huffman block with run-length
// matches (both written here, no allocation beyond the output), 30 and 31
// compress/zlib at levels 1 and 9 (a real LZ77 compressor, but it allocates
// ~600 KB per call, hence rare).
func pngZlib(raw []byte, mode int) []byte {
	switch {
	case mode < 12:
		return zlibStored(raw)
	case mode < 30:
		return zlibFixed(raw)
	case mode == 30:
		return pngDeflate(raw, 1)
	default:
		return pngDeflate(raw, 9)
	}
}

// pngDeflate is the compress/zlib path of pngZlib.
func pngDeflate(raw []byte, level int) []byte {
	var buf bytes.Buffer
	zw, err := zlib.NewWriterLevel(&buf, level)
	if err != nil {
		panic(err) // levels are constants here
	}
	zw.Write(raw)
	zw.Close()
	return buf.Bytes()
}
