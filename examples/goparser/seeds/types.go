package shapes

// Shape has an area.
type Shape interface {
	Area() float64
}

type Rect struct{ W, H float64 }

func (r Rect) Area() float64 { return r.W * r.H }

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

var (
	unit    = Rect{1, 1}
	names   = map[string]int{"a": 1, "b": 2}
	pending chan<- []*Rect
)

const (
	A = iota << 1
	B
)
