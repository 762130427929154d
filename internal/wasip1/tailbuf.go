package wasip1

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
}
