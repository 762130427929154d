package generators_test

import (
	"fmt"
	"strconv"

	"github.com/wafer-fuzz/wafer/generators"
)

// points is a user generator: a typed frame per object, a structural count,
// value leaves.
func points(s *generators.Source) []byte {
	var b []byte
	generators.Repeat(s, 1, 4, func(s *generators.Source, i int) {
		generators.Call(s, "Point", func(s *generators.Source) struct{} {
			b = strconv.AppendInt(b, int64(s.Int(-100, 100)), 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(s.Int(-100, 100)), 10)
			b = append(b, ';')
			return struct{}{}
		})
	})
	return b
}

// Example runs a user generator on a short sequence: the 8 bytes are read
// in order (a count, then two 2-byte integers per point), the rest of the
// draws come from the sequence-seeded PRNG, and the used sequence replays
// to the same input.
func Example() {
	seq := generators.FromBytes([]byte{0x01, 0x03, 0x80, 0x10, 0x90, 0x20, 0x00, 0x00})
	input, used := generators.Run(points, seq, generators.Options{})
	again, _ := generators.Run(points, used, generators.Options{})
	fmt.Printf("%s\n%s\n", input, again)
	for i := range used.NumChoices() {
		c := used.Choice(i)
		fmt.Println(c.Kind, c.Types, len(c.Bytes))
	}
	fmt.Println(used.TypeChoices("Point"))
	// Output:
	// -84,-68;-100,-59;
	// -84,-68;-100,-59;
	// structural [] 2
	// value [Point] 2
	// value [Point] 2
	// value [Point] 2
	// value [Point] 2
	// [1 2 3 4]
}
