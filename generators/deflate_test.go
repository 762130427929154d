package generators

import (
	"bytes"
	"compress/zlib"
	"io"
	"math/rand/v2"
	"testing"
)

// TestZlibEncoders: compress/zlib decodes both hand-written encoders'
// streams back to the input, checksums included.
func TestZlibEncoders(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 15))
	inputs := map[string][]byte{
		"empty":   {},
		"one":     {7},
		"run3":    {1, 1, 1, 1},
		"run258":  bytes.Repeat([]byte{9}, 259),
		"run300":  bytes.Repeat([]byte{0}, 300),
		"run1000": append(bytes.Repeat([]byte{0xff}, 1000), 1, 2, 3),
		"big":     bytes.Repeat([]byte("abc"), 30000),
	}
	for n := 1; n < 300; n += 7 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(3)) * 100 // plenty of short runs
		}
		inputs[string(rune('A'+n%26))+string(rune('0'+n%10))+"mixed"] = b
	}
	for name, raw := range inputs {
		for _, enc := range []struct {
			name string
			f    func([]byte) []byte
		}{{"stored", zlibStored}, {"fixed", zlibFixed}} {
			zr, err := zlib.NewReader(bytes.NewReader(enc.f(raw)))
			if err != nil {
				t.Fatalf("%s/%s: %v", name, enc.name, err)
			}
			got, err := io.ReadAll(zr)
			if err != nil || !bytes.Equal(got, raw) {
				t.Fatalf("%s/%s: %v, %d bytes back of %d", name, enc.name, err, len(got), len(raw))
			}
		}
	}
	if f, s := len(zlibFixed(inputs["run1000"])), len(zlibStored(inputs["run1000"])); f >= s/10 {
		t.Errorf("fixed encoder: %d bytes for a run of 1000, stored %d", f, s)
	}
}
