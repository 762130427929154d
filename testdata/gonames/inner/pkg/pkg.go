// Package pkg holds the go-names fixture's failing code.
package pkg

// Decoder reads chunks.
type Decoder struct {
	n int
}

// ReadChunk panics on an input starting with 'P' and loops forever on one
// starting with 'L'.
//
//go:noinline
func (d *Decoder) ReadChunk(data []byte) {
	switch data[0] {
	case 'P':
		panic("go-names fixture: bad chunk")
	case 'L':
		for i := 0; ; i++ {
			d.n += int(data[i%len(data)])
			if d.n < 0 {
				return
			}
		}
	}
}

// Number is what Sum adds.
type Number interface{ ~byte | ~int }

// Sum never returns: a fuel hang in a generic function (Go names it
// pkg.Sum[go.shape.uint8] in its table, and prints pkg.Sum[...]).
//
//go:noinline
func Sum[T Number](xs []T) T {
	var s T
	for i := 0; ; i++ {
		s += xs[i%len(xs)]
		if s == 0 && i < 0 {
			return s
		}
	}
}
