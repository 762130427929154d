package wasip1

import "bytes"

// TailBuffer is a bounded output capture: it keeps the last Limit() bytes
// written to it and counts every byte ever written. The runtime keeps one
// per stream per worker so a crash report can show the end of the target's
// output without the target being able to exhaust host memory.
//
// Write never allocates and never fails. A TailBuffer is not safe for
// concurrent use. The zero value keeps nothing and only counts.
type TailBuffer struct {
	ring  []byte // len(ring) is the limit
	start int    // index of the oldest retained byte
	n     int    // retained bytes, <= len(ring)
	total uint64 // bytes written since the last Reset

	// The mark (CaptureFrom): from the last line that starts with one of
	// marks, up to len(ring) bytes, kept whatever follows.
	marks  []string
	line   []byte // the start of the current line, up to the longest mark
	mark   []byte
	inMark bool
}

// CaptureFrom makes the buffer also keep, from the last line that starts
// with one of prefixes, the next Limit() bytes (Mark): a program's last
// words that a long output after them (a Go panic's goroutine trace, 200
// frames deep) would push out of the tail.
func (b *TailBuffer) CaptureFrom(prefixes ...string) {
	b.marks = prefixes
	longest := 0
	for _, p := range prefixes {
		longest = max(longest, len(p))
	}
	b.line = make([]byte, 0, longest)
	b.mark = make([]byte, 0, len(b.ring))
}

// Mark returns the bytes captured from the last line that starts with a
// prefix given to CaptureFrom (nil when none did since the last Reset).
// It aliases the buffer until the next Write or Reset.
func (b *TailBuffer) Mark() []byte {
	if b == nil || !b.inMark {
		return nil
	}
	return b.mark
}

// watch follows p for the marks: it keeps the start of the current line
// (up to the longest mark) to see a mark that arrives in pieces, and
// appends to the capture while one is open.
func (b *TailBuffer) watch(p []byte) {
	for len(p) > 0 {
		seg := p // up to and including the next newline
		if nl := bytes.IndexByte(p, '\n'); nl >= 0 {
			seg = p[:nl+1]
		}
		p = p[len(seg):]
		if before := len(b.line); before < cap(b.line) {
			b.line = append(b.line, seg[:min(len(seg), cap(b.line)-before)]...)
			for _, m := range b.marks {
				if before < len(m) && len(b.line) >= len(m) && string(b.line[:len(m)]) == m {
					// a mark line: the capture restarts at its start
					b.inMark = true
					b.mark = append(b.mark[:0], b.line[:before]...)
					break
				}
			}
		}
		if b.inMark {
			b.mark = append(b.mark, seg[:min(len(seg), cap(b.mark)-len(b.mark))]...)
		}
		if seg[len(seg)-1] == '\n' {
			b.line = b.line[:0]
		}
	}
}

// NewTailBuffer returns a TailBuffer keeping the last limit bytes
// (limit <= 0 keeps nothing and only counts).
func NewTailBuffer(limit int) *TailBuffer {
	if limit < 0 {
		limit = 0
	}
	return &TailBuffer{ring: make([]byte, limit)}
}

// Write appends p, dropping the oldest bytes beyond the limit. It always
// returns len(p), nil (io.Writer).
func (b *TailBuffer) Write(p []byte) (int, error) {
	b.total += uint64(len(p))
	if b.marks != nil {
		b.watch(p)
	}
	size := len(b.ring)
	if size == 0 || len(p) == 0 {
		return len(p), nil
	}
	if len(p) >= size {
		copy(b.ring, p[len(p)-size:])
		b.start, b.n = 0, size
		return len(p), nil
	}
	w := b.start + b.n
	if w >= size {
		w -= size
	}
	c := copy(b.ring[w:], p)
	copy(b.ring, p[c:])
	b.n += len(p)
	if b.n > size {
		b.start += b.n - size
		if b.start >= size {
			b.start -= size
		}
		b.n = size
	}
	return len(p), nil
}

// AppendTo appends the retained bytes, oldest first, to dst.
func (b *TailBuffer) AppendTo(dst []byte) []byte {
	if b == nil || b.n == 0 {
		return dst
	}
	end := b.start + b.n
	if end <= len(b.ring) {
		return append(dst, b.ring[b.start:end]...)
	}
	dst = append(dst, b.ring[b.start:]...)
	return append(dst, b.ring[:end-len(b.ring)]...)
}

// Bytes returns a copy of the retained bytes, oldest first (nil when empty).
func (b *TailBuffer) Bytes() []byte {
	if b == nil || b.n == 0 {
		return nil
	}
	return b.AppendTo(make([]byte, 0, b.n))
}

// String returns the retained bytes as a string.
func (b *TailBuffer) String() string { return string(b.Bytes()) }

// Len is the number of retained bytes.
func (b *TailBuffer) Len() int {
	if b == nil {
		return 0
	}
	return b.n
}

// Limit is the most bytes the buffer retains.
func (b *TailBuffer) Limit() int {
	if b == nil {
		return 0
	}
	return len(b.ring)
}

// Total is the number of bytes written since the last Reset, retained or
// not.
func (b *TailBuffer) Total() uint64 {
	if b == nil {
		return 0
	}
	return b.total
}

// Truncated reports whether bytes were dropped (Total() > Len()).
func (b *TailBuffer) Truncated() bool { return b.Total() > uint64(b.Len()) }

// Reset empties the buffer and the count, keeping the limit.
func (b *TailBuffer) Reset() {
	if b == nil {
		return
	}
	b.start, b.n, b.total = 0, 0, 0
	b.line, b.mark, b.inMark = b.line[:0], b.mark[:0], false
}
